#pragma once
// FakeHandle: a framework::Handle for plugin unit tests. Holds a snapshot built from the given
// NodeInfos (image num_nodes are computed as the cache would), an object store, a fake clock and
// a recording ApiWriter.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/framework/handle.h"

namespace berth::testing {

class RecordingWriter : public framework::ApiWriter {
 public:
  // Records the binding, then answers with on_bind (when set) or Success.
  framework::Status Bind(const api::Pod& pod, const std::string& node) override {
    {
      std::lock_guard lock(bind_mu_);
      bindings.emplace_back(pod.Key(), node);
    }
    return on_bind ? on_bind(pod, node) : framework::Status();
  }
  std::vector<std::pair<std::string, std::string>> Bindings() const {
    std::lock_guard lock(bind_mu_);
    return bindings;
  }
  std::vector<std::pair<std::string, std::string>> bindings;  // "ns/name", node
  std::function<framework::Status(const api::Pod&, const std::string&)> on_bind;

  // status.nominatedNodeName patches, recorded ("" clears).
  framework::Status SetNominatedNodeName(const api::Pod& pod, const std::string& node) override {
    std::lock_guard lock(bind_mu_);
    nominations_.emplace_back(pod.Key(), node);
    return framework::Status();
  }
  std::vector<std::pair<std::string, std::string>> Nominations() const {
    std::lock_guard lock(bind_mu_);
    return nominations_;
  }

  // Volume binding writes, recorded; the hooks (when set) may update the object stores as the
  // API server, PV controller or provisioner would.
  framework::Status PatchPersistentVolumeClaimAnnotations(const api::PersistentVolumeClaim& pvc,
                                                          const api::Labels& annotations,
                                                          std::string* resource_version) override {
    pvc_patches.emplace_back(pvc.metadata.namespace_ + "/" + pvc.metadata.name, annotations);
    if (resource_version != nullptr) *resource_version = pvc.metadata.resource_version;
    return on_pvc_patch ? on_pvc_patch(pvc, annotations) : framework::Status();
  }
  framework::Status PatchPersistentVolumeClaimRef(const api::PersistentVolume& pv,
                                                  const api::ObjectReference& claim,
                                                  const api::Labels& annotations,
                                                  std::string* resource_version) override {
    pv_claim_refs.emplace_back(pv.metadata.name, claim.namespace_ + "/" + claim.name);
    if (resource_version != nullptr) *resource_version = pv.metadata.resource_version;
    return on_pv_patch ? on_pv_patch(pv, claim) : framework::Status();
  }
  // ResourceClaim status updates, recorded in order; on_claim_status (when set) answers (e.g. a
  // kConflict Error, or the claim with a new resourceVersion), else the claim comes back as sent.
  Result<api::ResourceClaim> UpdateResourceClaimStatus(const api::ResourceClaim& claim) override {
    {
      std::lock_guard lock(bind_mu_);
      claim_status_updates_.push_back(claim);
    }
    return on_claim_status ? on_claim_status(claim) : Result<api::ResourceClaim>(claim);
  }
  std::vector<api::ResourceClaim> ClaimStatusUpdates() const {
    std::lock_guard lock(bind_mu_);
    return claim_status_updates_;
  }
  std::function<Result<api::ResourceClaim>(const api::ResourceClaim&)> on_claim_status;
  // Pod events, recorded as "<ns>/<pod> <type> <reason>: <note>".
  void RecordPodEvent(const api::Pod& pod, const std::string& type, const std::string& reason,
                      const std::string&, const std::string& note) override {
    std::lock_guard lock(bind_mu_);
    pod_events_.push_back(pod.Key() + " " + type + " " + reason + ": " + note);
  }
  std::vector<std::string> PodEvents() const {
    std::lock_guard lock(bind_mu_);
    return pod_events_;
  }
  // The finalizer patch, recorded; the claim comes back as sent.
  Result<api::ResourceClaim> SetResourceClaimFinalizers(const api::ResourceClaim& claim) override {
    std::lock_guard lock(bind_mu_);
    claim_finalizer_updates_.push_back(claim);
    return claim;
  }
  std::vector<api::ResourceClaim> ClaimFinalizerUpdates() const {
    std::lock_guard lock(bind_mu_);
    return claim_finalizer_updates_;
  }
  // GET answers with on_get_claim (when set), else NotFound.
  Result<api::ResourceClaim> GetResourceClaim(const std::string& ns,
                                              const std::string& name) override {
    if (on_get_claim) return on_get_claim(ns, name);
    return Error{"resourceclaims \"" + ns + "/" + name + "\" not found", ErrorCode::kNotFound};
  }
  std::function<Result<api::ResourceClaim>(const std::string&, const std::string&)> on_get_claim;
  // Reservation removals, recorded as "ns/claim pod-uid".
  Ok RemoveResourceClaimReservation(const api::ResourceClaim& claim,
                                    const std::string& pod_uid) override {
    std::lock_guard lock(bind_mu_);
    reservation_removals_.push_back(claim.metadata.namespace_ + "/" + claim.metadata.name + " " +
                                    pod_uid);
    return {};
  }
  std::vector<std::string> ReservationRemovals() const {
    std::lock_guard lock(bind_mu_);
    return reservation_removals_;
  }
  // DRA-backed extended resources: creations are recorded and answered with the claim named
  // generateName + "abcde" and uid "created-<n>" (on_create_claim, when set, answers instead);
  // deletions are recorded as "ns/name"; pod status patches as (pod key, status).
  Result<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) override {
    std::lock_guard lock(bind_mu_);
    created_claims_.push_back(claim);
    if (on_create_claim) return on_create_claim(claim);
    api::ResourceClaim out = claim;
    if (out.metadata.name.empty()) out.metadata.name = out.metadata.generate_name + "abcde";
    out.metadata.uid = "created-" + std::to_string(created_claims_.size());
    out.metadata.resource_version = "1";
    return out;
  }
  std::function<Result<api::ResourceClaim>(const api::ResourceClaim&)> on_create_claim;
  std::vector<api::ResourceClaim> CreatedClaims() const {
    std::lock_guard lock(bind_mu_);
    return created_claims_;
  }
  Ok DeleteResourceClaim(const std::string& ns, const std::string& name) override {
    std::lock_guard lock(bind_mu_);
    deleted_claims_.push_back(ns + "/" + name);
    return {};
  }
  std::vector<std::string> DeletedClaims() const {
    std::lock_guard lock(bind_mu_);
    return deleted_claims_;
  }
  Ok SetPodExtendedResourceClaimStatus(const api::Pod& pod,
                                       const api::PodExtendedResourceClaimStatus& status) override {
    std::lock_guard lock(bind_mu_);
    pod_extended_statuses_.emplace_back(pod.Key(), status);
    if (on_pod_extended_status) return on_pod_extended_status(pod, status);
    return {};
  }
  std::function<Ok(const api::Pod&, const api::PodExtendedResourceClaimStatus&)>
      on_pod_extended_status;
  std::vector<std::pair<std::string, api::PodExtendedResourceClaimStatus>> PodExtendedStatuses()
      const {
    std::lock_guard lock(bind_mu_);
    return pod_extended_statuses_;
  }

