#pragma once
// DefaultPreemption (PostFilter) — upstream's defaultpreemption plugin with the preemption
// Evaluator of framework/preemption (v1.34). When no node fits a pod, it looks for a node where
// evicting lower-priority pods would make room:
//   1. PodEligibleToPreemptOthers: `preemptionPolicy: Never` pods never preempt; a pod whose
//      nominated node still has a terminating lower-priority pod waits for it instead.
//   2. Candidates: nodes whose Filter status is Unschedulable (never UnschedulableAndUnresolvable);
//      starting at an offset derived from the pod, the dry run evaluates nodes until it has
//      max(numNodes * minCandidateNodesPercentage / 100, minCandidateNodesAbsolute) candidates
//      (capped at the number of nodes) and at least one that violates no PodDisruptionBudget.
//   3. SelectVictimsOnNode per node (preemption.h), then PickOneNodeForPreemption.
//   4. Effects, off the scheduling thread (Handle::RunAsync, as upstream's async preemption):
//      victims waiting in Permit are rejected, the others are DELETEd with their uid as
//      precondition and get a "Preempted" event; lower-priority pods nominated to the chosen
//      node lose their nomination. The result nominates the node (the scheduler records it in
//      the queue's nominator and patches status.nominatedNodeName).
// Statuses (message prefixed with "preemption: " as upstream):
//   Unschedulable `preemption: not eligible due to preemptionPolicy=Never.` /
//     `preemption: not eligible due to a terminating pod on the nominated node.`
//   Unschedulable `preemption: 0/N nodes are available: <count> <reason>, ...` when no node has
//     victims that help (reasons `No preemption victims found for incoming pod`,
//     `Preemption is not helpful for scheduling`, or the Filter reason after evicting every
//     lower-priority pod); the result then clears the pod's nomination.
//   Success with the nominated node otherwise.
// Args (DefaultPreemptionArgs): minCandidateNodesPercentage [0, 100] (default 10),
// minCandidateNodesAbsolute >= 0 (default 100); not both zero.
// Differences from upstream: extenders are not consulted for preemption; the DisruptionTarget
// pod condition is not written before deletion (a terminating pod is any pod with a
// deletionTimestamp); the dry run's start offset is a hash of the pod's uid instead of random, so
// `berth simulate` stays deterministic.

#include <cstdint>
#include <memory>
#include <string>

#include "api/value.h"
#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::default_preemption {

inline constexpr const char kName[] = "DefaultPreemption";

struct Args {
  int32_t min_candidate_nodes_percentage = 10;
  int32_t min_candidate_nodes_absolute = 100;
};

// Strict parsing and upstream's ValidateDefaultPreemptionArgs; errors name the field:
// `<path>.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]`.
Result<Args> ParseArgs(const api::Value* args, const std::string& path);

// Upstream's calculateNumCandidates.
int32_t NumCandidates(const Args& args, int32_t num_nodes);

// Needs ctx.handle.
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::default_preemption
