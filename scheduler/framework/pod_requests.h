#pragma once
// What a pod requests, as upstream v1.37 counts it: component-helpers' resource.PodRequests and
// the three ways the scheduler calls it. Every place the scheduler sums a pod's requests goes
// through here (PodInfo, hence the cache's NodeInfo aggregates, preemption and simulate;
// NodeResourcesFit; the node-resources scorers).
//
//   containers   summed; init containers maxed in, restartable sidecars (restartPolicy Always)
//                accumulating and running alongside (KEP-753).
//   in-place     with use_status_resources, each container counts max(spec requests,
//   resize       status.containerStatuses[].allocatedResources, .resources.requests) — unless
//                the PodResizePending condition says Infeasible, when the spec is left out.
//                With in_place_pod_level_resize and the pod-level status maps
//                (status.allocatedResources and status.resources.requests) both present, those
//                replace the per-container status aggregation.
//   pod level    spec.resources.requests, when it names cpu, memory or hugepages-*, replaces the
//                container sum for exactly those resources (status-aware as above).
//   overhead     spec.overhead added last.
// Pure functions; safe from any thread.

#include <cstdint>

#include "api/types.h"
#include "scheduler/framework/resource.h"

namespace berth::framework {

// Upstream's PodResourcesOptions (the fields the scheduler sets).
struct PodRequestsOptions {
  bool use_status_resources = false;       // InPlacePodVerticalScaling (GA in v1.37)
  bool in_place_pod_level_resize = false;  // InPlacePodLevelResourcesVerticalScaling (beta, on)
  bool skip_pod_level_resources = false;   // !PodLevelResources (beta, on)
  bool exclude_overhead = false;
  // For a container that sets none of these, this amount is counted instead (the scorers'
  // 100m / 200Mi non-zero defaults). Null: none.
  const api::ResourceList* non_missing_container_requests = nullptr;
};

// resource.PodRequests: the pod's requests by resource name, in quantities.
api::ResourceList PodRequestList(const api::Pod& pod, const PodRequestsOptions& opts);

// resource.PodLimits with default options (as /metrics/resources calls it): container spec limits
// aggregated by the same sidecar formula, pod-level limits replacing the supported resources,
// overhead added to the limits that are set (non-zero). No status resources.
api::ResourceList PodLimitList(const api::Pod& pod);

// cpu, memory and hugepages-* (resource.IsSupportedPodLevelResource).
bool IsSupportedPodLevelResource(std::string_view name);
// spec.resources.requests names a supported resource (resource.IsPodLevelRequestsSet).
bool IsPodLevelRequestsSet(const api::Pod& pod);
// The PodResizePending condition's reason is Infeasible (resource.IsPodResizeInfeasible).
bool IsPodResizeInfeasible(const api::Pod& pod);

// Upstream's PodInfo.CalculateResource (v1.37 defaults: status resources, pod-level resources
// and pod-level in-place resize all on): the requests the cache adds to a NodeInfo, and the
// non-zero cpu/memory (100m / 200Mi for what neither a container nor the pod level sets).
struct PodResource {
  Resource requests;
  int64_t non_zero_cpu = 0;  // milli
  int64_t non_zero_memory = 0;
};
PodResource CalculatePodResource(const api::Pod& pod);
// CalculatePodResource(pod).requests (NodeResourcesFit's queueing hints use the same options).
Resource PodRequests(const api::Pod& pod);

// Upstream's extractPodScaleDown (framework/events.go): some resource the old pod requested
// (PodRequests as the cache counts it) is gone or smaller in the new one. The scheduler then
// reports an assigned pod's update with action::kUpdatePodScaleDown.
bool PodRequestsScaledDown(const api::Pod& old_pod, const api::Pod& new_pod);

// NodeResourcesFit's computePodResourceRequest: spec only (the pod is not running, so no status
// resources), pod-level resources honoured, overhead added.
Resource PodSpecRequests(const api::Pod& pod);

// NodeResourcesFit's scorer (calculatePodResourceRequest on the resourceAllocationScorer that
// upstream's NewFit builds from the strategy alone, with none of the feature flags set): spec
// container requests only — neither status resources nor pod-level requests count — with the
// non-zero defaults (100m / 200Mi) for a container that sets no cpu / memory; overhead added.
// NodeResourcesBalancedAllocation's scorer has the flags and counts like the cache (PodRequests).
api::ResourceList FitScorerRequestList(const api::Pod& pod);
// The pod has pod-level requests or any status resources, i.e. FitScorerRequestList may differ
// from what the cache counts (CalculatePodResource).
bool ScorerRequestsDifferFromCache(const api::Pod& pod);

}  // namespace berth::framework
