#pragma once
// InstantVolumes: what `berth simulate` does with VolumeBinding's API writes, standing in for the
// API server, the PV controller and an external provisioner that all answer at once:
//   - annotating a claim with volume.kubernetes.io/selected-node provisions it: a synthetic PV
//     "pv-<ns>-<claim>" (the claim's class, size and access modes, node affinity to the node's
//     kubernetes.io/hostname label when it has one) is created and the claim is bound to it;
//   - pre-binding a PV (claimRef) binds the claim to it.
// Bound claims carry volumeName, pv.kubernetes.io/bind-completed and phase Bound, as the PV
// controller leaves them, so PreBind's wait ends at its first check. The changed objects are
// kept for delivery to the scheduler as informer events (TakeEvents). Thread-safe.

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/store.h"
#include "scheduler/framework/status.h"

namespace berth::simulate {

class InstantVolumes {
 public:
  // node_labels(name) returns the node's labels (empty when unknown).
  InstantVolumes(api::ClusterObjects* objects,
                 std::function<api::Labels(const std::string&)> node_labels)
      : objects_(objects), node_labels_(std::move(node_labels)) {}

  framework::Status AnnotateClaim(const api::PersistentVolumeClaim& pvc,
                                  const api::Labels& annotations, std::string* resource_version);
  framework::Status BindVolume(const api::PersistentVolume& pv, const api::ObjectReference& claim,
                               const api::Labels& annotations, std::string* resource_version);

  // An update delivered as the informer would: old and new object of one kind.
  struct ClaimUpdate {
    std::shared_ptr<const api::PersistentVolumeClaim> old_obj, new_obj;
  };
  struct VolumeUpdate {
    std::shared_ptr<const api::PersistentVolume> old_obj, new_obj;  // old_obj null: added
  };
  void TakeEvents(std::vector<ClaimUpdate>* claims, std::vector<VolumeUpdate>* volumes);

 private:
  std::string NextVersion();
  // Binds the stored claim to pv_name (caller holds mu_).
  void BindClaimLocked(const std::shared_ptr<const api::PersistentVolumeClaim>& current,
                       api::PersistentVolumeClaim claim, const std::string& pv_name);

  api::ClusterObjects* objects_;
  std::function<api::Labels(const std::string&)> node_labels_;
  std::mutex mu_;  // guards everything below and the writes to *objects_ made here
  uint64_t version_ = 1000000;
  std::vector<ClaimUpdate> claim_updates_;
  std::vector<VolumeUpdate> volume_updates_;
};

}  // namespace berth::simulate
