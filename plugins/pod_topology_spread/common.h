#pragma once
// Internal to PodTopologySpread: the parsed form of a spread constraint and the helpers shared by
// filtering and scoring (upstream's common.go). Everything here is immutable once built and safe
// to read from Filter/Score workers.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/store.h"
#include "api/types.h"
#include "scheduler/framework/pod_info.h"

namespace berth::plugins::pod_topology_spread {

inline constexpr char kLabelHostname[] = "kubernetes.io/hostname";
inline constexpr char kLabelTopologyZone[] = "topology.kubernetes.io/zone";
inline constexpr char kDoNotSchedule[] = "DoNotSchedule";
inline constexpr char kScheduleAnyway[] = "ScheduleAnyway";

// Which pods a constraint counts. `nothing` is a nil labelSelector (matches no pod); otherwise
// `labels`.
struct SpreadSelector {
  bool nothing = false;
  api::LabelSelector labels;

  // labels.Selector.Empty(): matches every pod (upstream then counts nothing).
  bool Empty() const {
    return !nothing && labels.match_labels.empty() && labels.match_expressions.empty();
  }
  bool Matches(const api::Pod& pod) const;
};

// Upstream's topologySpreadConstraint: defaults applied, selector parsed.
struct Constraint {
  int32_t max_skew = 1;
  std::string topology_key;
  SpreadSelector selector;
  int32_t min_domains = 1;
  bool honor_node_affinity = true;  // nodeAffinityPolicy Honor (default)
  bool honor_node_taints = false;   // nodeTaintsPolicy Honor (default Ignore)
  bool is_hostname = false;         // topology_key == kubernetes.io/hostname
};

// The pod's constraints with whenUnsatisfiable == action, defaults applied and matchLabelKeys
// merged (upstream's filterTopologySpreadConstraints).
std::vector<Constraint> FilterConstraints(const std::vector<api::TopologySpreadConstraint>& in,
                                          const api::Labels& pod_labels, std::string_view action);

// Whether the node passes the constraint's inclusion policies for `pod` (upstream's
// matchNodeInclusionPolicies): Honor affinity = nodeSelector and required node affinity match;
// Honor taints = no untolerated NoSchedule/NoExecute taint.
bool MatchesNodeInclusionPolicies(const Constraint& c, const api::Pod& pod, const api::Node& node);

// True when the node carries every constraint's topology key.
bool NodeHasAllKeys(const api::Labels& node_labels, const std::vector<Constraint>& constraints);

// A string identifying (selector, namespace): equal signatures count the same pods.
std::string SelectorSignature(const SpreadSelector& selector, const std::string& ns);

// Pods in namespace `ns`, not terminating, matching the selector; 0 for an empty selector.
int CountMatching(const std::vector<framework::PodInfoPtr>& pods, const SpreadSelector& selector,
                  const std::string& ns);

}  // namespace berth::plugins::pod_topology_spread
