#include "plugins/node_resources_fit/scoring.h"

#include <cmath>

#include "scheduler/framework/resource.h"
#include "scheduler/framework/types.h"

namespace berth::plugins::node_resources_fit {

ResourceScorer::ResourceScorer(ScoringStrategyType strategy,
                               const std::vector<ResourceSpec>& resources,
                               const std::vector<UtilizationShapePoint>& shape)
    : strategy_(strategy) {
  for (const auto& r : resources) {
    Kind kind = Kind::kOther;
    if (r.name == api::kResourceCPU) {
      kind = Kind::kCpu;
    } else if (r.name == api::kResourceMemory) {
      kind = Kind::kMemory;
    } else if (r.name == api::kResourceEphemeralStorage) {
      kind = Kind::kEphemeralStorage;
    } else if (framework::IsScalarResourceName(r.name)) {
      kind = Kind::kScalar;
    }
    resources_.push_back({r.name, r.weight, kind});
  }
  // MaxCustomPriorityScore (10) is rescaled to MaxNodeScore (100), as upstream does.
  for (const auto& p : shape) {
    shape_.push_back(
        {p.utilization, p.score * (framework::kMaxNodeScore / kMaxCustomPriorityScore)});
  }
}

int64_t ResourceScorer::PodRequest(size_t i, const framework::PodInfo& pod) const {
  const Entry& e = resources_[i];
  switch (e.kind) {
    case Kind::kCpu:
      return pod.non_zero_cpu;
    case Kind::kMemory:
      return pod.non_zero_memory;
    case Kind::kEphemeralStorage:
      return pod.requests.ephemeral_storage;
    case Kind::kScalar:
      return pod.requests.Scalar(e.name);
    case Kind::kOther:
      return 0;
  }
  return 0;
}

bool ResourceScorer::AllocatableAndRequested(const Entry& e, const framework::NodeInfo& node,
                                             int64_t pod_request, int64_t* alloc,
                                             int64_t* req) const {
  const framework::Resource& a = node.allocatable();
  switch (e.kind) {
    case Kind::kCpu:
      *alloc = a.milli_cpu;
      *req = node.non_zero_requested().milli_cpu + pod_request;
      break;
    case Kind::kMemory:
      *alloc = a.memory;
      *req = node.non_zero_requested().memory + pod_request;
      break;
    case Kind::kEphemeralStorage:
      *alloc = a.ephemeral_storage;
      *req = node.requested().ephemeral_storage + pod_request;
      break;
    case Kind::kScalar:
      if (pod_request == 0) return false;
      *alloc = a.Scalar(e.name);
      *req = node.requested().Scalar(e.name) + pod_request;
      break;
    case Kind::kOther:
      return false;
  }
  return *alloc != 0;
}

int64_t ResourceScorer::BrokenLinear(const std::vector<UtilizationShapePoint>& shape, int64_t p) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (p <= shape[i].utilization) {
      if (i == 0) return shape[0].score;
      const auto& lo = shape[i - 1];
      const auto& hi = shape[i];
      return lo.score +
             (hi.score - lo.score) * (p - lo.utilization) / (hi.utilization - lo.utilization);
    }
  }
  return shape.empty() ? 0 : shape.back().score;
}

int64_t ResourceScorer::Score(const framework::NodeInfo& node, const framework::PodInfo& pod,
                              const int64_t* pod_requests) const {
  int64_t node_score = 0, weight_sum = 0;
  for (size_t i = 0; i < resources_.size(); ++i) {
    const Entry& e = resources_[i];
    const int64_t pod_request = pod_requests != nullptr ? pod_requests[i] : PodRequest(i, pod);
    int64_t alloc = 0, req = 0;
    if (!AllocatableAndRequested(e, node, pod_request, &alloc, &req)) continue;
    int64_t s = 0;
    switch (strategy_) {
      case ScoringStrategyType::kLeastAllocated:
        s = req > alloc ? 0 : (alloc - req) * framework::kMaxNodeScore / alloc;
        break;
      case ScoringStrategyType::kMostAllocated:
        // Requests may exceed allocatable because of the non-zero defaults.
        s = (req > alloc ? alloc : req) * framework::kMaxNodeScore / alloc;
        break;
      case ScoringStrategyType::kRequestedToCapacityRatio: {
        constexpr int64_t kMaxUtilization = 100;
        s = BrokenLinear(shape_, req > alloc ? kMaxUtilization : req * kMaxUtilization / alloc);
        if (s <= 0) continue;  // upstream leaves zero-scored resources out of the average
        break;
      }
    }
    node_score += s * e.weight;
    weight_sum += e.weight;
  }
  if (weight_sum == 0) return 0;
  if (strategy_ == ScoringStrategyType::kRequestedToCapacityRatio) {
    return static_cast<int64_t>(
        std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
  }
  return node_score / weight_sum;
}

}  // namespace berth::plugins::node_resources_fit
