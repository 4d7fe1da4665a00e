#pragma once
// VolumeBinder: the decisions and API work behind the VolumeBinding plugin (upstream's
// volumebinding/binder.go, v1.34).
//   GetPodVolumeClaims (PreFilter)  sorts the pod's claims into bound, unbound delayed
//                                   (WaitForFirstConsumer) and unbound immediate ones, and lists
//                                   the candidate PVs of the delayed claims' classes.
//   FindPodVolumes (Filter)         per node: bound PVs' node affinity, a static PV for each
//                                   delayed claim (smallest fit), else dynamic provisioning.
//   AssumePodVolumes (Reserve)      pre-binds the chosen PVs and annotates the claims to provision
//                                   with the node, in the assume caches only.
//   RevertAssumedPodVolumes         undoes that (Unreserve).
//   BindPodVolumes (PreBind)        writes the assumptions through the ApiWriter and waits, polling
//                                   the informer's stores every second on the Handle's clock,
//                                   until every claim is fully bound or bindTimeoutSeconds pass.
// CSIStorageCapacity is not modelled (berth has no informer for it): provisioning is never
// refused for lack of capacity. In-tree PVs are not translated to CSI.

#include <memory>
#include <string>
#include <vector>

#include "api/store.h"
#include "plugins/volume_binding/assume_cache.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/status.h"

namespace berth::plugins::volume_binding {

// Upstream's ConflictReasons.
inline constexpr const char kErrReasonBindConflict[] =
    "node(s) didn't find available persistent volumes to bind";
inline constexpr const char kErrReasonNodeConflict[] =
    "node(s) didn't match PersistentVolume's node affinity";
inline constexpr const char kErrReasonNotEnoughSpace[] = "node(s) did not have enough free storage";
inline constexpr const char kErrReasonPVNotExist[] =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";

struct BindingInfo {
  PvPtr pv;  // the PV chosen (after Reserve: as assumed, claimRef set)
  PvcPtr pvc;
};

// What one node needs for the pod's unbound claims.
struct PodVolumes {
  std::vector<BindingInfo> static_bindings;
  std::vector<PvcPtr> dynamic_provisions;  // after Reserve: with the selected-node annotation
  bool Empty() const { return static_bindings.empty() && dynamic_provisions.empty(); }
};

struct PodVolumeClaims {
  std::vector<PvcPtr> bound_claims;
  std::vector<PvPtr> bound_pvs;       // parallel to bound_claims; nullptr when the PV is missing
  std::vector<PvcPtr> unbound_delay;  // sorted by requested size, smallest first
  std::vector<PvcPtr> unbound_immediate;
  // Class name -> PVs of that class (assumptions applied), for the delayed claims.
  std::map<std::string, std::vector<PvPtr>> pvs_by_class;
};

class VolumeBinder {
 public:
  VolumeBinder(framework::Handle* handle, framework::Duration bind_timeout);

  // Claims must exist (the plugin checked); a claim that vanished since is skipped.
  PodVolumeClaims GetPodVolumeClaims(const api::Pod& pod) const;

  // Success with *out filled, or UnschedulableAndUnresolvable with upstream's reasons, or Error
  // (a claim to provision has no class, or its StorageClass is missing). Any thread.
  framework::Status FindPodVolumes(const PodVolumeClaims& claims, const api::Node& node,
                                   PodVolumes* out) const;

  // Scheduling thread. Replaces *volumes' objects by the assumed ones. *all_bound is true when
  // every claim of the pod is already fully bound (nothing to do in PreBind).
  framework::Status AssumePodVolumes(const api::Pod& pod, const std::string& node,
                                     PodVolumes* volumes, bool* all_bound);
  void RevertAssumedPodVolumes(const PodVolumes& volumes);

  // Binding workers only (blocks up to the bind timeout). node_labels: the node's labels at
  // Reserve. Error messages start with "binding volumes: " once the API writes are done.
  framework::Status BindPodVolumes(const api::Pod& pod, const std::string& node,
                                   const api::Labels& node_labels, const PodVolumes& volumes);

  AssumeCache<api::PersistentVolume>& pv_cache() { return pv_cache_; }
  AssumeCache<api::PersistentVolumeClaim>& pvc_cache() { return pvc_cache_; }

 private:
  // Upstream's checkBindings: true when all done, false to keep waiting, Error to give up.
  Result<bool> CheckBindings(const api::Pod& pod, const std::string& node,
                             const api::Labels& node_labels, const PodVolumes& volumes,
                             const std::vector<uint64_t>& pv_versions,
                             const std::vector<uint64_t>& pvc_versions,
                             std::string* waiting_for) const;

  framework::Handle* handle_;
  const framework::Duration bind_timeout_;
  AssumeCache<api::PersistentVolume> pv_cache_;
  AssumeCache<api::PersistentVolumeClaim> pvc_cache_;
};

}  // namespace berth::plugins::volume_binding
