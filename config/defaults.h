#pragma once
// Default plugins and the merge of a profile's custom plugins into them, as upstream's v1
// getDefaultPlugins / mergePlugins / mergePluginSet (pkg/scheduler/apis/config/v1/
// default_plugins.go). Pure functions; thread-safe.

#include <string>
#include <vector>

#include "config/types.h"

namespace berth::config {

// Upstream's default multiPoint list (v1.37.2 with its default feature gates), in order, with the
// Score weights: SchedulingGates, PrioritySort, NodeName, NodeUnschedulable, TaintToleration(3),
// NodeAffinity(2), NodePorts, NodeResourcesFit(1), VolumeRestrictions, NodeVolumeLimits,
// VolumeBinding, VolumeZone, PodTopologySpread(2), InterPodAffinity(2), DynamicResources(2),
// DefaultPreemption, NodeResourcesBalancedAllocation(1), ImageLocality(1), DefaultBinder,
// NodeDeclaredFeatures.
const std::vector<PluginRef>& UpstreamDefaultPlugins();

// The defaults berth can actually run: UpstreamDefaultPlugins() restricted to the names in
// `available_plugins` (the registry's names), order and weights kept, all in multiPoint. A
// default berth has not implemented yet (DynamicResources) is left out, not an error.
Plugins DefaultPlugins(const std::vector<std::string>& available_plugins);

// Upstream's mergePluginSet: the disabled lists of both sets are kept (custom first); unless "*"
// is disabled, each default not disabled is kept in order, replaced in place by a custom entry of
// the same name; the remaining custom entries are appended in their order (duplicates included:
// the framework rejects them).
PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& custom);

// Upstream's mergePlugins: MergePluginSet for multiPoint, each of the 12 specific points and the
// 3 pod-group points.
Plugins MergePlugins(const Plugins& defaults, const Plugins& custom);

}  // namespace berth::config