  std::vector<std::pair<std::string, api::Labels>> pvc_patches;    // "ns/name", annotations
  std::vector<std::pair<std::string, std::string>> pv_claim_refs;  // PV name, "ns/claim"
  std::function<framework::Status(const api::PersistentVolumeClaim&, const api::Labels&)>
      on_pvc_patch;
  std::function<framework::Status(const api::PersistentVolume&, const api::ObjectReference&)>
      on_pv_patch;

 private:
  // guards bindings, nominations_, claim_status_updates_ (binding workers write them)
  mutable std::mutex bind_mu_;
  std::vector<std::pair<std::string, std::string>> nominations_;  // "ns/name", node
  std::vector<api::ResourceClaim> claim_status_updates_;
  std::vector<std::string> pod_events_;
  std::vector<api::ResourceClaim> claim_finalizer_updates_;
  std::vector<std::string> reservation_removals_;
  std::vector<api::ResourceClaim> created_claims_;
  std::vector<std::string> deleted_claims_;
  std::vector<std::pair<std::string, api::PodExtendedResourceClaimStatus>> pod_extended_statuses_;
};

class FakeHandle : public framework::Handle, private framework::SnapshotBuilder {
 public:
  explicit FakeHandle(std::vector<framework::NodeInfo> nodes = {}) : parallelizer_(1) {
    SetNodes(std::move(nodes));
  }

  void SetNodes(std::vector<framework::NodeInfo> nodes) {
    snapshot_ = framework::Snapshot();
    std::map<std::string, int> image_nodes;
    for (auto& n : nodes) {
      for (const auto& [name, st] : n.image_states()) image_nodes[name]++;
    }
    for (auto& n : nodes) {
      for (auto& [name, st] : n.mutable_image_states()) st.num_nodes = image_nodes[name];
      auto ptr = std::make_shared<framework::NodeInfo>(std::move(n));
      List(snapshot_).push_back(ptr.get());
      if (!ptr->pods_with_affinity().empty()) WithAffinity(snapshot_).push_back(ptr.get());
      if (!ptr->pods_with_required_anti_affinity().empty()) {
        WithRequiredAntiAffinity(snapshot_).push_back(ptr.get());
      }
      for (const auto& [pvc, count] : ptr->pvc_ref_counts()) UsedPVCs(snapshot_)[pvc] += count;
      ByName(snapshot_)[ptr->name()] = ptr;
    }
  }

  const framework::Snapshot& snapshot() const override { return snapshot_; }
  const api::ClusterObjects& objects() const override { return objects_; }
  api::ClusterObjects& mutable_objects() { return objects_; }
  const framework::Clock& clock() const override { return clock_; }
  framework::FakeClock& fake_clock() { return clock_; }
  framework::Parallelizer& parallelizer() override { return parallelizer_; }
  framework::ApiWriter& api_writer() override { return writer_; }
  RecordingWriter& writer() { return writer_; }

  void IterateOverWaitingPods(const std::function<void(framework::WaitingPod&)>& fn) override {
    for (auto& [uid, wp] : waiting_) fn(*wp);
  }
  std::shared_ptr<framework::WaitingPod> GetWaitingPod(const std::string& uid) override {
    auto it = waiting_.find(uid);
    return it == waiting_.end() ? nullptr : it->second;
  }
  void RejectWaitingPod(const std::string& uid, const std::string& plugin,
                        const std::string& msg) override {
    if (auto wp = GetWaitingPod(uid)) wp->Reject(plugin, msg);
  }
  bool Stopping() const override { return stopping; }
  bool stopping = false;  // what Handle::Stopping reports
  void AddWaitingPod(std::shared_ptr<framework::WaitingPod> wp) {
    waiting_[wp->pod_info().Uid()] = std::move(wp);
  }

 private:
  framework::Snapshot snapshot_;
  api::ClusterObjects objects_;
  framework::FakeClock clock_;
  framework::Parallelizer parallelizer_;
  RecordingWriter writer_;
  std::map<std::string, std::shared_ptr<framework::WaitingPod>> waiting_;
};

}  // namespace berth::testing
