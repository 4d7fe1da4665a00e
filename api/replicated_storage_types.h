#pragma once
// Deckhouse replicated storage objects (group storage.deckhouse.io/v1alpha1, all cluster-scoped)
// that the ReplicatedStorage plugin reads: only the fields its algorithm uses (see
// /work/shared/reference/replicated-storage.md, "CRDs needed"). Decoded by
// api/decode_replicated.cc; kept in api::ClusterObjects (store.h). Sizes are whole
// bytes (resource quantities rounded up, as Quantity::Value does).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/types.h"

namespace berth::api {

inline constexpr const char kStorageDeckhouseGroup[] = "storage.deckhouse.io";
inline constexpr const char kStorageDeckhouseVersion[] = "v1alpha1";
// The CSI provisioner of replicated volumes.
inline constexpr const char kReplicatedCsiProvisioner[] = "replicated.csi.storage.deckhouse.io";
// Nodes that run the replicated-storage agent carry this label key (any value).
inline constexpr const char kReplicatedStorageNodeLabel[] =
    "storage.deckhouse.io/sds-replicated-volume-node";

// ReplicatedStorageClass: named like the StorageClass it backs.
struct ReplicatedStorageClass {
  ObjectMeta metadata;
  // spec.volumeAccess: "" (means PreferablyLocal), Local, EventuallyLocal, PreferablyLocal, Any.
  std::string volume_access;
  std::vector<std::string> zones;  // spec.zones: when non-empty, the node's zone must be listed
  std::string topology;            // spec.topology: TransZonal | Zonal | Ignored (not used)
  std::string storage_pool;        // spec.storagePool (deprecated fallback)
  std::string status_storage_pool_name;  // status.storagePoolName (preferred)

  // The ReplicatedStoragePool's name: status.storagePoolName, else spec.storagePool.
  const std::string& StoragePoolName() const {
    return status_storage_pool_name.empty() ? storage_pool : status_storage_pool_name;
  }
  // volumeAccess with the API default applied.
  std::string VolumeAccess() const {
    return volume_access.empty() ? std::string("PreferablyLocal") : volume_access;
  }
};

struct ReplicatedStoragePoolVolumeGroup {
  std::string name;            // LVMVolumeGroup name
  std::string thin_pool_name;  // LVMThin pools only
};

struct ReplicatedStoragePool {
  ObjectMeta metadata;
  std::string type;  // spec.type: LVM (thick) | LVMThin; anything else is treated as thick
  std::vector<ReplicatedStoragePoolVolumeGroup> lvm_volume_groups;  // spec.lvmVolumeGroups, ordered
  bool Thin() const { return type == "LVMThin"; }
};

struct LVMThinPoolStatus {
  std::string name;
  int64_t allocated_size = 0;   // bytes
  int64_t available_space = 0;  // bytes
};

struct LVMVolumeGroup {
  ObjectMeta metadata;
  std::string phase;                          // status.phase; only "Ready" groups are used
  std::vector<std::string> node_names;        // status.nodes[].name
  int64_t vg_size = 0;                        // status.vgSize, bytes
  int64_t vg_free = 0;                        // status.vgFree, bytes
  std::vector<LVMThinPoolStatus> thin_pools;  // status.thinPools
};

struct LVMLogicalVolume {
  ObjectMeta metadata;
  std::string lvm_volume_group_name;          // spec.lvmVolumeGroupName
  std::string actual_lv_name_on_the_node;     // spec.actualLVNameOnTheNode
  int64_t size = 0;                           // spec.size, bytes
  std::optional<std::string> thin_pool_name;  // spec.thin.poolName; nullopt = thick
  std::string phase;                          // status.phase (Created = on disk)
  int64_t actual_size = 0;                    // status.actualSize, bytes
};

struct ReplicatedVolumeMember {
  std::string name;
  std::string type;  // Diskful, ShadowDiskful (both hold data), LiminalDiskful, TieBreaker, Access
  std::string node_name;
  // Diskful and ShadowDiskful members have a backing volume (production's HasBackingVolume).
  bool Diskful() const { return type == "Diskful" || type == "ShadowDiskful"; }
};

// ReplicatedVolume: named like the PersistentVolume.
struct ReplicatedVolume {
  ObjectMeta metadata;
  std::vector<ReplicatedVolumeMember> members;  // status.datamesh.members
};

}  // namespace berth::api
