#pragma once
// WaitingPod: a pod that a Permit plugin asked to Wait (upstream's framework.WaitingPod).
// It is resolved exactly once: allowed (every pending plugin called Allow), rejected (any plugin
// called Reject, or its timeout expired). Thread-safe: Allow/Reject come from the scheduling
// thread or timers; Wait() blocks a binding worker until resolved.

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/framework/clock.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/framework/status.h"

namespace berth::framework {

class WaitingPod {
 public:
  // plugin -> deadline for each plugin that returned Wait.
  WaitingPod(PodInfoPtr pod, std::string node, std::map<std::string, TimePoint> deadlines,
             TimePoint created);

  const PodInfo& pod_info() const { return *pod_; }
  const PodInfoPtr& pod_ptr() const { return pod_; }
  const std::string& node() const { return node_; }
  TimePoint created() const { return created_; }
  std::vector<std::string> GetPendingPlugins() const;

  // Marks `plugin` as allowing; resolves Success when no plugin is pending any more.
  void Allow(const std::string& plugin);
  // Resolves Unschedulable with msg (a no-op once resolved).
  void Reject(const std::string& plugin, const std::string& msg);
  // Rejects with upstream's timeout message for every plugin whose deadline is <= now.
  // Returns true if that resolved the pod.
  bool ExpireIfDue(TimePoint now);
  // Earliest pending deadline (nullopt when resolved).
  std::optional<TimePoint> NextDeadline() const;

  // Blocks until resolved; returns Success or the Unschedulable rejection (with plugin set).
  Status Wait();
  // Non-blocking: the result if resolved.
  std::optional<Status> TryResult() const;

 private:
  void ResolveLocked(Status s);

  const PodInfoPtr pod_;
  const std::string node_;
  const TimePoint created_;
  mutable std::mutex mu_;  // guards pending_, result_
  std::condition_variable cv_;
  std::map<std::string, TimePoint> pending_;
  std::map<std::string, TimePoint> all_deadlines_;
  std::optional<Status> result_;
};

// Upstream's cap on a Permit wait.
inline constexpr Duration kMaxPermitTimeout = std::chrono::minutes(15);

}  // namespace berth::framework
