#include "plugins/common/resource_allocation.h"

#include "scheduler/framework/resource.h"

namespace berth::plugins::common {

ResourceKind KindOf(std::string_view name) {
  if (name == api::kResourceCPU) return ResourceKind::kCpu;
  if (name == api::kResourceMemory) return ResourceKind::kMemory;
  if (name == api::kResourceEphemeralStorage) return ResourceKind::kEphemeralStorage;
  if (framework::IsScalarResourceName(name)) return ResourceKind::kScalar;
  return ResourceKind::kOther;
}

}  // namespace berth::plugins::common
