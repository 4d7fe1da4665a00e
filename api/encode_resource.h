#pragma once
// Value encoders for the resource.k8s.io/v1 writes DynamicResources makes (PreBind, PostFilter,
// Unreserve): the body of a ResourceClaim status update. The inverse of api/decode_resource.cc
// for what they cover: DecodeResourceClaim(EncodeResourceClaimStatusUpdate(c)).status equals
// c.status. Fields follow Go's omitempty (empty lists, maps and absent optionals are left out);
// quantities use Quantity::ToString; timestamps are RFC 3339 at second precision, as
// metav1.Time marshals, so that an allocation read and written back compares equal on the server
// (its status.allocation may not be modified once set). status.devices entries are written back
// as they were read (AllocatedDeviceStatus::raw), or from the typed fields when built in code.
// Serialise with api::json::ToJson. Pure functions; any thread.

#include "api/types_resource.h"
#include "api/value.h"

namespace berth::api {

Value EncodeNodeSelector(const NodeSelector& selector);
Value EncodeAllocationResult(const AllocationResult& allocation);
Value EncodeResourceClaimStatus(const ResourceClaimStatus& status);
// The whole body of PUT /apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims/{name}/status:
// apiVersion, kind, metadata (name, namespace, uid and resourceVersion when set: the API server's
// preconditions) and status. The spec is not sent: the status subresource ignores it.
Value EncodeResourceClaimStatusUpdate(const ResourceClaim& claim);
// The body of POST /apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims for a claim the
// scheduler generates (DRA-backed extended resources): metadata (name or generateName,
// namespace, labels, annotations, ownerReferences, finalizers) and spec.devices.requests with
// their exact requests by class and count. Selectors, constraints, config and firstAvailable
// are not encoded: such claims have none.
Value EncodeResourceClaimForCreate(const ResourceClaim& claim);

}  // namespace berth::api
