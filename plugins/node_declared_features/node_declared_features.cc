#include "plugins/node_declared_features/node_declared_features.h"

#include <algorithm>
#include <utility>

#include "scheduler/framework/args.h"

namespace berth::plugins::node_declared_features {
namespace {

const framework::StateKey& PreFilterKey() {
  static const framework::StateKey key("PreFilterNodeDeclaredFeatures");
  return key;
}

struct PreFilterState final : framework::StateData {
  std::vector<std::string> required;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

bool RestartsAllContainers(const std::vector<api::Container>& containers) {
  for (const api::Container& c : containers) {
    for (const std::string& action : c.restart_policy_rule_actions) {
      if (action == "RestartAllContainers") return true;
    }
  }
  return false;
}

bool HasBindMountOptions(const std::vector<api::Container>& containers) {
  return std::any_of(containers.begin(), containers.end(),
                     [](const api::Container& c) { return c.has_bind_mount_options; });
}

bool Declares(const api::Node& node, const std::string& feature) {
  const auto& declared = node.status.declared_features;
  return std::find(declared.begin(), declared.end(), feature) != declared.end();
}

class NodeDeclaredFeatures final : public framework::PreFilterPlugin,
                                   public framework::FilterPlugin,
                                   public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return kName; }

  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>&,
                              framework::PreFilterResult*) const override {
    auto s = std::make_unique<PreFilterState>();
    s->required = RequiredFeatures(pod.Pod().spec);
    if (s->required.empty()) return framework::Status::Skip();
    state.Write(PreFilterKey(), std::move(s));
    return {};
  }

  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo&,
                           const framework::NodeInfo& node_info) const override {
    const auto* s = state.Read<PreFilterState>(PreFilterKey());
    if (s == nullptr) {
      return framework::Status::Error(
          "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found");
    }
    const api::Node* node = node_info.node();
    if (node == nullptr) return framework::Status::Error("node not found");
    for (const std::string& feature : s->required) {
      if (!Declares(*node, feature)) {
        return framework::Status::Unresolvable(kErrReasonUnsatisfiedRequirements);
      }
    }
    return {};
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    using framework::QueueingHint;
    framework::QueueingHintFn node_hint = [](const api::Pod&, const framework::EventObject& old_obj,
                                             const framework::EventObject& new_obj) {
      const auto* nw = std::get_if<const api::Node*>(&new_obj);
      if (nw == nullptr || *nw == nullptr) return QueueingHint::kQueue;
      const auto* old_node = std::get_if<const api::Node*>(&old_obj);
      if (old_node != nullptr && *old_node != nullptr &&
          (*old_node)->status.declared_features == (*nw)->status.declared_features) {
        return QueueingHint::kQueueSkip;
      }
      return QueueingHint::kQueue;
    };
    framework::QueueingHintFn pod_hint = [](const api::Pod& pod,
                                            const framework::EventObject& old_obj,
                                            const framework::EventObject& new_obj) {
      const auto* nw = std::get_if<const api::Pod*>(&new_obj);
      const auto* old = std::get_if<const api::Pod*>(&old_obj);
      if (nw == nullptr || *nw == nullptr || old == nullptr || *old == nullptr) {
        return QueueingHint::kQueue;
      }
      // Upstream registers the update of the pod itself (TargetPod) only.
      if ((*nw)->metadata.uid != pod.metadata.uid) return QueueingHint::kQueueSkip;
      return RequiredFeatures((*old)->spec) == RequiredFeatures((*nw)->spec)
                 ? QueueingHint::kQueueSkip
                 : QueueingHint::kQueue;
    };
    return {
        {framework::ClusterEvent{
             framework::EventResource::kNode,
             framework::action::kAdd | framework::action::kUpdateNodeDeclaredFeature,
             "NodeAdd|UpdateNodeDeclaredFeature"},
         std::move(node_hint)},
        {framework::ClusterEvent{framework::EventResource::kPod, framework::action::kUpdate,
                                 "PodUpdate"},
         std::move(pod_hint)},
    };
  }
};

}  // namespace

std::vector<std::string> RequiredFeatures(const api::PodSpec& spec) {
  std::vector<std::string> required;
  if (RestartsAllContainers(spec.containers) || RestartsAllContainers(spec.init_containers)) {
    required.emplace_back("RestartAllContainersOnContainerExits");
  }
  if (spec.host_network && spec.host_users.has_value() && !*spec.host_users) {
    required.emplace_back("UserNamespacesHostNetworkSupport");
  }
  if (HasBindMountOptions(spec.containers) || HasBindMountOptions(spec.init_containers) ||
      HasBindMountOptions(spec.ephemeral_containers)) {
    required.emplace_back("VolumeBindMountOptions");
  }
  return required;
}

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  return std::shared_ptr<framework::Plugin>(std::make_shared<NodeDeclaredFeatures>());
}

}  // namespace berth::plugins::node_declared_features
