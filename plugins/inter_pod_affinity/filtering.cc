// PreFilter, AddPod/RemovePod and Filter: upstream's interpodaffinity/filtering.go.

#include <algorithm>
#include <cstdint>

#include "plugins/inter_pod_affinity/filter_state.h"
#include "plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "plugins/inter_pod_affinity/plugin.h"
#include "plugins/inter_pod_affinity/terms.h"

namespace berth::plugins::inter_pod_affinity {

const framework::StateKey& PreFilterKey() {
  static const framework::StateKey key("PreFilterInterPodAffinity");
  return key;
}

namespace {

// One (topology key, node) a PreFilter counter gains 1 at.
struct Hit {
  enum Counter : uint8_t { kExistingAntiAffinity, kAffinity, kAntiAffinity };
  uint32_t node;  // index into the visited nodes
  Counter counter;
  const std::string* key;
  std::string_view value;  // the node's label for key
};

// Records a hit when the node carries the topology key (upstream ignores it otherwise).
void AddHit(std::vector<Hit>& out, const api::Labels& node_labels, uint32_t node,
            Hit::Counter counter, const std::string& key) {
  auto it = node_labels.find(key);
  if (it != node_labels.end()) out.push_back({node, counter, &key, it->second});
}

TopologyCounts& CounterOf(PreFilterState* s, Hit::Counter c) {
  switch (c) {
    case Hit::kExistingAntiAffinity:
      return s->existing_anti_affinity;
    case Hit::kAffinity:
      return s->affinity;
    case Hit::kAntiAffinity:
      break;
  }
  return s->anti_affinity;
}

// Sizes the counters' tables once, then adds every hit.
void ApplyHits(const std::vector<std::vector<Hit>>& hits,
               const std::vector<const framework::NodeInfo*>& nodes, PreFilterState* s) {
  struct Need {
    Hit::Counter counter;
    const std::string* key;
    size_t n;
  };
  std::vector<Need> needs;  // (counter, key) pairs are few
  for (const auto& chunk : hits) {
    for (const Hit& h : chunk) {
      auto it = std::find_if(needs.begin(), needs.end(), [&](const Need& n) {
        return n.counter == h.counter && *n.key == *h.key;
      });
      if (it == needs.end()) {
        needs.push_back({h.counter, h.key, 1});
      } else {
        ++it->n;
      }
    }
  }
  for (const Need& n : needs) {
    TopologyCounts& c = CounterOf(s, n.counter);
    c.Reserve(*n.key, n.n);
    c.ReserveOwners(n.n);
  }
  for (const auto& chunk : hits) {
    for (const Hit& h : chunk) {
      CounterOf(s, h.counter).AddFromNode(*h.key, h.value, nodes[h.node]->node_ptr(), 1);
    }
  }
}

// upstream's satisfyPodAffinity, including the first-pod-of-a-group exception.
bool SatisfiesPodAffinity(const PreFilterState& s, const api::Labels& node_labels) {
  bool pods_exist = true;
  for (const auto& t : s.affinity_terms) {
    bool has_key = false;
    const int64_t count = s.affinity.GetForNode(t.topology_key(), node_labels, &has_key);
    if (!has_key) return false;  // every topology key must exist on the node
    if (count <= 0) pods_exist = false;
  }
  if (pods_exist) return true;
  // The pod may be the first of a group with affinity to itself: allow it when no pod in the
  // cluster matches its terms and it matches them itself.
  return s.affinity.empty() && MatchesAll(s.affinity_terms, *s.pod);
}

// upstream's satisfyPodAntiAffinity.
bool SatisfiesPodAntiAffinity(const PreFilterState& s, const api::Labels& node_labels) {
  if (s.anti_affinity.empty()) return true;
  for (const auto& t : s.anti_affinity_terms) {
    bool has_key = false;
    if (s.anti_affinity.GetForNode(t.topology_key(), node_labels, &has_key) > 0) return false;
  }
  return true;
}

}  // namespace

framework::Status InterPodAffinity::PreFilter(framework::CycleState& state,
                                              const framework::PodInfo& pod,
                                              const std::vector<const framework::NodeInfo*>& nodes,
                                              framework::PreFilterResult*) const {
  const api::Pod& incoming = pod.Pod();
  const auto& required_affinity = RequiredAffinityTerms(incoming);
  const auto& required_anti_affinity = RequiredAntiAffinityTerms(incoming);
  const auto& anti_nodes = handle_->snapshot().HavePodsWithRequiredAntiAffinityList();
  // Fast path for the common pod: nothing to check, nothing to compute.
  if (anti_nodes.empty() && required_affinity.empty() && required_anti_affinity.empty()) {
    return framework::Status::Skip();
  }

  auto s = std::make_unique<PreFilterState>();
  s->pod = pod.pod;
  const auto& namespaces = handle_->objects().namespaces;
  for (const auto& t : required_affinity) {
    s->affinity_terms.push_back(MakeIncomingTerm(incoming, t, 0, namespaces));
  }
  for (const auto& t : required_anti_affinity) {
    s->anti_affinity_terms.push_back(MakeIncomingTerm(incoming, t, 0, namespaces));
  }
  s->namespace_labels = NamespaceLabels(incoming.metadata.namespace_);

  // One pass over the pods: with required terms of its own the incoming pod is checked against
  // every pod (whose required anti-affinity, if any, is checked on the way); otherwise only pods
  // with required anti-affinity matter. Matching runs in parallel and yields hits, applied to the
  // counters afterwards.
  const bool incoming_terms = !s->affinity_terms.empty() || !s->anti_affinity_terms.empty();
  const auto& to_visit = incoming_terms ? nodes : anti_nodes;
  const PreFilterState& st = *s;
  std::vector<std::vector<Hit>> hits;
  ForEachNodeChunk(
      to_visit, &hits, [&](const framework::NodeInfo& node, uint32_t index, std::vector<Hit>& out) {
        if (node.node() == nullptr) return;
        const api::Labels& labels = node.node()->metadata.labels;
        const auto& pods = incoming_terms ? node.pods() : node.pods_with_required_anti_affinity();
        for (const auto& other : pods) {
          const api::Pod& o = other->Pod();
          if (incoming_terms) {
            if (MatchesAll(st.affinity_terms, o)) {
              for (const auto& t : st.affinity_terms) {
                AddHit(out, labels, index, Hit::kAffinity, t.topology_key());
              }
            }
            for (const auto& t : st.anti_affinity_terms) {
              if (t.Matches(o)) AddHit(out, labels, index, Hit::kAntiAffinity, t.topology_key());
            }
          }
          if (!other->has_required_anti_affinity) continue;
          for (const auto& t : RequiredAntiAffinityTerms(o)) {
            if (ExistingTermMatches(t, o, incoming, st.namespace_labels)) {
              AddHit(out, labels, index, Hit::kExistingAntiAffinity, t.topology_key);
            }
          }
        }
      });
  ApplyHits(hits, to_visit, s.get());

  if (s->existing_anti_affinity.empty() && s->affinity_terms.empty() &&
      s->anti_affinity_terms.empty()) {
    return framework::Status::Skip();
  }
  state.Write(PreFilterKey(), std::move(s));
  return {};
}

// A missing state means PreFilter skipped this pod (or did not run): the runtime does not call
// the extensions of a skipped plugin upstream, so there is nothing to update.
framework::Status InterPodAffinity::AddPod(framework::CycleState& state, const framework::PodInfo&,
                                           const framework::PodInfo& pod_to_add,
                                           const framework::NodeInfo& node) const {
  auto* s = state.Read<PreFilterState>(PreFilterKey());
  if (s == nullptr || node.node() == nullptr) return {};
  s->UpdateWithPod(pod_to_add.Pod(), node.node_ptr(), 1);
  return {};
}

framework::Status InterPodAffinity::RemovePod(framework::CycleState& state,
                                              const framework::PodInfo&,
                                              const framework::PodInfo& pod_to_remove,
                                              const framework::NodeInfo& node) const {
  auto* s = state.Read<PreFilterState>(PreFilterKey());
  if (s == nullptr || node.node() == nullptr) return {};
  s->UpdateWithPod(pod_to_remove.Pod(), node.node_ptr(), -1);
  return {};
}

framework::Status InterPodAffinity::Filter(const framework::CycleState& state,
                                           const framework::PodInfo&,
                                           const framework::NodeInfo& node) const {
  const auto* s = state.Read<PreFilterState>(PreFilterKey());
  if (s == nullptr) {
    return framework::Status::Error(
        "error reading \"PreFilterInterPodAffinity\" from cycleState: not found");
  }
  if (node.node() == nullptr) return framework::Status::Error("node not found");
  const api::Labels& labels = node.node()->metadata.labels;
  // Shared rejections (framework::Status): no allocation per rejected node.
  using framework::Status;
  if (!SatisfiesPodAffinity(*s, labels)) {
    static const Status kAffinity =
        Status::Unresolvable(kErrReasonAffinityRulesNotMatch).WithPlugin(kName);
    return kAffinity;
  }
  if (!SatisfiesPodAntiAffinity(*s, labels)) {
    static const Status kAnti =
        Status::Unschedulable(kErrReasonAntiAffinityRulesNotMatch).WithPlugin(kName);
    return kAnti;
  }
  // upstream's satisfyExistingPodsAntiAffinity: any (key, value) of the node with a count > 0.
  if (!s->existing_anti_affinity.empty() && s->existing_anti_affinity.AnyPositiveForNode(labels)) {
    static const Status kExisting =
        Status::Unschedulable(kErrReasonExistingAntiAffinityRulesNotMatch).WithPlugin(kName);
    return kExisting;
  }
  return {};
}

}  // namespace berth::plugins::inter_pod_affinity
