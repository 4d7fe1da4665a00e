#include "cmd/berth/app/explain/ask.h"

#include <cctype>
#include <chrono>
#include <optional>

#include "api/json/parse.h"
#include "base/strings.h"
#include "scheduler/diagnosis/json.h"

namespace berth::explain {
namespace {

using api::StringMember;

// A metav1.Status body, or nullopt.
std::optional<api::Value> StatusBody(const std::string& body) {
  auto v = api::json::ParseJson(body);
  if (!v.ok() || !v->IsObject() || StringMember(&*v, "kind") != "Status") return std::nullopt;
  return std::move(*v);
}

std::string Shorten(std::string body) {
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.pop_back();
  std::string s = OneLine(body);
  return s.size() > 200 ? s.substr(0, 200) + "..." : s;
}

constexpr char kNotLeader[] = "the leader is ";

}  // namespace

std::string ExplainPath(const std::string& ns, const std::string& pod) {
  return "/debug/explain/" + ns + "/" + pod;
}

std::string PodProxyPrefix(const std::string& ns, const std::string& pod, int port) {
  return "/api/v1/namespaces/" + ns + "/pods/https:" + pod + ":" + std::to_string(port) + "/proxy";
}

std::string ServiceProxyPrefix(const std::string& ns, const std::string& service,
                               const std::string& port) {
  return "/api/v1/namespaces/" + ns + "/services/https:" + service + ":" + port + "/proxy";
}

std::string PodOfIdentity(const std::string& identity) {
  const size_t underscore = identity.rfind('_');
  return underscore == std::string::npos ? identity : identity.substr(0, underscore);
}

// A pod's name is a DNS-1123 subdomain (the API server validates it so): lower-case letters,
// digits, '-' and '.', at most 253 characters, each dot-separated label starting and ending with a
// letter or digit. The Lease holder identity and a standby's answer are written by whoever may
// update the Lease or answer on the port, so a name outside that form ('/', '?', "..") is refused
// before it becomes part of a proxy path requested with the operator's credentials.
bool IsPodName(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  char prev = '.';
  for (char c : name) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && c != '-' && c != '.') return false;
    if (c == '.' && prev == '-') return false;
    if (c == '-' && prev == '.') return false;
    if (c == '.' && prev == '.') return false;
    prev = c;
  }
  return prev != '-' && prev != '.';
}

std::string LeaderInMessage(const std::string& message) {
  if (message.find("not the leader") == std::string::npos) return "";
  const size_t at = message.rfind(kNotLeader);
  if (at == std::string::npos) return "";
  std::string id = message.substr(at + sizeof(kNotLeader) - 1);
  while (!id.empty() && (id.back() == '.' || id.back() == ' ')) id.pop_back();
  return id;
}

Result<std::string> LeaseHolder(client::KubeClient& api, const std::string& ns,
                                const std::string& name) {
  const std::string what = "lease " + ns + "/" + name;
  client::Request req;
  req.path = "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases/" + name;
  req.timeout = std::chrono::seconds(15);
  auto resp = api.Do(req);
  if (!resp.ok()) return Error{resp.error(), ErrorCode::kUnavailable};
  if (resp->status == 404) {
    return Error{what + " not found; set --lease-namespace, --lease-name", ErrorCode::kNotFound};
  }
  if (resp->status != 200) {
    auto status = StatusBody(resp->body);
    return Error{what + ": HTTP " + std::to_string(resp->status) + ": " +
                     (status ? OneLine(StringMember(&*status, "message")) : Shorten(resp->body)),
                 ErrorCode::kUnavailable};
  }
  auto doc = api::json::ParseJson(resp->body);
  if (!doc.ok()) return Error{what + ": " + doc.error()};
  const std::string& holder = StringMember(doc->Find("spec"), "holderIdentity");
  if (holder.empty())
    return Error{what + ": no holder (no berth is leading)", ErrorCode::kNotFound};
  return holder;
}

Answer Fetch(client::KubeClient& c, const std::string& path, const std::string& source) {
  Answer a;
  a.source = source;
  client::Request req;
  req.path = path;
  req.retry = false;
  req.timeout = std::chrono::seconds(20);
  req.headers["Accept"] = "application/json";
  auto resp = c.Do(req);
  if (!resp.ok()) {
    a.message = resp.error();
    return a;
  }
  const std::string where = "GET " + c.Server() + path;
  if (resp->status == 200) {
    auto doc = api::json::ParseJson(resp->body);
    if (!doc.ok()) {
      a.kind = Answer::Kind::kInvalid;
      a.message = where + ": " + doc.error();
      return a;
    }
    auto record = diagnosis::FromValue(*doc);
    if (!record.ok()) {
      a.kind = Answer::Kind::kInvalid;
      a.message = where + ": " + record.error();
      return a;
    }
    a.kind = Answer::Kind::kFound;
    a.record = std::move(*record);
    a.json = std::move(*doc);
    return a;
  }
  auto status = StatusBody(resp->body);
  const std::string message =
      status ? OneLine(StringMember(&*status, "message")) : Shorten(resp->body);
  if (resp->status == 404 && status && status->Find("details") == nullptr &&
      StringMember(&*status, "reason") == "NotFound") {
    // The scheduler's own answer: the API server's 404s (no such pod or Service) carry details.
    a.kind = Answer::Kind::kNotFound;
    a.message = message;
    return a;
  }
  if (resp->status == 404 && !status) {
    a.message = where + ": HTTP 404: " + message + " (a berth without /debug/explain?)";
    return a;
  }
  a.message = where + ": HTTP " + std::to_string(resp->status) + ": " + message;
  return a;
}

Answer AskThroughApiServer(client::KubeClient& api, const ExplainOptions& o, const std::string& ns,
                           const std::string& pod) {
  const std::string path = ExplainPath(ns, pod);
  auto via_pod = [&](const std::string& identity) {
    const std::string pod_name = PodOfIdentity(identity);
    if (!IsPodName(pod_name)) {
      Answer a;
      a.message = "the scheduler's identity " + Quote(identity) +
                  " does not name a pod (not a DNS-1123 subdomain); not asking it";
      return a;
    }
    return Fetch(api, PodProxyPrefix(o.lease_namespace, pod_name, o.scheduler_port) + path,
                 "the scheduler " + identity);
  };
  if (o.mode == Mode::kService) {
    Answer a =
        Fetch(api, ServiceProxyPrefix(o.lease_namespace, o.service_name, o.service_port) + path,
              "the scheduler behind service " + o.lease_namespace + "/" + o.service_name);
    if (a.kind != Answer::Kind::kNotFound) return a;
    // The Service balances over every replica: a standby names the leader.
    const std::string leader = LeaderInMessage(a.message);
    return leader.empty() ? a : via_pod(leader);
  }
  auto holder = LeaseHolder(api, o.lease_namespace, o.lease_name);
  if (!holder.ok()) {
    Answer a;
    a.message = holder.error();
    return a;
  }
  Answer a = via_pod(*holder);
  if (a.kind != Answer::Kind::kNotFound) return a;
  // The lease changed hands since it was read: the pod names the new leader.
  const std::string leader = LeaderInMessage(a.message);
  return leader.empty() || leader == *holder ? a : via_pod(leader);
}

}  // namespace berth::explain
