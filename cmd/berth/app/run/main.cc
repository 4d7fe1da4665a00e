#include "cmd/berth/app/run/main.h"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "base/log.h"
#include "base/strings.h"
#include "cmd/berth/app/extender/http_extender.h"
#include "cmd/berth/app/flags.h"
#include "cmd/berth/app/run/daemon.h"
#include "cmd/berth/app/run/options.h"
#include "cmd/berth/app/serving/auth_options.h"
#include "config/load.h"
#include "plugins/registry.h"

namespace berth::run {

namespace {

constexpr char kRunUsage[] =
    "berth run [flags]: schedule the pods of the configured profiles in a cluster, as a "
    "secondary kube-scheduler. Takes kube-scheduler's flags (same names, defaults and "
    "precedence; see README).";

// The lease lives in the namespace berth runs in: --namespace, $POD_NAMESPACE, the kubeconfig's.
std::string PodNamespace(const RunSettings& s, const client::ClientConfig& client) {
  if (!s.lease_namespace_flag.empty()) return s.lease_namespace_flag;
  if (const char* ns = std::getenv("POD_NAMESPACE"); ns != nullptr && *ns != '\0') return ns;
  if (!client.default_namespace.empty()) return client.default_namespace;
  return "default";
}

// --policy-config-file and the extenders the config names. False after printing the error.
bool FinishConfig(const RunSettings& s, const framework::Registry& registry,
                  DaemonOptions* options) {
  config::SchedulerConfiguration cfg = s.config;
  if (!s.policy_config_file.empty() &&
      !app::ApplyPolicyFile("run", s.policy_config_file, registry.Names(), cfg)) {
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

// --kubeconfig / clientConnection.kubeconfig (else in-cluster), with --master overriding the
// server (alone: that server, no credentials, as client-go). False after printing the error.
bool LoadKubeClient(const RunSettings& s, client::ClientConfig* out) {
  if (!s.master.empty() && s.kubeconfig.empty()) {
    out->server = s.master;
    BERTH_WARN_S(
        "Neither --kubeconfig nor --master was specified. Using the --master server "
        "without credentials",
        "master", s.master);
    return true;
  }
  if (!app::LoadClient("run", s.kubeconfig, out)) return false;
  if (!s.master.empty()) out->server = s.master;
  return true;
}

// Warnings about flags that were given but do nothing, logged once at start.
void LogIgnoredFlags(const RunSettings& s) {
  for (const auto& flag : s.ignored) {
    BERTH_WARN_S(
        "Flag ignored because --config is given (as kube-scheduler); set the config "
        "file's field instead",
        "flag", flag);
  }
  if (s.config.enable_profiling) {
    BERTH_INFO_S(0,
                 "Profiling is enabled: berth serves /debug/flags/v but no /debug/pprof "
                 "(use perf for a C++ process)");
  }
}

}  // namespace

int Main(int argc, char** argv) {
  app::Flags f = app::ParseFlags("run", kRunUsage, argc, argv, RunFlagSpecs());
  if (f.help) return 0;
  if (!f.error.empty()) {
    std::cerr << "berth run: " << f.error << "\n";
    return 2;
  }
  const framework::Registry registry = plugins::NewInTreeRegistry();
  auto settings = ReadRunFlags(f, registry.Names());
  if (!settings.ok()) {
    std::cerr << "berth run: " << OneLine(settings.error()) << "\n";
    return 2;
  }
  ApplyLogging(*settings);
  // As upstream's LogOrWriteConfig: write, log, exit 0.
  if (!settings->write_config_to.empty()) {
    std::ofstream out(settings->write_config_to);
    out << RenderConfigForWrite(settings->config);
    out.close();
    if (!out) {
      std::cerr << "berth run: --write-config-to " << settings->write_config_to
                << ": cannot write\n";
      return 1;
    }
    BERTH_INFO_S(0, "Wrote configuration", "file", settings->write_config_to);
    return 0;
  }
  LogIgnoredFlags(*settings);
  DaemonOptions options;
  options.http = settings->http;
  options.debug_flags = settings->config.enable_profiling;
  options.explain_placed_pods = settings->explain_placed_pods;
  if (!FinishConfig(*settings, registry, &options)) return 2;
  if (!LoadKubeClient(*settings, &options.client)) return 2;
  options.pod_namespace = PodNamespace(*settings, options.client);
  serving::AuthOptions auth_options;
  if (!serving::ParseAuthOptions("run", f, &auth_options)) return 2;
  if (!options.http.plain_address.empty()) {
    BERTH_WARN_S(
        "--metrics-bind-address serves /metrics, /configz and the health checks over plain HTTP "
        "with no authentication or authorization",
        "address", options.http.plain_address);
  }

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
      BERTH_INFO_S(0, "Received signal, shutting down", "signal",
                   sig == SIGTERM ? "SIGTERM" : "SIGINT");
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
