#include "scheduler/framework/waiting_pod.h"

#include <cmath>
#include <sstream>

namespace berth::framework {
namespace {

// Go's time.Duration String() for whole and fractional seconds/minutes as upstream prints in
// "rejected due to timeout after waiting 10s at plugin Coscheduling".
// Fraction digits of `frac` (< 10^digits) with trailing zeros dropped: ".5", ".25", "".
std::string Fraction(int64_t frac, size_t digits) {
  if (frac == 0) return "";
  std::string f = std::to_string(frac);
  f = std::string(digits - f.size(), '0') + f;
  while (f.back() == '0') f.pop_back();
  return "." + f;
}

std::string GoDuration(Duration d) {
  int64_t us = d.count();
  if (us == 0) return "0s";
  std::ostringstream out;
  int64_t total_s = us / 1000000;
  int64_t frac_us = us % 1000000;
  if (total_s == 0) {
    // Like Go: sub-millisecond in µs, else ms with a fraction ("1.5ms", not "1500µs").
    if (us < 1000) {
      out << us << "µs";
    } else {
      out << us / 1000 << Fraction(us % 1000, 3) << "ms";
    }
    return out.str();
  }
  int64_t h = total_s / 3600, m = (total_s % 3600) / 60, s = total_s % 60;
  if (h > 0) out << h << "h";
  if (h > 0 || m > 0) out << m << "m";
  out << s << Fraction(frac_us, 6) << "s";
  return out.str();
}

}  // namespace

WaitingPod::WaitingPod(PodInfoPtr pod, std::string node, std::map<std::string, TimePoint> deadlines,
                       TimePoint created)
    : pod_(std::move(pod)),
      node_(std::move(node)),
      created_(created),
      pending_(deadlines),
      all_deadlines_(std::move(deadlines)) {}

std::vector<std::string> WaitingPod::GetPendingPlugins() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [p, d] : pending_) out.push_back(p);
  return out;
}

void WaitingPod::ResolveLocked(Status s) {
  if (result_) return;
  result_ = std::move(s);
  pending_.clear();
  cv_.notify_all();
}

void WaitingPod::Allow(const std::string& plugin) {
  std::lock_guard lock(mu_);
  if (result_) return;
  pending_.erase(plugin);
  if (pending_.empty()) ResolveLocked(Status());
}

void WaitingPod::Reject(const std::string& plugin, const std::string& msg) {
  std::lock_guard lock(mu_);
  ResolveLocked(Status(Code::kUnschedulable, msg).WithPlugin(plugin));
}

bool WaitingPod::ExpireIfDue(TimePoint now) {
  std::lock_guard lock(mu_);
  if (result_) return false;
  // The earliest expired deadline wins, as upstream's per-plugin timers would have fired first.
  const std::pair<const std::string, TimePoint>* due = nullptr;
  for (const auto& entry : pending_) {
    if (entry.second <= now && (due == nullptr || entry.second < due->second)) due = &entry;
  }
  if (due == nullptr) return false;
  const std::string plugin = due->first;
  Duration waited = due->second - created_;
  ResolveLocked(Status(Code::kUnschedulable, "rejected due to timeout after waiting " +
                                                 GoDuration(waited) + " at plugin " + plugin)
                    .WithPlugin(plugin));
  return true;
}

std::optional<TimePoint> WaitingPod::NextDeadline() const {
  std::lock_guard lock(mu_);
  if (result_) return std::nullopt;
  std::optional<TimePoint> best;
  for (const auto& [p, d] : pending_) {
    if (!best || d < *best) best = d;
  }
  return best;
}

Status WaitingPod::Wait() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return result_.has_value(); });
  return *result_;
}

std::optional<Status> WaitingPod::TryResult() const {
  std::lock_guard lock(mu_);
  return result_;
}

}  // namespace berth::framework
