#include "test/bench/workloads.h"

#include <memory>

namespace berth::bench {
namespace {

api::Quantity Q(const char* text) { return *api::Quantity::Parse(text); }

std::shared_ptr<api::Node> BaseNode(int i) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = "node-" + std::to_string(i);
  n->metadata.uid = "node-uid-" + std::to_string(i);
  n->metadata.labels["kubernetes.io/hostname"] = n->metadata.name;
  n->status.capacity = {{"cpu", Q("4")}, {"memory", Q("32Gi")}, {"pods", Q("110")}};
  n->status.allocatable = n->status.capacity;
  n->status.conditions.push_back({"Ready", "True", "", ""});
  return n;
}

std::shared_ptr<api::Pod> BasePod(int i) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = "pod-" + std::to_string(i);
  p->metadata.namespace_ = "sched-test";
  p->metadata.uid = "pod-uid-" + std::to_string(i);
  p->spec.scheduler_name = "berth-scheduler";
  api::Container c;
  c.name = "pause";
  c.image = "registry.k8s.io/pause:3.10";
  c.ports.push_back(api::ContainerPort{"", 80, 0, "TCP", ""});
  c.resources.requests = {{"cpu", Q("100m")}, {"memory", Q("500Mi")}};
  c.resources.limits = c.resources.requests;
  p->spec.containers.push_back(std::move(c));
  return p;
}

}  // namespace

std::vector<std::string> WorkloadNames() { return {"SchedulingBasic", "SchedulingNodeAffinity"}; }

Result<simulate::ClusterFile> Generate(const std::string& workload, int nodes, int pods) {
  simulate::ClusterFile c;
  if (workload == "SchedulingBasic") {
    for (int i = 0; i < nodes; ++i) c.nodes.push_back(BaseNode(i));
    for (int i = 0; i < pods; ++i) c.pods.push_back(BasePod(i));
    return c;
  }
  if (workload == "SchedulingNodeAffinity") {
    // scheduler_perf: every node labelled zone1; pods require zone In [zone1, zone2].
    for (int i = 0; i < nodes; ++i) {
      auto n = BaseNode(i);
      n->metadata.labels["topology.kubernetes.io/zone"] = "zone1";
      c.nodes.push_back(n);
    }
    for (int i = 0; i < pods; ++i) {
      auto p = BasePod(i);
      api::NodeSelectorTerm term;
      term.match_expressions.push_back(
          {"topology.kubernetes.io/zone", api::SelectorOperator::kIn, {"zone1", "zone2"}});
      api::NodeAffinity na;
      na.required = api::NodeSelector{{term}};
      p->spec.affinity = api::Affinity{na, std::nullopt, std::nullopt};
      c.pods.push_back(p);
    }
    return c;
  }
  std::string known;
  for (const auto& w : WorkloadNames()) known += (known.empty() ? "" : ", ") + w;
  return Error{"unknown workload \"" + workload + "\"; known workloads: " + known};
}

}  // namespace berth::bench
