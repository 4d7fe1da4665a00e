#pragma once
// The ReplicatedStorage plugin's per-cycle view of a pod: its replicated PVCs resolved through
// StorageClass -> ReplicatedStorageClass -> ReplicatedStoragePool -> LVMVolumeGroups, the
// replicas of its bound volumes, and the free space of every pool those PVCs may use. Computed
// once in PreFilter (scheduling thread), then read-only in Filter/Score (any worker thread).
// Semantics follow the production extender (sds-common-scheduler-extender, see
// /work/shared/reference/replicated-storage.md §2.C), with the seed's rules where they differ.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/store.h"
#include "plugins/replicated_storage/ledger.h"
#include "scheduler/framework/status.h"

namespace berth::plugins::replicated_storage {

enum class Access { kLocal, kEventuallyLocal, kPreferablyLocal, kAny };
const char* AccessName(Access a);

// One replicated PVC of the pod.
struct Claim {
  std::string key;  // "namespace/name"
  std::string pv;   // spec.volumeName; empty = unbound ("bound" ignores status.phase, which lags)
  std::string rsc;  // ReplicatedStorageClass (= StorageClass) name
  std::string rsp;  // ReplicatedStoragePool name
  Access access = Access::kPreferablyLocal;
  // Bytes the node's pool must still give: the request when unbound, the growth
  // max(request - PV capacity, 0) when bound.
  int64_t request = 0;
  std::vector<std::string> zones;  // the RSC's spec.zones (empty = any zone)
  // Nodes holding a Diskful/ShadowDiskful member of the ReplicatedVolume named like the PV
  // (sorted). replicas_known is false when that ReplicatedVolume does not exist.
  std::vector<std::string> replica_nodes;
  bool replicas_known = false;

  bool Bound() const { return !pv.empty(); }
  // The seed's rules (issue 5): unbound Local/EventuallyLocal/PreferablyLocal and bound
  // EventuallyLocal need an LVMVolumeGroup of the pool with room on the node.
  bool NeedsRoom() const {
    return Bound() ? access == Access::kEventuallyLocal : access != Access::kAny;
  }
  // Bound Local/EventuallyLocal need a diskful replica on the node. An unknown ReplicatedVolume
  // lets every node pass, as production does.
  bool NeedsReplica() const {
    return Bound() && replicas_known &&
           (access == Access::kLocal || access == Access::kEventuallyLocal);
  }
  bool HasReplicaOn(const std::string& node) const;
};

struct PoolSpace {
  int64_t total = 0;      // thick: vgSize; thin: allocatedSize + availableSpace
  int64_t available = 0;  // min(total - LLVs - unaccounted, reported free) - held; may be < 0
};

struct PodClaims {
  std::vector<Claim> claims;  // in the pod's volume order
  // Per ReplicatedStoragePool: node -> the pool it would use there (the first Ready
  // LVMVolumeGroup of spec.lvmVolumeGroups listing the node).
  std::map<std::string, std::unordered_map<std::string, PoolKey>> pools_by_rsp;
  std::map<PoolKey, PoolSpace> space;

  // nullptr when the node has no LVMVolumeGroup of the claim's pool.
  const PoolKey* PoolOn(const Claim& c, const std::string& node) const;
};

// Resolves the pod's replicated PVCs (spec volumes, generic ephemeral volumes and the
// `scheduler.deckhouse.io/extra-pvcs` annotation). A PVC is replicated when its StorageClass
// exists and its provisioner (PVC annotations volume.kubernetes.io/storage-provisioner, then
// volume.beta..., then the StorageClass, then the PV's CSI driver) is
// replicated.csi.storage.deckhouse.io. Missing PVCs are left to VolumeBinding.
// Returns Skip when the pod has no replicated PVC; UnschedulableAndUnresolvable naming the PVC
// when its ReplicatedStorageClass or ReplicatedStoragePool is missing; Success otherwise, with
// *out filled. `held()` returns the ledger's bytes per pool, subtracted from the pools' space;
// it is called only when the pod has replicated PVCs.
framework::Status ResolvePodClaims(const api::Pod& pod, const api::ClusterObjects& objects,
                                   const std::function<std::map<PoolKey, int64_t>()>& held,
                                   PodClaims* out);

// True when the hold is no longer needed: the claim is gone; or it is bound to a volume whose
// LVMLogicalVolume exists on the held pool (named like the PV, "<pv>-...", or with
// spec.actualLVNameOnTheNode = the PV); or whose ReplicatedVolume has diskful replicas, none of
// them on the held node (the space went elsewhere).
// `llvs()` gives the logical volumes indexed by volume group (built once per Prune, on first use).
class LogicalVolumeIndex;
bool HoldLanded(const SpaceHold& hold, const api::ClusterObjects& objects,
                const std::function<const LogicalVolumeIndex&()>& llvs);

// The LVMLogicalVolumes grouped by volume group: a copy of the store taken once, so that many
// holds can be checked without a scan each.
class LogicalVolumeIndex {
 public:
  explicit LogicalVolumeIndex(const api::ClusterObjects& objects);
  // True when a logical volume of the pool belongs to volume `pv`: named like it or "<pv>-...",
  // or with spec.actualLVNameOnTheNode = pv.
  bool Has(const PoolKey& pool, const std::string& pv) const;

 private:
  std::vector<std::shared_ptr<const api::LVMLogicalVolume>> all_;
  std::unordered_map<std::string, std::vector<const api::LVMLogicalVolume*>> by_lvg_;
};
// True when the pod (uid and "namespace/name") is bound to the node in the pod store.
bool PodBoundTo(const std::string& pod_uid, const std::string& pod_key, const std::string& node,
                const api::ClusterObjects& objects);

// Production's percentLeft: int64((available - request) / total * 100), truncated; 0 when
// total is 0. Can be negative.
int64_t PercentLeft(int64_t available, int64_t request, int64_t total);
// Production's getNodeScore: clamp(round(log2(x / divisor)), 1, 10); x <= 0 gives 1.
int64_t LogScore(double x, double divisor);

}  // namespace berth::plugins::replicated_storage
