#pragma once
// NodeResourcesBalancedAllocation (upstream v1.37's noderesources.BalancedAllocation): favours
// placements that improve the balance of the node's utilisation fractions.
//   balance(u) = int((1 - std) * 100) over fraction_i = min(1, u_i / allocatable_i), for the
//   configured resources whose allocatable is > 0 (an extended resource the pod does not request
//   is skipped); std = |f1 - f2| / 2 for two fractions, the population standard deviation for
//   more, 0 for fewer.
//   with = balance(node requested + pod request), without = balance(node requested);
//   score = 50 + (50 + with - without) / 2 (integer division): 75 when the pod changes nothing,
//   towards 100 when it improves the balance, towards 50 when it worsens it.
// It uses the node's plain Requested aggregate and the pod's plain requests (useRequested = true)
// — NOT the 100m/200Mi non-zero defaults NodeResourcesFit scores with — counting in-place resize
// and pod-level resources (framework/pod_requests.h). DRA-backed extended resources are not
// scored (DRAExtendedResource is not implemented).
// PreScore returns Skip for a pod that requests none of the configured resources (upstream's
// best-effort skip, kubernetes#129138); Score then gives 0 if called anyway.
// Args (NodeResourcesBalancedAllocationArgs): resources [{name, weight}], default cpu:1 memory:1;
// weight 0/absent means 1, any other weight than 1 and duplicate names are rejected.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::node_resources_balanced_allocation {

inline constexpr const char kName[] = "NodeResourcesBalancedAllocation";

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::node_resources_balanced_allocation
