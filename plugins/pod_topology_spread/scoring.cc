// PodTopologySpread PreScore, Score and NormalizeScore (upstream's scoring.go).

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "plugins/pod_topology_spread/plugin.h"
#include "plugins/pod_topology_spread/pod_topology_spread.h"

namespace berth::plugins::pod_topology_spread {
namespace {

using framework::Status;

const framework::StateKey& PreScoreKey() {
  static const framework::StateKey key("PreScorePodTopologySpread");
  return key;
}

// Upstream's topologyNormalizingWeight: log(size + 2), so that the counts of small topologies are
// not watered down by big ones.
double NormalizingWeight(size_t size) { return std::log(static_cast<double>(size) + 2); }

// Upstream's scoreForCount: maxSkew-1 is added so that differences between domains get
// watered down, controlling the tolerance of the score to skews.
double ScoreForCount(int64_t count, int32_t max_skew, double weight) {
  return static_cast<double>(count) * weight + static_cast<double>(max_skew - 1);
}

const std::string& LabelOrEmpty(const api::Labels& labels, const std::string& key) {
  static const std::string kEmpty;
  auto it = labels.find(key);
  return it == labels.end() ? kEmpty : it->second;
}

}  // namespace

Status PodTopologySpread::PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                                   const std::vector<const framework::NodeInfo*>& filtered) const {
  static const std::vector<const framework::NodeInfo*> kNoNodes;
  const auto& all_nodes = handle_ != nullptr ? handle_->snapshot().List() : kNoNodes;
  if (all_nodes.empty()) return Status::Skip();
  const api::Pod& p = pod.Pod();
  auto constraints =
      std::make_shared<const std::vector<Constraint>>(GetConstraints(p, kScheduleAnyway));
  if (constraints->empty()) return Status::Skip();
  const auto& cs = *constraints;
  const size_t nc = cs.size();

  auto s = std::make_unique<PreScoreState>();
  s->constraints = constraints;
  s->domain_index.resize(nc);
  s->pod_counts.resize(nc);
  // Only non-system-default rules require every topology key, so that nodes without a zone
  // still get hostname spreading.
  const bool require_all = !p.spec.topology_spread_constraints.empty() || !system_defaulted_;
  for (const framework::NodeInfo* ni : filtered) {
    const api::Node* node = ni->node();
    if (node == nullptr) continue;
    if (require_all && !NodeHasAllKeys(node->metadata.labels, cs)) {
      s->ignored_nodes.insert(ni->name());
      continue;
    }
    for (size_t i = 0; i < nc; ++i) {
      if (cs[i].is_hostname) continue;  // counted per node in Score
      const std::string& value = LabelOrEmpty(node->metadata.labels, cs[i].topology_key);
      auto [it, inserted] =
          s->domain_index[i].try_emplace(value, static_cast<int>(s->pod_counts[i].size()));
      if (inserted) s->pod_counts[i].push_back(0);
    }
  }
  s->normalizing_weight.resize(nc);
  bool any_domain_constraint = false;
  for (size_t i = 0; i < nc; ++i) {
    size_t size = s->pod_counts[i].size();
    if (cs[i].is_hostname) {
      size = filtered.size() - s->ignored_nodes.size();
    } else {
      any_domain_constraint = true;
    }
    s->normalizing_weight[i] = NormalizingWeight(size);
  }

  if (any_domain_constraint) {
    // Count over all nodes (not only the filtered ones) for the domains of the filtered nodes.
    const size_t max_shards =
        static_cast<size_t>(handle_ != nullptr ? handle_->parallelizer().parallelism() * 2 : 1);
    std::vector<std::vector<std::vector<int64_t>>> locals(max_shards);
    const int used =
        ForShards(static_cast<int>(all_nodes.size()), [&](int begin, int end, int shard) {
          auto& local = locals[static_cast<size_t>(shard)];
          local.resize(nc);
          for (size_t i = 0; i < nc; ++i) local[i].assign(s->pod_counts[i].size(), 0);
          for (int n = begin; n < end; ++n) {
            const framework::NodeInfo& ni = *all_nodes[static_cast<size_t>(n)];
            const api::Node* node = ni.node();
            // Nodes without pods add nothing.
            if (node == nullptr || ni.pods().empty()) continue;
            if (require_all && !NodeHasAllKeys(node->metadata.labels, cs)) continue;
            for (size_t i = 0; i < nc; ++i) {
              const Constraint& c = cs[i];
              if (c.is_hostname || !MatchesNodeInclusionPolicies(c, p, *node)) continue;
              const auto& index = s->domain_index[i];
              auto it = index.find(LabelOrEmpty(node->metadata.labels, c.topology_key));
              if (it == index.end()) continue;
              local[i][static_cast<size_t>(it->second)] +=
                  CountMatching(ni.pods(), c.selector, p.metadata.namespace_);
            }
          }
        });
    for (int shard = 0; shard < used; ++shard) {
      const auto& local = locals[static_cast<size_t>(shard)];
      for (size_t i = 0; i < local.size(); ++i) {
        for (size_t d = 0; d < local[i].size(); ++d) s->pod_counts[i][d] += local[i][d];
      }
    }
  }
  state.Write(PreScoreKey(), std::move(s));
  return {};
}

