#include "plugins/dynamic_resources/pod_claims.h"

namespace berth::plugins::dynamic_resources {

Result<std::optional<std::string>> ClaimName(const api::Pod& pod, const api::PodResourceClaim& pc,
                                             bool* must_check_owner) {
  *must_check_owner = false;
  const std::string pod_ref = "pod \"" + pod.metadata.namespace_ + "/" + pod.metadata.name + "\"";
  if (!pc.resource_claim_name.empty()) return std::optional<std::string>(pc.resource_claim_name);
  if (!pc.resource_claim_template_name.empty()) {
    for (const auto& status : pod.status.resource_claim_statuses) {
      if (status.name == pc.name) {
        *must_check_owner = true;
        return status.resource_claim_name;
      }
    }
    return Error{pod_ref + ": ResourceClaim not created yet", ErrorCode::kNotFound};
  }
  return Error{
      pod_ref + ", spec.resourceClaim \"" + pc.name + "\": none of the supported fields are set",
      ErrorCode::kInvalid};
}

Ok IsForPod(const api::Pod& pod, const api::ResourceClaim& claim) {
  const std::string claim_ref = claim.metadata.namespace_ + "/" + claim.metadata.name;
  const std::string pod_ref = pod.metadata.namespace_ + "/" + pod.metadata.name;
  if (claim.metadata.namespace_ != pod.metadata.namespace_) {
    return Error{"ResourceClaim " + claim_ref + " is not in the same namespace as Pod " + pod_ref,
                 ErrorCode::kInvalid};
  }
  for (const auto& owner : claim.metadata.owner_references) {
    if (owner.controller && owner.uid == pod.metadata.uid) return {};
  }
  return Error{
      "ResourceClaim " + claim_ref + " was not created for Pod " + pod_ref + " (Pod is not owner)",
      ErrorCode::kInvalid};
}

bool IsReservedForPod(const api::Pod& pod, const api::ResourceClaim& claim) {
  for (const auto& r : claim.status.reserved_for) {
    if (r.uid == pod.metadata.uid) return true;
  }
  return false;
}

}  // namespace berth::plugins::dynamic_resources
