#include "plugins/node_affinity/node_affinity.h"

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/decode.h"
#include "api/selector.h"
#include "base/strings.h"
#include "plugins/node_affinity/explain.h"
#include "plugins/node_affinity/selector_terms.h"
#include "scheduler/framework/args.h"
#include "scheduler/framework/explain.h"

namespace berth::plugins::node_affinity {
namespace {

using framework::QueueingHint;
using framework::Status;

const framework::StateKey& PreFilterKey() {
  static const framework::StateKey key("PreFilterNodeAffinity");
  return key;
}
const framework::StateKey& PreScoreKey() {
  static const framework::StateKey key("PreScoreNodeAffinity");
  return key;
}

const api::NodeAffinity* PodNodeAffinity(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a.has_value() || !a->node_affinity.has_value()) return nullptr;
  return &*a->node_affinity;
}

// The pod's nodeSelector and required node affinity (upstream's RequiredNodeAffinity). Holds
// the pod so the compiled terms stay valid when CycleState is cloned.
struct RequiredNodeAffinity {
  std::shared_ptr<const api::Pod> pod;
  std::optional<RequiredTerms> terms;

  explicit RequiredNodeAffinity(std::shared_ptr<const api::Pod> p) : pod(std::move(p)) {
    const api::NodeAffinity* na = PodNodeAffinity(*pod);
    if (na != nullptr && na->required.has_value()) terms.emplace(*na->required, "");
  }

  RequiredTerms::MatchResult Match(const api::Node& node) const {
    if (!pod->spec.node_selector.empty() &&
        !api::MatchesMap(pod->spec.node_selector, node.metadata.labels)) {
      return {false, false};
    }
    if (terms.has_value()) return terms->Match(node);
    return {true, false};
  }

