// KubeApiWriter's volume binding writes (VolumeBinding's PreBind): merge patches of PVCs and PVs.

#include "api/json/parse.h"
#include "base/log.h"
#include "informers/writers/kube_writer.h"

namespace berth::writers {

using api::Value;

namespace {

Value Str(const std::string& s) { return Value::String(s); }

// Sends a merge patch; on 200 sets *resource_version from the returned object.
framework::Status MergePatch(client::KubeClient& client, const std::string& path,
                             const std::string& what, const Value& patch,
                             std::string* resource_version) {
  client::Request req;
  req.method = "PATCH";
  req.path = path;
  req.content_type = "application/merge-patch+json";
  req.body = api::json::ToJson(patch);
  auto resp = client.Do(req);
  if (!resp.ok()) return framework::Status::Error("PATCH " + what + ": " + resp.error());
  auto body = api::json::ParseJson(resp->body);
  if (resp->status != 200) {
    std::string msg = resp->body.substr(0, 512);
    if (body.ok()) {
      if (const Value* m = body->Find("message"); m != nullptr && m->IsString()) {
        msg = m->AsString();
      }
    }
    BERTH_LOG(1) << "PATCH " << what << " failed: HTTP " << resp->status << " " << msg;
    return framework::Status::Error("PATCH " + what + ": HTTP " + std::to_string(resp->status) +
                                    ": " + msg);
  }
  if (resource_version != nullptr) {
    resource_version->clear();
    if (body.ok()) {
      if (const Value* meta = body->Find("metadata")) {
        if (const Value* rv = meta->Find("resourceVersion"); rv != nullptr && rv->IsString()) {
          *resource_version = rv->AsString();
        }
      }
    }
  }
  return {};
}

Value Metadata(const std::string& resource_version, const api::Labels& annotations) {
  Value meta = Value::MakeObject();
  if (!resource_version.empty()) meta.Set("resourceVersion", Str(resource_version));
  if (!annotations.empty()) {
    Value ann = Value::MakeObject();
    for (const auto& [k, v] : annotations) ann.Set(k, Str(v));
    meta.Set("annotations", std::move(ann));
  }
  return meta;
}

}  // namespace

framework::Status KubeApiWriter::PatchPersistentVolumeClaimAnnotations(
    const api::PersistentVolumeClaim& pvc, const api::Labels& annotations,
    std::string* resource_version) {
  Value patch = Value::MakeObject();
  patch.Set("metadata", Metadata(pvc.metadata.resource_version, annotations));
  const std::string key = pvc.metadata.namespace_ + "/" + pvc.metadata.name;
  auto s = MergePatch(client_,
                      "/api/v1/namespaces/" + pvc.metadata.namespace_ + "/persistentvolumeclaims/" +
                          pvc.metadata.name,
                      "persistentvolumeclaims " + key, patch, resource_version);
  if (s.IsSuccess()) BERTH_LOG(2) << "annotated PersistentVolumeClaim " << key;
  return s;
}

framework::Status KubeApiWriter::PatchPersistentVolumeClaimRef(const api::PersistentVolume& pv,
                                                               const api::ObjectReference& claim,
                                                               const api::Labels& annotations,
                                                               std::string* resource_version) {
  Value ref = Value::MakeObject();
  ref.Set("apiVersion", Str("v1"));
  ref.Set("kind", Str("PersistentVolumeClaim"));
  ref.Set("namespace", Str(claim.namespace_));
  ref.Set("name", Str(claim.name));
  ref.Set("uid", Str(claim.uid));
  Value spec = Value::MakeObject();
  spec.Set("claimRef", std::move(ref));
  Value patch = Value::MakeObject();
  patch.Set("metadata", Metadata(pv.metadata.resource_version, annotations));
  patch.Set("spec", std::move(spec));
  auto s = MergePatch(client_, "/api/v1/persistentvolumes/" + pv.metadata.name,
                      "persistentvolumes " + pv.metadata.name, patch, resource_version);
  if (s.IsSuccess()) {
    BERTH_LOG(2) << "pre-bound PersistentVolume " << pv.metadata.name << " to claim "
                 << claim.namespace_ << "/" << claim.name;
  }
  return s;
}

}  // namespace berth::writers
