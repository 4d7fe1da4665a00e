#include "plugins/taint_toleration/taint_toleration.h"

#include <string>
#include <vector>

#include "api/selector.h"
#include "base/strings.h"
#include "scheduler/framework/args.h"
#include "scheduler/framework/explain.h"

namespace berth::plugins::taint_toleration {
namespace {

const framework::StateKey& PreScoreKey() {
  static const framework::StateKey key("PreScoreTaintToleration");
  return key;
}

// Tolerations that can tolerate a PreferNoSchedule taint; the pod is shared so no copy is made.
struct PreScoreState final : framework::StateData {
  std::shared_ptr<const api::Pod> pod;
  std::vector<const api::Toleration*> prefer_no_schedule;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

bool IsDoNotSchedule(const api::Taint& t) {
  return t.effect == "NoSchedule" || t.effect == "NoExecute";
}

// Upstream's FindMatchingUntoleratedTaint restricted to NoSchedule/NoExecute taints.
const api::Taint* FirstUntolerated(const std::vector<api::Taint>& taints,
                                   const std::vector<api::Toleration>& tolerations) {
  for (const auto& taint : taints) {
    if (!IsDoNotSchedule(taint)) continue;
    if (!api::TolerationsTolerate(tolerations, taint)) return &taint;
  }
  return nullptr;
}

// "dedicated=gpu:NoSchedule", or "dedicated:NoSchedule" without a value (kubectl taint's form).
std::string TaintText(const api::Taint& t) {
  return t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect;
}

class TaintToleration final : public framework::PreFilterPlugin,
                              public framework::FilterPlugin,
                              public framework::PreScorePlugin,
                              public framework::ScorePlugin,
                              public framework::EnqueueExtensions,
                              public framework::FilterExplainer {
 public:
  std::string_view Name() const override { return kName; }

  // Upstream v1.37 added a PreFilter that only skips pods with a deferred resize (a gate that is
  // off); it always succeeds.
  framework::Status PreFilter(framework::CycleState&, const framework::PodInfo&,
                              const std::vector<const framework::NodeInfo*>&,
                              framework::PreFilterResult*) const override {
    return {};
  }

  framework::Status Filter(const framework::CycleState&, const framework::PodInfo& pod,
                           const framework::NodeInfo& node_info) const override {
    const api::Node* node = node_info.node();
    if (node == nullptr) return framework::Status::Error("node not found");
    const api::Taint* taint = FirstUntolerated(node->spec.taints, pod.Pod().spec.tolerations);
    if (taint == nullptr) return {};
    static const framework::Status kUntolerated =
        framework::Status::Unresolvable(kErrReasonUntoleratedTaints).WithPlugin(kName);
    return kUntolerated;
  }

  // Names every NoSchedule/NoExecute taint the pod does not tolerate (not only the first, where
  // Filter stopped): all of them need a toleration. Gap 0.5: the pod's author can fix it.
  void ExplainFilter(const framework::CycleState&, const framework::PodInfo& pod,
                     const framework::NodeInfo& node_info, const framework::Status& rejection,
                     framework::ExplainDetail detail,
                     std::vector<framework::FilterNeed>* out) const override {
    for (const std::string& reason : rejection.reasons()) {
      if (reason != kErrReasonUntoleratedTaints) continue;
      // kGapOnly (every rejected node) copies no string: explain.h allows an empty reason.
      framework::FilterNeed n{detail == framework::ExplainDetail::kFull ? reason : std::string(),
                              std::string(), kExplainGap};
      const api::Node* node = node_info.node();
      if (detail == framework::ExplainDetail::kFull && node != nullptr) {
        std::vector<std::string> taints;
        for (const auto& taint : node->spec.taints) {
          if (IsDoNotSchedule(taint) &&
              !api::TolerationsTolerate(pod.Pod().spec.tolerations, taint)) {
            taints.push_back(TaintText(taint));
          }
        }
        if (!taints.empty()) {
          n.need = (taints.size() == 1 ? "add a toleration for " : "add tolerations for ") +
                   Join(taints);
        }
      }
      out->push_back(std::move(n));
    }
  }

  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             const std::vector<const framework::NodeInfo*>&) const override {
    auto s = std::make_unique<PreScoreState>();
    s->pod = pod.pod;
    for (const auto& t : pod.Pod().spec.tolerations) {
      // An empty effect tolerates every effect, PreferNoSchedule included.
      if (t.effect.empty() || t.effect == "PreferNoSchedule") s->prefer_no_schedule.push_back(&t);
    }
    state.Write(PreScoreKey(), std::move(s));
    return {};
  }

  framework::Status Score(const framework::CycleState& state, const framework::PodInfo&,
                          const framework::NodeInfo& node_info, int64_t* score) const override {
    const auto* s = state.Read<PreScoreState>(PreScoreKey());
    if (s == nullptr) {
      return framework::Status::Error(
          "failed to read \"PreScoreTaintToleration\" from cycleState: not found");
    }
    const api::Node* node = node_info.node();
    if (node == nullptr) return framework::Status::Error("node not found");
    int64_t intolerable = 0;
    for (const auto& taint : node->spec.taints) {
      if (taint.effect != "PreferNoSchedule") continue;
      bool tolerated = false;
      for (const api::Toleration* t : s->prefer_no_schedule) {
        if (api::Tolerates(*t, taint)) {
          tolerated = true;
          break;
        }
      }
      if (!tolerated) ++intolerable;
    }
    *score = intolerable;
    return {};
  }

  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(const framework::CycleState&, const framework::PodInfo&,
                                   framework::NodeScoreList& scores) const override {
    framework::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/true, scores);
    return {};
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    using framework::QueueingHint;
    framework::QueueingHintFn node_hint = [](const api::Pod& pod,
                                             const framework::EventObject& old_obj,
                                             const framework::EventObject& new_obj) {
      const auto* nw = std::get_if<const api::Node*>(&new_obj);
      if (nw == nullptr || *nw == nullptr) return QueueingHint::kQueue;
      const api::Node* old_node = nullptr;
      if (const auto* o = std::get_if<const api::Node*>(&old_obj)) {
        old_node = *o;
      } else if (!std::holds_alternative<std::monostate>(old_obj)) {
        return QueueingHint::kQueue;  // wrong type: Queue, as upstream does on error
      }
      const bool was_untolerated =
          old_node == nullptr ||
          FirstUntolerated(old_node->spec.taints, pod.spec.tolerations) != nullptr;
      const bool is_untolerated =
          FirstUntolerated((*nw)->spec.taints, pod.spec.tolerations) != nullptr;
      return was_untolerated && !is_untolerated ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
    };
    framework::QueueingHintFn pod_hint = [](const api::Pod& pod, const framework::EventObject&,
                                            const framework::EventObject& new_obj) {
      const auto* nw = std::get_if<const api::Pod*>(&new_obj);
      if (nw == nullptr || *nw == nullptr) return QueueingHint::kQueue;
      return (*nw)->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue
                                                     : QueueingHint::kQueueSkip;
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
  return std::shared_ptr<framework::Plugin>(std::make_shared<TaintToleration>());
}

}  // namespace berth::plugins::taint_toleration
