#pragma once
// The preemption evaluator's building blocks (upstream's framework/preemption/preemption.go and
// default_preemption.go), free functions so tests can drive them with upstream's table cases.
// All run on the scheduling thread or on Parallelizer workers (each with its own NodeInfo copy
// and CycleState clone); none calls the API.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/types.h"
#include "scheduler/framework/handle.h"

namespace berth::plugins::default_preemption {

// Victims of one node, most important first (MoreImportantPod order).
struct Candidate {
  std::string node;
  std::vector<framework::PodInfoPtr> victims;
  int64_t num_pdb_violations = 0;
};

// Upstream's MoreImportantPod: higher priority first; equal priority -> earlier start time
// (status.startTime, or `now` when unset) first.
bool MoreImportantPod(const api::Pod& a, const api::Pod& b, api::Time now);

// Upstream's PodEligibleToPreemptOthers. On false, *msg is the reason ("not eligible due to
// preemptionPolicy=Never." / "not eligible due to a terminating pod on the nominated node.").
// nominated_status: the pod's nominated node's Filter status this cycle (null when it has none).
bool PodEligibleToPreemptOthers(const framework::Snapshot& snapshot, const api::Pod& pod,
                                const framework::Status* nominated_status, std::string* msg);

// Upstream's filterPodsWithPDBViolation: splits pods (keeping their order) into those whose
// eviction would take a matching PDB's disruptionsAllowed below zero and the rest.
void FilterPodsWithPDBViolation(
    const std::vector<framework::PodInfoPtr>& pods,
    const std::vector<std::shared_ptr<const api::PodDisruptionBudget>>& pdbs,
    std::vector<framework::PodInfoPtr>* violating,
    std::vector<framework::PodInfoPtr>* non_violating);

// Upstream's SelectVictimsOnNode, on `node` (a copy the caller owns) and `state` (a clone):
// removes every lower-priority pod, checks the pod fits (Filter plugins with nominated pods,
// PreFilterExtensions kept current), then reprieves pods, PDB-violating ones first, each group
// from the most important down. Success with the victims (most important first) and the number of
// PDB-violating victims; UnschedulableAndUnresolvable `No preemption victims found for incoming
// pod` when nothing has lower priority; the Filter rejection when the pod does not fit even with
// every lower-priority pod gone; Error when a PreFilterExtension fails.
framework::Status SelectVictimsOnNode(
    const framework::Handle& handle, framework::CycleState& state, const framework::PodInfo& pod,
    framework::NodeInfo& node,
    const std::vector<std::shared_ptr<const api::PodDisruptionBudget>>& pdbs, api::Time now,
    std::vector<framework::PodInfoPtr>* victims, int64_t* num_pdb_violations);

// Upstream's pickOneNodeForPreemption over candidates with at least one victim each: fewest PDB
// violations, then lowest highest-victim priority, then smallest sum of priorities, then fewest
// victims, then the latest start time of the highest-priority victims, then the first candidate.
// Returns the index into `candidates`, or -1 when empty.
int PickOneNodeForPreemption(const std::vector<Candidate>& candidates, api::Time now);

}  // namespace berth::plugins::default_preemption
