#pragma once
// Internal to InterPodAffinity: the PreFilter state, written by PreFilter and AddPod/RemovePod
// (filtering.cc), read by Filter and the explainer (explain.cc). Users include
// inter_pod_affinity.h.

#include <cstdint>
#include <memory>
#include <vector>

#include "api/types.h"
#include "plugins/inter_pod_affinity/terms.h"
#include "scheduler/framework/cycle_state.h"

namespace berth::plugins::inter_pod_affinity {

const framework::StateKey& PreFilterKey();

// Computed in PreFilter, read by Filter (upstream's preFilterState).
struct PreFilterState final : framework::StateData {
  std::shared_ptr<const api::Pod> pod;  // keeps the terms' pointers valid
  std::vector<IncomingTerm> affinity_terms;
  std::vector<IncomingTerm> anti_affinity_terms;
  api::Labels namespace_labels;  // of the incoming pod's namespace
  // Existing pods whose required anti-affinity terms match the incoming pod.
  TopologyCounts existing_anti_affinity;
  // Existing pods that match all of the incoming pod's required affinity terms (counted once per
  // term at the term's topology key).
  TopologyCounts affinity;
  // Existing pods that match each of the incoming pod's required anti-affinity terms.
  TopologyCounts anti_affinity;

  bool SchedulingCycleOnly() const override { return true; }
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }

  // upstream's updateWithPod: adds (multiplier 1) or removes (-1) one pod on `node`.
  void UpdateWithPod(const api::Pod& other, const std::shared_ptr<const api::Node>& node,
                     int64_t multiplier) {
    for (const auto& t : RequiredAntiAffinityTerms(other)) {
      if (ExistingTermMatches(t, other, *pod, namespace_labels)) {
        existing_anti_affinity.AddForNode(t.topology_key, node, multiplier);
      }
    }
    if (MatchesAll(affinity_terms, other)) {
      for (const auto& t : affinity_terms) {
        affinity.AddForNode(t.topology_key(), node, multiplier);
      }
    }
    for (const auto& t : anti_affinity_terms) {
      if (t.Matches(other)) anti_affinity.AddForNode(t.topology_key(), node, multiplier);
    }
  }
};

}  // namespace berth::plugins::inter_pod_affinity
