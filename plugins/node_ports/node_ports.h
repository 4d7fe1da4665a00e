#pragma once
// NodePorts (PreFilter, Filter) — upstream's nodeports plugin.
//   PreFilter: Skip when the pod asks for no host ports (containers' ports with hostPort > 0);
//     otherwise stores them in CycleState.
//   Filter: Unschedulable with kErrReason when any wanted (ip, protocol, port) conflicts with a
//     port in use on the node; 0.0.0.0 (an unset hostIP) conflicts with every IP. Error when
//     PreFilter state is missing.
//   ExplainFilter (berth's FilterExplainer): for kErrReason, each wanted port in use and the pod
//     on the node holding it ("host port 8080/TCP is taken by pod ns/name", the address first
//     when the port is bound to one: "127.0.0.1:8080/TCP"), gap kExplainGap.
// Requeue: Pod/Delete (hint: the deleted pod was bound or nominated and held a port this pod
// wants) and Node/Add (no hint).

#include <memory>
#include <vector>

#include "api/types.h"
#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::node_ports {

inline constexpr const char kName[] = "NodePorts";
inline constexpr const char kErrReason[] =
    "node(s) didn't have free ports for the requested pod ports";
// The gap ExplainFilter reports: fixable by the pod's author (another port) or by moving a pod.
inline constexpr double kExplainGap = 0.5;

// The host ports a pod's containers ask for (hostPort > 0), with upstream's defaults applied:
// an empty hostIP is "0.0.0.0", an empty protocol "TCP".
std::vector<framework::HostPort> WantedHostPorts(const api::Pod& pod);

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::node_ports
