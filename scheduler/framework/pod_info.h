#pragma once
// PodInfo: a pod plus everything the plugins derive from it once (requests, ports, affinity
// flags), so the per-node hot path does no parsing. Immutable once built; shared by pointer.

#include <memory>
#include <string>
#include <vector>

#include "api/types.h"
#include "scheduler/framework/resource.h"

namespace berth::framework {

struct HostPort {
  std::string ip;  // "0.0.0.0" when unset
  std::string protocol;
  int32_t port = 0;
  bool operator==(const HostPort&) const = default;
};

struct PodInfo {
  std::shared_ptr<const api::Pod> pod;
  std::string key;  // "namespace/name"
  // Upstream's PodInfo.CalculateResource (pod_requests.h): what the pod holds on its node, in-place
  // resize and pod-level resources included; NodeInfo aggregates these.
  Resource requests;
  int64_t non_zero_cpu = 0;  // milli
  int64_t non_zero_memory = 0;
  std::vector<HostPort> host_ports;         // containers' ports with hostPort > 0
  bool has_affinity = false;                // pod affinity or anti-affinity
  bool has_required_anti_affinity = false;  // required pod anti-affinity terms

  const api::Pod& Pod() const { return *pod; }
  const std::string& Namespace() const { return pod->metadata.namespace_; }
  const std::string& Name() const { return pod->metadata.name; }
  const std::string& Uid() const { return pod->metadata.uid; }
};

using PodInfoPtr = std::shared_ptr<const PodInfo>;

PodInfoPtr MakePodInfo(std::shared_ptr<const api::Pod> pod);

}  // namespace berth::framework
