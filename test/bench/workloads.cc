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

std::vector<std::string> WorkloadNames() {
  return {"SchedulingBasic",
          "SchedulingNodeAffinity",
          "TopologySpreading",
          "SchedulingPodAntiAffinity",
          "Gang3",
          "Gang50",
          "PreemptionBasic",
          "SchedulingWithResourceClaimTemplate",
          "Unschedulable"};
}

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
  if (workload == "TopologySpreading") {
    // scheduler_perf: nodes labelled with zones moon-1..3; pods labelled color=blue with a
    // DoNotSchedule zone constraint, maxSkew 1, selecting color In [blue].
    for (int i = 0; i < nodes; ++i) {
      auto n = BaseNode(i);
      n->metadata.labels["topology.kubernetes.io/zone"] = "moon-" + std::to_string(i % 3 + 1);
      c.nodes.push_back(n);
    }
    for (int i = 0; i < pods; ++i) {
      auto p = BasePod(i);
      p->metadata.labels["color"] = "blue";
      api::TopologySpreadConstraint tsc;
      tsc.max_skew = 1;
      tsc.topology_key = "topology.kubernetes.io/zone";
      tsc.when_unsatisfiable = "DoNotSchedule";
      tsc.label_selector =
          api::LabelSelector{{}, {{"color", api::SelectorOperator::kIn, {"blue"}}}};
      p->spec.topology_spread_constraints.push_back(std::move(tsc));
      c.pods.push_back(p);
    }
    return c;
  }
  if (workload == "Gang3" || workload == "Gang50") {
    // Coscheduling: groups of 3 (or 50) pods with minMember = group size; pods of one group are
    // created together. Nodes as SchedulingBasic.
    const int size = workload == "Gang3" ? 3 : 50;
    for (int i = 0; i < nodes; ++i) c.nodes.push_back(BaseNode(i));
    for (int g = 0; g * size < pods; ++g) {
      auto pg = std::make_shared<api::PodGroup>();
      pg->metadata.name = "group-" + std::to_string(g);
      pg->metadata.namespace_ = "sched-test";
      pg->metadata.creation_timestamp = api::Time{int64_t{1700000000} * 1000000 + g};
      pg->spec.min_member = size;
      c.pod_groups.push_back(pg);
      for (int k = 0; k < size && g * size + k < pods; ++k) {
        auto p = BasePod(g * size + k);
        p->metadata.labels[api::kPodGroupLabel] = pg->metadata.name;
        c.pods.push_back(p);
      }
    }
    return c;
  }
  if (workload == "SchedulingPodAntiAffinity") {
    // scheduler_perf (pod-with-pod-anti-affinity.yaml): pods labelled color=green require
    // anti-affinity to color=green pods on kubernetes.io/hostname, in namespaces sched-0 (the
    // first half, upstream's init pods) and sched-1 (the measured half).
    for (int i = 0; i < nodes; ++i) c.nodes.push_back(BaseNode(i));
    for (int i = 0; i < pods; ++i) {
      auto p = BasePod(i);
      p->metadata.namespace_ = i < pods / 2 ? "sched-0" : "sched-1";
      p->metadata.labels = {{"color", "green"}, {"name", "test"}};
      api::PodAffinityTerm term;
      term.label_selector = api::LabelSelector{{{"color", "green"}}, {}};
      term.topology_key = "kubernetes.io/hostname";
      term.namespaces = {"sched-1", "sched-0"};
      api::PodAffinity anti;
      anti.required.push_back(std::move(term));
      p->spec.affinity = api::Affinity{std::nullopt, std::nullopt, std::move(anti)};
      c.pods.push_back(p);
    }
    return c;
  }
  if (workload == "PreemptionBasic") {
    // scheduler_perf's PreemptionBasic: every node is full of low-priority pods (4 x 900m CPU,
    // pod-low-priority.yaml, running from the start); the measured pods have priority 10 and
    // need 3 CPUs (pod-high-priority.yaml), so each must evict three pods somewhere.
    for (int i = 0; i < nodes; ++i) {
      auto n = BaseNode(i);
      c.nodes.push_back(n);
      for (int k = 0; k < 4; ++k) {
        auto p = BasePod(pods + i * 4 + k);
        p->metadata.name = "low-" + std::to_string(i * 4 + k);
        p->spec.node_name = n->metadata.name;
        p->spec.priority = 0;
        p->spec.containers[0].ports.clear();
        p->spec.containers[0].resources.requests["cpu"] = Q("900m");
        p->spec.containers[0].resources.limits = p->spec.containers[0].resources.requests;
        c.pods.push_back(p);
      }
    }
    for (int i = 0; i < pods; ++i) {
      auto p = BasePod(i);
      p->spec.priority = 10;
      p->spec.containers[0].ports.clear();
      p->spec.containers[0].resources.requests["cpu"] = Q("3");
      p->spec.containers[0].resources.limits = p->spec.containers[0].resources.requests;
      c.pods.push_back(p);
    }
    return c;
  }
  if (workload == "SchedulingWithResourceClaimTemplate") {
    // scheduler_perf dra/performance-config.yaml: every node has a ResourceSlice of 10 devices
    // (resourceslice-basic-devices.yaml's attributes and capacities), one DeviceClass selecting
    // the driver, and each pod's claim comes from one template with a single request.
    const std::string driver = "test-driver.cdi.k8s.io";
    auto cls = std::make_shared<api::DeviceClass>();
    cls->metadata.name = "test-class";
    cls->spec.selectors.push_back(api::DeviceSelector{"device.driver == \"" + driver + "\""});
    c.device_classes.push_back(cls);
    auto tmpl = std::make_shared<api::ResourceClaimTemplate>();
    tmpl->metadata.name = "test-claim-template";
    tmpl->metadata.namespace_ = "sched-test";
    api::DeviceRequest req;
    req.name = "req-0";
    req.exactly.emplace();
    req.exactly->device_class_name = "test-class";
    tmpl->spec.spec.devices.requests.push_back(req);
    c.resource_claim_templates.push_back(tmpl);
    auto str = [](std::string v) {
      api::DeviceAttribute a;
      a.string_value = std::move(v);
      return a;
    };
    for (int i = 0; i < nodes; ++i) {
      auto n = BaseNode(i);
      auto slice = std::make_shared<api::ResourceSlice>();
      slice->metadata.name = "resourceslice-" + std::to_string(i);
      slice->spec.driver = driver;
      slice->spec.pool = {slice->metadata.name, 1, 1};
      slice->spec.node_name = n->metadata.name;
      for (int d = 0; d < 10; ++d) {
        api::Device dev;
        dev.name = "basic-device-" + std::to_string(d);
        const std::string root = std::to_string(d % 2);
        dev.attributes["driver"] = str("xe");
        api::DeviceAttribute version;
        version.version_value = "1.2.3";
        dev.attributes["driverVersion"] = version;
        dev.attributes["resource.k8s.io/pciRoot"] = str(root);
        dev.attributes["family"] = str("Arc Pro B-Series");
        dev.attributes["health"] = str("Healthy");
        dev.attributes["model"] = str("B60");
        dev.attributes["pciAddress"] = str("0000:0" + std::to_string(d) + ":00.0");
        dev.attributes["pciId"] = str("0xe211");
        dev.attributes["pciRoot"] = str("0" + root);
        dev.attributes["resource.kubernetes.io/pciBusID"] =
            str("0000:0" + std::to_string(d) + ":00.0");
        dev.attributes["resource.kubernetes.io/pciRoot"] = str("pci0000:0" + root);
        api::DeviceAttribute sriov;
        sriov.bool_value = true;
        dev.attributes["sriov"] = sriov;
        dev.attributes["type"] = str("gpu");
        dev.capacity["memory"].value = Q("24480Mi");
        dev.capacity["millicores"].value = Q("1k");
        slice->spec.devices.push_back(std::move(dev));
      }
      c.resource_slices.push_back(slice);
      c.nodes.push_back(n);
    }
    for (int i = 0; i < pods; ++i) {
      auto p = BasePod(i);
      p->spec.containers[0].ports.clear();
      p->spec.resource_claims.push_back({"resource", "", "test-claim-template"});
      c.pods.push_back(p);
    }
    return c;
  }
  if (workload == "Unschedulable") {
    // berth explain's memory: every pod stays pending. Nodes of four kinds, mixed node by node
    // (so no two neighbours share a status run): 4 or 8 cpu, half of them tainted; one pod in
    // 64 nodes is already running there. Pods come in 20 shapes asking 9 to 28 cpu, so each
    // is rejected by every node, with reasons that differ from node to node.
    for (int i = 0; i < nodes; ++i) {
      auto n = BaseNode(i);
      if (i % 2 == 1) n->status.capacity["cpu"] = Q("8");
      n->status.allocatable = n->status.capacity;
      if (i % 4 >= 2)
        n->spec.taints.push_back({"dedicated", "batch-" + std::to_string(i % 3), "NoSchedule"});
      c.nodes.push_back(n);
    }
    for (int i = 0; i < pods; ++i) {
      auto p = BasePod(i);
      p->spec.containers[0].ports.clear();
      p->spec.containers[0].resources.requests["cpu"] =
          *api::Quantity::Parse(std::to_string(9 + i % 20));
      p->spec.containers[0].resources.limits = p->spec.containers[0].resources.requests;
      c.pods.push_back(p);
    }
    return c;
  }
  std::string known;
  for (const auto& w : WorkloadNames()) known += (known.empty() ? "" : ", ") + w;
  return Error{"unknown workload \"" + workload + "\"; known workloads: " + known};
}

}  // namespace berth::bench
