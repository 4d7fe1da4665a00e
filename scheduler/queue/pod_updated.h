#pragma once
// IsPodUpdated: upstream's isPodUpdated (backend/queue): whether a pending pod changed in a way
// that may make it schedulable — its spec, labels, annotations, owners or deletion timestamp.
// Status, resourceVersion and generation are ignored. Pure; any thread.

#include "api/types.h"

namespace berth::queue {

bool IsPodUpdated(const api::Pod& old_pod, const api::Pod& new_pod);

// The resource claim controller recorded (or changed) the claims it made from templates:
// status.resourceClaimStatuses differs. Upstream reports this as the pod's own
// UpdatePodGeneratedResourceClaim event, on which DynamicResources requeues it.
bool GeneratedResourceClaimsChanged(const api::Pod& old_pod, const api::Pod& new_pod);

}  // namespace berth::queue
