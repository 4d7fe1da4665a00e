// PersistentVolumeClaim, PersistentVolume, StorageClass and CSINode decoding.

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace {

using internal::ObjectReader;
using internal::PathError;

Ok DecodeMeta(const ObjectReader& root, ObjectMeta* out) {
  auto meta = root.Child("metadata");
  BERTH_DECODE_TRY(meta);
  return internal::DecodeObjectMeta(*meta, out);
}

Ok DecodePvcInto(const ObjectReader& root, PersistentVolumeClaim* out) {
  BERTH_DECODE_TRY(DecodeMeta(root, &out->metadata));
  auto spec = root.Child("spec");
  BERTH_DECODE_TRY(spec);
  BERTH_DECODE_TRY(spec->Strings("accessModes", &out->spec.access_modes));
  BERTH_DECODE_TRY(spec->OptString("storageClassName", &out->spec.storage_class_name));
  BERTH_DECODE_TRY(spec->String("volumeName", &out->spec.volume_name));
  auto resources = spec->Child("resources");
  BERTH_DECODE_TRY(resources);
  BERTH_DECODE_TRY(internal::DecodeResourceRequirements(*resources, &out->spec.resources));
  BERTH_DECODE_TRY(internal::DecodeOptLabelSelector(*spec, "selector", &out->spec.selector));
  BERTH_DECODE_TRY(spec->Enum("volumeMode", {"", "Filesystem", "Block"}, &out->spec.volume_mode));
  auto status = root.Child("status");
  BERTH_DECODE_TRY(status);
  BERTH_DECODE_TRY(status->String("phase", &out->status.phase));
  BERTH_DECODE_TRY(status->Strings("accessModes", &out->status.access_modes));
  return status->Resources("capacity", &out->status.capacity);
}

Ok DecodePvInto(const ObjectReader& root, PersistentVolume* out) {
  BERTH_DECODE_TRY(DecodeMeta(root, &out->metadata));
  auto spec = root.Child("spec");
  BERTH_DECODE_TRY(spec);
  BERTH_DECODE_TRY(spec->Resources("capacity", &out->spec.capacity));
  BERTH_DECODE_TRY(spec->Strings("accessModes", &out->spec.access_modes));
  auto claim = spec->Child("claimRef");
  BERTH_DECODE_TRY(claim);
  if (claim->present()) {
    ObjectReference ref;
    BERTH_DECODE_TRY(claim->String("kind", &ref.kind));
    BERTH_DECODE_TRY(claim->String("namespace", &ref.namespace_));
    BERTH_DECODE_TRY(claim->String("name", &ref.name));
    BERTH_DECODE_TRY(claim->String("uid", &ref.uid));
    out->spec.claim_ref = std::move(ref);
  }
  BERTH_DECODE_TRY(spec->String("storageClassName", &out->spec.storage_class_name));
  auto affinity = spec->Child("nodeAffinity");
  BERTH_DECODE_TRY(affinity);
  auto required = affinity->Child("required");
  BERTH_DECODE_TRY(required);
  if (required->present()) {
    NodeSelector selector;
    BERTH_DECODE_TRY(internal::DecodeNodeSelectorInto(*required, &selector));
    out->spec.node_affinity = std::move(selector);
  }
  BERTH_DECODE_TRY(spec->Enum("persistentVolumeReclaimPolicy", {"", "Retain", "Delete", "Recycle"},
                              &out->spec.reclaim_policy));
  BERTH_DECODE_TRY(spec->Enum("volumeMode", {"", "Filesystem", "Block"}, &out->spec.volume_mode));
  auto csi = spec->Child("csi");
  BERTH_DECODE_TRY(csi);
  BERTH_DECODE_TRY(csi->String("driver", &out->spec.csi_driver));
  BERTH_DECODE_TRY(csi->String("volumeHandle", &out->spec.csi_volume_handle));
  auto status = root.Child("status");
  BERTH_DECODE_TRY(status);
  return status->String("phase", &out->phase);
}

// allowedTopologies[].matchLabelExpressions[] is {key, values}: an In requirement.
Ok DecodeTopologyRequirement(const ObjectReader& in, NodeSelectorRequirement* out) {
  BERTH_DECODE_TRY(in.String("key", &out->key));
  if (out->key.empty()) return PathError(in.PathOf("key"), "key is required");
  out->op = SelectorOperator::kIn;
  BERTH_DECODE_TRY(in.Strings("values", &out->values));
  if (out->values.empty()) return PathError(in.PathOf("values"), "must specify as least one value");
  return Ok();
}

Ok DecodeTopologyTerm(const ObjectReader& in, NodeSelectorTerm* out) {
  return in.List("matchLabelExpressions", &out->match_expressions, DecodeTopologyRequirement);
}

Ok DecodeStorageClassInto(const ObjectReader& root, StorageClass* out) {
  BERTH_DECODE_TRY(DecodeMeta(root, &out->metadata));
  BERTH_DECODE_TRY(root.String("provisioner", &out->provisioner));
  BERTH_DECODE_TRY(root.StringMap("parameters", &out->parameters));
  BERTH_DECODE_TRY(root.Enum("volumeBindingMode", {"Immediate", "WaitForFirstConsumer"},
                             &out->volume_binding_mode));
  BERTH_DECODE_TRY(
      root.Enum("reclaimPolicy", {"", "Retain", "Delete", "Recycle"}, &out->reclaim_policy));
  return root.List("allowedTopologies", &out->allowed_topologies, DecodeTopologyTerm);
}

Ok DecodeCSINodeDriver(const ObjectReader& in, CSINodeDriver* out) {
  BERTH_DECODE_TRY(in.String("name", &out->name));
  if (out->name.empty()) return PathError(in.PathOf("name"), "name is required");
  BERTH_DECODE_TRY(in.String("nodeID", &out->node_id));
  auto allocatable = in.Child("allocatable");
  BERTH_DECODE_TRY(allocatable);
  BERTH_DECODE_TRY(allocatable->OptInt32("count", &out->allocatable_count));
  if (out->allocatable_count.has_value() && *out->allocatable_count < 0) {
    return PathError(allocatable->PathOf("count"), "must be greater than or equal to 0");
  }
  return in.Strings("topologyKeys", &out->topology_keys);
}

Ok DecodeCSINodeInto(const ObjectReader& root, CSINode* out) {
  BERTH_DECODE_TRY(DecodeMeta(root, &out->metadata));
  auto spec = root.Child("spec");
  BERTH_DECODE_TRY(spec);
  return spec->List("drivers", &out->drivers, DecodeCSINodeDriver);
}

}  // namespace

Result<PersistentVolumeClaim> DecodePersistentVolumeClaim(const Value& v) {
  return internal::DecodeRoot<PersistentVolumeClaim>(v, DecodePvcInto);
}

Result<PersistentVolume> DecodePersistentVolume(const Value& v) {
  return internal::DecodeRoot<PersistentVolume>(v, DecodePvInto);
}

Result<StorageClass> DecodeStorageClass(const Value& v) {
  return internal::DecodeRoot<StorageClass>(v, DecodeStorageClassInto);
}

Result<CSINode> DecodeCSINode(const Value& v) {
  return internal::DecodeRoot<CSINode>(v, DecodeCSINodeInto);
}

}  // namespace berth::api
