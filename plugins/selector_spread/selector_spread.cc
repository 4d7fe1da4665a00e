#include "plugins/selector_spread/selector_spread.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "api/selector.h"
#include "plugins/common/default_selector.h"
#include "scheduler/framework/args.h"
#include "scheduler/framework/plugin.h"

namespace berth::plugins::selector_spread {
namespace {

using framework::Status;

// Upstream's zoneWeighting: the zone spread counts for 2/3 of the score, the node spread 1/3.
constexpr double kZoneWeighting = 2.0 / 3.0;

// Upstream's utilnode.GetZoneKey: "region:\0:zone" from the beta labels, else the GA ones; empty
// when the node has neither.
std::string ZoneKey(const api::Node& node) {
  const api::Labels& l = node.metadata.labels;
  auto get = [&l](const char* beta, const char* ga) -> std::string {
    if (auto it = l.find(beta); it != l.end()) return it->second;
    if (auto it = l.find(ga); it != l.end()) return it->second;
    return "";
  };
  const std::string zone =
      get("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone");
  const std::string region =
      get("failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region");
  if (zone.empty() && region.empty()) return "";
  return region + std::string(":\0:", 3) + zone;
}

const framework::StateKey& PreScoreKey() {
  static const framework::StateKey key("PreScoreSelectorSpread");
  return key;
}

struct PreScoreState final : framework::StateData {
  api::LabelSelector selector;  // upstream's DefaultSelector; empty selects nothing
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

class SelectorSpread final : public framework::PreScorePlugin, public framework::ScorePlugin {
 public:
  explicit SelectorSpread(framework::Handle* handle) : handle_(handle) {}

  std::string_view Name() const override { return kName; }

  Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                  const std::vector<const framework::NodeInfo*>&) const override {
    // PodTopologySpread handles pods with explicit constraints (upstream's skipSelectorSpread).
    if (!pod.Pod().spec.topology_spread_constraints.empty()) {
      return Status(framework::Code::kSkip, "");
    }
    auto s = std::make_unique<PreScoreState>();
    s->selector = common::DefaultSelector(pod.Pod(), handle_->objects());
    state.Write(PreScoreKey(), std::move(s));
    return Status();
  }

  Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
               const framework::NodeInfo& node, int64_t* score) const override {
    *score = 0;
    const auto* s = state.Read<PreScoreState>(PreScoreKey());
    if (s == nullptr) return Status::Error("reading PreScoreSelectorSpread: not found");
    if (common::IsEmptySelector(s->selector)) return Status();
    // Upstream's countMatchingPods: same namespace, not terminating, matched by the selector.
    int64_t count = 0;
    for (const auto& p : node.pods()) {
      const api::Pod& existing = p->Pod();
      if (existing.metadata.namespace_ != pod.Namespace() ||
          existing.metadata.deletion_timestamp.has_value()) {
        continue;
      }
      if (api::Matches(s->selector, existing.metadata.labels)) ++count;
    }
    *score = count;
    return Status();
  }

  bool HasNormalizeScore() const override { return true; }

  // Same arithmetic as upstream's SelectorSpread.NormalizeScore.
  Status NormalizeScore(const framework::CycleState&, const framework::PodInfo&,
                        framework::NodeScoreList& scores) const override {
    std::vector<std::string> zones(scores.size());
    std::map<std::string, int64_t> count_by_zone;
    int64_t max_by_node = 0;
    for (size_t i = 0; i < scores.size(); ++i) {
      max_by_node = std::max(max_by_node, scores[i].score);
      const framework::NodeInfo* n = handle_->snapshot().Get(*scores[i].name);
      if (n == nullptr || n->node() == nullptr) {
        return Status::Error("node \"" + *scores[i].name + "\" not found");
      }
      zones[i] = ZoneKey(*n->node());
      if (!zones[i].empty()) count_by_zone[zones[i]] += scores[i].score;
    }
    int64_t max_by_zone = 0;
    for (const auto& [zone, count] : count_by_zone) max_by_zone = std::max(max_by_zone, count);
    const auto max_score = static_cast<double>(framework::kMaxNodeScore);
    for (size_t i = 0; i < scores.size(); ++i) {
      // Seed 003: 10 * (maxCount - count) / maxCount, here on the 0..100 scale.
      double f = max_score;
      if (max_by_node > 0) {
        f = max_score * static_cast<double>(max_by_node - scores[i].score) /
            static_cast<double>(max_by_node);
      }
      if (!zones[i].empty()) {
        double zone_score = max_score;
        if (max_by_zone > 0) {
          zone_score = max_score * static_cast<double>(max_by_zone - count_by_zone[zones[i]]) /
                       static_cast<double>(max_by_zone);
        }
        f = f * (1.0 - kZoneWeighting) + kZoneWeighting * zone_score;
      }
      scores[i].score = static_cast<int64_t>(f);
    }
    return Status();
  }

 private:
  framework::Handle* handle_;
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  if (ctx.handle == nullptr) return Error{ctx.args_path + ": SelectorSpread needs a handle"};
  return std::shared_ptr<framework::Plugin>(std::make_shared<SelectorSpread>(ctx.handle));
}

}  // namespace berth::plugins::selector_spread
