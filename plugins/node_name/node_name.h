#pragma once
// NodeName (PreFilter, Filter): a pod with spec.nodeName fits only the node of that name
// (upstream's nodename plugin, v1.37). PreFilter narrows the cycle to that node (a
// PreFilterResult) and never fails; Filter returns Success or UnschedulableAndUnresolvable with
// kErrReason.
// Requeue: Node/Add, no hint (always Queue).

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::node_name {

inline constexpr const char kName[] = "NodeName";
inline constexpr const char kErrReason[] = "node(s) didn't match the requested node name";

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::node_name
