#pragma once
// The names of the object kinds berth reads from the API server, as the informers name them
// (ReflectorOptions::kind) and as plugins declare what they read (framework::Registry::Register).

namespace berth::api::kind {

inline constexpr const char kPod[] = "Pod";
inline constexpr const char kNode[] = "Node";
inline constexpr const char kPersistentVolumeClaim[] = "PersistentVolumeClaim";
inline constexpr const char kPersistentVolume[] = "PersistentVolume";
inline constexpr const char kStorageClass[] = "StorageClass";
inline constexpr const char kCSINode[] = "CSINode";
inline constexpr const char kCSIDriver[] = "CSIDriver";
inline constexpr const char kNamespace[] = "Namespace";
inline constexpr const char kService[] = "Service";
inline constexpr const char kReplicationController[] = "ReplicationController";
inline constexpr const char kReplicaSet[] = "ReplicaSet";
inline constexpr const char kStatefulSet[] = "StatefulSet";
inline constexpr const char kPodGroup[] = "PodGroup";
inline constexpr const char kPodDisruptionBudget[] = "PodDisruptionBudget";
// resource.k8s.io/v1 (DynamicResources)
inline constexpr const char kDeviceClass[] = "DeviceClass";
inline constexpr const char kResourceSlice[] = "ResourceSlice";
inline constexpr const char kResourceClaim[] = "ResourceClaim";
inline constexpr const char kResourceClaimTemplate[] = "ResourceClaimTemplate";
inline constexpr const char kDeviceTaintRule[] = "DeviceTaintRule";
// storage.deckhouse.io/v1alpha1
inline constexpr const char kReplicatedStorageClass[] = "ReplicatedStorageClass";
inline constexpr const char kReplicatedStoragePool[] = "ReplicatedStoragePool";
inline constexpr const char kLVMVolumeGroup[] = "LVMVolumeGroup";
inline constexpr const char kLVMLogicalVolume[] = "LVMLogicalVolume";
inline constexpr const char kReplicatedVolume[] = "ReplicatedVolume";

}  // namespace berth::api::kind
