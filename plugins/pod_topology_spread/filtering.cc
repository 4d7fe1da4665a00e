// PodTopologySpread PreFilter, AddPod/RemovePod and Filter (upstream's filtering.go).

#include <algorithm>
#include <climits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plugins/pod_topology_spread/plugin.h"
#include "plugins/pod_topology_spread/pod_topology_spread.h"

namespace berth::plugins::pod_topology_spread {

const framework::StateKey& PreFilterKey() {
  static const framework::StateKey key("PreFilterPodTopologySpread");
  return key;
}

namespace {

using framework::Status;

// True when the constraint's inclusion policies cannot exclude any node for this pod.
bool InclusionIsTrivial(const Constraint& c, const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  const bool has_required_affinity =
      !pod.spec.node_selector.empty() ||
      (a.has_value() && a->node_affinity.has_value() && a->node_affinity->required.has_value());
  return (!c.honor_node_affinity || !has_required_affinity) && !c.honor_node_taints;
}

}  // namespace

// ---- DomainCounts ----

void DomainCounts::Add(std::string_view value, int count) {
  auto it = counts_.find(value);
  if (it == counts_.end()) {
    counts_.emplace(std::string(value), count);
  } else {
    it->second += count;
  }
}

void DomainCounts::Finish() {
  histogram_.clear();
  for (const auto& [value, count] : counts_) ++histogram_[count];
}

int DomainCounts::Min() const { return histogram_.empty() ? INT_MAX : histogram_.begin()->first; }

void DomainCounts::Update(const std::string& value, int delta) {
  auto it = counts_.find(value);
  if (it == counts_.end()) {
    counts_.emplace(value, delta);
    ++histogram_[delta];
    return;
  }
  auto h = histogram_.find(it->second);
  if (h != histogram_.end() && --h->second <= 0) histogram_.erase(h);
  it->second += delta;
  ++histogram_[it->second];
}

// ---- sharding ----

int PodTopologySpread::ForShards(int n, const std::function<void(int, int, int)>& fn) const {
  constexpr int kMinPerShard = 256;
  int shards = 1;
  if (handle_ != nullptr && n >= 2 * kMinPerShard) {
    shards = std::min(handle_->parallelizer().parallelism() * 2, n / kMinPerShard);
  }
  if (shards <= 1) {
    fn(0, n, 0);
    return 1;
  }
  handle_->parallelizer().Until(shards, [&](int s) {
    const int begin = static_cast<int>(static_cast<int64_t>(n) * s / shards);
    const int end = static_cast<int>(static_cast<int64_t>(n) * (s + 1) / shards);
    fn(begin, end, s);
  });
  return shards;
}

// ---- PreFilter ----

Status PodTopologySpread::PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                    const std::vector<const framework::NodeInfo*>& nodes,
                                    framework::PreFilterResult*) const {
  auto constraints =
      std::make_shared<const std::vector<Constraint>>(GetConstraints(pod.Pod(), kDoNotSchedule));
  if (constraints->empty()) return Status::Skip();
  const auto& cs = *constraints;
  const size_t nc = cs.size();
  const api::Pod& p = pod.Pod();
  // Constraints whose inclusion policies hold on every node for this pod need no per-node check.
  std::vector<char> trivial_inclusion(nc);
  for (size_t i = 0; i < nc; ++i) trivial_inclusion[i] = InclusionIsTrivial(cs[i], p) ? 1 : 0;

  // Each node's value per topology key, interned, from the cross-cycle memo.
  std::lock_guard<std::mutex> lock(memo_mu_);
  std::vector<TopologyMemo::KeyView> views;
  views.reserve(nc);
  std::vector<std::vector<TopologyMemo::CountSlot>*> count_slots;
  count_slots.reserve(nc);
  for (const auto& c : cs) {
    views.push_back(memo_.Refresh(c.topology_key, nodes));
    count_slots.push_back(
        &memo_.Counts(SelectorSignature(c.selector, p.metadata.namespace_), nodes.size()));
  }

  // Per shard and constraint: matching pods per interned value, -1 for values with no eligible
  // node.
  const size_t max_shards =
      static_cast<size_t>(handle_ != nullptr ? handle_->parallelizer().parallelism() * 2 : 1);
  std::vector<std::vector<std::vector<int>>> locals(max_shards);
  const int used = ForShards(static_cast<int>(nodes.size()), [&](int begin, int end, int shard) {
    auto& local = locals[static_cast<size_t>(shard)];
    local.resize(nc);
    for (size_t i = 0; i < nc; ++i) local[i].assign(views[i].values->size(), -1);
    for (int n = begin; n < end; ++n) {
      const auto idx = static_cast<size_t>(n);
      // A node missing any topology key is not eligible.
      bool has_all = true;
      for (size_t i = 0; i < nc && has_all; ++i) has_all = (*views[i].domain_of_node)[idx] >= 0;
      if (!has_all) continue;
      const framework::NodeInfo& ni = *nodes[idx];
      for (size_t i = 0; i < nc; ++i) {
        const Constraint& c = cs[i];
        if (!trivial_inclusion[i] && !MatchesNodeInclusionPolicies(c, p, *ni.node())) continue;
        int& slot = local[i][static_cast<size_t>((*views[i].domain_of_node)[idx])];
        if (slot < 0) slot = 0;
        if (ni.pods().empty()) continue;
        // Counting walks every pod of the node; reuse the count while the node is unchanged.
        TopologyMemo::CountSlot& memo = (*count_slots[i])[idx];
        if (!memo.Valid(ni)) {
          memo =
              TopologyMemo::CountSlot{&ni, ni.generation(), ni.pods().data(), ni.pods().size(),
                                      CountMatching(ni.pods(), c.selector, p.metadata.namespace_)};
        }
        slot += memo.count;
      }
    }
  });

  auto s = std::make_unique<PreFilterState>();
  s->constraints = constraints;
  s->self_match.resize(nc);
  s->domains.resize(nc);
  for (size_t i = 0; i < nc; ++i) {
    s->self_match[i] = cs[i].selector.Matches(p) ? 1 : 0;
    const std::vector<std::string>& values = *views[i].values;
    for (size_t d = 0; d < values.size(); ++d) {
      int total = -1;
      for (int shard = 0; shard < used; ++shard) {
        const int v = locals[static_cast<size_t>(shard)][i][d];
        if (v >= 0) total = (total < 0 ? 0 : total) + v;
      }
      if (total >= 0) s->domains[i].Add(values[d], total);
    }
    s->domains[i].Finish();
  }
  state.Write(PreFilterKey(), std::move(s));
  return {};
}

