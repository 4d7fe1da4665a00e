#include "scheduler/queue/pod_updated.h"

#include <optional>
#include <vector>

namespace berth::queue {
namespace {

// The api structs have no operator==, so equality is spelled out field by field here. Every
// overload is declared before the container templates so that they find it.
bool Eq(const api::LabelSelectorRequirement& a, const api::LabelSelectorRequirement& b);
bool Eq(const api::LabelSelector& a, const api::LabelSelector& b);
bool Eq(const api::NodeSelectorRequirement& a, const api::NodeSelectorRequirement& b);
bool Eq(const api::NodeSelectorTerm& a, const api::NodeSelectorTerm& b);
bool Eq(const api::NodeSelector& a, const api::NodeSelector& b);
bool Eq(const api::PreferredSchedulingTerm& a, const api::PreferredSchedulingTerm& b);
bool Eq(const api::NodeAffinity& a, const api::NodeAffinity& b);
bool Eq(const api::PodAffinityTerm& a, const api::PodAffinityTerm& b);
bool Eq(const api::WeightedPodAffinityTerm& a, const api::WeightedPodAffinityTerm& b);
bool Eq(const api::PodAffinity& a, const api::PodAffinity& b);
bool Eq(const api::Affinity& a, const api::Affinity& b);
bool Eq(const api::Toleration& a, const api::Toleration& b);
bool Eq(const api::ContainerPort& a, const api::ContainerPort& b);
bool Eq(const api::Container& a, const api::Container& b);
bool Eq(const api::TopologySpreadConstraint& a, const api::TopologySpreadConstraint& b);
bool Eq(const api::Volume& a, const api::Volume& b);
bool Eq(const api::OwnerReference& a, const api::OwnerReference& b);

template <typename T>
bool Eq(const T& a, const T& b) {
  return a == b;
}

template <typename T>
bool Eq(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!Eq(a[i], b[i])) return false;
  }
  return true;
}

template <typename T>
bool Eq(const std::optional<T>& a, const std::optional<T>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() || Eq(*a, *b);
}

