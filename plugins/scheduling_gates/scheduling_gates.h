#pragma once
// SchedulingGates (PreEnqueue): keeps a pod out of activeQ while it has spec.schedulingGates
// (upstream's schedulinggates plugin). PreEnqueue returns UnschedulableAndUnresolvable with
// "waiting for scheduling gates: [g1 g2]" (Go's %v of the gate names) or Success.
// Requeue: Pod/UpdatePodSchedulingGatesEliminated, hint Queue only for the gated pod itself.

#include <memory>
#include <string>

#include "api/types.h"
#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::scheduling_gates {

inline constexpr const char kName[] = "SchedulingGates";

// "waiting for scheduling gates: [a b]" for the pod's gates (exposed for tests).
std::string GatesMessage(const api::Pod& pod);

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::scheduling_gates
