// PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode and CSIDriver decoding.

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace {

Ok DecodeMeta(const Reader& root, ObjectMeta* out) {
  BERTH_ASSIGN_OR_RETURN(Reader meta, root.Child("metadata"));
  return internal::DecodeObjectMeta(meta, out);
}

Ok DecodePvcInto(const Reader& root, PersistentVolumeClaim* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(spec.Strings("accessModes", &out->spec.access_modes));
  BERTH_RETURN_IF_ERROR(spec.OptString("storageClassName", &out->spec.storage_class_name));
  BERTH_RETURN_IF_ERROR(spec.String("volumeName", &out->spec.volume_name));
  BERTH_ASSIGN_OR_RETURN(Reader resources, spec.Child("resources"));
  BERTH_RETURN_IF_ERROR(internal::DecodeResourceRequirements(resources, &out->spec.resources));
  BERTH_RETURN_IF_ERROR(internal::DecodeOptLabelSelector(spec, "selector", &out->spec.selector));
  BERTH_RETURN_IF_ERROR(
      spec.Enum("volumeMode", {"", "Filesystem", "Block"}, &out->spec.volume_mode));
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  BERTH_RETURN_IF_ERROR(status.String("phase", &out->status.phase));
  BERTH_RETURN_IF_ERROR(status.Strings("accessModes", &out->status.access_modes));
  return status.Resources("capacity", &out->status.capacity);
}

Ok DecodePvInto(const Reader& root, PersistentVolume* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(spec.Resources("capacity", &out->spec.capacity));
  BERTH_RETURN_IF_ERROR(spec.Strings("accessModes", &out->spec.access_modes));
  BERTH_ASSIGN_OR_RETURN(Reader claim, spec.Child("claimRef"));
  if (claim.present()) {
    ObjectReference ref;
    BERTH_RETURN_IF_ERROR(claim.String("kind", &ref.kind));
    BERTH_RETURN_IF_ERROR(claim.String("namespace", &ref.namespace_));
    BERTH_RETURN_IF_ERROR(claim.String("name", &ref.name));
    BERTH_RETURN_IF_ERROR(claim.String("uid", &ref.uid));
    out->spec.claim_ref = std::move(ref);
  }
  BERTH_RETURN_IF_ERROR(spec.String("storageClassName", &out->spec.storage_class_name));
  BERTH_ASSIGN_OR_RETURN(Reader affinity, spec.Child("nodeAffinity"));
  BERTH_ASSIGN_OR_RETURN(Reader required, affinity.Child("required"));
  if (required.present()) {
    NodeSelector selector;
    BERTH_RETURN_IF_ERROR(internal::DecodeNodeSelectorInto(required, &selector));
    out->spec.node_affinity = std::move(selector);
  }
  BERTH_RETURN_IF_ERROR(spec.Enum("persistentVolumeReclaimPolicy",
                                  {"", "Retain", "Delete", "Recycle"}, &out->spec.reclaim_policy));
  BERTH_RETURN_IF_ERROR(
      spec.Enum("volumeMode", {"", "Filesystem", "Block"}, &out->spec.volume_mode));
  BERTH_ASSIGN_OR_RETURN(Reader csi, spec.Child("csi"));
  BERTH_RETURN_IF_ERROR(csi.String("driver", &out->spec.csi_driver));
  BERTH_RETURN_IF_ERROR(csi.String("volumeHandle", &out->spec.csi_volume_handle));
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  return status.String("phase", &out->phase);
}

// allowedTopologies[].matchLabelExpressions[] is {key, values}: an In requirement.
Ok DecodeTopologyRequirement(const Reader& in, NodeSelectorRequirement* out) {
  BERTH_RETURN_IF_ERROR(in.String("key", &out->key));
  if (out->key.empty()) return RequiredError(in.PathOf("key"));
  out->op = SelectorOperator::kIn;
  BERTH_RETURN_IF_ERROR(in.Strings("values", &out->values));
  if (out->values.empty()) return PathError(in.PathOf("values"), "must specify as least one value");
  return Ok();
}

Ok DecodeTopologyTerm(const Reader& in, NodeSelectorTerm* out) {
  return in.List("matchLabelExpressions", &out->match_expressions, DecodeTopologyRequirement);
}

Ok DecodeStorageClassInto(const Reader& root, StorageClass* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_RETURN_IF_ERROR(root.String("provisioner", &out->provisioner));
  BERTH_RETURN_IF_ERROR(root.StringMap("parameters", &out->parameters));
  BERTH_RETURN_IF_ERROR(root.Enum("volumeBindingMode", {"Immediate", "WaitForFirstConsumer"},
                                  &out->volume_binding_mode));
  BERTH_RETURN_IF_ERROR(
      root.Enum("reclaimPolicy", {"", "Retain", "Delete", "Recycle"}, &out->reclaim_policy));
  return root.List("allowedTopologies", &out->allowed_topologies, DecodeTopologyTerm);
}

Ok DecodeCSINodeDriver(const Reader& in, CSINodeDriver* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  if (out->name.empty()) return RequiredError(in.PathOf("name"));
  BERTH_RETURN_IF_ERROR(in.String("nodeID", &out->node_id));
  BERTH_ASSIGN_OR_RETURN(Reader allocatable, in.Child("allocatable"));
  BERTH_RETURN_IF_ERROR(allocatable.OptInt32("count", &out->allocatable_count));
  if (out->allocatable_count.has_value() && *out->allocatable_count < 0) {
    return PathError(allocatable.PathOf("count"), "must be greater than or equal to 0");
  }
  return in.Strings("topologyKeys", &out->topology_keys);
}

Ok DecodeCSINodeInto(const Reader& root, CSINode* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  return spec.List("drivers", &out->drivers, DecodeCSINodeDriver);
}

Ok DecodeCSIDriverInto(const Reader& root, CSIDriver* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  return spec.Bool("preventPodSchedulingIfMissing", &out->prevent_pod_scheduling_if_missing);
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

Result<CSIDriver> DecodeCSIDriver(const Value& v) {
  return internal::DecodeRoot<CSIDriver>(v, DecodeCSIDriverInto);
}

}  // namespace berth::api
