#pragma once
// Handle: what plugins may reach besides their arguments (upstream's framework.Handle).
// Implemented by scheduler/runtime. Plugins keep a Handle* from their factory.

#include <functional>
#include <memory>
#include <string>

#include "informers/api/store.h"
#include "informers/api/types.h"
#include "scheduler/framework/clock.h"
#include "scheduler/framework/parallelizer.h"
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
  // comes back as Error too with a message naming the code.
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
};

}  // namespace berth::framework
