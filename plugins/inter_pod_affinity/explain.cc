// ExplainFilter: berth's FilterExplainer (upstream has no counterpart). Which pods make a node
// fail, found from the PreFilter state's counts and, for the names, a walk over the snapshot's
// nodes in the node's topology domain (kFull only).

#include <string>
#include <vector>

#include "plugins/inter_pod_affinity/filter_state.h"
#include "plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "plugins/inter_pod_affinity/plugin.h"
#include "plugins/inter_pod_affinity/terms.h"

namespace berth::plugins::inter_pod_affinity {
namespace {

const std::string* LabelOf(const framework::NodeInfo& ni, const std::string& key) {
  if (ni.node() == nullptr) return nullptr;
  const api::Labels& labels = ni.node()->metadata.labels;
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

// The pods that reject the node: "anti-affinity with pod shop/web-2 (zone=eu-1a) and 2 more".
class Culprits {
 public:
  void Add(const framework::PodInfo& pod, const std::string& key, const std::string& value) {
    if (count_++ > 0) return;
    first_ = &pod;
    domain_ = key + "=" + value;
  }
  int64_t count() const { return count_; }
  std::string Text() const {
    if (first_ == nullptr) return "";
    std::string out = "anti-affinity with pod " + first_->key + " (" + domain_ + ")";
    if (count_ > 1) out += " and " + std::to_string(count_ - 1) + " more";
    return out;
  }

 private:
  const framework::PodInfo* first_ = nullptr;
  std::string domain_;
  int64_t count_ = 0;
};

// fn(node info) for `node` and then every other node of the snapshot whose `key` is `value`.
// `node` may be a copy (with nominated pods), so the snapshot's own entry is skipped by name.
template <typename Fn>
void ForEachInDomain(const framework::Snapshot& snapshot, const framework::NodeInfo& node,
                     const std::string& key, const std::string& value, Fn fn) {
  fn(node);
  for (const framework::NodeInfo* ni : snapshot.List()) {
    if (ni->name() == node.name()) continue;
    const std::string* v = LabelOf(*ni, key);
    if (v != nullptr && *v == value) fn(*ni);
  }
}

// "node has no label zone", or "no pod matching the affinity term in zone=eu-1a".
std::string AffinityNeed(const PreFilterState& s, const api::Labels& labels) {
  for (const auto& t : s.affinity_terms) {
    if (!labels.contains(t.topology_key())) return "node has no label " + t.topology_key();
  }
  for (const auto& t : s.affinity_terms) {
    bool has_key = false;
    if (s.affinity.GetForNode(t.topology_key(), labels, &has_key) > 0) continue;
    std::string out = s.affinity_terms.size() == 1 ? "no pod matching the affinity term in "
                                                   : "no pod matching the affinity terms in ";
    out += t.topology_key() + "=" + labels.at(t.topology_key());
    // Not even elsewhere (and the pod does not match its own terms, or Filter would pass).
    if (s.affinity.empty()) out += " (none in any domain)";
    return out;
  }
  return "";
}

// The existing pods in the node's domain that the pod's first violated anti-affinity term
// matches.
std::string AntiAffinityNeed(const PreFilterState& s, const framework::Snapshot& snapshot,
                             const framework::NodeInfo& node) {
  for (const auto& t : s.anti_affinity_terms) {
    const std::string& key = t.topology_key();
    const std::string* value = LabelOf(node, key);
    if (value == nullptr || s.anti_affinity.Get(key, *value) <= 0) continue;
    Culprits c;
    ForEachInDomain(snapshot, node, key, *value, [&](const framework::NodeInfo& ni) {
      for (const auto& p : ni.pods()) {
        if (t.Matches(p->Pod())) c.Add(*p, key, *value);
      }
    });
    if (c.count() > 0) return c.Text();
    return "anti-affinity with " + std::to_string(s.anti_affinity.Get(key, *value)) +
           " pod(s) in " + key + "=" + *value;
  }
  return "";
}

// The existing pods whose own required anti-affinity term matches the pod, in a domain they share
// with the node.
std::string ExistingAntiAffinityNeed(const PreFilterState& s, const framework::Snapshot& snapshot,
                                     const framework::NodeInfo& node) {
  Culprits c;
  auto visit = [&](const framework::NodeInfo& ni) {
    for (const auto& p : ni.pods_with_required_anti_affinity()) {
      for (const auto& t : RequiredAntiAffinityTerms(p->Pod())) {
        const std::string* mine = LabelOf(node, t.topology_key);
        const std::string* theirs = LabelOf(ni, t.topology_key);
        if (mine == nullptr || theirs == nullptr || *mine != *theirs) continue;
        if (!ExistingTermMatches(t, p->Pod(), *s.pod, s.namespace_labels)) continue;
        c.Add(*p, t.topology_key, *mine);
        break;  // each pod once
      }
    }
  };
  visit(node);
  for (const framework::NodeInfo* ni : snapshot.HavePodsWithRequiredAntiAffinityList()) {
    if (ni->name() != node.name()) visit(*ni);
  }
  return c.Text();
}

}  // namespace

void InterPodAffinity::ExplainFilter(const framework::CycleState& state, const framework::PodInfo&,
                                     const framework::NodeInfo& node,
                                     const framework::Status& rejection,
                                     framework::ExplainDetail detail,
                                     std::vector<framework::FilterNeed>* out) const {
  const auto* s = state.Read<PreFilterState>(PreFilterKey());
  for (const std::string& reason : rejection.reasons()) {
    const bool affinity = reason == kErrReasonAffinityRulesNotMatch;
    const bool anti = reason == kErrReasonAntiAffinityRulesNotMatch;
    const bool existing = reason == kErrReasonExistingAntiAffinityRulesNotMatch;
    if (!affinity && !anti && !existing) continue;
    // kGapOnly (every rejected node) copies no string: explain.h allows an empty reason.
    framework::FilterNeed n{detail == framework::ExplainDetail::kFull ? reason : std::string(),
                            std::string(), kExplainGap};
    if (detail == framework::ExplainDetail::kFull && s != nullptr && node.node() != nullptr) {
      if (affinity) {
        n.need = AffinityNeed(*s, node.node()->metadata.labels);
      } else if (anti) {
        n.need = AntiAffinityNeed(*s, handle_->snapshot(), node);
      } else {
        n.need = ExistingAntiAffinityNeed(*s, handle_->snapshot(), node);
      }
    }
    out->push_back(std::move(n));
  }
}

}  // namespace berth::plugins::inter_pod_affinity
