#include "plugins/node_unschedulable/node_unschedulable.h"

#include <string>
#include <vector>

#include "api/selector.h"
#include "scheduler/framework/args.h"
#include "scheduler/framework/explain.h"

namespace berth::plugins::node_unschedulable {
namespace {

bool ToleratesUnschedulable(const api::Pod& pod) {
  static const api::Taint kTaint{kTaintNodeUnschedulable, "", "NoSchedule"};
  return api::TolerationsTolerate(pod.spec.tolerations, kTaint);
}

class NodeUnschedulable final : public framework::PreFilterPlugin,
                                public framework::FilterPlugin,
                                public framework::EnqueueExtensions,
                                public framework::FilterExplainer {
 public:
  std::string_view Name() const override { return kName; }

  // As upstream v1.37: Skip only for a deferred resize (gated off), so always Success.
  framework::Status PreFilter(framework::CycleState&, const framework::PodInfo&,
                              const std::vector<const framework::NodeInfo*>&,
                              framework::PreFilterResult*) const override {
    return {};
  }

  framework::Status Filter(const framework::CycleState&, const framework::PodInfo& pod,
                           const framework::NodeInfo& node_info) const override {
    const api::Node* node = node_info.node();
    if (node == nullptr) return framework::Status::Unresolvable(kErrReasonUnknownCondition);
    if (!node->spec.unschedulable) return {};
    if (ToleratesUnschedulable(pod.Pod())) return {};
    static const framework::Status kUnschedulable =
        framework::Status::Unresolvable(kErrReasonUnschedulable).WithPlugin(kName);
    return kUnschedulable;
  }

  void ExplainFilter(const framework::CycleState&, const framework::PodInfo&,
                     const framework::NodeInfo&, const framework::Status& rejection,
                     framework::ExplainDetail detail,
                     std::vector<framework::FilterNeed>* out) const override {
    for (const std::string& reason : rejection.reasons()) {
      if (reason != kErrReasonUnschedulable) continue;
      // kGapOnly (every rejected node) copies no string: explain.h allows an empty reason.
      framework::FilterNeed n{detail == framework::ExplainDetail::kFull ? reason : std::string(),
                              std::string(), kExplainGap};
      if (detail == framework::ExplainDetail::kFull) n.need = kExplainNeed;
      out->push_back(std::move(n));
    }
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    using framework::QueueingHint;
    framework::QueueingHintFn node_hint = [](const api::Pod&, const framework::EventObject& old_obj,
                                             const framework::EventObject& new_obj) {
      const auto* nw = std::get_if<const api::Node*>(&new_obj);
      if (nw == nullptr || *nw == nullptr) return QueueingHint::kQueue;
      const api::Node* old_node = nullptr;
      if (const auto* o = std::get_if<const api::Node*>(&old_obj)) {
        old_node = *o;
      } else if (!std::holds_alternative<std::monostate>(old_obj)) {
        return QueueingHint::kQueue;  // wrong type: be safe, as upstream does on error
      }
      const bool now_schedulable = !(*nw)->spec.unschedulable;
      if (now_schedulable && (old_node == nullptr || old_node->spec.unschedulable)) {
        return QueueingHint::kQueue;
      }
      return QueueingHint::kQueueSkip;
    };
    framework::QueueingHintFn pod_hint = [](const api::Pod& pod, const framework::EventObject&,
                                            const framework::EventObject& new_obj) {
      const auto* nw = std::get_if<const api::Pod*>(&new_obj);
      if (nw == nullptr || *nw == nullptr) return QueueingHint::kQueue;
      if ((*nw)->metadata.uid != pod.metadata.uid) return QueueingHint::kQueueSkip;
      return ToleratesUnschedulable(**nw) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
    };
    return {
        {framework::ClusterEvent{framework::EventResource::kNode,
                                 framework::action::kAdd | framework::action::kUpdateNodeTaint,
                                 "NodeAdd|UpdateNodeTaint"},
         std::move(node_hint)},
        {framework::ClusterEvent{framework::EventResource::kPod,
                                 framework::action::kUpdatePodToleration, "PodUpdatePodToleration"},
         std::move(pod_hint)},
    };
  }
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  return std::shared_ptr<framework::Plugin>(std::make_shared<NodeUnschedulable>());
}

}  // namespace berth::plugins::node_unschedulable
