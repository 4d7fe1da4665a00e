// KubeApiWriter's dynamic resource allocation calls on resourceclaims: GET, the finalizer patch,
// PUT .../status and the reservation patch.

#include "api/decode.h"
#include "api/encode_resource.h"
#include "api/json/parse.h"
#include "base/log.h"
#include "informers/writers/kube_writer.h"

namespace berth::writers {
namespace {

std::string ClaimPath(const std::string& ns, const std::string& name) {
  return "/apis/resource.k8s.io/v1/namespaces/" + ns + "/resourceclaims/" + name;
}

// The error of a refused request: the API server's message, with a code saying what to do.
Error Refused(const std::string& what, const client::Response& resp,
              const Result<api::Value>& body) {
  std::string msg = resp.body.substr(0, 512);
  if (body.ok()) {
    if (const api::Value* m = body->Find("message"); m != nullptr && m->IsString()) {
      msg = m->AsString();
    }
  }
  BERTH_LOG(1) << what << " failed: HTTP " << resp.status << " " << msg;
  ErrorCode code = ErrorCode::kInvalid;
  if (resp.status == 409) {
    code = ErrorCode::kConflict;
  } else if (resp.status == 404) {
    code = ErrorCode::kNotFound;
  } else if (resp.status == 429 || resp.status >= 500) {
    code = ErrorCode::kUnavailable;
  }
  return Error{what + ": HTTP " + std::to_string(resp.status) + ": " + msg, code};
}

// Sends `req` and decodes the ResourceClaim the API server answers with.
Result<api::ResourceClaim> ClaimCall(client::KubeClient& client, const client::Request& req,
                                     const std::string& what) {
  auto resp = client.Do(req);
  if (!resp.ok()) return Error{what + ": " + resp.error(), ErrorCode::kUnavailable};
  auto body = api::json::ParseJson(resp->body);
  if (resp->status != 200 && resp->status != 201) return Refused(what, *resp, body);
  if (!body.ok()) return Error{what + ": reply: " + body.error(), ErrorCode::kInternal};
  auto stored = api::DecodeResourceClaim(*body);
  if (!stored.ok()) return Error{what + ": reply: " + stored.error(), ErrorCode::kInternal};
  return std::move(*stored);
}

}  // namespace

Result<api::ResourceClaim> KubeApiWriter::UpdateResourceClaimStatus(
    const api::ResourceClaim& claim) {
  const std::string key = claim.metadata.namespace_ + "/" + claim.metadata.name;
  client::Request req;
  req.method = "PUT";
  req.path = ClaimPath(claim.metadata.namespace_, claim.metadata.name) + "/status";
  req.body = api::json::ToJson(api::EncodeResourceClaimStatusUpdate(claim));
  auto stored = ClaimCall(client_, req, "PUT resourceclaims " + key + "/status");
  if (stored.ok()) {
    BERTH_LOG(2) << "updated status of ResourceClaim " << key << " (resourceVersion "
                 << stored->metadata.resource_version << ")";
  }
  return stored;
}

Result<api::ResourceClaim> KubeApiWriter::GetResourceClaim(const std::string& ns,
                                                           const std::string& name) {
  client::Request req;
  req.path = ClaimPath(ns, name);
  return ClaimCall(client_, req, "GET resourceclaims " + ns + "/" + name);
}

Result<api::ResourceClaim> KubeApiWriter::SetResourceClaimFinalizers(
    const api::ResourceClaim& claim) {
  api::Value finalizers = api::Value::MakeArray();
  for (const auto& f : claim.finalizers) finalizers.Push(api::Value::String(f));
  api::Value meta = api::Value::MakeObject();
  if (!claim.metadata.resource_version.empty()) {
    meta.Set("resourceVersion", api::Value::String(claim.metadata.resource_version));
  }
  meta.Set("finalizers", std::move(finalizers));
  api::Value patch = api::Value::MakeObject();
  patch.Set("metadata", std::move(meta));
  client::Request req;
  req.method = "PATCH";
  req.path = ClaimPath(claim.metadata.namespace_, claim.metadata.name);
  req.content_type = "application/merge-patch+json";
  req.body = api::json::ToJson(patch);
  return ClaimCall(client_, req,
                   "PATCH resourceclaims " + claim.metadata.namespace_ + "/" + claim.metadata.name);
}

Ok KubeApiWriter::RemoveResourceClaimReservation(const api::ResourceClaim& claim,
                                                 const std::string& pod_uid) {
  // {"metadata": {"uid": <claim>}, "status": {"reservedFor": [{"$patch": "delete", "uid": <pod>}]}}
  api::Value entry = api::Value::MakeObject();
  entry.Set("$patch", api::Value::String("delete"));
  entry.Set("uid", api::Value::String(pod_uid));
  api::Value reserved = api::Value::MakeArray();
  reserved.Push(std::move(entry));
  api::Value status = api::Value::MakeObject();
  status.Set("reservedFor", std::move(reserved));
  api::Value meta = api::Value::MakeObject();
  meta.Set("uid", api::Value::String(claim.metadata.uid));
  api::Value patch = api::Value::MakeObject();
  patch.Set("metadata", std::move(meta));
  patch.Set("status", std::move(status));
  client::Request req;
  req.method = "PATCH";
  req.path = ClaimPath(claim.metadata.namespace_, claim.metadata.name) + "/status";
  req.content_type = "application/strategic-merge-patch+json";
  req.body = api::json::ToJson(patch);
  auto stored = ClaimCall(
      client_, req,
      "PATCH resourceclaims " + claim.metadata.namespace_ + "/" + claim.metadata.name + "/status");
  if (!stored.ok() && stored.code() != ErrorCode::kNotFound) return stored.status();
  return {};
}

Result<api::ResourceClaim> KubeApiWriter::CreateResourceClaim(const api::ResourceClaim& claim) {
  client::Request req;
  req.method = "POST";
  req.path = "/apis/resource.k8s.io/v1/namespaces/" + claim.metadata.namespace_ + "/resourceclaims";
  req.body = api::json::ToJson(api::EncodeResourceClaimForCreate(claim));
  const std::string name =
      claim.metadata.name.empty() ? claim.metadata.generate_name + "*" : claim.metadata.name;
  auto stored =
      ClaimCall(client_, req, "POST resourceclaims " + claim.metadata.namespace_ + "/" + name);
  if (stored.ok()) {
    BERTH_LOG(2) << "created ResourceClaim " << stored->metadata.namespace_ << "/"
                 << stored->metadata.name;
  }
  return stored;
}

Ok KubeApiWriter::DeleteResourceClaim(const std::string& ns, const std::string& name) {
  const std::string what = "DELETE resourceclaims " + ns + "/" + name;
  client::Request req;
  req.method = "DELETE";
  req.path = ClaimPath(ns, name);
  auto resp = client_.Do(req);
  if (!resp.ok()) return Error{what + ": " + resp.error(), ErrorCode::kUnavailable};
  if (resp->status < 300 || resp->status == 404) return {};
  return Refused(what, *resp, api::json::ParseJson(resp->body));
}

Ok KubeApiWriter::SetPodExtendedResourceClaimStatus(
    const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) {
  const std::string what = "PATCH pods " + pod.Key() + "/status";
  api::Value mappings = api::Value::MakeArray();
  for (const auto& m : status.request_mappings) {
    api::Value v = api::Value::MakeObject();
    v.Set("containerName", api::Value::String(m.container_name));
    v.Set("resourceName", api::Value::String(m.resource_name));
    v.Set("requestName", api::Value::String(m.request_name));
    mappings.Push(std::move(v));
  }
  api::Value ext = api::Value::MakeObject();
  ext.Set("requestMappings", std::move(mappings));
  ext.Set("resourceClaimName", api::Value::String(status.resource_claim_name));
  api::Value st = api::Value::MakeObject();
  st.Set("extendedResourceClaimStatus", std::move(ext));
  api::Value patch = api::Value::MakeObject();
  patch.Set("status", std::move(st));
  client::Request req;
  req.method = "PATCH";
  req.path =
      "/api/v1/namespaces/" + pod.metadata.namespace_ + "/pods/" + pod.metadata.name + "/status";
  req.content_type = "application/strategic-merge-patch+json";
  req.body = api::json::ToJson(patch);
  auto resp = client_.Do(req);
  if (!resp.ok()) return Error{what + ": " + resp.error(), ErrorCode::kUnavailable};
  if (resp->status < 300) return {};
  return Refused(what, *resp, api::json::ParseJson(resp->body));
}

}  // namespace berth::writers
