#pragma once
// InterPodAffinity (PreFilter + AddPod/RemovePod, Filter, PreScore, Score + NormalizeScore,
// EnqueueExtensions) — upstream's interpodaffinity plugin (v1.37).
//
// Args (InterPodAffinityArgs): hardPodAffinityWeight (default 1, 0..100; otherwise start-up error
// "<path>.hardPodAffinityWeight: Invalid value: <w>: not in valid range [0-100]"),
// ignorePreferredTermsOfExistingPods (default false). Unknown fields are errors.
//
// PreFilter counts, per (topology key, value), the existing pods that (a) have a required
// anti-affinity term matching the incoming pod, (b) match all of the incoming pod's required
// affinity terms, (c) match each of its required anti-affinity terms. Skip when the pod has no
// required terms and no existing anti-affinity term matches it. The incoming pod's
// namespaceSelector is resolved to names from Handle::objects().namespaces; existing pods'
// namespaceSelectors are matched against the incoming pod's namespace labels.
// matchLabelKeys / mismatchLabelKeys are merged from each term owner's labels, as the API server
// does at pod creation. AddPod/RemovePod update the counts (no-op when PreFilter skipped).
//
// Filter is a few hash lookups per term, in upstream's order:
//   UnschedulableAndUnresolvable "node(s) didn't match pod affinity rules" — a required affinity
//     topology key missing on the node, or no matching pod in the node's domain (unless no pod in
//     the cluster matches and the pod matches its own terms: the first pod of a group);
//   Unschedulable "node(s) didn't match pod anti-affinity rules";
//   Unschedulable "node(s) didn't satisfy existing pods anti-affinity rules".
//   Without PreFilter state: Error.
//
// ExplainFilter (berth's FilterExplainer), gap kExplainGap for each reason; kFull names the pods:
//   affinity: "no pod matching the affinity term in zone=eu-1a" (+ " (none in any domain)" when
//     no pod on any node carrying the key matches), or "node has no label zone";
//   anti-affinity: "anti-affinity with pod shop/web-2 (zone=eu-1a)" — the existing pod in the
//     node's domain matching the pod's required anti-affinity term, or the existing pod whose own
//     term rejects the pod — with " and 2 more" when others do too. Finding them walks the
//     snapshot's nodes in that domain (kFull only: the few nearest nodes).
//
// PreScore sums per (topology key, value): + weight of the incoming pod's preferred affinity
// terms matched by existing pods, − weight of its preferred anti-affinity terms, +
// hardPodAffinityWeight for existing pods' required affinity terms the incoming pod matches, ±
// weight of existing pods' preferred (anti-)affinity terms it matches. Skip when there are no
// nodes, when ignorePreferredTermsOfExistingPods is set and the pod has no preferred terms, or
// when nothing matched. Score = Σ over the node's labels; NormalizeScore maps [min, max] to
// [0, 100] (all 0 when max == min).
//
// Requeue: AssignedPod Add|UpdatePodLabel|Delete (pods neither bound nor nominated are skipped
// by the hint; a deleted pod counts when either side's anti-affinity matched the other), the
// pod's own label update (always Queue) and Node Add|UpdateNodeLabel, with upstream v1.37's
// queueing hints.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::inter_pod_affinity {

inline constexpr const char kName[] = "InterPodAffinity";

inline constexpr const char kErrReasonExistingAntiAffinityRulesNotMatch[] =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr const char kErrReasonAffinityRulesNotMatch[] =
    "node(s) didn't match pod affinity rules";
inline constexpr const char kErrReasonAntiAffinityRulesNotMatch[] =
    "node(s) didn't match pod anti-affinity rules";
// The gap ExplainFilter reports: fixable, but by moving other pods or changing the pod's terms.
inline constexpr double kExplainGap = 0.7;

// Error when ctx.handle is null or the args are invalid.
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::inter_pod_affinity
