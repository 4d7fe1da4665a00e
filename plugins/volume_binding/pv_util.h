#pragma once
// PV/PVC helpers shared by the binder: upstream's k8s.io/component-helpers/storage/volume
// (pv_helpers.go, helpers.go) on berth's typed objects. Pure functions, any thread.

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"

namespace berth::plugins::volume_binding {

// Well-known annotations (upstream's volume.Ann*).
inline constexpr const char kAnnSelectedNode[] = "volume.kubernetes.io/selected-node";
inline constexpr const char kAnnBindCompleted[] = "pv.kubernetes.io/bind-completed";
inline constexpr const char kAnnBoundByController[] = "pv.kubernetes.io/bound-by-controller";
inline constexpr const char kAnnBetaStorageClass[] = "volume.beta.kubernetes.io/storage-class";
// A StorageClass provisioner that means "no dynamic provisioning" (local volumes).
inline constexpr const char kNotSupportedProvisioner[] = "kubernetes.io/no-provisioner";

using PvcPtr = std::shared_ptr<const api::PersistentVolumeClaim>;
using PvPtr = std::shared_ptr<const api::PersistentVolume>;

// The claim a pod volume uses: persistentVolumeClaim.claimName, or "<pod>-<volume>" for a generic
// ephemeral volume; "" for other volume types.
std::string PodClaimName(const api::Pod& pod, const api::Volume& volume);

// The claim's class: the beta annotation wins over spec.storageClassName; "" when neither.
std::string ClaimClass(const api::PersistentVolumeClaim& pvc);
// The volume's class: the beta annotation wins over spec.storageClassName.
std::string VolumeClass(const api::PersistentVolume& pv);
// "namespace/name".
std::string ClaimKey(const api::PersistentVolumeClaim& pvc);

// spec.resources.requests.storage in bytes (0 when absent).
int64_t RequestedBytes(const api::PersistentVolumeClaim& pvc);
// spec.capacity.storage in bytes (0 when absent).
int64_t CapacityBytes(const api::PersistentVolume& pv);

// volumeName set and the bind-completed annotation present (upstream's isPVCFullyBound).
bool IsFullyBound(const api::PersistentVolumeClaim& pvc);

// The PV's claimRef names this claim (and its uid, when the claimRef has one).
bool IsVolumeBoundToClaim(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& pvc);

// Upstream's CheckNodeAffinity: no nodeAffinity matches every node. As upstream, the node is
// judged by its labels only (a matchFields term on metadata.name never matches).
bool CheckNodeAffinity(const api::PersistentVolume& pv, const api::Labels& node_labels);

// StorageClass allowedTopologies (upstream's MatchTopologySelectorTerms): none = everywhere.
bool MatchTopology(const std::vector<api::NodeSelectorTerm>& terms, const api::Labels& labels);

// Upstream's FindMatchingVolume on the scheduler path: a PV pre-bound to the claim wins if its
// node affinity fits the node (else no match at all); otherwise the smallest Available PV of the
// claim's class whose capacity, volume mode, labels (claim selector), access modes and node
// affinity fit, skipping PVs in `excluded` (by name) and PVs being deleted. nullptr when none.
PvPtr FindMatchingVolume(const api::PersistentVolumeClaim& pvc, const std::vector<PvPtr>& pvs,
                         const api::Labels& node_labels,
                         const std::set<std::string, std::less<>>& excluded);

// Upstream's GetBindVolumeToClaim: the PV with its claimRef set to the claim and the
// bound-by-controller annotation added when it was not pre-bound by the user. *dirty says
// whether anything changed.
api::PersistentVolume BindVolumeToClaim(const api::PersistentVolume& pv,
                                        const api::PersistentVolumeClaim& pvc, bool* dirty);

// resourceVersion as a number for ordering (0 when empty or not numeric).
uint64_t ResourceVersionOf(const std::string& rv);

}  // namespace berth::plugins::volume_binding