Status PodTopologySpread::Score(const framework::CycleState& state, const framework::PodInfo& pod,
                                const framework::NodeInfo& node_info, int64_t* score) const {
  const auto* s = state.Read<PreScoreState>(PreScoreKey());
  if (s == nullptr) {
    return Status::Error("error reading \"PreScorePodTopologySpread\" from cycleState: not found");
  }
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  *score = 0;
  if (!s->ignored_nodes.empty() && s->ignored_nodes.contains(node_info.name())) return {};
  const auto& cs = *s->constraints;
  const api::Labels& labels = node->metadata.labels;
  double total = 0;
  for (size_t i = 0; i < cs.size(); ++i) {
    const Constraint& c = cs[i];
    auto it = labels.find(c.topology_key);
    if (it == labels.end()) continue;
    int64_t count = 0;
    if (c.is_hostname) {
      count = CountMatching(node_info.pods(), c.selector, pod.Namespace());
    } else {
      auto d = s->domain_index[i].find(it->second);
      if (d != s->domain_index[i].end()) count = s->pod_counts[i][static_cast<size_t>(d->second)];
    }
    total += ScoreForCount(count, c.max_skew, s->normalizing_weight[i]);
  }
  *score = std::llround(total);
  return {};
}

Status PodTopologySpread::NormalizeScore(const framework::CycleState& state,
                                         const framework::PodInfo&,
                                         framework::NodeScoreList& scores) const {
  const auto* s = state.Read<PreScoreState>(PreScoreKey());
  if (s == nullptr) {
    return Status::Error("error reading \"PreScorePodTopologySpread\" from cycleState: not found");
  }
  const bool check_ignored = !s->ignored_nodes.empty();
  auto ignored = [&](const framework::NodeScore& ns) {
    return check_ignored && ns.name != nullptr && s->ignored_nodes.contains(*ns.name);
  };
  int64_t min_score = LLONG_MAX;
  int64_t max_score = 0;
  for (const auto& ns : scores) {
    if (ignored(ns)) continue;
    min_score = std::min(min_score, ns.score);
    max_score = std::max(max_score, ns.score);
  }
  // Same reverse normalisation as upstream: fewer matching pods -> higher score.
  for (auto& ns : scores) {
    if (ignored(ns)) {
      ns.score = 0;
    } else if (max_score == 0) {
      ns.score = framework::kMaxNodeScore;
    } else {
      ns.score = framework::kMaxNodeScore * (max_score + min_score - ns.score) / max_score;
    }
  }
  return {};
}

}  // namespace berth::plugins::pod_topology_spread
