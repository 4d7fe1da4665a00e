#pragma once
// PodTopologySpread (PreFilter + AddPod/RemovePod, Filter, PreScore, Score + NormalizeScore,
// EnqueueExtensions) — upstream's podtopologyspread plugin (v1.37), with args
// PodTopologySpreadArgs{defaultConstraints, defaultingType}.
//
// Constraints: the pod's own topologySpreadConstraints; when it has none, the default constraints
// (defaultingType System: hostname maxSkew 3 + zone maxSkew 5, both ScheduleAnyway; List: the
// args' defaultConstraints) with upstream's helper.DefaultSelector (plugins/common/
// default_selector.h): the Services that select the pod, ANDed with the selector of its
// controller when that is an existing ReplicationController, ReplicaSet or StatefulSet. Pods
// for which that selector is empty (no Service, owned by nothing of those, e.g. by a Job or a
// DaemonSet) get no defaults.
// matchLabelKeys are merged into the selector as `key In (value)` (idempotent when the API server
// already merged them). minDomains (default 1), nodeAffinityPolicy (default Honor: only nodes
// matching the pod's nodeSelector / required node affinity count) and nodeTaintsPolicy (default
// Ignore; Honor skips nodes with NoSchedule/NoExecute taints the pod does not tolerate).
//
//   PreFilter: Skip when the pod has no DoNotSchedule constraint. Otherwise counts, over all
//     nodes that carry every topology key and pass the inclusion policies, the pods in the pod's
//     namespace (terminating pods excluded) matching each selector per topology value, and the
//     global minimum per constraint.
//   Filter: UnschedulableAndUnresolvable kErrReasonNodeLabelNotMatch when the node misses a
//     topology key; Unschedulable kErrReasonConstraintsNotMatch when
//     count(domain) + selfMatch - minimum > maxSkew, where the minimum is 0 while fewer than
//     minDomains domains exist.
//   ExplainFilter (berth's FilterExplainer): for either Filter reason, every constraint the node
//     violates, from the PreFilter counts: "placing it here makes skew 3 > maxSkew 1 for
//     topologyKey zone (zone=eu-1a has 2 matching pods, the least loaded 0)", "node has no
//     label zone"; gap kExplainGap.
//   AddPod/RemovePod: adjust the counts (and the minimum, exactly) for a pod in the same namespace.
//   PreScore: Skip when the pod has no ScheduleAnyway constraint. Counts per topology value over
//     all nodes for the values present on the filtered nodes; nodes missing a topology key are
//     ignored (score 0) except under system defaulting.
//   Score: Σ over constraints of count·log(domains+2) + (maxSkew−1), rounded; hostname counts are
//     taken from the node itself. NormalizeScore: 100·(max+min−score)/max, 100 for all when
//     max is 0, 0 for ignored nodes.
// Requeue: bound or nominated pods added/deleted/relabelled in the namespace whose labels
// (un)match a selector, the pod's own toleration change (with a Honor taints policy) or label
// change that (un)matches a selector, nodes added/deleted/
// relabelled/retainted that carry every topology key — upstream's hints.
// Errors: Error status when PreFilter/PreScore state is missing at Filter/Score.
// Cost: PreFilter walks every node; a memo kept across cycles (topology_memo.h: each node's
// topology values and, per selector, its matching-pod count, both keyed by the immutable snapshot
// objects) makes that walk a few compares per unchanged node. It holds no per-pod state.
// Threading: PreFilter/PreScore from the scheduling thread (they fan out on the handle's
// parallelizer); Filter/Score/NormalizeScore from any worker.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::pod_topology_spread {

inline constexpr const char kName[] = "PodTopologySpread";
inline constexpr const char kErrReasonConstraintsNotMatch[] =
    "node(s) didn't match pod topology spread constraints";
inline constexpr const char kErrReasonNodeLabelNotMatch[] =
    "node(s) didn't match pod topology spread constraints (missing required label)";
// The gap ExplainFilter reports: other pods must move, or the constraint change.
inline constexpr double kExplainGap = 0.6;

// Args: {"defaultConstraints": [<TopologySpreadConstraint without labelSelector>],
//        "defaultingType": "System" | "List"} (default System). nullptr args = System defaults.
// Validated as upstream's ValidatePodTopologySpreadArgs; errors name the field under
// ctx.args_path, e.g. `<args_path>.defaultingType: Invalid value: "System": when
// .defaultConstraints are not empty`.
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::pod_topology_spread
