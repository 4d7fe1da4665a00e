#include "scheduler/framework/status.h"

namespace berth::framework {

std::string_view CodeName(Code c) {
  switch (c) {
    case Code::kSuccess:
      return "Success";
    case Code::kError:
      return "Error";
    case Code::kUnschedulable:
      return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::kWait:
      return "Wait";
    case Code::kSkip:
      return "Skip";
    case Code::kPending:
      return "Pending";
  }
  return "Unknown";
}

const std::vector<std::string>& Status::reasons() const {
  static const std::vector<std::string> kNone;
  return rep_ ? rep_->reasons : kNone;
}

const std::string& Status::plugin() const {
  static const std::string kNone;
  return rep_ ? rep_->plugin : kNone;
}

std::string Status::Message() const {
  std::string out;
  const auto& r = reasons();
  for (size_t i = 0; i < r.size(); ++i) {
    if (i > 0) out += ", ";
    out += r[i];
  }
  return out;
}

}  // namespace berth::framework
