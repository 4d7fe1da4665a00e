// Args, queueing hints and the factory: upstream's interpodaffinity/plugin.go.

#include "plugins/inter_pod_affinity/plugin.h"

#include "plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "plugins/inter_pod_affinity/terms.h"
#include "scheduler/framework/args.h"

namespace berth::plugins::inter_pod_affinity {
namespace {

using framework::QueueingHint;

// upstream's podMatchesAllAffinityTerms over the unmerged terms of `owner` (as GetAffinityTerms
// builds them for the hints): namespaceSelector sees no namespace labels.
bool MatchesAllTerms(const std::vector<api::PodAffinityTerm>& terms, const api::Pod& owner,
                     const api::Pod& target) {
  static const api::Labels kNoLabels;
  if (terms.empty()) return false;
  for (const auto& t : terms) {
    if (!ExistingTermMatches(t, owner, target, kNoLabels)) return false;
  }
  return true;
}

// upstream's podMatchesAnyAffinityTerms (v1.37), with the same namespace caveat.
bool MatchesAnyTerm(const std::vector<api::PodAffinityTerm>& terms, const api::Pod& owner,
                    const api::Pod& target) {
  static const api::Labels kNoLabels;
  for (const auto& t : terms) {
    if (ExistingTermMatches(t, owner, target, kNoLabels)) return true;
  }
  return false;
}

// Reads the pod out of an event object: nullptr when absent; *ok = false on a wrong type.
const api::Pod* PodOf(const framework::EventObject& obj, bool* ok) {
  if (std::holds_alternative<std::monostate>(obj)) return nullptr;
  if (const auto* p = std::get_if<const api::Pod*>(&obj)) return *p;
  *ok = false;
  return nullptr;
}

const api::Node* NodeOf(const framework::EventObject& obj, bool* ok) {
  if (std::holds_alternative<std::monostate>(obj)) return nullptr;
  if (const auto* n = std::get_if<const api::Node*>(&obj)) return *n;
  *ok = false;
  return nullptr;
}

// upstream's isSchedulableAfterAssignedPodChange (v1.37).
QueueingHint AfterAssignedPodChange(const api::Pod& pod, const framework::EventObject& old_obj,
                                    const framework::EventObject& new_obj) {
  bool ok = true;
  const api::Pod* original = PodOf(old_obj, &ok);
  const api::Pod* modified = PodOf(new_obj, &ok);
  if (!ok || (original == nullptr && modified == nullptr)) return QueueingHint::kQueue;
  // A pod neither bound nor nominated doesn't make the target schedulable.
  auto unplaced = [](const api::Pod* p) {
    return p != nullptr && p->spec.node_name.empty() && p->status.nominated_node_name.empty();
  };
  if (unplaced(modified) || unplaced(original)) return QueueingHint::kQueueSkip;
  const auto& terms = RequiredAffinityTerms(pod);
  const auto& anti_terms = RequiredAntiAffinityTerms(pod);
  if (modified != nullptr && original != nullptr) {
    // Updated: now matching the affinity, or no longer matching the anti-affinity.
    if (!MatchesAllTerms(terms, pod, *original) && MatchesAllTerms(terms, pod, *modified)) {
      return QueueingHint::kQueue;
    }
    if (MatchesAnyTerm(anti_terms, pod, *original) && !MatchesAnyTerm(anti_terms, pod, *modified)) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  }
  if (modified != nullptr) {  // added
    return MatchesAllTerms(terms, pod, *modified) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  }
  // Deleted: it may have been what the target's anti-affinity rejected, or its own anti-affinity
  // may have rejected the target.
  if (MatchesAnyTerm(anti_terms, pod, *original)) return QueueingHint::kQueue;
  return MatchesAnyTerm(RequiredAntiAffinityTerms(*original), *original, pod)
             ? QueueingHint::kQueue
             : QueueingHint::kQueueSkip;
}

// upstream's isSchedulableAfterNodeChange: a node (re)labelled into a topology the pod's terms
// care about.
QueueingHint AfterNodeChange(const api::Pod& pod, const framework::EventObject& old_obj,
                             const framework::EventObject& new_obj) {
  bool ok = true;
  const api::Node* original = NodeOf(old_obj, &ok);
  const api::Node* modified = NodeOf(new_obj, &ok);
  if (!ok || modified == nullptr) return QueueingHint::kQueue;
  const api::Labels& now = modified->metadata.labels;
  for (const auto& t : RequiredAffinityTerms(pod)) {
    auto after = now.find(t.topology_key);
    if (original == nullptr) {
      // Added with the affinity topology key.
      if (after != now.end()) return QueueingHint::kQueue;
      continue;
    }
    const api::Labels& before_labels = original->metadata.labels;
    auto before = before_labels.find(t.topology_key);
    // The key appeared, or its value changed.
    if (before == before_labels.end() && after != now.end()) return QueueingHint::kQueue;
    if (before != before_labels.end() && after != now.end() && before->second != after->second) {
      return QueueingHint::kQueue;
    }
  }
  for (const auto& t : RequiredAntiAffinityTerms(pod)) {
    // A new node may be in a domain without the pods the target hates.
    if (original == nullptr) return QueueingHint::kQueue;
    const api::Labels& before_labels = original->metadata.labels;
    auto before = before_labels.find(t.topology_key);
    auto after = now.find(t.topology_key);
    // The key disappeared, or its value changed.
    if (before != before_labels.end() && after == now.end()) return QueueingHint::kQueue;
    if (before != before_labels.end() && after != now.end() && before->second != after->second) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

}  // namespace

std::string_view InterPodAffinity::Name() const { return kName; }

api::Labels InterPodAffinity::NamespaceLabels(const std::string& ns) const {
  auto n = handle_->objects().namespaces.Get(ns);
  return n ? n->metadata.labels : api::Labels{};
}

std::vector<framework::ClusterEventWithHint> InterPodAffinity::EventsToRegister() const {
  using framework::ClusterEvent;
  using framework::EventResource;
  namespace action = framework::action;
  // v1.37's registrations. AssignedPod Delete: an existing pod's anti-affinity may have
  // rejected the pod. UpdatePodLabel: label changes may start or stop matching. Add: a new pod
  // may satisfy the pod's affinity. The pod's own label change (upstream's TargetPod) may take it
  // out of another pod's anti-affinity.
  auto target_label_hint = [](const api::Pod& pod, const framework::EventObject&,
                              const framework::EventObject& new_obj) {
    const auto* nw = std::get_if<const api::Pod*>(&new_obj);
    if (nw == nullptr || *nw == nullptr) return QueueingHint::kQueue;
    return (*nw)->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue
                                                   : QueueingHint::kQueueSkip;
  };
  return {
      {ClusterEvent{EventResource::kAssignedPod,
                    action::kAdd | action::kUpdatePodLabel | action::kDelete,
                    "AssignedPodAdd|UpdatePodLabel|Delete"},
       AfterAssignedPodChange},
      {ClusterEvent{EventResource::kPod, action::kUpdatePodLabel, "PodUpdatePodLabel"},
       target_label_hint},
      {ClusterEvent{EventResource::kNode, action::kAdd | action::kUpdateNodeLabel,
                    "NodeAdd|UpdateNodeLabel"},
       AfterNodeChange},
  };
}

Result<Args> ParseArgs(const api::Value* args, const std::string& path) {
  BERTH_ASSIGN_OR_RETURN(api::Reader r, framework::ReadArgs(args, path));
  Args out;
  std::optional<int64_t> weight;
  BERTH_RETURN_IF_ERROR(r.OptInt64("hardPodAffinityWeight", &weight));
  BERTH_RETURN_IF_ERROR(
      r.Bool("ignorePreferredTermsOfExistingPods", &out.ignore_preferred_terms_of_existing_pods));
  BERTH_RETURN_IF_ERROR(r.Done());
  if (weight) {
    if (*weight < 0 || *weight > 100) {
      return Error{r.PathOf("hardPodAffinityWeight") +
                   ": Invalid value: " + std::to_string(*weight) + ": not in valid range [0-100]"};
    }
    out.hard_pod_affinity_weight = static_cast<int32_t>(*weight);
  }
  return out;
}

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  if (ctx.handle == nullptr) return Error{"InterPodAffinity: the plugin needs a framework handle"};
  BERTH_ASSIGN_OR_RETURN(Args args, ParseArgs(ctx.args, ctx.args_path));
  return std::shared_ptr<framework::Plugin>(std::make_shared<InterPodAffinity>(args, ctx.handle));
}

}  // namespace berth::plugins::inter_pod_affinity
