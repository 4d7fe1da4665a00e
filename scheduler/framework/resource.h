#pragma once
// Resource: aggregated quantities in the units the scheduler compares (upstream's
// framework.Resource): CPU in milli-cores, memory and ephemeral storage in bytes, pod count, and
// scalar (extended / hugepages) resources in whole units. Sums saturate at the int64 limits
// (base/saturating.h) rather than wrap.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "api/types.h"

namespace berth::framework {

// Requests assumed for a container that sets none, for scoring only (upstream's
// DefaultMilliCPURequest / DefaultMemoryRequest).
inline constexpr int64_t kDefaultMilliCPURequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;

struct Resource {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t allowed_pod_number = 0;
  // Sorted by name.
  std::vector<std::pair<std::string, int64_t>> scalar;

  static Resource FromList(const api::ResourceList& list);
  void Add(const Resource& r);
  void Sub(const Resource& r);
  // Component-wise max (used for init containers).
  void SetMax(const Resource& r);
  int64_t Scalar(std::string_view name) const;
  void SetScalar(std::string_view name, int64_t v);
  void AddScalar(std::string_view name, int64_t v);
  // The amount of a named resource ("cpu" in milli, "memory" bytes, "pods", extended...).
  int64_t Get(std::string_view name) const;
  bool operator==(const Resource&) const = default;
};

// Extended resources: a name with a domain prefix that is not kubernetes.io/ (e.g. nvidia.com/gpu),
// or requests.* / hugepages-* names are treated as scalar resources.
bool IsScalarResourceName(std::string_view name);
bool IsHugePageResourceName(std::string_view name);

}  // namespace berth::framework
