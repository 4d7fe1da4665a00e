#pragma once
// Typed decoding of Kubernetes objects from a Value tree (api/value.h). The byte-level
// parsers that build the tree live in api/json. Every error names the field path from
// the object root, e.g. `spec.containers[0].resources.requests.cpu: invalid quantity "1.5.3"`.
// Fields are read by api::Reader (api/reader.h) in kObjectMode, so type errors read as everywhere
// else (`<path>: expected integer, got string`). Unknown fields are ignored (as the API server's
// clients do); wrong types, bad quantities, bad enum values and out-of-range integers are errors
// (code kInvalid).

#include <string>
#include <variant>

#include "api/replicated_storage_types.h"
#include "api/types.h"
#include "api/types_resource.h"
#include "api/value.h"
#include "base/result.h"

namespace berth::api {

Result<Pod> DecodePod(const Value& v);
Result<Node> DecodeNode(const Value& v);
Result<Namespace> DecodeNamespace(const Value& v);
Result<PersistentVolumeClaim> DecodePersistentVolumeClaim(const Value& v);
Result<PersistentVolume> DecodePersistentVolume(const Value& v);
Result<StorageClass> DecodeStorageClass(const Value& v);
Result<CSINode> DecodeCSINode(const Value& v);
Result<CSIDriver> DecodeCSIDriver(const Value& v);
Result<Service> DecodeService(const Value& v);
Result<PodGroup> DecodePodGroup(const Value& v);
Result<PodDisruptionBudget> DecodePodDisruptionBudget(const Value& v);
// resource.k8s.io/v1 (api/decode_resource.cc). Besides type errors, the identifying fields the
// API server requires are errors when absent or empty (`spec.driver: driver is required`, device
// and request names, the driver/pool/device/request of an allocation result, the uid of a
// reservedFor entry, ...) and so is a count below 1. Unknown enumeration values (allocationMode,
// taint effects) are kept: the allocator refuses them with a reason. The defaults the API server
// applies (allocationMode, count, toleration operator) are filled in.
Result<DeviceClass> DecodeDeviceClass(const Value& v);
Result<ResourceSlice> DecodeResourceSlice(const Value& v);
Result<DeviceTaintRule> DecodeDeviceTaintRule(const Value& v);
Result<ResourceClaim> DecodeResourceClaim(const Value& v);
Result<ResourceClaimTemplate> DecodeResourceClaimTemplate(const Value& v);
// api/decode_workloads.cc: metadata and spec.selector only.
Result<ReplicationController> DecodeReplicationController(const Value& v);
Result<ReplicaSet> DecodeReplicaSet(const Value& v);
Result<StatefulSet> DecodeStatefulSet(const Value& v);

// Pieces that configuration files embed (plugin args). `path` prefixes error messages.
Result<NodeAffinity> DecodeNodeAffinity(const Value& v, const std::string& path);
Result<NodeSelector> DecodeNodeSelector(const Value& v, const std::string& path);
Result<LabelSelector> DecodeLabelSelector(const Value& v, const std::string& path);
Result<TopologySpreadConstraint> DecodeTopologySpreadConstraint(const Value& v,
                                                                const std::string& path);
Result<Quantity> DecodeQuantity(const Value& v, const std::string& path);
Result<ResourceList> DecodeResourceList(const Value& v, const std::string& path);

// Parses RFC 3339 ("2024-01-02T03:04:05Z", fractional seconds and offsets allowed).
Result<Time> ParseTime(const std::string& text);
std::string FormatTime(Time t);  // RFC 3339 with microseconds, UTC

// Any decoded object, tagged by kind.
using Object =
    std::variant<Pod, Node, Namespace, PersistentVolumeClaim, PersistentVolume, StorageClass,
                 CSINode, CSIDriver, Service, PodGroup, PodDisruptionBudget, ReplicationController,
                 ReplicaSet, StatefulSet, DeviceClass, ResourceSlice, ResourceClaim,
                 ResourceClaimTemplate, DeviceTaintRule>;

// Decodes by `kind` (and apiVersion group where kinds are ambiguous). Returns:
//  - the object, or
//  - an Error whose message is `<Kind> <ns/name>: <path>: <what>` for a bad known kind, or
//    an Error with code kNotFound (`unsupported kind "X"`) for kinds berth does not read.
Result<Object> DecodeObject(const Value& v);

// "Pod default/web-1", "Node n1": how objects are named in messages.
std::string DescribeObject(const Value& v);

// storage.deckhouse.io/v1alpha1 kinds read by the ReplicatedStorage plugin
// (api/decode_replicated.cc). Kept out of `Object`: only the informers of
// cmd/berth/app/run/daemon.cc and the cluster file of `berth simulate` read them.
Result<ReplicatedStorageClass> DecodeReplicatedStorageClass(const Value& v);
Result<ReplicatedStoragePool> DecodeReplicatedStoragePool(const Value& v);
Result<LVMVolumeGroup> DecodeLVMVolumeGroup(const Value& v);
Result<LVMLogicalVolume> DecodeLVMLogicalVolume(const Value& v);
Result<ReplicatedVolume> DecodeReplicatedVolume(const Value& v);
using ReplicatedStorageObject = std::variant<ReplicatedStorageClass, ReplicatedStoragePool,
                                             LVMVolumeGroup, LVMLogicalVolume, ReplicatedVolume>;
// True for one of those five kinds with an apiVersion of group storage.deckhouse.io.
bool IsReplicatedStorageKind(const Value& v);
// Decodes one of them; errors read `<Kind> <name>: <path>: <what>`.
Result<ReplicatedStorageObject> DecodeReplicatedStorageObject(const Value& v);

}  // namespace berth::api
