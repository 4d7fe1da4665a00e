#pragma once
// NodeResourcesFit (upstream's noderesources.Fit, v1.37 semantics). DRA-backed extended resources
// (DRAExtendedResource): an extended resource that a DeviceClass serves
// (plugins/common/dra_extended_resources.h) is not checked on a node that does not advertise it;
// DynamicResources allocates devices for it there (upstream's shouldDelegateResourceToDRA). A
// DeviceClass Add/Update requeues pods that request the resource it now serves. Not done: the
// score of such a resource listed in scoringStrategy.resources (upstream counts the class's
// devices; here the node's allocatable counts, as for any extended resource).
//   PreFilter: records the pod's requests (upstream's computePodResourceRequest: spec requests,
//              pod-level spec.resources.requests replacing the container sums for cpu / memory /
//              hugepages, overhead added) with the ignored extended resources already dropped.
//   Filter:    per node, one reason per failing resource, in this order: kErrReasonTooManyPods,
//              "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
//              "Insufficient <name>" for scalar resources (sorted by name). A resource fails when
//              request > allocatable − requested. The status is Unschedulable, or
//              UnschedulableAndUnresolvable when some failing resource's request exceeds the
//              node's allocatable outright (preemption cannot help). Too many pods alone is
//              always Unschedulable. Error when PreFilter state is missing.
//   ExplainFilter (berth's FilterExplainer): see explain.h.
//   PreScore/Score: see scoring.h (LeastAllocated | MostAllocated | RequestedToCapacityRatio).
//   Events: Pod Delete|UpdatePodScaleDown, Node Add|UpdateNodeAllocatable, with upstream's
//           queueing hints.
// Args: see args.h. Stateless across cycles; Filter/Score are safe from any worker thread and
// allocate nothing on the success path.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::node_resources_fit {

inline constexpr const char kName[] = "NodeResourcesFit";
inline constexpr const char kErrReasonTooManyPods[] = "Too many pods";
inline constexpr const char kErrReasonInsufficientCPU[] = "Insufficient cpu";
inline constexpr const char kErrReasonInsufficientMemory[] = "Insufficient memory";
inline constexpr const char kErrReasonInsufficientEphemeralStorage[] =
    "Insufficient ephemeral-storage";

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::node_resources_fit
