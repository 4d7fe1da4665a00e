#include "plugins/node_name/node_name.h"

#include <set>
#include <string>
#include <vector>

#include "scheduler/framework/args.h"

namespace berth::plugins::node_name {
namespace {

class NodeName final : public framework::PreFilterPlugin,
                       public framework::FilterPlugin,
                       public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return kName; }

  // Upstream v1.37: a pod that names its node narrows the cycle to that node.
  framework::Status PreFilter(framework::CycleState&, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>&,
                              framework::PreFilterResult* result) const override {
    const std::string& wanted = pod.Pod().spec.node_name;
    if (!wanted.empty() && result != nullptr) {
      result->node_names = std::set<std::string, std::less<>>{wanted};
    }
    return {};
  }

  framework::Status Filter(const framework::CycleState&, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override {
    const std::string& wanted = pod.Pod().spec.node_name;
    if (wanted.empty() || wanted == node.name()) return {};
    static const framework::Status kOther =
        framework::Status::Unresolvable(kErrReason).WithPlugin(kName);
    return kOther;
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    return {{framework::ClusterEvent{framework::EventResource::kNode, framework::action::kAdd,
                                     "NodeAdd"},
             nullptr}};
  }
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  return std::shared_ptr<framework::Plugin>(std::make_shared<NodeName>());
}

}  // namespace berth::plugins::node_name
