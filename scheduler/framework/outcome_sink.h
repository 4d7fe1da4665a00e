#pragma once
// OutcomeSink: where the scheduler reports what became of each attempt. It is part of the plugin
// contract's vocabulary, not of the Scheduler, so that the writers (informers/writers), simulate's
// recorder and tests implement it while linking only the framework.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/framework/pod_info.h"

namespace berth::framework {

// Why one attempt ended as it did, per node (for `berth simulate --explain` and -v logs).
struct Explanation {
  std::map<std::string, std::string> filter;  // node -> reasons joined by ", "
  std::vector<std::string> score_plugins;     // plugin names, parallel to each node's scores
  // node -> (per plugin normalised scores, weighted total), in snapshot order.
  std::vector<std::pair<std::string, std::pair<std::vector<int64_t>, int64_t>>> scores;
};

// Where the scheduler reports outcomes. Called from the scheduling thread (failures of the
// scheduling cycle) and from binding threads (binding results): implementations lock.
class OutcomeSink {
 public:
  virtual ~OutcomeSink() = default;
  // The pod was bound to `node` (binding cycle finished).
  virtual void Scheduled(const PodInfo& pod, const std::string& node,
                         const std::string& profile) = 0;
  // The attempt failed: reason "Unschedulable" or "SchedulerError"; message is the
  // FailedScheduling text in full (the PodScheduled condition's message; an event's note is cut
  // to 1024 bytes by TruncateNote, as upstream's truncateMessage).
  virtual void Failed(const PodInfo& pod, const std::string& reason, const std::string& message,
                      const std::string& profile) = 0;
  // A scheduling attempt started (first attempt order for simulate's output).
  virtual void Attempted(const PodInfo& pod) {}
  // Per-node detail of the attempt, when explanations are enabled.
  virtual void Explain(const PodInfo& pod, const Explanation& e) {}
};

}  // namespace berth::framework
