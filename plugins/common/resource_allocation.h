#pragma once
// The resources a node-resources scorer looks at, and their allocatable and requested amounts on
// a node: upstream's resource_allocation.go helpers (calculatePodResourceRequest and
// calculateResourceAllocatableRequest), shared by NodeResourcesFit's scoring (useRequested =
// false: cpu and memory with the non-zero defaults) and NodeResourcesBalancedAllocation
// (useRequested = true: plain requests).
// Pure functions over immutable inputs; safe from any worker thread; per node (Score) they
// allocate nothing.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "scheduler/framework/node_info.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/framework/pod_requests.h"

namespace berth::plugins::common {

enum class ResourceKind { kCpu, kMemory, kEphemeralStorage, kScalar, kOther };

// cpu, memory, ephemeral-storage, a scalar (extended, hugepages, attachable-volumes) resource,
// or anything else (which takes no part in scores).
ResourceKind KindOf(std::string_view name);

// One configured resource, classified once.
struct ScoredResource {
  std::string name;
  int64_t weight = 1;
  ResourceKind kind = ResourceKind::kOther;
};

inline ScoredResource MakeScoredResource(std::string name, int64_t weight) {
  const ResourceKind kind = KindOf(name);
  return ScoredResource{std::move(name), weight, kind};
}

// NodeResourcesFit's scorer request for `r` when the pod has pod-level requests or status
// resources (framework::FitScorerRequestList: spec containers only, non-zero cpu/memory).
// Allocates; PreScore calls it once per pod.
int64_t FitScorerRequest(const ScoredResource& r, const framework::PodInfo& pod);

// Upstream's calculatePodResourceRequest. With use_requested (BalancedAllocation's scorer, built
// with the feature flags) the pod's plain request as the cache counts it: in-place resize and
// pod-level resources included. Without (NodeResourcesFit's scorer, built without them) the spec
// containers' requests only, cpu and memory with the non-zero defaults (100m / 200Mi for a
// container that sets none).
inline int64_t PodRequest(const ScoredResource& r, const framework::PodInfo& pod,
                          bool use_requested) {
  if (!use_requested && framework::ScorerRequestsDifferFromCache(pod.Pod())) {
    return FitScorerRequest(r, pod);
  }
  switch (r.kind) {
    case ResourceKind::kCpu:
      return use_requested ? pod.requests.milli_cpu : pod.non_zero_cpu;
    case ResourceKind::kMemory:
      return use_requested ? pod.requests.memory : pod.non_zero_memory;
    case ResourceKind::kEphemeralStorage:
      return pod.requests.ephemeral_storage;
    case ResourceKind::kScalar:
      return pod.requests.Scalar(r.name);
    case ResourceKind::kOther:
      return 0;
  }
  return 0;
}

// Upstream's calculateResourceAllocatableRequest: the node's allocatable and what its pods already
// request (with use_requested the node's plain requests, else its non-zero aggregate for cpu and
// memory); the caller adds the pod's request. False when the resource takes no part in this
// node's score: allocatable is 0, the resource is unknown, or it is a scalar resource the pod does
// not request (`pod_request` == 0).
inline bool AllocatableAndAllocated(const ScoredResource& r, const framework::NodeInfo& node,
                                    int64_t pod_request, bool use_requested, int64_t* alloc,
                                    int64_t* allocated) {
  const framework::Resource& a = node.allocatable();
  const framework::Resource& requested = node.requested();
  switch (r.kind) {
    case ResourceKind::kCpu:
      *alloc = a.milli_cpu;
      *allocated = use_requested ? requested.milli_cpu : node.non_zero_requested().milli_cpu;
      break;
    case ResourceKind::kMemory:
      *alloc = a.memory;
      *allocated = use_requested ? requested.memory : node.non_zero_requested().memory;
      break;
    case ResourceKind::kEphemeralStorage:
      *alloc = a.ephemeral_storage;
      *allocated = requested.ephemeral_storage;
      break;
    case ResourceKind::kScalar:
      // An extended resource the pod does not ask for does not count.
      if (pod_request == 0) return false;
      *alloc = a.Scalar(r.name);
      *allocated = requested.Scalar(r.name);
      break;
    case ResourceKind::kOther:
      return false;
  }
  return *alloc != 0;
}

}  // namespace berth::plugins::common