// ---- AddPod / RemovePod ----

void PodTopologySpread::UpdateWithPod(PreFilterState& s, const api::Pod& updated,
                                      const api::Pod& preemptor, const api::Node* node,
                                      int delta) const {
  if (node == nullptr || updated.metadata.namespace_ != preemptor.metadata.namespace_) return;
  const auto& cs = *s.constraints;
  if (!NodeHasAllKeys(node->metadata.labels, cs)) return;
  for (size_t i = 0; i < cs.size(); ++i) {
    const Constraint& c = cs[i];
    if (!c.selector.Matches(updated)) continue;
    if (!MatchesNodeInclusionPolicies(c, preemptor, *node)) continue;
    s.domains[i].Update(node->metadata.labels.find(c.topology_key)->second, delta);
  }
}

Status PodTopologySpread::AddPod(framework::CycleState& state,
                                 const framework::PodInfo& pod_to_schedule,
                                 const framework::PodInfo& pod_to_add,
                                 const framework::NodeInfo& node) const {
  auto* s = state.Read<PreFilterState>(PreFilterKey());
  if (s == nullptr) {
    return Status::Error("reading \"PreFilterPodTopologySpread\" from cycleState: not found");
  }
  UpdateWithPod(*s, pod_to_add.Pod(), pod_to_schedule.Pod(), node.node(), 1);
  return {};
}

Status PodTopologySpread::RemovePod(framework::CycleState& state,
                                    const framework::PodInfo& pod_to_schedule,
                                    const framework::PodInfo& pod_to_remove,
                                    const framework::NodeInfo& node) const {
  auto* s = state.Read<PreFilterState>(PreFilterKey());
  if (s == nullptr) {
    return Status::Error("reading \"PreFilterPodTopologySpread\" from cycleState: not found");
  }
  UpdateWithPod(*s, pod_to_remove.Pod(), pod_to_schedule.Pod(), node.node(), -1);
  return {};
}

// ---- Filter ----

Status PodTopologySpread::Filter(const framework::CycleState& state, const framework::PodInfo&,
                                 const framework::NodeInfo& node_info) const {
  const auto* s = state.Read<PreFilterState>(PreFilterKey());
  if (s == nullptr) {
    return Status::Error("reading \"PreFilterPodTopologySpread\" from cycleState: not found");
  }
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  const auto& cs = *s->constraints;
  const api::Labels& labels = node->metadata.labels;
  for (size_t i = 0; i < cs.size(); ++i) {
    const Constraint& c = cs[i];
    auto it = labels.find(c.topology_key);
    if (it == labels.end()) {
      static const Status kNoLabel =
          Status::Unresolvable(kErrReasonNodeLabelNotMatch).WithPlugin(kName);
      return kNoLabel;
    }
    // existing matches in the domain + self match - global minimum <= maxSkew
    const int64_t skew =
        static_cast<int64_t>(s->domains[i].Get(it->second)) + s->self_match[i] - s->MinMatch(i);
    if (skew > c.max_skew) {
      static const Status kSkew =
          Status::Unschedulable(kErrReasonConstraintsNotMatch).WithPlugin(kName);
      return kSkew;
    }
  }
  return {};
}

}  // namespace berth::plugins::pod_topology_spread
