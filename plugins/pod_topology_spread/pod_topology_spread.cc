#include "plugins/pod_topology_spread/pod_topology_spread.h"

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "api/decode.h"
#include "base/strings.h"
#include "plugins/common/default_selector.h"
#include "plugins/pod_topology_spread/plugin.h"
#include "scheduler/framework/args.h"

namespace berth::plugins::pod_topology_spread {
namespace {

using framework::QueueingHint;

std::vector<api::TopologySpreadConstraint> SystemDefaultConstraints() {
  api::TopologySpreadConstraint host;
  host.max_skew = 3;
  host.topology_key = kLabelHostname;
  host.when_unsatisfiable = kScheduleAnyway;
  api::TopologySpreadConstraint zone;
  zone.max_skew = 5;
  zone.topology_key = kLabelTopologyZone;
  zone.when_unsatisfiable = kScheduleAnyway;
  return {host, zone};
}

// The object of an event as a T, null for std::monostate; false when it holds another type.
template <typename T>
bool As(const framework::EventObject& obj, const T** out) {
  *out = nullptr;
  if (std::holds_alternative<std::monostate>(obj)) return true;
  const auto* p = std::get_if<const T*>(&obj);
  if (p == nullptr) return false;
  *out = *p;
  return true;
}

// Upstream v1.37's involvedInTopologySpreading: a bound or nominated pod in the pod's namespace.
bool Involved(const api::Pod& incoming, const api::Pod& pod) {
  if (incoming.spec.node_name.empty() && incoming.status.nominated_node_name.empty()) return false;
  return incoming.metadata.namespace_ == pod.metadata.namespace_;
}

// Upstream's isSchedulableAfterPodLabelChange.
QueueingHint AfterLabelChange(const std::vector<Constraint>& cs, const api::Pod& old_pod,
                              const api::Pod& new_pod) {
  if (old_pod.metadata.labels == new_pod.metadata.labels) return QueueingHint::kQueueSkip;
  for (const auto& c : cs) {
    if (c.selector.Matches(old_pod) != c.selector.Matches(new_pod)) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

bool SameTolerations(const std::vector<api::Toleration>& a, const std::vector<api::Toleration>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].operator_ != b[i].operator_ || a[i].value != b[i].value ||
        a[i].effect != b[i].effect || a[i].toleration_seconds != b[i].toleration_seconds) {
      return false;
    }
  }
  return true;
}

bool SameTaints(const std::vector<api::Taint>& a, const std::vector<api::Taint>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].value != b[i].value || a[i].effect != b[i].effect) {
      return false;
    }
  }
  return true;
}

bool AnyMatches(const std::vector<Constraint>& cs, const api::Pod& pod) {
  for (const auto& c : cs) {
    if (c.selector.Matches(pod)) return true;
  }
  return false;
}

}  // namespace

std::string_view PodTopologySpread::Name() const { return kName; }

std::vector<Constraint> PodTopologySpread::GetConstraints(const api::Pod& pod,
                                                          std::string_view action) const {
  const api::Labels& labels = pod.metadata.labels;
  if (!pod.spec.topology_spread_constraints.empty()) {
    return FilterConstraints(pod.spec.topology_spread_constraints, labels, action);
  }
  std::vector<Constraint> cs = FilterConstraints(default_constraints_, labels, action);
  if (cs.empty()) return cs;
  if (handle_ == nullptr) return {};
  SpreadSelector selector;
  selector.labels = common::DefaultSelector(pod, handle_->objects());
  if (selector.Empty()) return {};
  for (auto& c : cs) c.selector = selector;
  return cs;
}

std::vector<framework::ClusterEventWithHint> PodTopologySpread::EventsToRegister() const {
  namespace action = framework::action;
  auto pod_hint = [this](const api::Pod& pod, const framework::EventObject& old_obj,
                         const framework::EventObject& new_obj) {
    return HintAfterPodChange(pod, old_obj, new_obj);
  };
  auto target_hint = [this](const api::Pod& pod, const framework::EventObject& old_obj,
                            const framework::EventObject& new_obj) {
    return HintAfterTargetPodChange(pod, old_obj, new_obj);
  };
  auto node_hint = [this](const api::Pod& pod, const framework::EventObject& old_obj,
                          const framework::EventObject& new_obj) {
    return HintAfterNodeChange(pod, old_obj, new_obj);
  };
  return {
      {framework::ClusterEvent{framework::EventResource::kAssignedPod,
                               action::kAdd | action::kUpdatePodLabel | action::kDelete,
                               "AssignedPodAdd|UpdatePodLabel|Delete"},
       pod_hint},
      // The pod's own update (upstream's TargetPod): a new toleration may help under
      // nodeTaintsPolicy Honor, a label change may change what its constraints count.
      {framework::ClusterEvent{framework::EventResource::kPod,
                               action::kUpdatePodToleration | action::kUpdatePodLabel,
                               "PodUpdatePodToleration|UpdatePodLabel"},
       target_hint},
      {framework::ClusterEvent{
           framework::EventResource::kNode,
           action::kAdd | action::kDelete | action::kUpdateNodeLabel | action::kUpdateNodeTaint,
           "NodeAdd|Delete|UpdateNodeLabel|UpdateNodeTaint"},
       node_hint},
  };
}

