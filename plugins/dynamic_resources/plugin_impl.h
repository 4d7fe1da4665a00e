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
  // The pod's claims, in spec.resourceClaims order, then (DRAExtendedResource) the claim for its
  // DRA-backed extended resources: one a previous cycle created, or an in-memory template named
  // kExtendedClaimInMemName that PreBind creates (upstream's claimStore).
  std::vector<ClaimPtr> claims;
  size_t num_user_claims = 0;
  std::string initial_extended_uid;  // the extended claim's uid in PreFilter (in flight by it)
  // The pod's scalar requests (upstream's draExtendedResource.podScalarResources), set when
  // some DeviceClass serves one of them.
  std::vector<std::pair<std::string, int64_t>> pod_scalars;
  std::set<std::string> dra_backed;  // those of pod_scalars a DeviceClass serves
  // claims[num_user_claims], or null.
  const ClaimPtr* ExtendedClaim() const {
    return claims.size() > num_user_claims ? &claims[num_user_claims] : nullptr;
  }
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
  struct NodeAllocation {
    std::vector<api::AllocationResult> results;  // claims to allocate first, then pending ones
    // The node's variant of the extended claim (its requests), and which container's extended
    // resource each request serves.
    ClaimPtr extended_claim;
    std::vector<api::ContainerExtendedResourceRequest> mappings;
  };
  std::map<std::string, NodeAllocation> node_allocations;
};

// The name of the extended resource claim before PreBind creates it: not a valid object name,
// so it cannot clash with a real claim.
inline constexpr const char kExtendedClaimInMemName[] = "<extended-resources>";

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
  // DynamicResourcesArgs, defaulted: filterTimeout 10s (0: none), bindingTimeout 600s.
  struct Args {
    std::chrono::nanoseconds filter_timeout = std::chrono::seconds(10);
    framework::Duration binding_timeout = std::chrono::seconds(600);
  };
  DynamicResources(framework::Handle* handle, Args args)
      : handle_(handle), args_(args), tracker_(&handle->objects().resource_claims) {}
  explicit DynamicResources(framework::Handle* handle) : DynamicResources(handle, Args{}) {}

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
  Result<ClaimPtr> BindClaim(CycleData& data, size_t index, const api::Pod& pod,
                             const std::string& node) const;
  // DRAExtendedResource (extended_resources.cc).
  // PreFilter: the pod's extended resource claim (found or an in-memory template), or null when
  // no DeviceClass serves any extended resource the pod requests. Sets data.pod_scalars.
  ClaimPtr PreFilterExtendedResources(const api::Pod& pod, CycleData& data) const;
  // Filter: the node's variant of the extended claim (null: nothing to allocate by DRA here)
  // and its request mappings; a non-success status rejects the node.
  framework::Status FilterExtendedResources(
      const CycleData& data, const api::Pod& pod, const framework::NodeInfo& node,
      ClaimPtr* node_claim, std::vector<api::ContainerExtendedResourceRequest>* mappings) const;
  // Unreserve's part for the extended claim: forget its in-flight allocation and delete it
  // when PreBind created it already.
  void UnreserveExtendedResourceClaim(CycleData& data) const;
  // PreBind: waits (each second, up to 120 s) until the claims informer has `claim`, which
  // PreBind just created (upstream's waitForExtendedClaimInAssumeCache; gives up silently).
  void WaitForInformer(const api::ResourceClaim& claim) const;
  // PreBind: records the created claim in the pod's status.extendedResourceClaimStatus.
  Ok PatchPodExtendedStatus(
      const api::Pod& pod, const api::ResourceClaim& claim,
      const std::vector<api::ContainerExtendedResourceRequest>& mappings) const;
  // Removes the delete-protection finalizer and deletes the claim (upstream's deleteClaim).
  Ok DeleteClaim(api::ResourceClaim claim) const;
  framework::QueueingHint HintAfterClaimChange(const api::Pod& pod,
                                               const framework::EventObject& old_obj,
                                               const framework::EventObject& new_obj) const;

  // Device binding conditions (binding.cc): upstream's isClaimReadyForBinding (an error when a
  // binding failure condition is true) and isClaimTimeout.
  static Result<bool> ClaimReadyForBinding(const api::ResourceClaim& claim);
  bool ClaimBindingTimedOut(const api::ResourceClaim& claim) const;
  // PreBind's wait for the drivers to satisfy the binding conditions of the pod's devices.
  framework::Status WaitForBindingConditions(CycleData& data, const api::Pod& pod,
                                             const std::string& node) const;

  framework::Handle* const handle_;
  const Args args_;
  mutable ClaimTracker tracker_;
  CelSelectors selectors_;
};

// upstream's createRequestsAndMappings (extended_resources.cc): for the extended resources
// `resources` (sorted) that a class serves, the device requests of the pod's extended claim,
// sorted by name ("container-<index>-request-<index of the resource in the container>"), and
// which request each container's resource uses.
void CreateRequestsAndMappings(const api::Pod& pod, const std::vector<std::string>& resources,
                               const api::Store<api::DeviceClass>& classes,
                               std::vector<api::DeviceRequest>* requests,
                               std::vector<api::ContainerExtendedResourceRequest>* mappings);

// CycleData of the cycle, or null when PreFilter did not run.
CycleData* ReadCycleData(const framework::CycleState& state);

}  // namespace berth::plugins::dynamic_resources
