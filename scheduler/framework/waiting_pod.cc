#include "scheduler/framework/waiting_pod.h"

#include <cmath>
#include <sstream>

namespace berth::framework {
namespace {

// Go's time.Duration String() for whole and fractional seconds/minutes as upstream prints in
// "rejected due to timeout after waiting 10s at plugin Coscheduling".
std::string GoDuration(Duration d) {
  int64_t us = d.count();
  if (us == 0) return "0s";
  std::ostringstream out;
  int64_t total_s = us / 1000000;
  int64_t frac_us = us % 1000000;
  if (total_s == 0) {
    if (us % 1000 == 0) {
      out << us / 1000 << "ms";
    } else {
      out << us << "µs";
    }
    return out.str();
  }
  int64_t h = total_s / 3600, m = (total_s % 3600) / 60, s = total_s % 60;
  if (h > 0) out << h << "h";
  if (h > 0 || m > 0) out << m << "m";
  out << s;
  if (frac_us != 0) {
    std::string f = std::to_string(frac_us);
    f = std::string(6 - f.size(), '0') + f;
    while (!f.empty() && f.back() == '0') f.pop_back();
    out << "." << f;
  }
  out << "s";
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
  for (const auto& [plugin, deadline] : pending_) {
    if (deadline <= now) {
      Duration waited = deadline - created_;
      ResolveLocked(Status(Code::kUnschedulable, "rejected due to timeout after waiting " +
                                                     GoDuration(waited) + " at plugin " + plugin)
                        .WithPlugin(plugin));
      return true;
    }
  }
  return false;
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
