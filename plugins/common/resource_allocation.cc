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

int64_t FitScorerRequest(const ScoredResource& r, const framework::PodInfo& pod) {
  if (r.kind == ResourceKind::kOther) return 0;
  const api::ResourceList reqs = framework::FitScorerRequestList(pod.Pod());
  auto it = reqs.find(r.name);
  if (it == reqs.end()) return 0;
  return r.kind == ResourceKind::kCpu ? it->second.MilliValue() : it->second.Value();
}

}  // namespace berth::plugins::common
