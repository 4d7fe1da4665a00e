#pragma once
// NodeAffinity (PreFilter, Filter, PreScore, Score + NormalizeScore) — upstream's nodeaffinity
// plugin, with args NodeAffinityArgs{addedAffinity}.
//   PreFilter: Skip when the pod has no nodeSelector, no required node affinity and there is no
//     added required affinity. When every required term names nodes through
//     `matchFields: metadata.name In [...]`, returns those names as PreFilterResult (terms ORed,
//     requirements within a term intersected); an empty set is UnschedulableAndUnresolvable
//     kErrReasonConflict.
//   Filter (all UnschedulableAndUnresolvable): kErrReasonEnforced when the node fails the added
//     required affinity; kErrReasonPod when it fails the pod's nodeSelector or required terms.
//     Terms that do not parse never match (upstream's lazy parse errors).
//   ExplainFilter (berth's FilterExplainer, explain.h): which nodeSelector label or required term
//     the node fails ("needs label zone=eu-1a (node has zone=eu-1b)", "zone In [eu-1a, eu-1b];
//     node has zone=eu-1c"); for kErrReasonEnforced the added affinity's terms. Gap kExplainGap.
//   PreScore: Skip when neither the pod nor the args have preferred terms; Error when the pod's
//     preferred terms do not parse.
//   Score: Σ weights of matching preferred terms (pod's + added). NormalizeScore:
//     DefaultNormalizeScore(100, reverse=false).
// Requeue: Node/Add|UpdateNodeLabel with upstream's hint (Queue when the node now matches the
// added and the pod's required affinity and did not before).

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::node_affinity {

inline constexpr const char kName[] = "NodeAffinity";
inline constexpr const char kErrReasonPod[] = "node(s) didn't match Pod's node affinity/selector";
inline constexpr const char kErrReasonEnforced[] =
    "node(s) didn't match scheduler-enforced node affinity";
inline constexpr const char kErrReasonConflict[] = "pod affinity terms conflict";
// The gap ExplainFilter reports: fixable by the pod's author (or by labelling the node).
inline constexpr double kExplainGap = 0.5;

// Args: {"addedAffinity": <NodeAffinity>}; nullptr args = no added affinity. Errors name the
// field under ctx.args_path, e.g.
// `<args_path>.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
// .matchExpressions[0].key: Invalid value: ...`.
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::node_affinity
