#include "plugins/node_resources_fit/scoring.h"

#include <cmath>

#include "base/saturating.h"
#include "scheduler/framework/resource.h"
#include "scheduler/framework/types.h"

namespace berth::plugins::node_resources_fit {

ResourceScorer::ResourceScorer(ScoringStrategyType strategy,
                               const std::vector<ResourceSpec>& resources,
                               const std::vector<UtilizationShapePoint>& shape)
    : strategy_(strategy) {
  for (const auto& r : resources)
    resources_.push_back(common::MakeScoredResource(r.name, r.weight));
  // MaxCustomPriorityScore (10) is rescaled to MaxNodeScore (100), as upstream does.
  for (const auto& p : shape) {
    shape_.push_back(
        {p.utilization, p.score * (framework::kMaxNodeScore / kMaxCustomPriorityScore)});
  }
}

namespace {
// NodeResourcesFit scores with the non-zero cpu/memory defaults (upstream's useRequested = false).
constexpr bool kUseRequested = false;
}  // namespace

int64_t ResourceScorer::PodRequest(size_t i, const framework::PodInfo& pod) const {
  return common::PodRequest(resources_[i], pod, kUseRequested);
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
    const common::ScoredResource& e = resources_[i];
    const int64_t pod_request = pod_requests != nullptr ? pod_requests[i] : PodRequest(i, pod);
    int64_t alloc = 0, allocated = 0;
    if (!common::AllocatableAndAllocated(e, node, pod_request, kUseRequested, &alloc, &allocated)) {
      continue;
    }
    const int64_t req = SatAdd(allocated, pod_request);
    int64_t s = 0;
    switch (strategy_) {
      case ScoringStrategyType::kLeastAllocated:
        s = req > alloc ? 0 : MulDiv(alloc - req, framework::kMaxNodeScore, alloc);
        break;
      case ScoringStrategyType::kMostAllocated:
        // Requests may exceed allocatable because of the non-zero defaults.
        s = MulDiv(req > alloc ? alloc : req, framework::kMaxNodeScore, alloc);
        break;
      case ScoringStrategyType::kRequestedToCapacityRatio: {
        constexpr int64_t kMaxUtilization = 100;
        s = BrokenLinear(shape_,
                         req > alloc ? kMaxUtilization : MulDiv(req, kMaxUtilization, alloc));
        if (s <= 0) continue;  // upstream leaves zero-scored resources out of the average
        break;
      }
    }
    node_score = SatAdd(node_score, s * e.weight);
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