  // What the node lacks (explain.h): the nodeSelector's missing labels, then the terms'.
  std::string Explain(const api::Node& node) const {
    std::vector<std::string> parts;
    if (std::string s = ExplainNodeSelector(pod->spec.node_selector, node); !s.empty()) {
      parts.push_back(std::move(s));
    }
    if (terms.has_value()) {
      if (std::string t = ExplainRequiredTerms(*terms, node); !t.empty()) {
        parts.push_back(std::move(t));
      }
    }
    return Join(parts, "; ");
  }
};

struct PreFilterState final : framework::StateData {
  explicit PreFilterState(std::shared_ptr<const api::Pod> pod) : required(std::move(pod)) {}
  RequiredNodeAffinity required;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

struct PreScoreState final : framework::StateData {
  std::shared_ptr<const api::Pod> pod;
  std::optional<PreferredTerms> preferred;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

// The pod's preferred terms; nullopt when it has none. Error text as upstream's AsStatus(err).
Result<std::optional<PreferredTerms>> PodPreferred(const api::Pod& pod) {
  const api::NodeAffinity* na = PodNodeAffinity(pod);
  if (na == nullptr || na->preferred.empty()) return std::optional<PreferredTerms>();
  std::vector<std::string> errs;
  PreferredTerms terms(na->preferred, "", &errs);
  if (!errs.empty()) return Error{AggregateMessage(errs)};
  return std::optional<PreferredTerms>(std::move(terms));
}

class NodeAffinity final : public framework::PreFilterPlugin,
                           public framework::FilterPlugin,
                           public framework::PreScorePlugin,
                           public framework::ScorePlugin,
                           public framework::EnqueueExtensions,
                           public framework::FilterExplainer {
 public:
  // Compiles `added` in place; the plugin owns it, so it is neither copied nor moved afterwards.
  NodeAffinity(std::optional<api::NodeAffinity> added, const std::string& path,
               std::vector<std::string>* errs)
      : added_(std::move(added)) {
    if (!added_.has_value()) return;
    if (added_->required.has_value()) {
      added_required_.emplace(*added_->required,
                              path + "requiredDuringSchedulingIgnoredDuringExecution");
      errs->insert(errs->end(), added_required_->errors().begin(), added_required_->errors().end());
    }
    if (!added_->preferred.empty()) {
      added_preferred_.emplace(added_->preferred,
                               path + "preferredDuringSchedulingIgnoredDuringExecution", errs);
    }
  }
  NodeAffinity(const NodeAffinity&) = delete;
  NodeAffinity& operator=(const NodeAffinity&) = delete;

  std::string_view Name() const override { return kName; }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                   const std::vector<const framework::NodeInfo*>&,
                   framework::PreFilterResult* result) const override {
    const api::NodeAffinity* na = PodNodeAffinity(pod.Pod());
    const bool no_required = na == nullptr || !na->required.has_value();
    if (no_required && !added_required_.has_value() && pod.Pod().spec.node_selector.empty()) {
      return Status::Skip();
    }
    state.Write(PreFilterKey(), std::make_unique<PreFilterState>(pod.pod));
    if (no_required || na->required->terms.empty()) return {};

    // Nodes named by metadata.name In [...] in every term; any term without one allows all.
    std::optional<std::set<std::string, std::less<>>> names;
    for (const auto& term : na->required->terms) {
      std::optional<std::set<std::string, std::less<>>> term_names;
      for (const auto& r : term.match_fields) {
        if (r.key != "metadata.name" || r.op != api::SelectorOperator::kIn) continue;
        std::set<std::string, std::less<>> values(r.values.begin(), r.values.end());
        if (!term_names.has_value()) {
          term_names = std::move(values);
        } else {
          std::erase_if(*term_names, [&](const std::string& n) { return !values.contains(n); });
        }
      }
      if (!term_names.has_value()) return {};
      if (!names.has_value()) names.emplace();
      names->insert(term_names->begin(), term_names->end());
    }
    if (names.has_value() && names->empty()) return Status::Unresolvable(kErrReasonConflict);
    if (names.has_value() && result != nullptr) result->node_names = std::move(names);
    return {};
  }

  Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                const framework::NodeInfo& node_info) const override {
    const api::Node* node = node_info.node();
    if (node == nullptr) return Status::Error("node not found");
    if (added_required_.has_value() && !added_required_->Match(*node).matched) {
      static const Status kEnforced = Status::Unresolvable(kErrReasonEnforced).WithPlugin(kName);
      return kEnforced;
    }
    bool matched;
    if (const auto* s = state.Read<PreFilterState>(PreFilterKey()); s != nullptr) {
      matched = s->required.Match(*node).matched;
    } else {
      // PreFilter disabled: compute here (slow path), as upstream falls back.
      matched = RequiredNodeAffinity(pod.pod).Match(*node).matched;
    }
    if (!matched) {
      static const Status kNoMatch = Status::Unresolvable(kErrReasonPod).WithPlugin(kName);
      return kNoMatch;
    }
    return {};
  }

