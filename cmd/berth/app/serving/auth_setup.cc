#include "cmd/berth/app/serving/auth_setup.h"

#include "api/json/parse.h"
#include "api/value.h"
#include "base/log.h"
#include "informers/client/beast_client.h"
#include "informers/client/config.h"

namespace berth::serving {
namespace {

constexpr char kConfigMapPath[] =
    "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";
constexpr char kConfigMapName[] = "configmap kube-system/extension-apiserver-authentication";

// The review client from `kubeconfig`, else the in-cluster config; null (after a warning, unless
// simply not in a cluster) when neither is there, as upstream's getClient with
// RemoteKubeConfigFileOptional.
Result<std::unique_ptr<client::KubeClient>> ReviewClient(const std::string& kubeconfig,
                                                         const std::string& flag,
                                                         const std::string& sa_dir,
                                                         const std::string& purpose) {
  client::ClientConfig cfg;
  if (!kubeconfig.empty()) {
    auto loaded = client::LoadKubeconfig(kubeconfig);
    if (!loaded.ok()) return Error{flag + ": " + loaded.error()};
    cfg = std::move(*loaded);
  } else {
    auto in_cluster = sa_dir.empty() ? client::InClusterConfig() : client::InClusterConfig(sa_dir);
    if (!in_cluster.ok()) {
      BERTH_WARN() << "no " << flag << " and no in-cluster config (" << in_cluster.error()
                   << "): " << purpose;
      return std::unique_ptr<client::KubeClient>();
    }
    cfg = std::move(*in_cluster);
  }
  // Upstream's review clients: QPS 200, burst 400, 10 s per request; retries back off from
  // 500 ms as upstream's DefaultAuthWebhookRetryBackoff (5 attempts).
  client::ClientOptions opts;
  opts.max_retries = 4;
  opts.initial_backoff = std::chrono::milliseconds(500);
  opts.max_backoff = std::chrono::milliseconds(2000);
  opts.timeout = std::chrono::milliseconds(10000);
  opts.max_idle_connections = 8;
  auto c = std::make_unique<client::BeastClient>(std::move(cfg), 200, 400, opts);
  if (auto ok = c->InitStatus(); !ok) return Error{flag + ": " + ok.error()};
  return std::unique_ptr<client::KubeClient>(std::move(c));
}

// A requestheader-* key: a JSON array of strings (as the kube-apiserver writes them).
std::vector<std::string> JsonStrings(const api::Value& data, const char* key) {
  std::vector<std::string> out;
  const api::Value* v = data.Find(key);
  if (!v || !v->IsString() || v->AsString().empty()) return out;
  auto parsed = api::json::ParseJson(v->AsString());
  if (!parsed.ok() || !parsed->IsArray()) {
    BERTH_WARN() << kConfigMapName << ": data." << key << ": not a JSON array of strings";
    return out;
  }
  for (const auto& s : parsed->AsArray()) {
    if (s.IsString()) out.push_back(s.AsString());
  }
  return out;
}

Result<api::Value> ReadConfigMapData(client::KubeClient& c) {
  client::Request req;
  req.path = kConfigMapPath;
  req.timeout = std::chrono::milliseconds(10000);
  auto resp = c.Do(req);
  if (!resp.ok()) return Error{std::string(kConfigMapName) + ": " + resp.error()};
  if (resp->status != 200) {
    return Error{std::string(kConfigMapName) + ": HTTP " + std::to_string(resp->status) + ": " +
                 resp->body.substr(0, 300)};
  }
  auto parsed = api::json::ParseJson(resp->body);
  if (!parsed.ok()) return Error{std::string(kConfigMapName) + ": " + parsed.error()};
  const api::Value* data = parsed->Find("data");
  return data && data->IsObject() ? *data : api::Value::MakeObject();
}

}  // namespace

Result<AuthSetup> SetUpDelegatedAuth(const AuthOptions& options) {
  AuthSetup setup;
  auto authn = ReviewClient(options.authentication_kubeconfig, "--authentication-kubeconfig",
                            options.service_account_dir,
                            "bearer tokens (TokenReview) will not authenticate");
  if (!authn.ok()) return Error{authn.error()};
  setup.authn_client = std::move(*authn);
  auto authz = ReviewClient(options.authorization_kubeconfig, "--authorization-kubeconfig",
                            options.service_account_dir,
                            "no SubjectAccessReview: only the always-allow paths and "
                            "system:masters are authorized");
  if (!authz.ok()) return Error{authz.error()};
  setup.authz_client = std::move(*authz);

  DelegatedAuthConfig cfg;
  cfg.authn_client = setup.authn_client.get();
  cfg.authz_client = setup.authz_client.get();
  cfg.always_allow_paths = options.always_allow_paths;

  std::optional<Result<api::Value>> configmap;
  auto lookup = [&]() -> Result<api::Value>& {
    if (!configmap) configmap = ReadConfigMapData(*setup.authn_client);
    return *configmap;
  };
  if (!options.client_ca_file.empty()) {
    auto pem = client::ReadFileToString(options.client_ca_file);
    if (!pem.ok()) return Error{"--client-ca-file: " + pem.error()};
    cfg.client_ca_pem = std::move(*pem);
  } else if (!options.skip_lookup) {
    if (!setup.authn_client) {
      BERTH_WARN() << "no --authentication-kubeconfig to look up client-ca-file in "
                   << kConfigMapName << ": client certificates will not authenticate";
    } else if (auto& data = lookup(); !data.ok()) {
      BERTH_WARN() << data.error() << ": client certificates will not authenticate";
    } else if (const api::Value* ca = data->Find("client-ca-file"); ca && ca->IsString()) {
      cfg.client_ca_pem = ca->AsString();
    }
  }
  if (!options.skip_lookup) {
    if (!setup.authn_client) {
      BERTH_WARN() << "no --authentication-kubeconfig to look up requestheader-client-ca-file in "
                   << kConfigMapName << ": request-header authentication will not work";
    } else if (auto& data = lookup(); !data.ok()) {
      if (!options.tolerate_lookup_failure) return Error{data.error()};
      BERTH_WARN() << "looking up the in-cluster authentication configuration: " << data.error()
                   << "; continuing without it (--authentication-tolerate-lookup-failure)";
    } else if (const api::Value* ca = data->Find("requestheader-client-ca-file");
               ca && ca->IsString() && !ca->AsString().empty()) {
      RequestHeaderConfig rh;
      rh.ca_pem = ca->AsString();
      rh.username_headers = JsonStrings(*data, "requestheader-username-headers");
      rh.uid_headers = JsonStrings(*data, "requestheader-uid-headers");
      rh.group_headers = JsonStrings(*data, "requestheader-group-headers");
      rh.extra_header_prefixes = JsonStrings(*data, "requestheader-extra-headers-prefix");
      rh.allowed_names = JsonStrings(*data, "requestheader-allowed-names");
      cfg.request_header = std::move(rh);
    }
  }
  setup.client_ca_pem = cfg.client_ca_pem;
  if (cfg.request_header) {
    if (!setup.client_ca_pem.empty() && setup.client_ca_pem.back() != '\n') {
      setup.client_ca_pem += '\n';
    }
    setup.client_ca_pem += cfg.request_header->ca_pem;
  }
  auto auth = DelegatedAuth::Create(std::move(cfg));
  if (!auth.ok()) return Error{auth.error()};
  setup.auth = std::move(*auth);
  BERTH_LOG(0) << "secure port: authentication by "
               << (setup.authn_client ? "TokenReview" : "no bearer tokens")
               << (setup.client_ca_pem.empty() ? "" : ", client certificates")
               << "; authorization by "
               << (setup.authz_client ? "SubjectAccessReview" : "always-allow rules only");
  return setup;
}

}  // namespace berth::serving
