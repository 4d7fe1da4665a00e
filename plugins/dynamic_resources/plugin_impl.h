#pragma once
// Internal to DynamicResources: the plugin class and its per-cycle state, shared by
// dynamic_resources.cc (PreEnqueue .. Score), binding.cc (Reserve, Unreserve, PreBind,
// PostFilter) and events.cc (queueing hints).

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "plugins/dynamic_resources/cel_selectors.h"
#include "plugins/dynamic_resources/claim_tracker.h"
#include "plugins/dynamic_resources/dynamic_resources.h"
#include "plugins/dynamic_resources/structured/allocator.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/plugin.h"

namespace berth::plugins::dynamic_resources {

using ClaimPtr = std::shared_ptr<const api::ResourceClaim>;

// What one scheduling cycle of one pod knows. Upstream's CycleState entry is a pointer that
// Clone shares; the cycle state here holds a shared_ptr to it for the same effect.
struct CycleData {
  std::vector<ClaimPtr> claims;  // the pod's claims, in spec.resourceClaims order
  struct ClaimInfo {
    std::optional<api::NodeSelector> available_on_nodes;  // of an allocated claim
    std::optional<api::AllocationResult> allocation;      // chosen in Reserve
  };
  std::vector<ClaimInfo> infos;
  // The allocator's inputs, kept alive with it.
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices;
  std::map<std::string, std::shared_ptr<const api::DeviceClass>> classes;
  std::unique_ptr<structured::Allocator> allocator;  // null: nothing to allocate

  std::mutex mu;  // guards unavailable and node_allocations (Filter runs in parallel)
  std::set<size_t> unavailable;  // claims whose allocation does not fit some node
  std::map<std::string, std::vector<api::AllocationResult>> node_allocations;
};

struct CycleStateData final : framework::StateData {
  std::shared_ptr<CycleData> data;
  std::unique_ptr<framework::StateData> Clone() const override {
    auto c = std::make_unique<CycleStateData>();
    c->data = data;
    return c;
  }
};

const framework::StateKey& StateKey();

class DynamicResources final : public framework::PreEnqueuePlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PostFilterPlugin,
                               public framework::ScorePlugin,
                               public framework::ReservePlugin,
                               public framework::PreBindPlugin,
                               public framework::EnqueueExtensions {
 public:
  explicit DynamicResources(framework::Handle* handle)
      : handle_(handle), tracker_(&handle->objects().resource_claims) {}

  std::string_view Name() const override { return kName; }

  framework::Status PreEnqueue(const framework::PodInfo& pod) const override;
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult* result) const override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  framework::Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& statuses,
                               framework::PostFilterResult* result) const override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) const override;
  std::optional<int64_t> UniformScore(const framework::CycleState& state,
                                      const framework::PodInfo& pod) const override;
  framework::Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            const std::string& node) const override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& node) const override;
  framework::Status PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                            const std::string& node) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  // Calls fn for each claim the pod names (upstream's foreachPodResourceClaim); fn may be empty.
  // The error is the reason the pod cannot be scheduled yet.
  Ok ForEachPodClaim(const api::Pod& pod, const std::function<void(ClaimPtr)>& fn) const;

 private:
  Result<ClaimPtr> BindClaim(CycleData& data, size_t index, const api::Pod& pod) const;
  framework::QueueingHint HintAfterClaimChange(const api::Pod& pod,
                                               const framework::EventObject& old_obj,
                                               const framework::EventObject& new_obj) const;

  framework::Handle* const handle_;
  mutable ClaimTracker tracker_;
  CelSelectors selectors_;
};

// CycleData of the cycle, or null when PreFilter did not run.
CycleData* ReadCycleData(const framework::CycleState& state);

}  // namespace berth::plugins::dynamic_resources
