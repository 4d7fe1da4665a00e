// Node, Namespace, Service and PodGroup decoding, and DecodeObject's dispatch on `kind`.

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace {

Ok DecodeMeta(const Reader& root, ObjectMeta* out) {
  BERTH_ASSIGN_OR_RETURN(Reader meta, root.Child("metadata"));
  return internal::DecodeObjectMeta(meta, out);
}

Ok DecodeTaint(const Reader& in, Taint* out) {
  BERTH_RETURN_IF_ERROR(in.String("key", &out->key));
  if (out->key.empty()) return RequiredError(in.PathOf("key"));
  BERTH_RETURN_IF_ERROR(in.String("value", &out->value));
  BERTH_RETURN_IF_ERROR(in.Require("effect"));
  return in.Enum("effect", {"NoSchedule", "PreferNoSchedule", "NoExecute"}, &out->effect);
}

Ok DecodeNodeCondition(const Reader& in, NodeCondition* out) {
  BERTH_RETURN_IF_ERROR(in.String("type", &out->type));
  BERTH_RETURN_IF_ERROR(in.String("status", &out->status));
  BERTH_RETURN_IF_ERROR(in.String("reason", &out->reason));
  return in.String("message", &out->message);
}

Ok DecodeContainerImage(const Reader& in, ContainerImage* out) {
  BERTH_RETURN_IF_ERROR(in.Strings("names", &out->names));
  return in.Int64("sizeBytes", &out->size_bytes);
}

Ok DecodeNodeInto(const Reader& root, Node* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(spec.Bool("unschedulable", &out->spec.unschedulable));
  BERTH_RETURN_IF_ERROR(spec.List("taints", &out->spec.taints, DecodeTaint));
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  BERTH_RETURN_IF_ERROR(status.Resources("capacity", &out->status.capacity));
  BERTH_RETURN_IF_ERROR(status.Resources("allocatable", &out->status.allocatable));
  BERTH_RETURN_IF_ERROR(status.List("conditions", &out->status.conditions, DecodeNodeCondition));
  BERTH_RETURN_IF_ERROR(status.List("images", &out->status.images, DecodeContainerImage));
  return status.Strings("declaredFeatures", &out->status.declared_features);
}

Ok DecodeNamespaceInto(const Reader& root, Namespace* out) {
  return DecodeMeta(root, &out->metadata);
}

Ok DecodeServiceInto(const Reader& root, Service* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(spec.StringMap("selector", &out->selector));
  BERTH_RETURN_IF_ERROR(spec.String("type", &out->type));
  return spec.String("clusterIP", &out->cluster_ip);
}

Ok DecodePodGroupInto(const Reader& root, PodGroup* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(spec.Int32("minMember", &out->spec.min_member));
  if (out->spec.min_member < 0) {
    return PathError(spec.PathOf("minMember"), "must be greater than or equal to 0");
  }
  BERTH_RETURN_IF_ERROR(spec.Resources("minResources", &out->spec.min_resources));
  BERTH_RETURN_IF_ERROR(
      spec.OptInt32("scheduleTimeoutSeconds", &out->spec.schedule_timeout_seconds));
  if (out->spec.schedule_timeout_seconds.has_value() && *out->spec.schedule_timeout_seconds < 0) {
    return PathError(spec.PathOf("scheduleTimeoutSeconds"), "must be greater than or equal to 0");
  }
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  BERTH_RETURN_IF_ERROR(status.String("phase", &out->status.phase));
  BERTH_RETURN_IF_ERROR(status.String("occupiedBy", &out->status.occupied_by));
  BERTH_RETURN_IF_ERROR(status.Int32("running", &out->status.running));
  BERTH_RETURN_IF_ERROR(status.Int32("succeeded", &out->status.succeeded));
  BERTH_RETURN_IF_ERROR(status.Int32("failed", &out->status.failed));
  return status.Timestamp("scheduleStartTime", &out->status.schedule_start_time);
}

Ok DecodePodDisruptionBudgetInto(const Reader& root, PodDisruptionBudget* out) {
  BERTH_RETURN_IF_ERROR(DecodeMeta(root, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(internal::DecodeOptLabelSelector(spec, "selector", &out->selector));
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  BERTH_RETURN_IF_ERROR(status.Int32("disruptionsAllowed", &out->disruptions_allowed));
  if (const Value* disrupted = status.Get("disruptedPods")) {
    if (!disrupted->IsObject()) {
      return TypeError(status.PathOf("disruptedPods"), "object", *disrupted);
    }
    for (const auto& [name, when] : disrupted->AsObject()) out->disrupted_pods.push_back(name);
  }
  return Ok();
}

std::string StringField(const Value* obj, std::string_view key) {
  const Value* f = obj == nullptr ? nullptr : obj->Find(key);
  return f != nullptr && f->IsString() ? f->AsString() : "";
}

// "scheduling.x-k8s.io/v1alpha1" -> "scheduling.x-k8s.io"; "v1" -> "".
std::string ApiGroup(const std::string& api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

template <typename T>
Result<Object> Wrap(Result<T> r, const Value& v) {
  if (!r.ok()) return r.status().Wrap(DescribeObject(v));
  return Object(std::move(*r));
}

}  // namespace

Result<Node> DecodeNode(const Value& v) { return internal::DecodeRoot<Node>(v, DecodeNodeInto); }

Result<Namespace> DecodeNamespace(const Value& v) {
  return internal::DecodeRoot<Namespace>(v, DecodeNamespaceInto);
}

Result<Service> DecodeService(const Value& v) {
  return internal::DecodeRoot<Service>(v, DecodeServiceInto);
}

Result<PodGroup> DecodePodGroup(const Value& v) {
  return internal::DecodeRoot<PodGroup>(v, DecodePodGroupInto);
}

Result<PodDisruptionBudget> DecodePodDisruptionBudget(const Value& v) {
  return internal::DecodeRoot<PodDisruptionBudget>(v, DecodePodDisruptionBudgetInto);
}

std::string DescribeObject(const Value& v) {
  std::string kind = StringField(&v, "kind");
  if (kind.empty()) kind = "object";
  const Value* meta = v.Find("metadata");
  std::string name = StringField(meta, "name");
  std::string ns = StringField(meta, "namespace");
  if (name.empty()) return kind + " <unnamed>";
  return kind + " " + (ns.empty() ? name : ns + "/" + name);
}

Result<Object> DecodeObject(const Value& v) {
  if (!v.IsObject()) {
    return Error{"expected a Kubernetes object, got " + std::string(v.TypeName())};
  }
  const Value* kind_value = v.Find("kind");
  if (kind_value == nullptr || kind_value->IsNull()) {
    return Error{DescribeObject(v) + ": kind: kind is required"};
  }
  if (!kind_value->IsString()) {
    return Error{DescribeObject(v) + ": kind: expected string, got " +
                 std::string(kind_value->TypeName())};
  }
  const std::string& kind = kind_value->AsString();
  if (kind == "Pod") return Wrap(DecodePod(v), v);
  if (kind == "Node") return Wrap(DecodeNode(v), v);
  if (kind == "Namespace") return Wrap(DecodeNamespace(v), v);
  if (kind == "PersistentVolumeClaim") return Wrap(DecodePersistentVolumeClaim(v), v);
  if (kind == "PersistentVolume") return Wrap(DecodePersistentVolume(v), v);
  if (kind == "StorageClass") return Wrap(DecodeStorageClass(v), v);
  if (kind == "CSINode") return Wrap(DecodeCSINode(v), v);
  if (kind == "CSIDriver") return Wrap(DecodeCSIDriver(v), v);
  if (kind == "Service") return Wrap(DecodeService(v), v);
  std::string api_version = StringField(&v, "apiVersion");
  if (kind == "PodDisruptionBudget") {
    if (ApiGroup(api_version) == "policy") return Wrap(DecodePodDisruptionBudget(v), v);
    return Error{"unsupported kind \"PodDisruptionBudget\" in apiVersion \"" + api_version +
                     "\" (want policy/v1)",
                 ErrorCode::kNotFound};
  }
  if (kind == "DeviceClass" || kind == "ResourceSlice" || kind == "ResourceClaim" ||
      kind == "ResourceClaimTemplate" || kind == "DeviceTaintRule") {
    // Earlier versions (v1beta1, v1beta2) shape requests differently: only v1 is read.
    if (api_version != "resource.k8s.io/v1") {
      return Error{"unsupported kind \"" + kind + "\" in apiVersion \"" + api_version +
                       "\" (want resource.k8s.io/v1)",
                   ErrorCode::kNotFound};
    }
    if (kind == "DeviceClass") return Wrap(DecodeDeviceClass(v), v);
    if (kind == "ResourceSlice") return Wrap(DecodeResourceSlice(v), v);
    if (kind == "ResourceClaim") return Wrap(DecodeResourceClaim(v), v);
    if (kind == "DeviceTaintRule") return Wrap(DecodeDeviceTaintRule(v), v);
    return Wrap(DecodeResourceClaimTemplate(v), v);
  }
  if (kind == "ReplicationController") return Wrap(DecodeReplicationController(v), v);
  if (kind == "ReplicaSet" || kind == "StatefulSet") {
    if (ApiGroup(api_version) != "apps") {
      return Error{
          "unsupported kind \"" + kind + "\" in apiVersion \"" + api_version + "\" (want apps/v1)",
          ErrorCode::kNotFound};
    }
    if (kind == "ReplicaSet") return Wrap(DecodeReplicaSet(v), v);
    return Wrap(DecodeStatefulSet(v), v);
  }
  if (kind == "PodGroup") {
    if (ApiGroup(api_version) == "scheduling.x-k8s.io") return Wrap(DecodePodGroup(v), v);
    return Error{"unsupported kind \"PodGroup\" in apiVersion \"" + api_version +
                     "\" (want group scheduling.x-k8s.io)",
                 ErrorCode::kNotFound};
  }
  return Error{"unsupported kind \"" + kind + "\"", ErrorCode::kNotFound};
}

}  // namespace berth::api
