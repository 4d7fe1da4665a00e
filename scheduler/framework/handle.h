#pragma once
// Handle: what plugins may reach besides their arguments (upstream's framework.Handle).
// Implemented by scheduler/runtime. Plugins keep a Handle* from their factory.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/store.h"
#include "api/types.h"
#include "api/types_resource.h"
#include "base/result.h"
#include "scheduler/framework/clock.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/parallelizer.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/framework/snapshot.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/waiting_pod.h"

namespace berth::framework {

// API writes plugins may make from the binding cycle (PreBind, Bind, PostBind) — never from the
// scheduling thread. The daemon's implementation talks HTTP; simulate's records.
class ApiWriter {
 public:
  virtual ~ApiWriter() = default;
  // POST pods/{name}/binding with the pod's uid as precondition. Error on failure; a 409/404
  // comes back as Error too with a message naming the code, and as Status::PodGone when the pod
  // is known to be deleted, replaced or bound elsewhere.
  virtual Status Bind(const api::Pod& pod, const std::string& node) = 0;

  // Volume binding (VolumeBinding's PreBind, as upstream's binder bindAPIUpdate). Both are merge
  // patches with the object's metadata.resourceVersion as precondition when it is non-empty (a
  // concurrent change gives a 409, reported as Error). On success *resource_version (may be
  // null) is set to the updated object's resourceVersion. The defaults return Error: writers
  // that never bind volumes need not implement them.
  //
  // Sets the given annotations on the PVC (e.g. volume.kubernetes.io/selected-node).
  virtual Status PatchPersistentVolumeClaimAnnotations(const api::PersistentVolumeClaim& pvc,
                                                       const api::Labels& annotations,
                                                       std::string* resource_version) {
    return Status::Error("this API writer cannot patch PersistentVolumeClaims");
  }
  // Sets the PV's spec.claimRef to `claim` and the given annotations (pre-binding a static PV).
  virtual Status PatchPersistentVolumeClaimRef(const api::PersistentVolume& pv,
                                               const api::ObjectReference& claim,
                                               const api::Labels& annotations,
                                               std::string* resource_version) {
    return Status::Error("this API writer cannot patch PersistentVolumes");
  }

  // ---- preemption (DefaultPreemption; called through Handle::RunAsync, never on the
  // scheduling thread). The defaults report that the writer cannot do it. ----
  // PATCH pods/{name}/status setting status.nominatedNodeName (empty clears it). A 404 is
  // Success (the pod is gone, nothing to nominate).
  virtual Status SetNominatedNodeName(const api::Pod& pod, const std::string& node) {
    return Status::Error("this API writer cannot set nominatedNodeName");
  }
  // DELETE the pod (a preemption victim) with its uid as precondition. A 404 is Success.
  virtual Status DeletePod(const api::Pod& pod) {
    return Status::Error("this API writer cannot delete pods");
  }
  // Best effort: a Normal "Preempted" event on the victim naming the preemptor and the node.
  virtual void RecordPreemptedEvent(const api::Pod& victim, const api::Pod& preemptor,
                                    const std::string& node) {}
  // Best effort: an events.k8s.io/v1 event on `pod` from its scheduler (type "Normal" or
  // "Warning"), e.g. DynamicResources' "BindingConditionsPending" while PreBind waits.
  virtual void RecordPodEvent(const api::Pod& pod, const std::string& type,
                              const std::string& reason, const std::string& action,
                              const std::string& note) {}

