#pragma once
// Readable builders for unit tests:
//   auto pod = MakePod("p").Namespace("ns").Req({{"cpu", "1"}, {"memory", "1Gi"}}).Obj();
//   auto node = MakeNode("n1").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Label("zone",
//   "a").Obj();
// Quantities are parsed with api::Quantity::Parse and must be valid (the builder aborts otherwise).

#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "api/quantity.h"
#include "api/types.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/pod_info.h"

namespace berth::testing {

using ResPairs = std::initializer_list<std::pair<std::string, std::string>>;

inline api::ResourceList MakeList(ResPairs pairs) {
  api::ResourceList out;
  for (const auto& [k, v] : pairs) {
    auto q = api::Quantity::Parse(v);
    if (!q.ok()) {
      std::cerr << "bad quantity in test: " << v << "\n";
      std::abort();
    }
    out[k] = *q;
  }
  return out;
}

class MakePod {
 public:
  explicit MakePod(std::string name) {
    pod_.metadata.name = std::move(name);
    pod_.metadata.namespace_ = "default";
    pod_.metadata.uid = "uid-" + pod_.metadata.name;
    pod_.spec.scheduler_name = "berth-scheduler";
  }
  MakePod& Namespace(std::string ns) {
    pod_.metadata.namespace_ = std::move(ns);
    return *this;
  }
  MakePod& Uid(std::string uid) {
    pod_.metadata.uid = std::move(uid);
    return *this;
  }
  MakePod& Label(std::string k, std::string v) {
    pod_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  MakePod& SchedulerName(std::string s) {
    pod_.spec.scheduler_name = std::move(s);
    return *this;
  }
  MakePod& Node(std::string n) {
    pod_.spec.node_name = std::move(n);
    return *this;
  }
  MakePod& Priority(int32_t p) {
    pod_.spec.priority = p;
    return *this;
  }
  MakePod& CreationMicros(int64_t us) {
    pod_.metadata.creation_timestamp = api::Time{us};
    return *this;
  }
  // Adds a container with these requests.
  MakePod& Req(ResPairs requests, std::string image = "") {
    api::Container c;
    c.name = "c" + std::to_string(pod_.spec.containers.size());
    c.image = std::move(image);
    c.resources.requests = MakeList(requests);
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  MakePod& Lim(ResPairs limits) {
    if (pod_.spec.containers.empty()) Req({});
    pod_.spec.containers.back().resources.limits = MakeList(limits);
    return *this;
  }
  MakePod& InitReq(ResPairs requests, bool sidecar = false) {
    api::Container c;
    c.name = "init" + std::to_string(pod_.spec.init_containers.size());
    c.resources.requests = MakeList(requests);
    if (sidecar) c.restart_policy = "Always";
    pod_.spec.init_containers.push_back(std::move(c));
    return *this;
  }
  MakePod& Overhead(ResPairs o) {
    pod_.spec.overhead = MakeList(o);
    return *this;
  }
  // spec.resources.requests (pod-level resources).
  MakePod& PodReq(ResPairs requests) {
    pod_.spec.resources.requests = MakeList(requests);
    return *this;
  }
  MakePod& Image(std::string image) {
    api::Container c;
    c.name = "c" + std::to_string(pod_.spec.containers.size());
    c.image = std::move(image);
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  MakePod& HostPort(int32_t port, std::string protocol = "TCP", std::string ip = "") {
    if (pod_.spec.containers.empty()) Req({});
    api::ContainerPort p;
    p.container_port = port;
    p.host_port = port;
    p.protocol = std::move(protocol);
    p.host_ip = std::move(ip);
    pod_.spec.containers.back().ports.push_back(std::move(p));
    return *this;
  }
  MakePod& NodeSelector(std::string k, std::string v) {
    pod_.spec.node_selector[std::move(k)] = std::move(v);
    return *this;
  }
  MakePod& Toleration(std::string key, std::string op, std::string value, std::string effect) {
    pod_.spec.tolerations.push_back(
        api::Toleration{std::move(key), std::move(op), std::move(value), std::move(effect), {}});
    return *this;
  }
  MakePod& Gate(std::string g) {
    pod_.spec.scheduling_gates.push_back(std::move(g));
    return *this;
  }
  // A pod (anti-)affinity term selecting `key <op> values` (values unused for Exists and
  // DoesNotExist) over topology_key; set namespaces etc. on the result as needed.
  static api::PodAffinityTerm AffinityTerm(std::string key, api::SelectorOperator op,
                                           std::vector<std::string> values,
                                           std::string topology_key) {
    api::PodAffinityTerm t;
    t.label_selector = api::LabelSelector{{}, {{std::move(key), op, std::move(values)}}};
    t.topology_key = std::move(topology_key);
    return t;
  }
  // Appends a required (weight 0) or preferred (weight > 0) pod affinity term.
  MakePod& PodAffinity(api::PodAffinityTerm term, int32_t weight = 0) {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    auto& pa = pod_.spec.affinity->pod_affinity;
    if (!pa) pa.emplace();
    if (weight == 0) {
      pa->required.push_back(std::move(term));
    } else {
      pa->preferred.push_back({weight, std::move(term)});
    }
    return *this;
  }
  // Appends a required (weight 0) or preferred (weight > 0) pod anti-affinity term.
  MakePod& PodAntiAffinity(api::PodAffinityTerm term, int32_t weight = 0) {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    auto& pa = pod_.spec.affinity->pod_anti_affinity;
    if (!pa) pa.emplace();
    if (weight == 0) {
      pa->required.push_back(std::move(term));
    } else {
      pa->preferred.push_back({weight, std::move(term)});
    }
    return *this;
  }
  api::Pod& Mutable() { return pod_; }
  api::Pod Obj() const { return pod_; }
  std::shared_ptr<const api::Pod> Ptr() const { return std::make_shared<api::Pod>(pod_); }
  framework::PodInfoPtr Info() const { return framework::MakePodInfo(Ptr()); }

 private:
  api::Pod pod_;
};

class MakeNode {
 public:
  explicit MakeNode(std::string name) {
    node_.metadata.name = std::move(name);
    node_.metadata.uid = "uid-" + node_.metadata.name;
    node_.metadata.labels["kubernetes.io/hostname"] = node_.metadata.name;
    node_.status.conditions.push_back({"Ready", "True", "", ""});
  }
  // Sets capacity and allocatable; adds pods: 110 unless given.
  MakeNode& Capacity(ResPairs pairs) {
    node_.status.capacity = MakeList(pairs);
    if (!node_.status.capacity.count("pods")) {
      node_.status.capacity["pods"] = api::Quantity::FromValue(110);
    }
    node_.status.allocatable = node_.status.capacity;
    return *this;
  }
  MakeNode& Label(std::string k, std::string v) {
    node_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  MakeNode& Taint(std::string key, std::string value, std::string effect) {
    node_.spec.taints.push_back({std::move(key), std::move(value), std::move(effect)});
    return *this;
  }
  MakeNode& Unschedulable(bool u = true) {
    node_.spec.unschedulable = u;
    return *this;
  }
  MakeNode& Image(std::string name, int64_t size_bytes) {
    node_.status.images.push_back({{std::move(name)}, size_bytes});
    return *this;
  }
  api::Node& Mutable() { return node_; }
  api::Node Obj() const { return node_; }
  std::shared_ptr<const api::Node> Ptr() const { return std::make_shared<api::Node>(node_); }
  // A NodeInfo with these pods on it.
  framework::NodeInfo Info(std::initializer_list<framework::PodInfoPtr> pods = {}) const {
    framework::NodeInfo ni(Ptr());
    for (const auto& p : pods) ni.AddPod(p);
    return ni;
  }

 private:
  api::Node node_;
};

}  // namespace berth::testing
