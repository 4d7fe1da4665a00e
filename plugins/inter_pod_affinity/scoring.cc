// PreScore, Score and NormalizeScore: upstream's interpodaffinity/scoring.go.

#include <limits>

#include "plugins/inter_pod_affinity/plugin.h"
#include "plugins/inter_pod_affinity/terms.h"

namespace berth::plugins::inter_pod_affinity {
namespace {

const framework::StateKey& PreScoreKey() {
  static const framework::StateKey key("PreScoreInterPodAffinity");
  return key;
}

// Σ of matched term weights per (topology key, value) (upstream's preScoreState.topologyScore).
struct PreScoreState final : framework::StateData {
  TopologyCounts topology_score{/*erase_zero=*/false};

  bool SchedulingCycleOnly() const override { return true; }
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

struct ScoreAcc {
  TopologyCounts scores{/*erase_zero=*/false};
  bool matched = false;  // some term matched on a node carrying its topology key
  ScoreAcc EmptyLike() const { return {}; }
  void Merge(const ScoreAcc& o) {
    scores.Merge(o.scores);
    matched = matched || o.matched;
  }
  // upstream's scoreMap.processTerm.
  void Process(const std::string& key, const std::shared_ptr<const api::Node>& node,
               int64_t delta) {
    if (scores.AddForNode(key, node, delta)) matched = true;
  }
};

// What PreScore needs about the incoming pod.
struct Incoming {
  const api::Pod* pod = nullptr;
  std::vector<IncomingTerm> preferred_affinity;
  std::vector<IncomingTerm> preferred_anti_affinity;
  api::Labels namespace_labels;
};

}  // namespace

framework::Status InterPodAffinity::PreScore(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<const framework::NodeInfo*>& nodes) const {
  if (nodes.empty()) return framework::Status::Skip();
  const api::Pod& incoming = pod.Pod();
  const auto& preferred_affinity = PreferredAffinityTerms(incoming);
  const auto& preferred_anti_affinity = PreferredAntiAffinityTerms(incoming);
  const bool has_constraints = !preferred_affinity.empty() || !preferred_anti_affinity.empty();
  // Optionally ignore existing pods' preferences when the incoming pod has none of its own.
  if (args_.ignore_preferred_terms_of_existing_pods && !has_constraints) {
    return framework::Status::Skip();
  }
  // Unless the incoming pod has preferred terms, only nodes hosting pods with affinity matter.
  const auto& snapshot = handle_->snapshot();
  const auto& to_process = has_constraints ? snapshot.List() : snapshot.HavePodsWithAffinityList();
  if (to_process.empty()) return framework::Status::Skip();

  Incoming in;
  in.pod = &incoming;
  const auto& namespaces = handle_->objects().namespaces;
  for (const auto& t : preferred_affinity) {
    in.preferred_affinity.push_back(MakeIncomingTerm(incoming, t.term, t.weight, namespaces));
  }
  for (const auto& t : preferred_anti_affinity) {
    in.preferred_anti_affinity.push_back(MakeIncomingTerm(incoming, t.term, t.weight, namespaces));
  }
  in.namespace_labels = NamespaceLabels(incoming.metadata.namespace_);
  const int64_t hard_weight = args_.hard_pod_affinity_weight;

  ScoreAcc acc;
  Accumulate(to_process, acc, [&](const framework::NodeInfo& node, ScoreAcc& out) {
    if (node.node() == nullptr) return;
    if (node.node()->metadata.labels.empty()) return;
    const auto& node_ptr = node.node_ptr();
    const auto& pods = has_constraints ? node.pods() : node.pods_with_affinity();
    for (const auto& existing_info : pods) {
      const api::Pod& existing = existing_info->Pod();
      // The incoming pod's preferred terms matched by the existing pod.
      for (const auto& t : in.preferred_affinity) {
        if (t.Matches(existing)) out.Process(t.topology_key(), node_ptr, t.weight);
      }
      for (const auto& t : in.preferred_anti_affinity) {
        if (t.Matches(existing)) out.Process(t.topology_key(), node_ptr, -int64_t{t.weight});
      }
      // The existing pod's terms matched by the incoming pod (symmetry).
      if (!existing_info->has_affinity) continue;
      if (hard_weight > 0) {
        for (const auto& t : RequiredAffinityTerms(existing)) {
          if (ExistingTermMatches(t, existing, *in.pod, in.namespace_labels)) {
            out.Process(t.topology_key, node_ptr, hard_weight);
          }
        }
      }
      for (const auto& t : PreferredAffinityTerms(existing)) {
        if (ExistingTermMatches(t.term, existing, *in.pod, in.namespace_labels)) {
          out.Process(t.term.topology_key, node_ptr, t.weight);
        }
      }
      for (const auto& t : PreferredAntiAffinityTerms(existing)) {
        if (ExistingTermMatches(t.term, existing, *in.pod, in.namespace_labels)) {
          out.Process(t.term.topology_key, node_ptr, -int64_t{t.weight});
        }
      }
    }
  });
  if (!acc.matched) return framework::Status::Skip();

  auto s = std::make_unique<PreScoreState>();
  s->topology_score = std::move(acc.scores);
  state.Write(PreScoreKey(), std::move(s));
  return {};
}

framework::Status InterPodAffinity::Score(const framework::CycleState& state,
                                          const framework::PodInfo&,
                                          const framework::NodeInfo& node, int64_t* score) const {
  const auto* s = state.Read<PreScoreState>(PreScoreKey());
  if (s == nullptr) {
    return framework::Status::Error(
        "failed to read \"PreScoreInterPodAffinity\" from cycleState: not found");
  }
  if (node.node() == nullptr) return framework::Status::Error("node not found");
  *score = s->topology_score.SumForNode(node.node()->metadata.labels);
  return {};
}

// Min-max normalisation to [0, 100], as upstream's NormalizeScore (scores may be negative).
framework::Status InterPodAffinity::NormalizeScore(const framework::CycleState& state,
                                                   const framework::PodInfo&,
                                                   framework::NodeScoreList& scores) const {
  const auto* s = state.Read<PreScoreState>(PreScoreKey());
  if (s == nullptr) {
    return framework::Status::Error(
        "failed to read \"PreScoreInterPodAffinity\" from cycleState: not found");
  }
  if (s->topology_score.empty()) return {};
  int64_t min_count = std::numeric_limits<int64_t>::max();
  int64_t max_count = std::numeric_limits<int64_t>::min();
  for (const auto& ns : scores) {
    max_count = std::max(max_count, ns.score);
    min_count = std::min(min_count, ns.score);
  }
  const int64_t diff = max_count - min_count;
  for (auto& ns : scores) {
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(framework::kMaxNodeScore) *
          (static_cast<double>(ns.score - min_count) / static_cast<double>(diff));
    }
    ns.score = static_cast<int64_t>(f);
  }
  return {};
}

}  // namespace berth::plugins::inter_pod_affinity
