// PodTopologySpread's ExplainFilter: berth's FilterExplainer (upstream has no counterpart). Every
// DoNotSchedule constraint the node violates, read from the PreFilter counts Filter used.

#include <string>
#include <vector>

#include "base/strings.h"
#include "plugins/pod_topology_spread/plugin.h"
#include "plugins/pod_topology_spread/pod_topology_spread.h"

namespace berth::plugins::pod_topology_spread {
namespace {

std::string Pods(int64_t n) {
  return std::to_string(n) + (n == 1 ? " matching pod" : " matching pods");
}

// "placing it here makes skew 3 > maxSkew 1 for topologyKey zone (zone=eu-1a has 2 matching
// pods, the least loaded 0)" for each violated constraint; "node has no label zone" for each
// missing key; joined with "; ".
std::string SpreadNeed(const PreFilterState& s, const api::Labels& labels) {
  const auto& cs = *s.constraints;
  std::vector<std::string> parts;
  for (size_t i = 0; i < cs.size(); ++i) {
    const Constraint& c = cs[i];
    auto it = labels.find(c.topology_key);
    if (it == labels.end()) {
      parts.push_back("node has no label " + c.topology_key);
      continue;
    }
    const int64_t count = s.domains[i].Get(it->second);
    const int64_t min = s.MinMatch(i);
    const int64_t skew = count + s.self_match[i] - min;
    if (skew <= c.max_skew) continue;
    std::string text = "placing it here makes skew " + std::to_string(skew) + " > maxSkew " +
                       std::to_string(c.max_skew) + " for topologyKey " + c.topology_key + " (" +
                       c.topology_key + "=" + it->second + " has " + Pods(count) +
                       ", the least loaded " + std::to_string(min);
    if (s.domains[i].NumDomains() < static_cast<size_t>(c.min_domains)) {
      text += " while fewer than minDomains " + std::to_string(c.min_domains) + " domains exist";
    }
    parts.push_back(text + ")");
  }
  return Join(parts, "; ");
}

}  // namespace

void PodTopologySpread::ExplainFilter(const framework::CycleState& state, const framework::PodInfo&,
                                      const framework::NodeInfo& node_info,
                                      const framework::Status& rejection,
                                      framework::ExplainDetail detail,
                                      std::vector<framework::FilterNeed>* out) const {
  const auto* s = state.Read<PreFilterState>(PreFilterKey());
  const api::Node* node = node_info.node();
  for (const std::string& reason : rejection.reasons()) {
    if (reason != kErrReasonConstraintsNotMatch && reason != kErrReasonNodeLabelNotMatch) continue;
    // kGapOnly (every rejected node) copies no string: explain.h allows an empty reason.
    framework::FilterNeed n{detail == framework::ExplainDetail::kFull ? reason : std::string(),
                            std::string(), kExplainGap};
    if (detail == framework::ExplainDetail::kFull && s != nullptr && node != nullptr) {
      n.need = SpreadNeed(*s, node->metadata.labels);
    }
    out->push_back(std::move(n));
  }
}

}  // namespace berth::plugins::pod_topology_spread
