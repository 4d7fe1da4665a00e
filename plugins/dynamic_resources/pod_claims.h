#pragma once
// How a pod names its ResourceClaims and whether a claim is the pod's (upstream's
// k8s.io/dynamic-resource-allocation/resourceclaim helpers, with their error texts). Pure
// functions; any thread.

#include <optional>
#include <string>

#include "api/store.h"
#include "api/types.h"
#include "api/types_resource.h"
#include "base/result.h"

namespace berth::plugins::dynamic_resources {

// The name of the claim behind pod.spec.resourceClaims[i] (resourceclaim.Name):
//   resourceClaimName            that name; the claim may be anyone's.
//   resourceClaimTemplateName    the name the claim controller recorded in
//                                status.resourceClaimStatuses, and the claim must be owned by the
//                                pod (*must_check_owner); nullopt when the controller decided no
//                                claim is needed. Error `pod "ns/name": ResourceClaim not created
//                                yet` before the controller got to it.
//   neither                      Error `pod "ns/name", spec.resourceClaim "c": none of the
//                                supported fields are set`.
Result<std::optional<std::string>> ClaimName(const api::Pod& pod, const api::PodResourceClaim& pc,
                                             bool* must_check_owner);

// resourceclaim.IsForPod (without PodGroup owners): the claim is in the pod's namespace and the
// pod is its controller. The error says which is not the case.
Ok IsForPod(const api::Pod& pod, const api::ResourceClaim& claim);

// The pod is in claim.status.reservedFor (by uid).
bool IsReservedForPod(const api::Pod& pod, const api::ResourceClaim& claim);

// "namespace/name" (klog.KObj).
inline std::string Ref(const api::ResourceClaim& claim) {
  return api::Store<api::ResourceClaim>::KeyOf(claim);
}

}  // namespace berth::plugins::dynamic_resources
