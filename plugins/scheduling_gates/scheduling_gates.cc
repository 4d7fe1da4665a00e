#include "plugins/scheduling_gates/scheduling_gates.h"

#include "scheduler/framework/args.h"

namespace berth::plugins::scheduling_gates {
namespace {

class SchedulingGates final : public framework::PreEnqueuePlugin,
                              public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return kName; }

  framework::Status PreEnqueue(const framework::PodInfo& pod) const override {
    if (pod.Pod().spec.scheduling_gates.empty()) return {};
    return framework::Status::Unresolvable(GatesMessage(pod.Pod()));
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    // Same hint as upstream: only the update of the gated pod itself may ungate it.
    framework::QueueingHintFn hint = [](const api::Pod& pod, const framework::EventObject&,
                                        const framework::EventObject& new_obj) {
      const auto* updated = std::get_if<const api::Pod*>(&new_obj);
      if (updated == nullptr || *updated == nullptr) return framework::QueueingHint::kQueue;
      return (*updated)->metadata.uid == pod.metadata.uid ? framework::QueueingHint::kQueue
                                                          : framework::QueueingHint::kQueueSkip;
    };
    return {{framework::ClusterEvent{framework::EventResource::kPod,
                                     framework::action::kUpdatePodSchedulingGatesEliminated,
                                     "PodUpdateSchedulingGatesEliminated"},
             std::move(hint)}};
  }
};

}  // namespace

std::string GatesMessage(const api::Pod& pod) {
  // Go formats a []string with %v as "[a b c]".
  std::string msg = "waiting for scheduling gates: [";
  bool first = true;
  for (const auto& gate : pod.spec.scheduling_gates) {
    if (!first) msg += ' ';
    msg += gate;
    first = false;
  }
  msg += ']';
  return msg;
}

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  return std::shared_ptr<framework::Plugin>(std::make_shared<SchedulingGates>());
}

}  // namespace berth::plugins::scheduling_gates
