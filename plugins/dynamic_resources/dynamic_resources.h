#pragma once
// DynamicResources: Dynamic Resource Allocation (resource.k8s.io/v1) as upstream kube-scheduler
// v1.37's plugin of that name, in the default profile with Score weight 2.
//
//   PreEnqueue  every claim the pod names exists (and, for a template claim, was made for the
//               pod); otherwise the pod waits, gated, with the reason (ResourceClaim events
//               re-check it).
//   PreFilter   reads the pod's claims; Skip without claims. A claim being allocated for another
//               pod, a missing DeviceClass or an unknown request kind is
//               UnschedulableAndUnresolvable with upstream's message. For claims still to allocate
//               it builds an allocator over every ResourceSlice, with the devices allocated claims
//               and in-flight allocations already hold (whole, or as shares of a device with
//               allowMultipleAllocations together with the capacity the shares consume).
//   Filter      an allocated claim must be usable from the node (its node selector); the others
//               must be allocatable there (structured/allocator.h): else
//               UnschedulableAndUnresolvable
//               ("resourceclaim not available on the node", "cannot allocate all claims",
//               "invalid resource pools were encountered"), Error for a claim or class the
//               allocator cannot handle (a missing class, a CEL error).
//   PostFilter  when an allocated claim was the obstacle and nobody else holds it, deallocates it
//               (status update) and returns Unschedulable "deallocation of ResourceClaim
//               completed"; otherwise Unschedulable, so DefaultPreemption decides.
//   Score       for claims with firstAvailable, how early the used subrequests are in their list;
//               normalised to 0..100. 0 everywhere (UniformScore) for other pods.
//   Reserve     records the node's allocation as in flight (ClaimTracker), so the next pods do not
//               get the same devices before PreBind wrote it. Unreserve forgets it and removes the
//               pod from reservedFor where it was added.
//   PreBind     on a binding worker: adds the delete-protection finalizer, writes status.allocation
//               and the pod into status.reservedFor (retrying on conflict with a fresh read), as
//               upstream's bindClaim.
//
// DRA-backed extended resources (DRAExtendedResource, extended_resources.cc): a pod's requests of
// extended resources a DeviceClass serves, on nodes that do not advertise them, are allocated
// through one claim PreBind creates for the pod (and records in its
// status.extendedResourceClaimStatus); Unreserve and PostFilter delete such a claim again.
//
// Device binding conditions (binding.cc): PreBind waits for the driver, as upstream, up to
// DynamicResourcesArgs.bindingTimeout; filterTimeout bounds each node's device search.
// Not supported: PodGroup (workload) claims (DRAWorkloadResourceClaims, off in v1.37).
// Thread-safety: the plugin's ClaimTracker is locked; per-pod data lives in the CycleState.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::dynamic_resources {

inline constexpr const char kName[] = "DynamicResources";

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::dynamic_resources
