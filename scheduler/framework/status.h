#pragma once
// Status: the outcome of a plugin call, with upstream's codes and reason strings.
//   kSuccess                      ok (a default-constructed Status is Success; it allocates nothing)
//   kError                        internal error: aborts the cycle; the pod backs off (SchedulerError)
//   kUnschedulable                rejected; preemption (PostFilter) may help
//   kUnschedulableAndUnresolvable rejected; preemption would not help on this node
//   kWait                         Permit only: hold the pod as a waiting pod
//   kSkip                         PreFilter/PreScore: skip the coupled Filter/Score; Bind: not mine
//   kPending                      fine so far, but wait for an external actor (no backoff penalty)
// Message() joins the reasons with ", " as upstream's Status.Message() does.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::framework {

enum class Code : uint8_t {
  kSuccess = 0,
  kError = 1,
  kUnschedulable = 2,
  kUnschedulableAndUnresolvable = 3,
  kWait = 4,
  kSkip = 5,
  kPending = 6,
};

std::string_view CodeName(Code c);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string reason) : code_(code) {
    if (!reason.empty()) reasons_.push_back(std::move(reason));
  }
  Status(Code code, std::vector<std::string> reasons) : code_(code), reasons_(std::move(reasons)) {}

  static Status Success() { return Status(); }
  static Status Error(std::string msg) { return Status(Code::kError, std::move(msg)); }
  static Status Unschedulable(std::string reason) {
    return Status(Code::kUnschedulable, std::move(reason));
  }
  static Status Unresolvable(std::string reason) {
    return Status(Code::kUnschedulableAndUnresolvable, std::move(reason));
  }
  static Status Skip() { return Status(Code::kSkip, std::string()); }
  static Status Wait() { return Status(Code::kWait, std::string()); }

  Code code() const { return code_; }
  bool IsSuccess() const { return code_ == Code::kSuccess; }
  bool IsSkip() const { return code_ == Code::kSkip; }
  bool IsWait() const { return code_ == Code::kWait; }
  bool IsError() const { return code_ == Code::kError; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending.
  bool IsRejected() const {
    return code_ == Code::kUnschedulable || code_ == Code::kUnschedulableAndUnresolvable ||
           code_ == Code::kPending;
  }

  const std::vector<std::string>& reasons() const { return reasons_; }
  std::string Message() const;
  void AppendReason(std::string r) { reasons_.push_back(std::move(r)); }

  // The plugin that produced a failure (set by the runtime).
  const std::string& plugin() const { return plugin_; }
  Status& WithPlugin(std::string_view p) & {
    plugin_ = p;
    return *this;
  }
  Status&& WithPlugin(std::string_view p) && {
    plugin_ = p;
    return std::move(*this);
  }

 private:
  Code code_ = Code::kSuccess;
  std::vector<std::string> reasons_;
  std::string plugin_;
};

}  // namespace berth::framework
