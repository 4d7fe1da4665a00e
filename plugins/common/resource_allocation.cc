#include "plugins/common/resource_allocation.h"

#include "scheduler/framework/pod_requests.h"
#include "scheduler/framework/resource.h"

namespace berth::plugins::common {

ResourceKind KindOf(std::string_view name) {
  if (name == api::kResourceCPU) return ResourceKind::kCpu;
  if (name == api::kResourceMemory) return ResourceKind::kMemory;
  if (name == api::kResourceEphemeralStorage) return ResourceKind::kEphemeralStorage;
  if (framework::IsScalarResourceName(name)) return ResourceKind::kScalar;
  return ResourceKind::kOther;
}

std::pair<int64_t, int64_t> ScoringNonZeroRequests(const framework::PodInfo& pod) {
  if (!framework::IsPodLevelRequestsSet(pod.Pod())) return {pod.non_zero_cpu, pod.non_zero_memory};
  return framework::ScorerCpuMemoryRequests(pod.Pod(), /*use_requested=*/false);
}

}  // namespace berth::plugins::common
