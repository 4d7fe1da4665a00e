// PreFilter, AddPod/RemovePod and Filter: upstream's interpodaffinity/filtering.go.

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

using Hit = InterPodAffinity::Hit;

// Records a hit when the node carries the topology key (upstream ignores it otherwise).
void AddHit(std::vector<Hit>& out, const api::Labels& node_labels, uint32_t node,
            Hit::Counter counter, uint32_t term, const std::string& key) {
  auto it = node_labels.find(key);
  if (it != node_labels.end()) out.push_back({node, counter, term, &key, it->second});
}

// Length-prefixed, so that no two different inputs give the same signature.
void Put(std::string& out, std::string_view s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
}

void PutSelector(std::string& out, const std::optional<api::LabelSelector>& sel) {
  if (!sel) {
    out += 'N';
    return;
  }
  out += 'S';
  for (const auto& [k, v] : sel->match_labels) {
    Put(out, k);
    Put(out, v);
  }
  out += '|';
  for (const auto& r : sel->match_expressions) {
    Put(out, r.key);
    out += std::to_string(static_cast<int>(r.op));
    for (const auto& v : r.values) Put(out, v);
    out += ';';
  }
}

void PutTerms(std::string& out, const std::vector<IncomingTerm>& terms) {
  for (const auto& t : terms) {
    const api::PodAffinityTerm& spec = *t.spec;
    out += 'T';
    PutSelector(out, spec.label_selector);
    Put(out, spec.topology_key);
    out += t.all_namespaces ? 'A' : 'L';
    for (const auto& ns : t.namespaces) Put(out, ns);
    out += '|';
    for (const auto& k : spec.match_label_keys) Put(out, k);
    out += '|';
    for (const auto& k : spec.mismatch_label_keys) Put(out, k);
  }
}

// Everything of the incoming pod that PreFilter's matching depends on: its namespace and that
// namespace's labels, its labels, and its required terms with their resolved namespaces.
std::string MatchSignature(const api::Pod& pod, const PreFilterState& s) {
  std::string out;
  Put(out, pod.metadata.namespace_);
  for (const auto& [k, v] : pod.metadata.labels) {
    Put(out, k);
    Put(out, v);
  }
  out += '|';
  for (const auto& [k, v] : s.namespace_labels) {
    Put(out, k);
    Put(out, v);
  }
  out += "|a";
  PutTerms(out, s.affinity_terms);
  out += "|n";
  PutTerms(out, s.anti_affinity_terms);
  return out;
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
  // With terms of its own the pod visits the snapshot's whole node list, whose order is stable:
  // its hits per node are remembered across cycles (memo_, see plugin.h).
  std::unique_lock<std::mutex> memo_lock(memo_mu_, std::defer_lock);
  const bool memo = incoming_terms;
  if (memo) {
    memo_lock.lock();
    std::string signature = MatchSignature(incoming, st);
    if (signature != memo_signature_) {
      memo_signature_ = std::move(signature);
      memo_.clear();
    }
    if (memo_.size() != to_visit.size()) memo_.resize(to_visit.size());
  }
  auto key_of = [&](const Hit& h) -> const std::string* {
    switch (h.counter) {
      case Hit::kAffinity:
        return &st.affinity_terms[h.term].topology_key();
      case Hit::kAntiAffinity:
        return &st.anti_affinity_terms[h.term].topology_key();
      case Hit::kExistingAntiAffinity:
        break;
    }
    return h.key;  // the existing pod's term: alive while the node is unchanged
  };
  std::vector<std::vector<Hit>> hits;
  ForEachNodeChunk(
      to_visit, &hits, [&](const framework::NodeInfo& node, uint32_t index, std::vector<Hit>& out) {
        if (node.node() == nullptr) return;
        NodeHits* slot = memo ? &memo_[index] : nullptr;
        if (slot != nullptr && slot->Valid(node)) {
          for (Hit h : slot->hits) {
            h.node = index;
            h.key = key_of(h);
            out.push_back(h);
          }
          return;
        }
        const size_t first = out.size();
        const api::Labels& labels = node.node()->metadata.labels;
        const auto& pods = incoming_terms ? node.pods() : node.pods_with_required_anti_affinity();
        for (const auto& other : pods) {
          const api::Pod& o = other->Pod();
          if (incoming_terms) {
            if (MatchesAll(st.affinity_terms, o)) {
              for (uint32_t i = 0; i < st.affinity_terms.size(); ++i) {
                AddHit(out, labels, index, Hit::kAffinity, i, st.affinity_terms[i].topology_key());
              }
            }
            for (uint32_t i = 0; i < st.anti_affinity_terms.size(); ++i) {
              const IncomingTerm& t = st.anti_affinity_terms[i];
              if (t.Matches(o)) AddHit(out, labels, index, Hit::kAntiAffinity, i, t.topology_key());
            }
          }
          if (!other->has_required_anti_affinity) continue;
          for (const auto& t : RequiredAntiAffinityTerms(o)) {
            if (ExistingTermMatches(t, o, incoming, st.namespace_labels)) {
              AddHit(out, labels, index, Hit::kExistingAntiAffinity, 0, t.topology_key);
            }
          }
        }
        if (slot != nullptr) {
          *slot = NodeHits{
              &node, node.generation(), node.pods().data(), node.pods().size(),
              std::vector<Hit>(out.begin() + static_cast<std::ptrdiff_t>(first), out.end())};
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