  // Which label or term the node fails (explain.h), for either reason. Gap kExplainGap.
  void ExplainFilter(const framework::CycleState& state, const framework::PodInfo& pod,
                     const framework::NodeInfo& node_info, const Status& rejection,
                     framework::ExplainDetail detail,
                     std::vector<framework::FilterNeed>* out) const override {
    const api::Node* node = node_info.node();
    for (const std::string& reason : rejection.reasons()) {
      if (reason != kErrReasonPod && reason != kErrReasonEnforced) continue;
      // kGapOnly (every rejected node) copies no string: explain.h allows an empty reason.
      framework::FilterNeed n{detail == framework::ExplainDetail::kFull ? reason : std::string(),
                              std::string(), kExplainGap};
      if (detail == framework::ExplainDetail::kFull && node != nullptr) {
        if (reason == kErrReasonEnforced) {
          if (added_required_.has_value()) n.need = ExplainRequiredTerms(*added_required_, *node);
        } else if (const auto* s = state.Read<PreFilterState>(PreFilterKey()); s != nullptr) {
          n.need = s->required.Explain(*node);
        } else {
          n.need = RequiredNodeAffinity(pod.pod).Explain(*node);
        }
      }
      out->push_back(std::move(n));
    }
  }

  Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                  const std::vector<const framework::NodeInfo*>&) const override {
    auto preferred = PodPreferred(pod.Pod());
    if (!preferred.ok()) return Status::Error(preferred.error());
    if (!preferred->has_value() && !added_preferred_.has_value()) return Status::Skip();
    auto s = std::make_unique<PreScoreState>();
    s->pod = pod.pod;
    s->preferred = std::move(*preferred);
    state.Write(PreScoreKey(), std::move(s));
    return {};
  }

  Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
               const framework::NodeInfo& node_info, int64_t* score) const override {
    const api::Node* node = node_info.node();
    if (node == nullptr) return Status::Error("node not found");
    int64_t count = 0;
    if (added_preferred_.has_value()) count += added_preferred_->Score(*node);
    if (const auto* s = state.Read<PreScoreState>(PreScoreKey()); s != nullptr) {
      if (s->preferred.has_value()) count += s->preferred->Score(*node);
    } else {
      // PreScore disabled: compute here (slow path), as upstream falls back.
      auto preferred = PodPreferred(pod.Pod());
      if (!preferred.ok()) return Status::Error(preferred.error());
      if (preferred->has_value()) count += (*preferred)->Score(*node);
    }
    *score = count;
    return {};
  }

  bool HasNormalizeScore() const override { return true; }
  Status NormalizeScore(const framework::CycleState&, const framework::PodInfo&,
                        framework::NodeScoreList& scores) const override {
    framework::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/false, scores);
    return {};
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    framework::QueueingHintFn hint = [this](const api::Pod& pod,
                                            const framework::EventObject& old_obj,
                                            const framework::EventObject& new_obj) {
      return HintAfterNodeChange(pod, old_obj, new_obj);
    };
    return {{framework::ClusterEvent{framework::EventResource::kNode,
                                     framework::action::kAdd | framework::action::kUpdateNodeLabel,
                                     "NodeAdd|UpdateNodeLabel"},
             std::move(hint)}};
  }

  // Upstream's isSchedulableAfterNodeChange.
  QueueingHint HintAfterNodeChange(const api::Pod& pod, const framework::EventObject& old_obj,
                                   const framework::EventObject& new_obj) const {
    const auto* nw = std::get_if<const api::Node*>(&new_obj);
    if (nw == nullptr || *nw == nullptr) return QueueingHint::kQueue;
    const api::Node* old_node = nullptr;
    if (const auto* o = std::get_if<const api::Node*>(&old_obj)) {
      old_node = *o;
    } else if (!std::holds_alternative<std::monostate>(old_obj)) {
      return QueueingHint::kQueue;
    }
    if (added_required_.has_value() && !added_required_->Match(**nw).matched) {
      return QueueingHint::kQueueSkip;
    }
    // The hint only reads the pod; alias it without taking ownership.
    RequiredNodeAffinity required(std::shared_ptr<const api::Pod>(std::shared_ptr<void>(), &pod));
    auto now = required.Match(**nw);
    if (!now.matched) return now.had_errors ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
    if (old_node == nullptr) return QueueingHint::kQueue;
    auto before = required.Match(*old_node);
    if (before.had_errors) return QueueingHint::kQueue;
    return before.matched ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
  }

 private:
  // addedAffinity from the args; the compiled terms below point into it.
  std::optional<api::NodeAffinity> added_;
  std::optional<RequiredTerms> added_required_;
  std::optional<PreferredTerms> added_preferred_;
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_ASSIGN_OR_RETURN(api::Reader reader, framework::ReadArgs(ctx.args, ctx.args_path));
  const api::Value* added_value = reader.Get("addedAffinity");
  BERTH_RETURN_IF_ERROR(reader.Done());
  std::optional<api::NodeAffinity> added;
  if (added_value != nullptr) {
    BERTH_ASSIGN_OR_RETURN(added,
                           api::DecodeNodeAffinity(*added_value, reader.PathOf("addedAffinity")));
  }
  // Validated as upstream's ValidateNodeAffinityArgs; paths start at the args.
  std::vector<std::string> errs;
  auto plugin =
      std::make_shared<NodeAffinity>(std::move(added), reader.PathOf("addedAffinity") + ".", &errs);
  if (!errs.empty()) return Error{AggregateMessage(errs)};
  return std::shared_ptr<framework::Plugin>(std::move(plugin));
}

}  // namespace berth::plugins::node_affinity
