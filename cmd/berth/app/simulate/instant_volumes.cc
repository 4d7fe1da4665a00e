#include "cmd/berth/app/simulate/instant_volumes.h"

#include <algorithm>
#include <charconv>

namespace berth::simulate {
namespace {

constexpr const char kAnnSelectedNode[] = "volume.kubernetes.io/selected-node";
constexpr const char kAnnBindCompleted[] = "pv.kubernetes.io/bind-completed";
constexpr const char kAnnBoundByController[] = "pv.kubernetes.io/bound-by-controller";
constexpr const char kHostnameLabel[] = "kubernetes.io/hostname";

uint64_t VersionOf(const std::string& rv) {
  uint64_t v = 0;
  std::from_chars(rv.data(), rv.data() + rv.size(), v);
  return v;
}

}  // namespace

std::string InstantVolumes::NextVersion() { return std::to_string(++version_); }

void InstantVolumes::BindClaimLocked(
    const std::shared_ptr<const api::PersistentVolumeClaim>& current,
    api::PersistentVolumeClaim claim, const std::string& pv_name) {
  claim.spec.volume_name = pv_name;
  claim.metadata.annotations[kAnnBindCompleted] = "yes";
  claim.metadata.annotations[kAnnBoundByController] = "yes";
  claim.status.phase = "Bound";
  claim.metadata.resource_version = NextVersion();
  auto bound = std::make_shared<const api::PersistentVolumeClaim>(std::move(claim));
  objects_->pvcs.Upsert(bound);
  claim_updates_.push_back({current, bound});
}

framework::Status InstantVolumes::AnnotateClaim(const api::PersistentVolumeClaim& pvc,
                                                const api::Labels& annotations,
                                                std::string* resource_version) {
  std::lock_guard lock(mu_);
  auto current = objects_->pvcs.Get(pvc.metadata.namespace_, pvc.metadata.name);
  if (current == nullptr) {
    return framework::Status::Error("PATCH persistentvolumeclaims " + pvc.metadata.namespace_ +
                                    "/" + pvc.metadata.name + ": HTTP 404: not found");
  }
  version_ = std::max(version_, VersionOf(current->metadata.resource_version));
  api::PersistentVolumeClaim claim = *current;
  for (const auto& [k, v] : annotations) claim.metadata.annotations[k] = v;
  auto node = annotations.find(kAnnSelectedNode);
  if (node == annotations.end() || !claim.spec.volume_name.empty()) {
    claim.metadata.resource_version = NextVersion();
    if (resource_version != nullptr) *resource_version = claim.metadata.resource_version;
    auto updated = std::make_shared<const api::PersistentVolumeClaim>(std::move(claim));
    objects_->pvcs.Upsert(updated);
    claim_updates_.push_back({current, updated});
    return {};
  }
  // The provisioner: a PV on the selected node, sized and classed as the claim asks.
  api::PersistentVolume pv;
  pv.metadata.name = "pv-" + claim.metadata.namespace_ + "-" + claim.metadata.name;
  pv.metadata.resource_version = NextVersion();
  pv.metadata.annotations[kAnnBoundByController] = "yes";
  pv.spec.capacity = claim.spec.resources.requests;
  pv.spec.access_modes = claim.spec.access_modes;
  pv.spec.storage_class_name = claim.spec.storage_class_name.value_or("");
  pv.spec.volume_mode = claim.spec.volume_mode;
  pv.spec.claim_ref = api::ObjectReference{"PersistentVolumeClaim", claim.metadata.namespace_,
                                           claim.metadata.name, claim.metadata.uid};
  const api::Labels labels = node_labels_(node->second);
  if (auto host = labels.find(kHostnameLabel); host != labels.end()) {
    api::NodeSelectorTerm term;
    term.match_expressions.push_back({kHostnameLabel, api::SelectorOperator::kIn, {host->second}});
    pv.spec.node_affinity = api::NodeSelector{{term}};
  }
  pv.phase = "Bound";
  const std::string pv_name = pv.metadata.name;
  auto created = std::make_shared<const api::PersistentVolume>(std::move(pv));
  objects_->pvs.Upsert(created);
  volume_updates_.push_back({nullptr, created});
  BindClaimLocked(current, std::move(claim), pv_name);
  if (resource_version != nullptr) *resource_version = std::to_string(version_);
  return {};
}

framework::Status InstantVolumes::BindVolume(const api::PersistentVolume& pv,
                                             const api::ObjectReference& claim,
                                             const api::Labels& annotations,
                                             std::string* resource_version) {
  std::lock_guard lock(mu_);
  auto current = objects_->pvs.Get(pv.metadata.name);
  if (current == nullptr) {
    return framework::Status::Error("PATCH persistentvolumes " + pv.metadata.name +
                                    ": HTTP 404: not found");
  }
  version_ = std::max(version_, VersionOf(current->metadata.resource_version));
  api::PersistentVolume updated = *current;
  updated.spec.claim_ref = claim;
  for (const auto& [k, v] : annotations) updated.metadata.annotations[k] = v;
  updated.phase = "Bound";
  updated.metadata.resource_version = NextVersion();
  if (resource_version != nullptr) *resource_version = updated.metadata.resource_version;
  auto bound_pv = std::make_shared<const api::PersistentVolume>(std::move(updated));
  objects_->pvs.Upsert(bound_pv);
  volume_updates_.push_back({current, bound_pv});
  // The PV controller completes the binding on the claim side.
  if (auto pvc = objects_->pvcs.Get(claim.namespace_, claim.name)) {
    version_ = std::max(version_, VersionOf(pvc->metadata.resource_version));
    BindClaimLocked(pvc, *pvc, pv.metadata.name);
  }
  return {};
}

void InstantVolumes::TakeEvents(std::vector<ClaimUpdate>* claims,
                                std::vector<VolumeUpdate>* volumes) {
  std::lock_guard lock(mu_);
  *claims = std::exchange(claim_updates_, {});
  *volumes = std::exchange(volume_updates_, {});
}

}  // namespace berth::simulate
