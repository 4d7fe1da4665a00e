#include "scheduler/metrics/resource_metrics.h"

#include <sstream>

#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "scheduler/framework/pod_requests.h"
#include "scheduler/framework/resource.h"

namespace berth::metrics {

namespace {

// Upstream's unit per resource name (resources.go).
std::string Unit(const std::string& name) {
  if (name == api::kResourceCPU) return "cores";
  if (name == api::kResourceMemory || name == api::kResourceStorage ||
      name == api::kResourceEphemeralStorage || framework::IsHugePageResourceName(name)) {
    return "bytes";
  }
  if (name.rfind("attachable-volumes-", 0) == 0) return "integer";
  return "";
}

}  // namespace

std::string RenderPodResourceMetrics(const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  prometheus::Registry registry;
  const std::string help_tail =
      " by workloads on the cluster, broken down by pod. This shows the resource usage the "
      "scheduler and kubelet expect per pod for resources along with the unit for the resource "
      "if any.";
  auto& requests = prometheus::BuildGauge()
                       .Name("kube_pod_resource_request")
                       .Help("[STABLE] Resources requested" + help_tail)
                       .Register(registry);
  auto& limits = prometheus::BuildGauge()
                     .Name("kube_pod_resource_limit")
                     .Help(
                         "[STABLE] Resources limit for workloads on the cluster, broken down by "
                         "pod. This shows the resource usage the scheduler and kubelet expect "
                         "per pod for resources along with the unit for the resource if any.")
                     .Register(registry);
  for (const auto& pod : pods) {
    if (pod == nullptr) continue;
    const bool assigned = !pod->spec.node_name.empty();
    if (assigned && (pod->status.phase == "Succeeded" || pod->status.phase == "Failed")) continue;
    const std::string priority =
        pod->spec.priority ? std::to_string(*pod->spec.priority) : std::string();
    auto record = [&](prometheus::Family<prometheus::Gauge>& family,
                      const api::ResourceList& list) {
      for (const auto& [name, q] : list) {
        if (q.milli == 0) continue;
        family
            .Add({{"namespace", pod->metadata.namespace_},
                  {"pod", pod->metadata.name},
                  {"node", pod->spec.node_name},
                  {"scheduler", pod->spec.scheduler_name},
                  {"priority", priority},
                  {"resource", name},
                  {"unit", Unit(name)}})
            .Set(static_cast<double>(q.milli) / 1000.0);
      }
    };
    framework::PodRequestsOptions defaults;
    record(requests, framework::PodRequestList(*pod, defaults));
    record(limits, framework::PodLimitList(*pod));
  }
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry.Collect());
  return out.str();
}

}  // namespace berth::metrics
