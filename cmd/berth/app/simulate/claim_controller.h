#pragma once
// simulate's stand-in for kube-controller-manager's resource claim controller: for each
// spec.resourceClaims entry of a pending pod that names a ResourceClaimTemplate and has no
// status.resourceClaimStatuses entry yet, it creates the claim from the template, owned by the
// pod and named as the API server names a generateName of "<pod>-<claim>-" (both parts cut
// proportionally to 57 characters, then five characters; here derived from the pod's uid, so a
// run is reproducible), and records it in the pod's status. A missing template leaves the pod
// without the entry: DynamicResources then keeps it pending with "ResourceClaim not created
// yet", as in a cluster. Single-threaded (simulate's load phase).

#include <memory>

#include "api/store.h"
#include "api/types.h"

namespace berth::simulate {

// The pod with its generated claims recorded (the same pointer when nothing was generated);
// the claims are upserted into `objects.resource_claims`.
std::shared_ptr<const api::Pod> GenerateTemplateClaims(std::shared_ptr<const api::Pod> pod,
                                                       api::ClusterObjects& objects);

}  // namespace berth::simulate
