#pragma once
// NodeResourcesBalancedAllocation (upstream's noderesources.BalancedAllocation): favours nodes
// whose utilisation fractions are close to each other once the pod is placed.
//   fraction_i = min(1, (node requested_i + pod request_i) / allocatable_i), over the configured
//   resources whose allocatable is > 0 (an extended resource the pod does not request is
//   skipped). std = |f1 - f2| / 2 for two fractions, the population standard deviation for more,
//   0 for fewer. score = int((1 - std) * 100).
// As upstream v1.34 (useRequested = true) it uses the node's plain Requested aggregate and the
// pod's plain requests — NOT the 100m/200Mi non-zero defaults NodeResourcesFit scores with.
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
