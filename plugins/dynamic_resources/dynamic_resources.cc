#include "plugins/dynamic_resources/dynamic_resources.h"

#include "scheduler/framework/args.h"
#include "scheduler/framework/cycle_state.h"

namespace berth::plugins::dynamic_resources {
namespace {

using framework::Status;

// Written by PreFilter; its presence is what PostFilter and Score look for.
struct PreFilterState final : framework::StateData {
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>();
  }
};

const framework::StateKey& Key() {
  static const framework::StateKey key("PreFilterDynamicResources");
  return key;
}

class DynamicResources final : public framework::PreFilterPlugin,
                               public framework::PostFilterPlugin,
                               public framework::ScorePlugin,
                               public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return kName; }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                   const std::vector<const framework::NodeInfo*>&,
                   framework::PreFilterResult*) const override {
    state.Write(Key(), std::make_unique<PreFilterState>());
    if (!pod.Pod().spec.resource_claims.empty()) {
      return Status::Unresolvable(
          "berth does not allocate resource claims yet: pod uses spec.resourceClaims");
    }
    return Status::Skip();
  }

  Status PostFilter(framework::CycleState& state, const framework::PodInfo&,
                    const framework::NodeToStatus&, framework::PostFilterResult*) const override {
    // Upstream reads its PreFilter state first; when no PreFilter state was written the read
    // fails with the CycleState's "not found".
    if (state.Read<PreFilterState>(Key()) == nullptr) return Status::Error("not found");
    return Status(framework::Code::kUnschedulable, std::string());
  }

  // Scoring runs only after every PreFilter plugin ran (this one included), so the state upstream
  // reads here is always present and holds no claims: 0.
  Status Score(const framework::CycleState&, const framework::PodInfo&, const framework::NodeInfo&,
               int64_t* score) const override {
    *score = 0;
    return Status();
  }
  std::optional<int64_t> UniformScore(const framework::CycleState&,
                                      const framework::PodInfo&) const override {
    return 0;
  }

  // No events: only a pod that names claims is ever rejected here, and nothing berth watches
  // can make it schedulable before claims are supported.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override { return {}; }
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  return std::shared_ptr<framework::Plugin>(std::make_shared<DynamicResources>());
}

}  // namespace berth::plugins::dynamic_resources
