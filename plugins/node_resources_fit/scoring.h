#pragma once
// Node scoring for NodeResourcesFit: upstream's resourceAllocationScorer with useRequested =
// false (the arithmetic shared with BalancedAllocation is in plugins/common). For cpu and memory
// the node's NonZeroRequested aggregate plus the pod's non-zero request (100m / 200Mi for a
// container that sets none) are used; other resources use plain requests. A resource counts only
// when the node's allocatable is > 0; an extended resource the pod does not request is skipped.
// Strategies:
//   LeastAllocated           Σ w·((alloc−req)·100/alloc, 0 if req > alloc) / Σ w
//   MostAllocated            Σ w·(min(req, alloc)·100/alloc) / Σ w
//   RequestedToCapacityRatio round(Σ w·s / Σ w) over resources with s > 0, where
//                            s = shape(min(100, req·100/alloc)) with the shape's scores ×10.
// Immutable after construction; Score is safe from any worker thread and allocates nothing.

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/common/resource_allocation.h"
#include "plugins/node_resources_fit/args.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/pod_info.h"

namespace berth::plugins::node_resources_fit {

class ResourceScorer {
 public:
  ResourceScorer(ScoringStrategyType strategy, const std::vector<ResourceSpec>& resources,
                 const std::vector<UtilizationShapePoint>& shape);

  size_t size() const { return resources_.size(); }
  // The pod's request for resources()[i], as upstream's calculatePodResourceRequest.
  int64_t PodRequest(size_t i, const framework::PodInfo& pod) const;
  // `pod_requests` holds PodRequest(i) for every i, or is nullptr to compute them on the fly.
  int64_t Score(const framework::NodeInfo& node, const framework::PodInfo& pod,
                const int64_t* pod_requests) const;

  // Upstream's helper.BuildBrokenLinearFunction over `shape` (scores already scaled).
  static int64_t BrokenLinear(const std::vector<UtilizationShapePoint>& shape, int64_t p);

 private:
  ScoringStrategyType strategy_;
  std::vector<common::ScoredResource> resources_;
  std::vector<UtilizationShapePoint> shape_;  // scores ×10
};

}  // namespace berth::plugins::node_resources_fit
