#include "plugins/pod_topology_spread/common.h"

#include "api/selector.h"

namespace berth::plugins::pod_topology_spread {

bool SpreadSelector::Matches(const api::Pod& pod) const {
  if (nothing) return false;
  return api::Matches(labels, pod.metadata.labels);
}

std::vector<Constraint> FilterConstraints(const std::vector<api::TopologySpreadConstraint>& in,
                                          const api::Labels& pod_labels, std::string_view action) {
  std::vector<Constraint> out;
  for (const auto& c : in) {
    if (c.when_unsatisfiable != action) continue;
    Constraint tsc;
    tsc.max_skew = c.max_skew;
    tsc.topology_key = c.topology_key;
    tsc.is_hostname = c.topology_key == kLabelHostname;
    if (c.label_selector.has_value()) {
      tsc.selector.labels = *c.label_selector;
      // matchLabelKeys: AND `key In (value)` for each key the pod carries, as upstream's
      // mergeLabelSetWithSelector (a nil selector stays nil).
      for (const auto& key : c.match_label_keys) {
        auto it = pod_labels.find(key);
        if (it == pod_labels.end()) continue;
        tsc.selector.labels.match_expressions.push_back(
            api::LabelSelectorRequirement{key, api::SelectorOperator::kIn, {it->second}});
      }
    } else {
      tsc.selector.nothing = true;
    }
    tsc.min_domains = c.min_domains.value_or(1);
    tsc.honor_node_affinity = c.node_affinity_policy != "Ignore";
    tsc.honor_node_taints = c.node_taints_policy == "Honor";
    out.push_back(std::move(tsc));
  }
  return out;
}

bool MatchesNodeInclusionPolicies(const Constraint& c, const api::Pod& pod, const api::Node& node) {
  if (c.honor_node_affinity) {
    if (!pod.spec.node_selector.empty() &&
        !api::MatchesMap(pod.spec.node_selector, node.metadata.labels)) {
      return false;
    }
    const auto& a = pod.spec.affinity;
    if (a.has_value() && a->node_affinity.has_value() && a->node_affinity->required.has_value() &&
        !api::Matches(*a->node_affinity->required, node.metadata.labels, node.metadata.name)) {
      return false;
    }
  }
  if (c.honor_node_taints) {
    for (const auto& taint : node.spec.taints) {
      if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
      if (!api::TolerationsTolerate(pod.spec.tolerations, taint)) return false;
    }
  }
  return true;
}

bool NodeHasAllKeys(const api::Labels& node_labels, const std::vector<Constraint>& constraints) {
  for (const auto& c : constraints) {
    if (!node_labels.contains(c.topology_key)) return false;
  }
  return true;
}

std::string SelectorSignature(const SpreadSelector& selector, const std::string& ns) {
  // Fields are separated by NUL, which label keys and values cannot contain.
  std::string sig = ns;
  sig += '\0';
  sig += selector.nothing ? 'N' : 'S';
  for (const auto& [k, v] : selector.labels.match_labels) {
    sig += '\0';
    sig += k;
    sig += '=';
    sig += v;
  }
  for (const auto& r : selector.labels.match_expressions) {
    sig += '\0';
    sig += r.key;
    sig += static_cast<char>('0' + static_cast<int>(r.op));
    for (const auto& v : r.values) {
      sig += '\1';
      sig += v;
    }
  }
  return sig;
}

int CountMatching(const std::vector<framework::PodInfoPtr>& pods, const SpreadSelector& selector,
                  const std::string& ns) {
  if (selector.Empty()) return 0;
  int count = 0;
  for (const auto& p : pods) {
    const api::Pod& pod = *p->pod;
    // Terminating pods do not count (upstream #87621).
    if (pod.metadata.deletion_timestamp.has_value() || pod.metadata.namespace_ != ns) continue;
    if (selector.Matches(pod)) ++count;
  }
  return count;
}

}  // namespace berth::plugins::pod_topology_spread
