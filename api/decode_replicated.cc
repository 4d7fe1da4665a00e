// Decoding of the storage.deckhouse.io/v1alpha1 kinds the ReplicatedStorage plugin reads:
// ReplicatedStorageClass, ReplicatedStoragePool, LVMVolumeGroup, LVMLogicalVolume and
// ReplicatedVolume. Fields the plugin does not use are ignored, as for every other kind.

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace {

Ok DecodeMeta(const Reader& root, ObjectMeta* out) {
  BERTH_ASSIGN_OR_RETURN(Reader meta, root.Child("metadata"));
  return internal::DecodeObjectMeta(meta, out);
}

// A size quantity ("10Gi", 1073741824) as whole bytes; absent leaves *out alone. Negative sizes
// are errors.
Ok Bytes(const Reader& in, std::string_view key, int64_t* out) {
  const Value* v = in.Get(key);
  if (v == nullptr) return Ok();
  BERTH_ASSIGN_OR_RETURN(Quantity q, DecodeQuantity(*v, in.PathOf(key)));
  if (q.milli < 0) return PathError(in.PathOf(key), "must not be negative");
  *out = q.Value();
  return Ok();
}

Ok DecodeRscInto(const Reader& root, ReplicatedStorageClass* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(spec.Enum("volumeAccess",
                                  {"", "Local", "EventuallyLocal", "PreferablyLocal", "Any"},
                                  &out->volume_access));
  BERTH_RETURN_IF_ERROR(spec.Strings("zones", &out->zones));
  BERTH_RETURN_IF_ERROR(spec.String("topology", &out->topology));
  BERTH_RETURN_IF_ERROR(spec.String("storagePool", &out->storage_pool));
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  return status.String("storagePoolName", &out->status_storage_pool_name);
}

Ok DecodeRspVolumeGroup(const Reader& in, ReplicatedStoragePoolVolumeGroup* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  if (out->name.empty()) return RequiredError(in.PathOf("name"));
  return in.String("thinPoolName", &out->thin_pool_name);
}

Ok DecodeRspInto(const Reader& root, ReplicatedStoragePool* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(spec.String("type", &out->type));
  return spec.List("lvmVolumeGroups", &out->lvm_volume_groups, DecodeRspVolumeGroup);
}

Ok DecodeLvgNode(const Reader& in, std::string* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", out));
  if (out->empty()) return RequiredError(in.PathOf("name"));
  return Ok();
}

Ok DecodeThinPool(const Reader& in, LVMThinPoolStatus* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  if (out->name.empty()) return RequiredError(in.PathOf("name"));
  BERTH_RETURN_IF_ERROR(Bytes(in, "allocatedSize", &out->allocated_size));
  return Bytes(in, "availableSpace", &out->available_space);
}

Ok DecodeLvgInto(const Reader& root, LVMVolumeGroup* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  BERTH_RETURN_IF_ERROR(status.String("phase", &out->phase));
  BERTH_RETURN_IF_ERROR(status.List("nodes", &out->node_names, DecodeLvgNode));
  BERTH_RETURN_IF_ERROR(Bytes(status, "vgSize", &out->vg_size));
  BERTH_RETURN_IF_ERROR(Bytes(status, "vgFree", &out->vg_free));
  return status.List("thinPools", &out->thin_pools, DecodeThinPool);
}

Ok DecodeLlvInto(const Reader& root, LVMLogicalVolume* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(spec.String("lvmVolumeGroupName", &out->lvm_volume_group_name));
  BERTH_RETURN_IF_ERROR(spec.String("actualLVNameOnTheNode", &out->actual_lv_name_on_the_node));
  BERTH_RETURN_IF_ERROR(Bytes(spec, "size", &out->size));
  BERTH_ASSIGN_OR_RETURN(Reader thin, spec.Child("thin"));
  if (thin.present()) {
    std::string pool;
    BERTH_RETURN_IF_ERROR(thin.String("poolName", &pool));
    out->thin_pool_name = std::move(pool);
  }
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  BERTH_RETURN_IF_ERROR(status.String("phase", &out->phase));
  return Bytes(status, "actualSize", &out->actual_size);
}

Ok DecodeRvMember(const Reader& in, ReplicatedVolumeMember* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  BERTH_RETURN_IF_ERROR(in.String("type", &out->type));
  return in.String("nodeName", &out->node_name);
}

Ok DecodeRvInto(const Reader& root, ReplicatedVolume* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  BERTH_ASSIGN_OR_RETURN(Reader datamesh, status.Child("datamesh"));
  return datamesh.List("members", &out->members, DecodeRvMember);
}

std::string StringField(const Value& v, std::string_view key) {
  const Value* f = v.Find(key);
  return f != nullptr && f->IsString() ? f->AsString() : "";
}

template <typename T>
Result<ReplicatedStorageObject> Wrap(Result<T> r, const Value& v) {
  if (!r.ok()) return r.status().Wrap(DescribeObject(v));
  return ReplicatedStorageObject(std::move(*r));
}

}  // namespace

Result<ReplicatedStorageClass> DecodeReplicatedStorageClass(const Value& v) {
  return internal::DecodeRoot<ReplicatedStorageClass>(v, DecodeRscInto);
}

Result<ReplicatedStoragePool> DecodeReplicatedStoragePool(const Value& v) {
  return internal::DecodeRoot<ReplicatedStoragePool>(v, DecodeRspInto);
}

Result<LVMVolumeGroup> DecodeLVMVolumeGroup(const Value& v) {
  return internal::DecodeRoot<LVMVolumeGroup>(v, DecodeLvgInto);
}

Result<LVMLogicalVolume> DecodeLVMLogicalVolume(const Value& v) {
  return internal::DecodeRoot<LVMLogicalVolume>(v, DecodeLlvInto);
}

Result<ReplicatedVolume> DecodeReplicatedVolume(const Value& v) {
  return internal::DecodeRoot<ReplicatedVolume>(v, DecodeRvInto);
}

bool IsReplicatedStorageKind(const Value& v) {
  if (!v.IsObject()) return false;
  const std::string api_version = StringField(v, "apiVersion");
  if (api_version.rfind(std::string(kStorageDeckhouseGroup) + "/", 0) != 0) return false;
  const std::string kind = StringField(v, "kind");
  return kind == "ReplicatedStorageClass" || kind == "ReplicatedStoragePool" ||
         kind == "LVMVolumeGroup" || kind == "LVMLogicalVolume" || kind == "ReplicatedVolume";
}

Result<ReplicatedStorageObject> DecodeReplicatedStorageObject(const Value& v) {
  const std::string kind = StringField(v, "kind");
  if (!IsReplicatedStorageKind(v)) {
    return Error{
        "unsupported kind \"" + kind + "\" in apiVersion \"" + StringField(v, "apiVersion") + "\"",
        ErrorCode::kNotFound};
  }
  if (kind == "ReplicatedStorageClass") return Wrap(DecodeReplicatedStorageClass(v), v);
  if (kind == "ReplicatedStoragePool") return Wrap(DecodeReplicatedStoragePool(v), v);
  if (kind == "LVMVolumeGroup") return Wrap(DecodeLVMVolumeGroup(v), v);
  if (kind == "LVMLogicalVolume") return Wrap(DecodeLVMLogicalVolume(v), v);
  return Wrap(DecodeReplicatedVolume(v), v);
}

}  // namespace berth::api
