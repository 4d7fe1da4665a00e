#pragma once
// A loaded (defaulted) configuration back in kubescheduler.config.k8s.io/v1 form, as
// kube-scheduler's /configz and --write-config-to show it: every top-level field with its value,
// each profile's merged plugin sets (every extension point, {} when empty) and its pluginConfig
// with upstream's defaulting: the given entries first, their args completed with the defaults of
// the fields they leave out, then, in name order, a defaulted entry for every other enabled
// plugin whose args upstream's scheme knows (DefaultPreemption, DynamicResources,
// InterPodAffinity, NodeAffinity, NodeResourcesBalancedAllocation, NodeResourcesFit,
// PodTopologySpread, VolumeBinding). berth's own plugins' args appear only as given. As upstream,
// the resources extenders manage with ignoredByScheduler join NodeResourcesFit's
// ignoredResources.

#include <string>

#include "api/value.h"
#include "config/types.h"

namespace berth::config {

api::Value EncodeConfig(const SchedulerConfiguration& cfg);

// /configz: {"componentconfig": EncodeConfig(cfg)} as JSON.
std::string RenderConfigz(const SchedulerConfiguration& cfg);

}  // namespace berth::config
