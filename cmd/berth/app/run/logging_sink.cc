#include "cmd/berth/app/run/logging_sink.h"

#include <cstdio>

#include "base/log.h"

namespace berth::run {

void LoggingSink::Attempted(const framework::PodInfo& pod) {
  BERTH_INFO_S(3, "Attempting to schedule pod", "pod", log::KObj(pod.key));
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  if (started_.size() >= kMaxPending) {
    std::erase_if(started_, [&](const auto& e) { return now - e.second > kForgetAfter; });
  }
  started_[pod.Uid()] = now;
}

void LoggingSink::Scheduled(const framework::PodInfo& pod, const std::string& node,
                            const std::string& profile) {
  // Upstream logs this at V(2); berth keeps one line per decision at the default level.
  BERTH_INFO_S(0, "Successfully bound pod to node", "pod", log::KObj(pod.key), "node", node,
               "profile", profile, "took", Took(pod.Uid()));
  next_.Scheduled(pod, node, profile);
}

void LoggingSink::Failed(const framework::PodInfo& pod, const std::string& reason,
                         const std::string& message, const std::string& profile) {
  if (reason == "Unschedulable") {
    BERTH_INFO_S(0, "Unable to schedule pod; no fit; waiting", "pod", log::KObj(pod.key), "err",
                 message, "profile", profile, "took", Took(pod.Uid()));
  } else {
    BERTH_ERROR_S(message, "Error scheduling pod; retrying", "pod", log::KObj(pod.key), "reason",
                  reason, "profile", profile, "took", Took(pod.Uid()));
  }
  next_.Failed(pod, reason, message, profile);
}

size_t LoggingSink::pending() const {
  std::lock_guard lock(mu_);
  return started_.size();
}

std::string LoggingSink::Took(const std::string& uid) {
  std::lock_guard lock(mu_);
  auto it = started_.find(uid);
  if (it == started_.end()) return "?";
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - it->second)
          .count();
  started_.erase(it);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1fms", ms);
  return buf;
}

}  // namespace berth::run
