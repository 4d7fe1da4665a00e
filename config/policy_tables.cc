// The legacy registry tables (upstream's pkg/scheduler/framework/plugins/legacy_registry.go,
// v1.21) and the list of names the Policy accepts.

#include <algorithm>

#include "config/policy.h"
#include "config/policy_internal.h"

namespace berth::config {
namespace policy_internal {

// Upstream's legacy registry, with the points berth's plugins implement (NodeAffinity and
// NodeVolumeLimits have a PreFilter in berth, as upstream's later versions).
const Table& PredicateTable() {
  static const auto* table = new Table{
      {"GeneralPredicates",
       {{"NodeResourcesFit", kPreFilter | kFilter},
        {"NodeName", kFilter},
        {"NodePorts", kPreFilter | kFilter},
        {"NodeAffinity", kPreFilter | kFilter}}},
      {"PodToleratesNodeTaints", {{"TaintToleration", kFilter}}},
      {"PodFitsResources", {{"NodeResourcesFit", kPreFilter | kFilter}}},
      {"HostName", {{"NodeName", kFilter}}},
      {"PodFitsHostPorts", {{"NodePorts", kPreFilter | kFilter}}},
      {"MatchNodeSelector", {{"NodeAffinity", kPreFilter | kFilter}}},
      {"CheckNodeUnschedulable", {{"NodeUnschedulable", kFilter}}},
      {"CheckVolumeBinding", {{"VolumeBinding", kPreFilter | kFilter | kReserve | kPreBind}}},
      {"NoDiskConflict", {{"VolumeRestrictions", kFilter}}},
      {"NoVolumeZoneConflict", {{"VolumeZone", kFilter}}},
      {"MaxCSIVolumeCountPred", {{"NodeVolumeLimits", kPreFilter | kFilter}}},
      {"MaxEBSVolumeCount", {{"EBSLimits", kFilter}}},
      {"MaxGCEPDVolumeCount", {{"GCEPDLimits", kFilter}}},
      {"MaxAzureDiskVolumeCount", {{"AzureDiskLimits", kFilter}}},
      {"MaxCinderVolumeCount", {{"CinderLimits", kFilter}}},
      {"MatchInterPodAffinity", {{"InterPodAffinity", kPreFilter | kFilter}}},
      {"EvenPodsSpread", {{"PodTopologySpread", kPreFilter | kFilter}}},
      {"CheckNodeLabelPresence", {{"NodeLabel", kFilter}}},
      {"CheckServiceAffinity", {{"ServiceAffinity", kPreFilter | kFilter}}},
  };
  return *table;
}

// Upstream's predicateOrdering(): the order Filter plugins are appended in.
const std::vector<std::string>& PredicateOrdering() {
  static const auto* order = new std::vector<std::string>{
      "CheckNodeUnschedulable", "GeneralPredicates",       "HostName",
      "PodFitsHostPorts",       "MatchNodeSelector",       "PodFitsResources",
      "NoDiskConflict",         "PodToleratesNodeTaints",  "CheckNodeLabelPresence",
      "CheckServiceAffinity",   "MaxEBSVolumeCount",       "MaxGCEPDVolumeCount",
      "MaxCSIVolumeCountPred",  "MaxAzureDiskVolumeCount", "MaxCinderVolumeCount",
      "CheckVolumeBinding",     "NoVolumeZoneConflict",    "EvenPodsSpread",
      "MatchInterPodAffinity"};
  return *order;
}

const Table& PriorityTable() {
  static const auto* table = new Table{
      {"SelectorSpreadPriority", {{"SelectorSpread", kPreScore | kScore}}},
      {"InterPodAffinityPriority", {{"InterPodAffinity", kPreScore | kScore}}},
      {"LeastRequestedPriority", {{"NodeResourcesFit", kPreScore | kScore}}},
      {"MostRequestedPriority", {{"NodeResourcesFit", kPreScore | kScore}}},
      {"RequestedToCapacityRatioPriority", {{"NodeResourcesFit", kPreScore | kScore}}},
      {"BalancedResourceAllocation", {{"NodeResourcesBalancedAllocation", kPreScore | kScore}}},
      {"NodePreferAvoidPodsPriority", {{"NodePreferAvoidPods", kScore}}},
      {"NodeAffinityPriority", {{"NodeAffinity", kPreScore | kScore}}},
      {"TaintTolerationPriority", {{"TaintToleration", kPreScore | kScore}}},
      {"ImageLocalityPriority", {{"ImageLocality", kPreScore | kScore}}},
      {"EvenPodsSpreadPriority", {{"PodTopologySpread", kPreScore | kScore}}},
      // Custom priorities (by argument), named by their plugin as upstream did.
      {"NodeLabel", {{"NodeLabel", kScore}}},
      {"ServiceAffinity", {{"ServiceAffinity", kPreScore | kScore}}},
  };
  return *table;
}

// Upstream's DefaultPredicates / DefaultPriorities, used when the list is absent.
const std::vector<std::string>& DefaultPredicates() {
  static const auto* v = new std::vector<std::string>{
      "NoVolumeZoneConflict",    "MaxEBSVolumeCount",      "MaxGCEPDVolumeCount",
      "MaxAzureDiskVolumeCount", "MaxCSIVolumeCountPred",  "MatchInterPodAffinity",
      "NoDiskConflict",          "GeneralPredicates",      "PodToleratesNodeTaints",
      "CheckVolumeBinding",      "CheckNodeUnschedulable", "EvenPodsSpread"};
  return *v;
}
const std::map<std::string, int64_t>& DefaultPriorities() {
  static const auto* m = new std::map<std::string, int64_t>{
      {"SelectorSpreadPriority", 1},          {"InterPodAffinityPriority", 1},
      {"LeastRequestedPriority", 1},          {"BalancedResourceAllocation", 1},
      {"NodePreferAvoidPodsPriority", 10000}, {"NodeAffinityPriority", 1},
      {"TaintTolerationPriority", 1},         {"ImageLocalityPriority", 1},
      {"EvenPodsSpreadPriority", 2}};
  return *m;
}

}  // namespace policy_internal

std::vector<std::string> LegacyPredicateNames() {
  std::vector<std::string> out;
  for (const auto& [name, plugins] : policy_internal::PredicateTable()) out.push_back(name);
  out.push_back("PodFitsPorts");
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> LegacyPriorityNames() {
  std::vector<std::string> out;
  for (const auto& [name, plugins] : policy_internal::PriorityTable()) {
    if (name != "NodeLabel" && name != "ServiceAffinity") out.push_back(name);
  }
  out.push_back("ServiceSpreadingPriority");
  out.push_back("EqualPriority");
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace berth::config
