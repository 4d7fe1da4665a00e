#pragma once
// NodeResourcesFitArgs (kubescheduler.config.k8s.io/v1), parsed and validated once in the
// factory. Defaults and checks follow upstream's SetDefaults_NodeResourcesFitArgs and
// ValidateNodeResourcesFitArgs; error messages use upstream's field.Error wording with berth's
// full field paths.

#include <cstdint>
#include <string>
#include <vector>

#include "api/value.h"
#include "base/result.h"

namespace berth::plugins::node_resources_fit {

enum class ScoringStrategyType { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };

struct ResourceSpec {
  std::string name;
  int64_t weight = 1;
};

struct UtilizationShapePoint {
  int64_t utilization = 0;  // 0..100
  int64_t score = 0;        // 0..10 (MaxCustomPriorityScore)
};

struct FitArgs {
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
  ScoringStrategyType strategy = ScoringStrategyType::kLeastAllocated;
  std::vector<ResourceSpec> resources;       // never empty after parsing (default cpu:1 memory:1)
  std::vector<UtilizationShapePoint> shape;  // RequestedToCapacityRatio only
};

inline constexpr int64_t kMaxCustomPriorityScore = 10;

// nullptr args = defaults (LeastAllocated over cpu:1, memory:1). Errors name `path.<field>`.
Result<FitArgs> ParseFitArgs(const api::Value* args, const std::string& path);

}  // namespace berth::plugins::node_resources_fit
