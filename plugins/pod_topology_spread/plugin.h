#pragma once
// Internal to PodTopologySpread: the plugin class (its extension points live in filtering.cc,
// explain.cc, scoring.cc and pod_topology_spread.cc) and the per-cycle states.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "plugins/pod_topology_spread/common.h"
#include "plugins/pod_topology_spread/topology_memo.h"
#include "scheduler/framework/explain.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/plugin.h"

namespace berth::plugins::pod_topology_spread {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

// Matching pods per topology value of one constraint, with the global minimum kept exact under
// the ±1 updates of AddPod/RemovePod through a histogram (count -> number of domains).
class DomainCounts {
 public:
  // Building: adds `count` to the domain (creating it). Call Finish() once afterwards.
  void Add(std::string_view value, int count);
  void Finish();

  int Get(const std::string& value) const {
    auto it = counts_.find(value);
    return it == counts_.end() ? 0 : it->second;
  }
  size_t NumDomains() const { return counts_.size(); }
  // INT32_MAX when there is no domain.
  int Min() const;
  // Moves one domain by delta (creating it when absent), keeping the minimum exact.
  void Update(const std::string& value, int delta);

 private:
  StringMap<int> counts_;
  std::map<int, int> histogram_;
};

// The key of PreFilterState in CycleState.
const framework::StateKey& PreFilterKey();

// Written by PreFilter, read by Filter and ExplainFilter, updated by AddPod/RemovePod.
struct PreFilterState final : framework::StateData {
  std::shared_ptr<const std::vector<Constraint>> constraints;
  std::vector<char> self_match;  // per constraint: the incoming pod matches its selector
  std::vector<DomainCounts> domains;

  // Global minimum for the skew, 0 while fewer than minDomains domains are eligible.
  int MinMatch(size_t i) const {
    const Constraint& c = (*constraints)[i];
    if (domains[i].NumDomains() < static_cast<size_t>(c.min_domains)) return 0;
    return domains[i].Min();
  }
  bool SchedulingCycleOnly() const override { return true; }
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

// Written by PreScore, read by Score and NormalizeScore.
struct PreScoreState final : framework::StateData {
  std::shared_ptr<const std::vector<Constraint>> constraints;
  // Filtered nodes missing a topology key (not scored).
  std::unordered_set<std::string> ignored_nodes;
  // Per non-hostname constraint: topology value -> index into pod_counts[i].
  std::vector<StringMap<int>> domain_index;
  std::vector<std::vector<int64_t>> pod_counts;
  std::vector<double> normalizing_weight;

  bool SchedulingCycleOnly() const override { return true; }
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

class PodTopologySpread final : public framework::PreFilterPlugin,
                                public framework::PreFilterExtensions,
                                public framework::FilterPlugin,
                                public framework::PreScorePlugin,
                                public framework::ScorePlugin,
                                public framework::EnqueueExtensions,
                                public framework::FilterExplainer {
 public:
  PodTopologySpread(std::vector<api::TopologySpreadConstraint> defaults, bool system_defaulted,
                    framework::Handle* handle)
      : default_constraints_(std::move(defaults)),
        system_defaulted_(system_defaulted),
        handle_(handle) {}

  std::string_view Name() const override;

  // filtering.cc
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult* result) const override;
  const framework::PreFilterExtensions* Extensions() const override { return this; }
  framework::Status AddPod(framework::CycleState& state, const framework::PodInfo& pod_to_schedule,
                           const framework::PodInfo& pod_to_add,
                           const framework::NodeInfo& node) const override;
  framework::Status RemovePod(framework::CycleState& state,
                              const framework::PodInfo& pod_to_schedule,
                              const framework::PodInfo& pod_to_remove,
                              const framework::NodeInfo& node) const override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  // explain.cc
  void ExplainFilter(const framework::CycleState& state, const framework::PodInfo& pod,
                     const framework::NodeInfo& node, const framework::Status& rejection,
                     framework::ExplainDetail detail,
                     std::vector<framework::FilterNeed>* out) const override;

  // scoring.cc
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             const std::vector<const framework::NodeInfo*>& nodes) const override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) const override;

  // pod_topology_spread.cc
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  // The pod's constraints for `action` (DoNotSchedule or ScheduleAnyway): its own, or the
  // defaults with the default selector (upstream's getConstraints / buildDefaultConstraints).
  std::vector<Constraint> GetConstraints(const api::Pod& pod, std::string_view action) const;
  // Upstream v1.37's isSchedulableAfterAssignedPodChange.
  framework::QueueingHint HintAfterPodChange(const api::Pod& pod,
                                             const framework::EventObject& old_obj,
                                             const framework::EventObject& new_obj) const;
  // Upstream v1.37's isSchedulableAfterTargetPodChange: the rejected pod's own update (any other
  // pod: QueueSkip).
  framework::QueueingHint HintAfterTargetPodChange(const api::Pod& pod,
                                                   const framework::EventObject& old_obj,
                                                   const framework::EventObject& new_obj) const;
  framework::QueueingHint HintAfterNodeChange(const api::Pod& pod,
                                              const framework::EventObject& old_obj,
                                              const framework::EventObject& new_obj) const;

 private:
  // Splits [0, n) into contiguous shards run on the handle's parallelizer (inline without one
  // or for small n); fn(begin, end, shard). Returns the number of shards used.
  int ForShards(int n, const std::function<void(int, int, int)>& fn) const;
  void UpdateWithPod(PreFilterState& s, const api::Pod& updated, const api::Pod& preemptor,
                     const api::Node* node, int delta) const;

  std::vector<api::TopologySpreadConstraint> default_constraints_;
  bool system_defaulted_;
  framework::Handle* handle_;  // may be null (unit tests without a handle)

  // Guards memo_ (PreFilter holds it while its workers read the refreshed views).
  mutable std::mutex memo_mu_;
  mutable TopologyMemo memo_;
};

}  // namespace berth::plugins::pod_topology_spread
