#include "cmd/berth/app/simulate/claim_controller.h"

#include <cstdint>
#include <string>

namespace berth::simulate {
namespace {

// The API server's generateName suffix alphabet (no vowels, no confusable digits).
constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";

std::string Suffix(const std::string& seed) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : seed) {
    h ^= c;
    h *= 1099511628211ull;
  }
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out.push_back(kAlphabet[h % kAlphabet.size()]);
    h /= kAlphabet.size();
  }
  return out;
}

// The controller's generateName: "<pod>-<claim>-", both cut in proportion when longer than 57.
std::string GenerateName(const std::string& pod, const std::string& claim) {
  std::string base = pod + "-" + claim + "-";
  constexpr size_t kMaxBase = 57;
  if (base.size() > kMaxBase) {
    const size_t len = base.size();
    base = pod.substr(0, pod.size() * kMaxBase / len) + "-" +
           claim.substr(0, claim.size() * kMaxBase / len);
  }
  return base;
}

}  // namespace

std::shared_ptr<const api::Pod> GenerateTemplateClaims(std::shared_ptr<const api::Pod> pod,
                                                       api::ClusterObjects& objects) {
  std::shared_ptr<api::Pod> updated;
  for (const auto& pc : pod->spec.resource_claims) {
    if (pc.resource_claim_template_name.empty()) continue;
    bool recorded = false;
    for (const auto& s : pod->status.resource_claim_statuses) recorded |= s.name == pc.name;
    if (recorded) continue;
    auto tmpl = objects.resource_claim_templates.Get(pod->metadata.namespace_,
                                                     pc.resource_claim_template_name);
    if (!tmpl) continue;
    auto claim = std::make_shared<api::ResourceClaim>();
    claim->metadata.namespace_ = pod->metadata.namespace_;
    claim->metadata.name =
        GenerateName(pod->metadata.name, pc.name) + Suffix(pod->metadata.uid + "/" + pc.name);
    claim->metadata.uid = "sim-claim-" + claim->metadata.name;
    claim->metadata.resource_version = "1";
    claim->metadata.labels = tmpl->spec.metadata.labels;
    claim->metadata.annotations = tmpl->spec.metadata.annotations;
    claim->metadata.annotations[api::kPodResourceClaimAnnotation] = pc.name;
    api::OwnerReference owner;
    owner.api_version = "v1";
    owner.kind = "Pod";
    owner.name = pod->metadata.name;
    owner.uid = pod->metadata.uid;
    owner.controller = true;
    claim->metadata.owner_references.push_back(owner);
    claim->spec = tmpl->spec.spec;
    if (!updated) updated = std::make_shared<api::Pod>(*pod);
    updated->status.resource_claim_statuses.push_back({pc.name, claim->metadata.name});
    objects.resource_claims.Upsert(std::move(claim));
  }
  if (!updated) return pod;
  return updated;
}

}  // namespace berth::simulate
