#include "cmd/berth/app/run/main.h"

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "base/log.h"
#include "base/strings.h"
#include "cmd/berth/app/extender/http_extender.h"
#include "cmd/berth/app/flags.h"
#include "cmd/berth/app/run/daemon.h"
#include "cmd/berth/app/serving/auth_options.h"
#include "config/load.h"
#include "plugins/registry.h"

namespace berth::run {

namespace {

// The lease lives in the namespace berth runs in: --namespace, $POD_NAMESPACE, the kubeconfig's.
std::string PodNamespace(const app::Flags& f, const client::ClientConfig& client) {
  if (f.Has("namespace")) return f.Get("namespace");
  if (const char* ns = std::getenv("POD_NAMESPACE"); ns != nullptr && *ns != '\0') return ns;
  if (!client.default_namespace.empty()) return client.default_namespace;
  return "default";
}

// The secure port serves /healthz /livez /readyz /metrics /configz, as kube-scheduler's 10259.
// False after printing the error.
bool ServingOptions(const app::Flags& f, HttpServerOptions* http) {
  const std::string bind = f.Get("bind-address", "0.0.0.0");
  const std::string port = f.Get("secure-port", "10259");
  http->secure_address =
      bind.find(':') != std::string::npos ? "[" + bind + "]:" + port : bind + ":" + port;
  http->cert_file = f.Get("tls-cert-file");
  http->key_file = f.Get("tls-private-key-file");
  if (http->cert_file.empty() != http->key_file.empty()) {
    std::cerr << "berth run: --tls-cert-file and --tls-private-key-file go together\n";
    return false;
  }
  if (f.Has("metrics-bind-address")) {
    http->plain_address = f.Get("metrics-bind-address");
    BERTH_WARN() << "--metrics-bind-address " << http->plain_address
                 << " serves /metrics, /configz and the health checks over plain HTTP with no "
                    "authentication or authorization";
  }
  return app::PositiveFlag("run", f, "max-connections", http->max_connections,
                           &http->max_connections);
}

// --config (or the defaults), --policy-config-file and the extenders they name. False after
// printing the error.
bool LoadConfig(const app::Flags& f, const framework::Registry& registry, DaemonOptions* options) {
  config::SchedulerConfiguration cfg;
  if (f.Has("config")) {
    auto loaded = config::LoadConfigFile(f.Get("config"), registry.Names());
    if (!loaded.ok()) {
      std::cerr << "berth run: " << OneLine(loaded.error()) << "\n";
      return false;
    }
    cfg = std::move(*loaded);
  } else {
    cfg = config::DefaultConfig(registry.Names());
  }
  if (f.Has("policy-config-file") &&
      !app::ApplyPolicyFile("run", f.Get("policy-config-file"), registry.Names(), cfg)) {
    return false;
  }
  auto extenders = extenders::BuildExtenders(&cfg);
  if (!extenders.ok()) {
    std::cerr << "berth run: " << OneLine(extenders.error()) << "\n";
    return false;
  }
  options->config = cfg;
  for (auto& e : *extenders) options->extenders.push_back(std::move(e));
  return true;
}

}  // namespace

int Main(int argc, char** argv) {
  std::vector<std::string> with_value = {"config",
                                         "policy-config-file",
                                         "kubeconfig",
                                         "v",
                                         "namespace",
                                         "bind-address",
                                         "secure-port",
                                         "tls-cert-file",
                                         "tls-private-key-file",
                                         "metrics-bind-address",
                                         "max-connections"};
  const auto& auth_flags = serving::AuthValueFlags();
  with_value.insert(with_value.end(), auth_flags.begin(), auth_flags.end());
  app::Flags f = app::ParseFlags(argc, argv, 2, with_value, serving::AuthBoolFlags());
  if (!f.error.empty()) {
    std::cerr << "berth run: " << f.error << "\n" << app::kUsage;
    return 2;
  }
  if (f.Has("v")) log::Verbosity() = std::atoi(f.Get("v").c_str());
  const framework::Registry registry = plugins::NewInTreeRegistry();
  DaemonOptions options;
  if (!ServingOptions(f, &options.http)) return 2;
  if (!LoadConfig(f, registry, &options)) return 2;
  const std::string kubeconfig = f.Get("kubeconfig", options.config.client_connection.kubeconfig);
  if (!app::LoadClient("run", kubeconfig, &options.client)) return 2;
  options.pod_namespace = PodNamespace(f, options.client);
  serving::AuthOptions auth_options;
  if (!serving::ParseAuthOptions("run", f, &auth_options)) return 2;

  // SIGTERM / SIGINT go to one watcher thread (blocked everywhere else). Blocked before any
  // thread starts (the secure port's review workers are the first), so that every thread
  // inherits the mask; one that arrives meanwhile waits for the watcher.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto auth = serving::SetUpDelegatedAuth(auth_options);
  if (!auth.ok()) {
    std::cerr << "berth run: " << OneLine(auth.error()) << "\n";
    return 1;
  }
  options.http.client_ca_pem = auth->client_ca_pem;
  options.auth = std::make_shared<serving::AuthSetup>(std::move(*auth));

  Daemon daemon(std::move(options), registry);
  std::thread watcher([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig == SIGTERM || sig == SIGINT) {
      BERTH_LOG(0) << "received " << (sig == SIGTERM ? "SIGTERM" : "SIGINT");
      daemon.RequestShutdown();
    }
  });
  int code = daemon.Run();
  // Wake the watcher if the daemon stopped on its own.
  pthread_kill(watcher.native_handle(), SIGTERM);
  watcher.join();
  return code;
}

}  // namespace berth::run
