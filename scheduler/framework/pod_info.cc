#include "scheduler/framework/pod_info.h"

#include "scheduler/framework/pod_requests.h"

namespace berth::framework {

PodInfoPtr MakePodInfo(std::shared_ptr<const api::Pod> pod) {
  auto info = std::make_shared<PodInfo>();
  const api::Pod& p = *pod;
  info->key = p.metadata.namespace_ + "/" + p.metadata.name;
  PodResource resource = CalculatePodResource(p);
  info->requests = std::move(resource.requests);
  info->non_zero_cpu = resource.non_zero_cpu;
  info->non_zero_memory = resource.non_zero_memory;
  // Host ports of app containers (upstream counts only spec.containers; init containers'
  // ports are ignored by NodePorts).
  for (const auto& c : p.spec.containers) {
    for (const auto& port : c.ports) {
      if (port.host_port <= 0) continue;
      HostPort hp;
      hp.ip = port.host_ip.empty() ? "0.0.0.0" : port.host_ip;
      hp.protocol = port.protocol.empty() ? "TCP" : port.protocol;
      hp.port = port.host_port;
      info->host_ports.push_back(std::move(hp));
    }
  }
  if (p.spec.affinity) {
    const auto& a = *p.spec.affinity;
    bool has_pod_affinity =
        a.pod_affinity && (!a.pod_affinity->required.empty() || !a.pod_affinity->preferred.empty());
    bool has_anti = a.pod_anti_affinity && (!a.pod_anti_affinity->required.empty() ||
                                            !a.pod_anti_affinity->preferred.empty());
    info->has_affinity = has_pod_affinity || has_anti;
    info->has_required_anti_affinity =
        a.pod_anti_affinity && !a.pod_anti_affinity->required.empty();
  }
  info->pod = std::move(pod);
  return info;
}

}  // namespace berth::framework
