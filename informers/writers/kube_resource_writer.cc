// KubeApiWriter's dynamic resource allocation writes: PUT resourceclaims/{name}/status.

#include "api/decode.h"
#include "api/encode_resource.h"
#include "api/json/parse.h"
#include "base/log.h"
#include "informers/writers/kube_writer.h"

namespace berth::writers {

Result<api::ResourceClaim> KubeApiWriter::UpdateResourceClaimStatus(
    const api::ResourceClaim& claim) {
  const std::string key = claim.metadata.namespace_ + "/" + claim.metadata.name;
  const std::string what = "PUT resourceclaims " + key + "/status";
  client::Request req;
  req.method = "PUT";
  req.path = "/apis/resource.k8s.io/v1/namespaces/" + claim.metadata.namespace_ +
             "/resourceclaims/" + claim.metadata.name + "/status";
  req.body = api::json::ToJson(api::EncodeResourceClaimStatusUpdate(claim));
  auto resp = client_.Do(req);
  if (!resp.ok()) return Error{what + ": " + resp.error(), ErrorCode::kUnavailable};
  auto body = api::json::ParseJson(resp->body);
  if (resp->status == 200) {
    if (!body.ok()) return Error{what + ": reply: " + body.error(), ErrorCode::kInternal};
    auto stored = api::DecodeResourceClaim(*body);
    if (!stored.ok()) return Error{what + ": reply: " + stored.error(), ErrorCode::kInternal};
    BERTH_LOG(2) << "updated status of ResourceClaim " << key << " (resourceVersion "
                 << stored->metadata.resource_version << ")";
    return std::move(*stored);
  }
  std::string msg = resp->body.substr(0, 512);
  if (body.ok()) {
    if (const api::Value* m = body->Find("message"); m != nullptr && m->IsString()) {
      msg = m->AsString();
    }
  }
  BERTH_LOG(1) << what << " failed: HTTP " << resp->status << " " << msg;
  ErrorCode code = ErrorCode::kInvalid;
  if (resp->status == 409) {
    code = ErrorCode::kConflict;
  } else if (resp->status == 404) {
    code = ErrorCode::kNotFound;
  } else if (resp->status == 429 || resp->status >= 500) {
    code = ErrorCode::kUnavailable;
  }
  return Error{what + ": HTTP " + std::to_string(resp->status) + ": " + msg, code};
}

}  // namespace berth::writers
