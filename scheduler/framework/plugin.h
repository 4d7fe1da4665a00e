#pragma once
// The plugin contract: one interface per extension point, as upstream's framework/interface.go.
// A plugin class derives from every interface it implements; the runtime discovers them with
// dynamic_cast once, when the profile is built. Plugins are stateless across cycles (per-pod data
// goes in CycleState) and must not throw. Filter/Score/PreFilterExtensions may run concurrently
// on worker threads for different nodes: they read CycleState and the NodeInfo, write nothing
// shared.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"

namespace berth::framework {

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
};

// Before a pod enters activeQ: non-Success keeps it gated (unschedulable pool).
class PreEnqueuePlugin : public virtual Plugin {
 public:
  virtual Status PreEnqueue(const PodInfo& pod) const = 0;
};

// Exactly one per profile; orders activeQ.
class QueueSortPlugin : public virtual Plugin {
 public:
  virtual bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
};

// Cluster events that may make a pod this plugin rejected schedulable again.
class EnqueueExtensions : public virtual Plugin {
 public:
  virtual std::vector<ClusterEventWithHint> EventsToRegister() const = 0;
};

// Incremental updates of PreFilter state when the runtime adds (nominated) or removes
// (preemption victims) pods on a node while evaluating it.
class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  virtual Status AddPod(CycleState& state, const PodInfo& pod_to_schedule,
                        const PodInfo& pod_to_add, const NodeInfo& node) const = 0;
  virtual Status RemovePod(CycleState& state, const PodInfo& pod_to_schedule,
                           const PodInfo& pod_to_remove, const NodeInfo& node) const = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // May narrow the nodes (result->node_names), return Skip to skip this plugin's Filter,
  // or reject the pod outright.
  virtual Status PreFilter(CycleState& state, const PodInfo& pod,
                           const std::vector<const NodeInfo*>& nodes,
                           PreFilterResult* result) const = 0;
  virtual const PreFilterExtensions* Extensions() const { return nullptr; }
};

class FilterPlugin : public virtual Plugin {
 public:
  virtual Status Filter(const CycleState& state, const PodInfo& pod,
                        const NodeInfo& node) const = 0;
};

class PostFilterPlugin : public virtual Plugin {
 public:
  virtual Status PostFilter(CycleState& state, const PodInfo& pod,
                            const NodeToStatus& filtered_node_status,
                            PostFilterResult* result) const = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  // Skip skips this plugin's Score for the pod.
  virtual Status PreScore(CycleState& state, const PodInfo& pod,
                          const std::vector<const NodeInfo*>& nodes) const = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  virtual Status Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                       int64_t* score) const = 0;
  // Optional: when this pod's score is known to be the same on every node (a plugin with nothing
  // to weigh for it), return it; the framework then counts it on every node without calling Score
  // per node or NormalizeScore (the value is the final, normalised score).
  virtual std::optional<int64_t> UniformScore(const CycleState& state, const PodInfo& pod) const {
    return std::nullopt;
  }
  // Optional: rescale this plugin's scores of all nodes into [0, 100].
  virtual bool HasNormalizeScore() const { return false; }
  virtual Status NormalizeScore(const CycleState& state, const PodInfo& pod,
                                NodeScoreList& scores) const {
    return Status();
  }
};

class ReservePlugin : public virtual Plugin {
 public:
  virtual Status Reserve(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
  // Must be idempotent; called in reverse order on any later failure.
  virtual void Unreserve(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // Success, Unschedulable/Error (reject), or Wait with *timeout set.
  virtual Status Permit(CycleState& state, const PodInfo& pod, const std::string& node,
                        Duration* timeout) const = 0;
};

class PreBindPlugin : public virtual Plugin {
 public:
  virtual Status PreBind(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
};

class BindPlugin : public virtual Plugin {
 public:
  // Skip = not mine, the next Bind plugin is tried.
  virtual Status Bind(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  virtual void PostBind(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
};

// Default normalisation (upstream's helper.DefaultNormalizeScore): scale to [0, max_priority] by
// the highest score; reverse flips it. All zeros with reverse -> every node gets max_priority.
void DefaultNormalizeScore(int64_t max_priority, bool reverse, NodeScoreList& scores);

}  // namespace berth::framework