  // ---- dynamic resource allocation (DynamicResources' PreBind / PostFilter / Unreserve) ----
  // PUT resourceclaims/{name}/status (upstream's ResourceClaims().UpdateStatus) writing
  // claim.status whole: allocation, reservedFor and the drivers' status.devices (to be passed on
  // unchanged), with claim.metadata.resourceVersion as precondition (and uid when set). Returns
  // the claim as the API server stored it (new resourceVersion). Error codes:
  //   kConflict     HTTP 409: the claim changed since it was read; read it again and retry
  //                 (upstream's retry.RetryOnConflict). The message names the claim.
  //   kNotFound     HTTP 404: the claim is gone.
  //   kUnavailable  no answer, or 429/5xx after the client's retries.
  //   kInvalid      any other refusal (422 validation, 403 RBAC), with the API server's message.
  // The default reports that the writer cannot do it (kInternal).
  virtual Result<api::ResourceClaim> UpdateResourceClaimStatus(const api::ResourceClaim& claim) {
    return Error{"this API writer cannot update ResourceClaims", ErrorCode::kInternal};
  }
  // GET resourceclaims/{name}: the claim as the API server has it now (PreBind reads it again
  // after a conflict). Error codes as above.
  virtual Result<api::ResourceClaim> GetResourceClaim(const std::string& ns,
                                                      const std::string& name) {
    return Error{"this API writer cannot read ResourceClaims", ErrorCode::kInternal};
  }
  // PATCH resourceclaims/{name} setting metadata.finalizers to claim.finalizers, with
  // claim.metadata.resourceVersion as precondition (PreBind adds the delete-protection
  // finalizer before allocating, as upstream's Update does). Error codes as above.
  virtual Result<api::ResourceClaim> SetResourceClaimFinalizers(const api::ResourceClaim& claim) {
    return Error{"this API writer cannot update ResourceClaims", ErrorCode::kInternal};
  }
  // PATCH resourceclaims/{name}/status removing the reservedFor entry of pod `pod_uid`
  // (strategic merge, no precondition), as upstream's Unreserve. A gone claim is success.
  virtual Ok RemoveResourceClaimReservation(const api::ResourceClaim& claim,
                                            const std::string& pod_uid) {
    return Error{"this API writer cannot update ResourceClaims", ErrorCode::kInternal};
  }
  // DRA-backed extended resources (DynamicResources' PreBind, Unreserve, PostFilter):
  // POST resourceclaims (upstream's ResourceClaims().Create) with claim.metadata.generateName,
  // labels, annotations, ownerReferences, finalizers and spec (api::EncodeResourceClaimForCreate);
  // returns the claim as created (its generated name, uid, resourceVersion). Error codes as above.
  virtual Result<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) {
    return Error{"this API writer cannot create ResourceClaims", ErrorCode::kInternal};
  }
  // DELETE resourceclaims/{name}. A gone claim is success. Error codes as above.
  virtual Ok DeleteResourceClaim(const std::string& ns, const std::string& name) {
    return Error{"this API writer cannot delete ResourceClaims", ErrorCode::kInternal};
  }
  // PATCH pods/{name}/status setting status.extendedResourceClaimStatus (strategic merge).
  // Error codes as above.
  virtual Ok SetPodExtendedResourceClaimStatus(const api::Pod& pod,
                                               const api::PodExtendedResourceClaimStatus& status) {
    return Error{"this API writer cannot update pod status", ErrorCode::kInternal};
  }
};

// Pods nominated to nodes by preemption (status.nominatedNodeName), upstream's PodNominator.
// Implemented by scheduler/queue; thread-safe.
class PodNominator {
 public:
  virtual ~PodNominator() = default;
  // Cheap (an atomic read): false lets the node search skip nominated-pod handling entirely.
  virtual bool HasNominatedPods() const = 0;
  // A copy of the pods nominated to `node`, in nomination order.
  virtual std::vector<PodInfoPtr> NominatedPodsForNode(const std::string& node) const = 0;
};

class Handle {
 public:
  virtual ~Handle() = default;
  // The snapshot of the current scheduling cycle.
  virtual const Snapshot& snapshot() const = 0;
  // Objects other than nodes (PVCs, PVs, StorageClasses, PodGroups, pods by key, ...).
  virtual const api::ClusterObjects& objects() const = 0;
  virtual const Clock& clock() const = 0;
  virtual Parallelizer& parallelizer() = 0;
  virtual ApiWriter& api_writer() = 0;

  // Waiting pods of this profile.
  virtual void IterateOverWaitingPods(const std::function<void(WaitingPod&)>& fn) = 0;
  virtual std::shared_ptr<WaitingPod> GetWaitingPod(const std::string& uid) = 0;
  virtual void RejectWaitingPod(const std::string& uid, const std::string& plugin,
                                const std::string& msg) = 0;

  // ---- for PostFilter plugins (preemption): evaluate a hypothetical node state ----
  // The defaults serve test handles without a runtime: no nominated pods, no plugins.
  // Upstream's RunFilterPluginsWithNominatedPods: when `node` has nominated pods of priority >=
  // the pod's, the Filter plugins run with them added (to a copy of the node and of the state)
  // and, if that passes, again without them. Success or the first rejection (plugin set).
  virtual Status RunFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                   const NodeInfo& node) const {
    return Status::Error("this handle cannot run Filter plugins");
  }
  // Every PreFilter plugin's PreFilterExtensions AddPod / RemovePod (plugins whose PreFilter was
  // skipped this cycle are skipped). The caller changes the NodeInfo itself. Error names the
  // plugin.
  virtual Status RunPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod_to_schedule,
                                             const PodInfo& pod_to_add,
                                             const NodeInfo& node) const {
    return Status();
  }
  virtual Status RunPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod_to_schedule,
                                                const PodInfo& pod_to_remove,
                                                const NodeInfo& node) const {
    return Status();
  }
  // Nominated pods of `node` (empty without a nominator).
  virtual std::vector<PodInfoPtr> NominatedPodsForNode(const std::string& node) const { return {}; }
  // Runs fn off the scheduling thread: on a binding worker in the daemon, after the current
  // cycle in simulate. The default runs it inline (tests).
  virtual void RunAsync(std::function<void()> fn) { fn(); }
  // True once the scheduler is shutting down: binding-cycle plugins that wait (VolumeBinding's
  // PreBind) give up instead of holding the shutdown. Any thread.
  virtual bool Stopping() const { return false; }
  // scheduler_preemption_attempts_total / scheduler_preemption_victims (no-ops without metrics).
  virtual void RecordPreemptionAttempt() {}
  virtual void RecordPreemptionVictims(int victims) {}
};

}  // namespace berth::framework