QueueingHint PodTopologySpread::HintAfterPodChange(const api::Pod& pod,
                                                   const framework::EventObject& old_obj,
                                                   const framework::EventObject& new_obj) const {
  const api::Pod* old_pod = nullptr;
  const api::Pod* new_pod = nullptr;
  if (!As(old_obj, &old_pod) || !As(new_obj, &new_pod)) return QueueingHint::kQueue;
  if ((new_pod != nullptr && !Involved(*new_pod, pod)) ||
      (old_pod != nullptr && !Involved(*old_pod, pod))) {
    return QueueingHint::kQueueSkip;
  }
  const std::vector<Constraint> cs = GetConstraints(pod, kDoNotSchedule);
  if (old_pod != nullptr && new_pod != nullptr) return AfterLabelChange(cs, *old_pod, *new_pod);
  const api::Pod* changed = new_pod != nullptr ? new_pod : old_pod;
  if (changed == nullptr) return QueueingHint::kQueue;
  return AnyMatches(cs, *changed) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

QueueingHint PodTopologySpread::HintAfterTargetPodChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj) const {
  const api::Pod* old_pod = nullptr;
  const api::Pod* new_pod = nullptr;
  if (!As(old_obj, &old_pod) || !As(new_obj, &new_pod) || old_pod == nullptr ||
      new_pod == nullptr) {
    return QueueingHint::kQueue;
  }
  if (new_pod->metadata.uid != pod.metadata.uid) return QueueingHint::kQueueSkip;
  const std::vector<Constraint> cs = GetConstraints(pod, kDoNotSchedule);
  if (!SameTolerations(old_pod->spec.tolerations, new_pod->spec.tolerations)) {
    for (const auto& c : cs) {
      if (c.honor_node_taints) return QueueingHint::kQueue;
    }
  }
  return AfterLabelChange(cs, *old_pod, *new_pod);
}

// Upstream's isSchedulableAfterNodeChange.
QueueingHint PodTopologySpread::HintAfterNodeChange(const api::Pod& pod,
                                                    const framework::EventObject& old_obj,
                                                    const framework::EventObject& new_obj) const {
  const api::Node* old_node = nullptr;
  const api::Node* new_node = nullptr;
  if (!As(old_obj, &old_node) || !As(new_obj, &new_node)) return QueueingHint::kQueue;
  const std::vector<Constraint> cs = GetConstraints(pod, kDoNotSchedule);
  const bool old_matching = old_node != nullptr && NodeHasAllKeys(old_node->metadata.labels, cs);
  const bool new_matching = new_node != nullptr && NodeHasAllKeys(new_node->metadata.labels, cs);
  if (old_node != nullptr && new_node != nullptr) {
    if (old_matching != new_matching) return QueueingHint::kQueue;
    if (!new_matching) return QueueingHint::kQueueSkip;
    for (const auto& c : cs) {
      auto o = old_node->metadata.labels.find(c.topology_key);
      auto n = new_node->metadata.labels.find(c.topology_key);
      if (o->second != n->second) return QueueingHint::kQueue;
    }
    return SameTaints(old_node->spec.taints, new_node->spec.taints) ? QueueingHint::kQueueSkip
                                                                    : QueueingHint::kQueue;
  }
  if (new_node != nullptr) return new_matching ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  if (old_node != nullptr) return old_matching ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  return QueueingHint::kQueue;
}

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_ASSIGN_OR_RETURN(api::Reader reader, framework::ReadArgs(ctx.args, ctx.args_path));
  BERTH_ASSIGN_OR_RETURN(const api::Value* list, reader.Array("defaultConstraints"));
  std::string defaulting = "System";
  BERTH_RETURN_IF_ERROR(reader.String("defaultingType", &defaulting));
  BERTH_RETURN_IF_ERROR(reader.Done());

  // Validated as upstream's ValidatePodTopologySpreadArgs.
  const std::string list_path = reader.PathOf("defaultConstraints");
  const std::string type_path = reader.PathOf("defaultingType");
  std::vector<api::TopologySpreadConstraint> defaults;
  if (list != nullptr) {
    for (size_t i = 0; i < list->AsArray().size(); ++i) {
      const std::string p = api::IndexPath(list_path, i);
      BERTH_ASSIGN_OR_RETURN(api::TopologySpreadConstraint c,
                             api::DecodeTopologySpreadConstraint(list->AsArray()[i], p));
      if (c.label_selector.has_value()) {
        return Error{p +
                     ".labelSelector: Forbidden: constraint must not define a selector, as "
                     "they deduced for each pod"};
      }
      for (const auto& prev : defaults) {
        if (prev.topology_key == c.topology_key &&
            prev.when_unsatisfiable == c.when_unsatisfiable) {
          return Error{p + ": Duplicate value: " +
                       Quote("{" + c.topology_key + ", " + c.when_unsatisfiable + "}")};
        }
      }
      defaults.push_back(std::move(c));
    }
  }
  if (defaulting != "System" && defaulting != "List") {
    return Error{type_path + ": Unsupported value: " + Quote(defaulting) +
                 ": supported values: \"System\", \"List\""};
  }
  const bool system = defaulting == "System";
  if (system && !defaults.empty()) {
    return Error{type_path + ": Invalid value: \"System\": when .defaultConstraints are not empty"};
  }
  if (system) defaults = SystemDefaultConstraints();
  return std::shared_ptr<framework::Plugin>(
      std::make_shared<PodTopologySpread>(std::move(defaults), system, ctx.handle));
}

}  // namespace berth::plugins::pod_topology_spread
