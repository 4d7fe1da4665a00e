#include "cmd/berth/app/explain/main.h"

#include <iostream>
#include <optional>

#include "base/strings.h"
#include "cmd/berth/app/activity.h"
#include "cmd/berth/app/explain/ask.h"
#include "cmd/berth/app/explain/offline.h"
#include "cmd/berth/app/explain/options.h"
#include "cmd/berth/app/explain/output.h"
#include "cmd/berth/app/extender/http_extender.h"
#include "cmd/berth/app/kube_flags.h"
#include "cmd/berth/app/simulate/cluster_lister.h"
#include "cmd/berth/app/simulate/simulated_extender.h"
#include "config/load.h"
#include "informers/client/beast_client.h"
#include "plugins/registry.h"
#include "scheduler/diagnosis/json.h"
#include "scheduler/diagnosis/text.h"

namespace berth::explain {
namespace {

constexpr char kExplainUsage[] =
    "berth explain POD [-n NAMESPACE] [flags]: say why a pod is pending. Asks the running berth "
    "(its leader, through the API server's pod proxy; --via-service, --scheduler-url), or "
    "re-evaluates the pod on the current cluster state (--offline, and when the scheduler "
    "cannot be reached). Also `kubectl berth explain POD` through the kubectl-berth link.";

int Fail(const std::string& why, int code = 2) {
  std::cerr << "berth explain: " << OneLine(why) << "\n";
  return code;
}

void Print(const diagnosis::Record& r, const api::Value* json, bool as_json,
           const std::string& source) {
  if (as_json) {
    std::cout << PrettyJson(json != nullptr ? *json : diagnosis::ToValue(r)) << "\n";
  } else {
    std::cout << diagnosis::RenderText(r, source);
  }
}

// The client for --scheduler-url (https: the kubeconfig's credentials and the URL's TLS settings;
// http: no credentials), and the URL's path prefix.
Result<std::pair<std::unique_ptr<client::KubeClient>, std::string>> UrlClient(
    const ExplainOptions& o, const app::KubeAccess& access) {
  const size_t scheme_end = o.scheduler_url.find("://") + 3;
  const size_t path_start = o.scheduler_url.find('/', scheme_end);
  app::KubeAccess direct = access;
  direct.config.server = o.scheduler_url.substr(0, path_start);
  const std::string prefix =
      path_start == std::string::npos ? "" : o.scheduler_url.substr(path_start);
  direct.config.tls_server_name.clear();
  direct.config.insecure_skip_tls_verify = o.insecure_skip_tls_verify;
  direct.config.ca_pem.clear();  // the kubeconfig's CA is the API server's, not berth's
  if (o.scheduler_url.rfind("http://", 0) == 0) {
    // A plain-HTTP port authenticates nobody: the kubeconfig's credentials stay home.
    direct.config.token.clear();
    direct.config.token_file.clear();
    direct.config.client_cert_pem.clear();
    direct.config.client_key_pem.clear();
  }
  if (!o.certificate_authority.empty()) {
    auto ca = client::ReadFileToString(o.certificate_authority);
    if (!ca.ok()) return Error{"--certificate-authority: " + ca.error()};
    direct.config.ca_pem = std::move(*ca);
  }
  client::ClientOptions opts;
  opts.max_retries = 0;
  auto c = std::make_unique<client::BeastClient>(direct.config, direct.qps, direct.burst,
                                                 app::WithDeadline(access, std::move(opts)));
  if (auto ok = c->InitStatus(); !ok) return Error{"--scheduler-url: " + ok.error()};
  return std::make_pair(std::unique_ptr<client::KubeClient>(std::move(c)), prefix);
}

// --offline: list, re-evaluate, print.
int Offline(const ExplainOptions& o, client::KubeClient& api, const std::string& ns) {
  const framework::Registry registry = plugins::NewInTreeRegistry();
  config::SchedulerConfiguration cfg;
  if (!o.config.empty()) {
    auto loaded = config::LoadConfigFile(o.config, registry.Names());
    if (!loaded.ok()) return Fail(loaded.error());
    cfg = std::move(*loaded);
  } else {
    cfg = config::DefaultConfig(registry.Names());
  }
  auto built = extenders::BuildExtenders(&cfg);
  if (!built.ok()) return Fail(built.error());
  const auto owned = simulate::ForSimulation(std::move(*built));
  std::vector<framework::Extender*> extenders;
  for (const auto& e : owned) extenders.push_back(e.get());

  std::optional<app::Doing> doing(std::in_place, "listing the cluster from " + api.Server());
  auto live = simulate::ListCluster(api);
  if (!live.ok()) return Fail(live.error());
  auto cluster = simulate::ToClusterFile(*live);
  if (!cluster.ok()) return Fail(cluster.error());
  doing.reset();
  doing.emplace("re-evaluating pod " + ns + "/" + o.pod);
  OfflineResult r = ExplainOffline(*cluster, cfg, registry, extenders, ns, o.pod);
  switch (r.kind) {
    case OfflineResult::Kind::kExplained:
      if (o.json) std::cerr << "berth explain: " << kOfflineSource << "\n";
      Print(r.record, nullptr, o.json, kOfflineSource);
      return 0;
    case OfflineResult::Kind::kNotApplicable:
      return Fail(r.message, 1);
    case OfflineResult::Kind::kError:
      return Fail((o.config.empty() ? "" : o.config + ": ") + r.message);
  }
  return 2;
}

}  // namespace

int Main(int argc, char** argv) {
  app::Flags f = app::ParseFlags("explain", kExplainUsage, argc, argv, ExplainFlagSpecs(), true);
  if (f.help) return 0;
  if (!f.error.empty()) return Fail(f.error);
  auto o = ReadExplainOptions(f);
  if (!o.ok()) return Fail(o.error());
  app::KubeAccess access;
  if (!app::ReadKubeAccess("explain", f, /*kubeconfig_required=*/false, &access)) return 2;
  const std::string ns =
      !o->pod_namespace.empty() ? o->pod_namespace : access.config.default_namespace;
  auto api = app::NewKubeClient(access);
  if (o->mode == Mode::kOffline) return Offline(*o, *api, ns);

  Answer a;
  if (o->mode == Mode::kUrl) {
    auto direct = UrlClient(*o, access);
    if (!direct.ok()) return Fail(direct.error());
    a = Fetch(*direct->first, direct->second + ExplainPath(ns, o->pod),
              "the scheduler " + o->scheduler_url);
  } else {
    a = AskThroughApiServer(*api, *o, ns, o->pod);
  }
  switch (a.kind) {
    case Answer::Kind::kFound:
      Print(a.record, &a.json, o->json, a.source);
      return 0;
    case Answer::Kind::kNotFound:
      return Fail(a.message + " (" + a.source + ")", 1);
    case Answer::Kind::kInvalid:
      return Fail(a.message);
    case Answer::Kind::kUnreachable:
      std::cerr << "berth explain: cannot reach the scheduler (" << OneLine(a.message)
                << "); re-evaluating the current cluster state offline\n";
      return Offline(*o, *api, ns);
  }
  return 2;
}

}  // namespace berth::explain
