#pragma once
// The legacy scheduler Policy (`kind: Policy`, apiVersion v1; removed from kube-scheduler in
// v1.23, design seed 003), translated into one berth profile as upstream's legacy registry
// (pkg/scheduler/framework/plugins/legacy_registry.go, v1.21) did:
//   - every predicate / priority name maps to the plugins (and extension points) that replaced it;
//     PodToleratesNodeTaints and CheckNodeUnschedulable are always added; an absent `predicates`
//     or `priorities` list means upstream's default set (restricted to the plugins berth has), an
//     empty list means none; EqualPriority is ignored;
//   - a predicate with `labelsPresence` -> NodeLabel presentLabels/absentLabels; with
//     `serviceAffinity` -> ServiceAffinity affinityLabels (any name, even a predefined one: berth
//     applies the argument where upstream silently ignored it);
//   - a priority with `labelPreference` -> NodeLabel presentLabelsPreference/
//     absentLabelsPreference, weight x number of such priorities (all must share one weight);
//     `serviceAntiAffinity` -> ServiceAffinity antiAffinityLabelsPreference, likewise;
//     `requestedToCapacityRatioArguments` -> NodeResourcesFit scoringStrategy
//     RequestedToCapacityRatio (shape and resources kept; scores stay on the 0..10 scale);
//   - LeastRequestedPriority / MostRequestedPriority -> NodeResourcesFit scoringStrategy
//     LeastAllocated / MostAllocated (upstream had separate plugins; berth has one strategy, so at
//     most one of these and requestedToCapacityRatioArguments may be given);
//   - hardPodAffinitySymmetricWeight -> InterPodAffinity hardPodAffinityWeight;
//     alwaysCheckAllPredicates is accepted and ignored (berth always runs every Filter plugin the
//     framework needs, as upstream's framework did after the Policy's translation);
//   - PrioritySort, DefaultBinder (and SchedulingGates / DefaultPreemption when the registry has
//     them) are added, as upstream's createFromConfig did;
//   - `extenders` (LegacyExtender: enableHttps, httpTimeout in nanoseconds) -> config::Extender.
//
// `known_plugins` are the registry's names. A predicate or priority named explicitly whose plugin
// berth lacks (the volume predicates, NodePreferAvoidPodsPriority, ...) is an error naming it.
// Errors start with `<source>: ` and name the field (`policy.yaml: predicates[2].argument:
// ...`); an unknown name lists the known ones. Pure functions; thread-safe.

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/types.h"

namespace berth::config {

struct PolicyResult {
  Profile profile;  // plugins per extension point (no multiPoint), pluginConfig
  std::vector<Extender>
      extenders;  // as written; called like the config's (cmd/berth/app/extender/)
};

// Reads the file at `path` (the source name is the path) and parses it as ParsePolicy. Errors:
// `<path>: cannot read file: <reason>`, or those of ParsePolicy.
Result<PolicyResult> LoadPolicyFile(const std::string& path,
                                    const std::vector<std::string>& known_plugins,
                                    const std::string& scheduler_name);

// Parses one YAML or JSON Policy document into a profile named `scheduler_name`. Errors: malformed
// YAML, wrong kind/apiVersion, unknown fields or wrong types, unknown predicate/priority names,
// not exactly one argument per entry, non-positive weights, custom priorities of one kind with
// different weights, a second requestedToCapacityRatio, conflicting NodeResourcesFit strategies,
// hardPodAffinitySymmetricWeight outside 0..100, invalid extenders, and plugins berth lacks.
Result<PolicyResult> ParsePolicy(std::string_view yaml_or_json, const std::string& source,
                                 const std::vector<std::string>& known_plugins,
                                 const std::string& scheduler_name);

// The predicate and priority names the Policy knows (sorted; aliases included).
std::vector<std::string> LegacyPredicateNames();
std::vector<std::string> LegacyPriorityNames();

}  // namespace berth::config