bool Eq(const api::LabelSelectorRequirement& a, const api::LabelSelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}
bool Eq(const api::LabelSelector& a, const api::LabelSelector& b) {
  return a.match_labels == b.match_labels && Eq(a.match_expressions, b.match_expressions);
}
bool Eq(const api::NodeSelectorRequirement& a, const api::NodeSelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}
bool Eq(const api::NodeSelectorTerm& a, const api::NodeSelectorTerm& b) {
  return Eq(a.match_expressions, b.match_expressions) && Eq(a.match_fields, b.match_fields);
}
bool Eq(const api::NodeSelector& a, const api::NodeSelector& b) { return Eq(a.terms, b.terms); }
bool Eq(const api::PreferredSchedulingTerm& a, const api::PreferredSchedulingTerm& b) {
  return a.weight == b.weight && Eq(a.preference, b.preference);
}
bool Eq(const api::NodeAffinity& a, const api::NodeAffinity& b) {
  return Eq(a.required, b.required) && Eq(a.preferred, b.preferred);
}
bool Eq(const api::PodAffinityTerm& a, const api::PodAffinityTerm& b) {
  return Eq(a.label_selector, b.label_selector) && a.namespaces == b.namespaces &&
         a.topology_key == b.topology_key && Eq(a.namespace_selector, b.namespace_selector) &&
         a.match_label_keys == b.match_label_keys && a.mismatch_label_keys == b.mismatch_label_keys;
}
bool Eq(const api::WeightedPodAffinityTerm& a, const api::WeightedPodAffinityTerm& b) {
  return a.weight == b.weight && Eq(a.term, b.term);
}
bool Eq(const api::PodAffinity& a, const api::PodAffinity& b) {
  return Eq(a.required, b.required) && Eq(a.preferred, b.preferred);
}
bool Eq(const api::Affinity& a, const api::Affinity& b) {
  return Eq(a.node_affinity, b.node_affinity) && Eq(a.pod_affinity, b.pod_affinity) &&
         Eq(a.pod_anti_affinity, b.pod_anti_affinity);
}
bool Eq(const api::Toleration& a, const api::Toleration& b) {
  return a.key == b.key && a.operator_ == b.operator_ && a.value == b.value &&
         a.effect == b.effect && a.toleration_seconds == b.toleration_seconds;
}
bool Eq(const api::ContainerPort& a, const api::ContainerPort& b) {
  return a.name == b.name && a.container_port == b.container_port && a.host_port == b.host_port &&
         a.protocol == b.protocol && a.host_ip == b.host_ip;
}
bool Eq(const api::Container& a, const api::Container& b) {
  return a.name == b.name && a.image == b.image && a.resources.requests == b.resources.requests &&
         a.resources.limits == b.resources.limits && Eq(a.ports, b.ports) &&
         a.restart_policy == b.restart_policy;
}
bool Eq(const api::TopologySpreadConstraint& a, const api::TopologySpreadConstraint& b) {
  return a.max_skew == b.max_skew && a.topology_key == b.topology_key &&
         a.when_unsatisfiable == b.when_unsatisfiable && Eq(a.label_selector, b.label_selector) &&
         a.min_domains == b.min_domains && a.node_affinity_policy == b.node_affinity_policy &&
         a.node_taints_policy == b.node_taints_policy && a.match_label_keys == b.match_label_keys;
}
bool Eq(const api::Volume& a, const api::Volume& b) {
  return a.name == b.name && a.pvc_claim_name == b.pvc_claim_name &&
         a.pvc_read_only == b.pvc_read_only && a.ephemeral == b.ephemeral &&
         a.gce_pd_name == b.gce_pd_name && a.gce_pd_read_only == b.gce_pd_read_only &&
         a.aws_ebs_volume_id == b.aws_ebs_volume_id &&
         a.iscsi_target_portal == b.iscsi_target_portal && a.iscsi_iqn == b.iscsi_iqn &&
         a.iscsi_lun == b.iscsi_lun && a.iscsi_read_only == b.iscsi_read_only &&
         a.rbd_monitors == b.rbd_monitors && a.rbd_pool == b.rbd_pool &&
         a.rbd_image == b.rbd_image && a.rbd_read_only == b.rbd_read_only &&
         a.csi_driver == b.csi_driver;
}
bool Eq(const api::OwnerReference& a, const api::OwnerReference& b) {
  return a.api_version == b.api_version && a.kind == b.kind && a.name == b.name && a.uid == b.uid &&
         a.controller == b.controller;
}

bool SpecEq(const api::PodSpec& a, const api::PodSpec& b) {
  return a.node_name == b.node_name && a.scheduler_name == b.scheduler_name &&
         Eq(a.containers, b.containers) && Eq(a.init_containers, b.init_containers) &&
         a.overhead == b.overhead && a.node_selector == b.node_selector &&
         Eq(a.affinity, b.affinity) && Eq(a.tolerations, b.tolerations) &&
         a.priority == b.priority && a.priority_class_name == b.priority_class_name &&
         a.preemption_policy == b.preemption_policy && a.scheduling_gates == b.scheduling_gates &&
         Eq(a.topology_spread_constraints, b.topology_spread_constraints) &&
         Eq(a.volumes, b.volumes) && a.host_network == b.host_network &&
         a.resources.requests == b.resources.requests && a.resources.limits == b.resources.limits;
}

}  // namespace

bool IsPodUpdated(const api::Pod& old_pod, const api::Pod& new_pod) {
  const auto& a = old_pod.metadata;
  const auto& b = new_pod.metadata;
  bool same = a.name == b.name && a.namespace_ == b.namespace_ && a.uid == b.uid &&
              a.labels == b.labels && a.annotations == b.annotations &&
              a.deletion_timestamp == b.deletion_timestamp &&
              Eq(a.owner_references, b.owner_references) && SpecEq(old_pod.spec, new_pod.spec);
  return !same;
}

bool GeneratedResourceClaimsChanged(const api::Pod& old_pod, const api::Pod& new_pod) {
  const auto& a = old_pod.status.resource_claim_statuses;
  const auto& b = new_pod.status.resource_claim_statuses;
  if (a.size() != b.size()) return true;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].resource_claim_name != b[i].resource_claim_name) return true;
  }
  return false;
}

}  // namespace berth::queue
