#include "plugins/common/default_selector.h"

#include "api/selector.h"

namespace berth::plugins::common {
namespace {

// metav1.GetControllerOfNoCopy: the first ownerReference with controller: true.
const api::OwnerReference* ControllerOf(const api::Pod& pod) {
  for (const auto& ref : pod.metadata.owner_references) {
    if (ref.controller) return &ref;
  }
  return nullptr;
}

// metav1.LabelSelectorAsSelector's checks of the operators: In / NotIn need values, Exists /
// DoesNotExist take none. Keys and values were validated by the API server.
bool ValidRequirement(const api::LabelSelectorRequirement& r) {
  switch (r.op) {
    case api::SelectorOperator::kIn:
    case api::SelectorOperator::kNotIn:
      return !r.values.empty();
    case api::SelectorOperator::kExists:
    case api::SelectorOperator::kDoesNotExist:
      return r.values.empty();
    default:
      return false;
  }
}

// selector.Add(requirements of `other`...): an absent, empty or invalid selector adds nothing.
void AddRequirements(const std::optional<api::LabelSelector>& other, api::LabelSelector* out) {
  if (!other.has_value()) return;
  for (const auto& r : other->match_expressions) {
    if (!ValidRequirement(r)) return;
  }
  for (const auto& [k, v] : other->match_labels) {
    out->match_expressions.push_back({k, api::SelectorOperator::kIn, {v}});
  }
  for (const auto& r : other->match_expressions) out->match_expressions.push_back(r);
}

}  // namespace

api::LabelSelector DefaultSelector(const api::Pod& pod, const api::ClusterObjects& objects) {
  api::LabelSelector sel;
  const std::string& ns = pod.metadata.namespace_;
  // The selectors of Services matching the pod never conflict, so merging them is safe.
  objects.services.ForEach([&](const api::Service& svc) {
    if (svc.metadata.namespace_ != ns || svc.selector.empty()) return;
    if (!api::MatchesMap(svc.selector, pod.metadata.labels)) return;
    for (const auto& [k, v] : svc.selector) sel.match_labels[k] = v;
  });
  const api::OwnerReference* owner = ControllerOf(pod);
  if (owner == nullptr) return sel;
  // Group and version must be exactly those of upstream's rcKind / rsKind / ssKind.
  if (owner->api_version == "v1" && owner->kind == "ReplicationController") {
    if (auto rc = objects.replication_controllers.Get(ns, owner->name)) {
      for (const auto& [k, v] : rc->selector) sel.match_labels[k] = v;
    }
  } else if (owner->api_version == "apps/v1" && owner->kind == "ReplicaSet") {
    if (auto rs = objects.replica_sets.Get(ns, owner->name)) AddRequirements(rs->selector, &sel);
  } else if (owner->api_version == "apps/v1" && owner->kind == "StatefulSet") {
    if (auto ss = objects.stateful_sets.Get(ns, owner->name)) AddRequirements(ss->selector, &sel);
  }
  return sel;
}

}  // namespace berth::plugins::common
