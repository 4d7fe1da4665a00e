#include "scheduler/framework/resource.h"

#include <algorithm>

#include "base/saturating.h"

namespace berth::framework {

bool IsHugePageResourceName(std::string_view name) { return name.starts_with("hugepages-"); }

// Upstream's schedutil.IsScalarResourceName: extended resources (domain-prefixed, not
// kubernetes.io), prefixed native resources, hugepages and attachable volumes.
bool IsScalarResourceName(std::string_view name) {
  if (name.starts_with("requests.")) return false;
  return name.find('/') != std::string_view::npos || IsHugePageResourceName(name) ||
         name.starts_with("attachable-volumes-");
}

namespace {

void AddNamed(Resource& r, const std::string& name, const api::Quantity& q) {
  if (name == api::kResourceCPU) {
    r.milli_cpu = SatAdd(r.milli_cpu, q.MilliValue());
  } else if (name == api::kResourceMemory) {
    r.memory = SatAdd(r.memory, q.Value());
  } else if (name == api::kResourcePods) {
    r.allowed_pod_number = SatAdd(r.allowed_pod_number, q.Value());
  } else if (name == api::kResourceEphemeralStorage) {
    r.ephemeral_storage = SatAdd(r.ephemeral_storage, q.Value());
  } else if (IsScalarResourceName(name)) {
    r.AddScalar(name, q.Value());
  }
}

}  // namespace

Resource Resource::FromList(const api::ResourceList& list) {
  Resource r;
  for (const auto& [name, q] : list) AddNamed(r, name, q);
  return r;
}

int64_t Resource::Scalar(std::string_view name) const {
  for (const auto& [n, v] : scalar) {
    if (n == name) return v;
  }
  return 0;
}

void Resource::SetScalar(std::string_view name, int64_t v) {
  auto it = std::lower_bound(scalar.begin(), scalar.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  if (it != scalar.end() && it->first == name) {
    it->second = v;
  } else {
    scalar.insert(it, {std::string(name), v});
  }
}

void Resource::AddScalar(std::string_view name, int64_t v) {
  auto it = std::lower_bound(scalar.begin(), scalar.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  if (it != scalar.end() && it->first == name) {
    it->second = SatAdd(it->second, v);
  } else {
    scalar.insert(it, {std::string(name), v});
  }
}

void Resource::Add(const Resource& r) {
  milli_cpu = SatAdd(milli_cpu, r.milli_cpu);
  memory = SatAdd(memory, r.memory);
  ephemeral_storage = SatAdd(ephemeral_storage, r.ephemeral_storage);
  allowed_pod_number = SatAdd(allowed_pod_number, r.allowed_pod_number);
  for (const auto& [n, v] : r.scalar) AddScalar(n, v);
}

void Resource::Sub(const Resource& r) {
  milli_cpu = SatSub(milli_cpu, r.milli_cpu);
  memory = SatSub(memory, r.memory);
  ephemeral_storage = SatSub(ephemeral_storage, r.ephemeral_storage);
  allowed_pod_number = SatSub(allowed_pod_number, r.allowed_pod_number);
  for (const auto& [n, v] : r.scalar) AddScalar(n, SatSub(0, v));
}

void Resource::SetMax(const Resource& r) {
  milli_cpu = std::max(milli_cpu, r.milli_cpu);
  memory = std::max(memory, r.memory);
  ephemeral_storage = std::max(ephemeral_storage, r.ephemeral_storage);
  allowed_pod_number = std::max(allowed_pod_number, r.allowed_pod_number);
  for (const auto& [n, v] : r.scalar) {
    if (v > Scalar(n)) SetScalar(n, v);
  }
}

int64_t Resource::Get(std::string_view name) const {
  if (name == api::kResourceCPU) return milli_cpu;
  if (name == api::kResourceMemory) return memory;
  if (name == api::kResourceEphemeralStorage) return ephemeral_storage;
  if (name == api::kResourcePods) return allowed_pod_number;
  return Scalar(name);
}

}  // namespace berth::framework
