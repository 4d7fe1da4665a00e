// berth: a secondary Kubernetes scheduler. Subcommands: simulate, run, extender, version.
// This file only parses flags and wires components; the logic lives in the libraries.

#include <csignal>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/log.h"
#include "config/load.h"
#include "config/policy.h"
#include "cmd/berth/app/extender/server.h"
#include "cmd/berth/app/extender/http_extender.h"
#include "api/json/parse.h"
#include "informers/client/config.h"
#include "plugins/registry.h"
#include "cmd/berth/app/run/daemon.h"
#include "cmd/berth/app/simulate/cluster_file.h"
#include "cmd/berth/app/simulate/simulator.h"

namespace {

constexpr const char kVersion[] = "0.1.0";

constexpr const char kUsage[] =
    "usage: berth <command> [flags]\n"
    "\n"
    "commands:\n"
    "  simulate --cluster FILE [--config FILE] [--policy-config-file FILE] [--explain]\n"
    "      [--seed N]\n"
    "      Schedule the pending pods of a cluster file (kubectl get ... -o yaml) offline and\n"
    "      print where each goes and why, as JSON.\n"
    "  run [--config FILE] [--policy-config-file FILE] [--kubeconfig FILE] [--namespace NS]\n"
    "      [--v N]\n"
    "      [--bind-address IP] [--secure-port N] [--tls-cert-file F --tls-private-key-file F]\n"
    "      [--metrics-bind-address HOST:PORT]\n"
    "      Schedule pods of the configured profiles in a cluster. Without --kubeconfig (and\n"
    "      no clientConnection.kubeconfig in the config) berth uses the in-cluster config.\n"
    "      /healthz /livez /readyz /metrics /configz are served over HTTPS on the secure port\n"
    "      (10259; 0 picks a free one) with a self-signed certificate unless one is given, and\n"
    "      over plain HTTP on --metrics-bind-address when set.\n"
    "  extender --config FILE --listen ADDR [--kubeconfig FILE] [--profile NAME]\n"
    "      [--tls-cert FILE --tls-key FILE] [--v N]\n"
    "      Serve the Filter and Score plugins of the config's first profile (or --profile) as a\n"
    "      scheduler extender: POST /filter and /prioritize (also under /scheduler/), for the\n"
    "      default kube-scheduler's `extenders:`. Plain HTTP unless a certificate is given.\n"
    "  version\n"
    "      Print berth's version.\n"
    "\n"
    "--policy-config-file FILE reads a legacy scheduler Policy (kind: Policy, removed upstream in\n"
    "v1.23) and uses it instead of the config's profiles, under the first profile's name.\n";

// Parses --name VALUE / --name=VALUE / boolean --name flags. Unknown flags are errors.
struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::string> bools;
  std::string error;
};

Flags ParseFlags(int argc, char** argv, int first, const std::vector<std::string>& with_value,
                 const std::vector<std::string>& booleans) {
  Flags f;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      f.error = "unexpected argument \"" + arg + "\"";
      return f;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (std::find(booleans.begin(), booleans.end(), name) != booleans.end()) {
      f.bools.push_back(name);
      continue;
    }
    if (std::find(with_value.begin(), with_value.end(), name) == with_value.end()) {
      f.error = "unknown flag --" + name;
      return f;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        f.error = "flag --" + name + " needs a value";
        return f;
      }
      value = argv[++i];
    }
    f.values[name] = value;
  }
  return f;
}

// --policy-config-file: the Policy replaces the profiles (one profile, named after the config's
// first profile) and brings its extenders. Returns false after printing the error.
bool ApplyPolicyFile(const std::string& command, const std::string& path,
                     const std::vector<std::string>& known,
                     berth::config::SchedulerConfiguration& cfg) {
  const std::string name = cfg.profiles.empty() ? std::string(berth::config::kDefaultSchedulerName)
                                                : cfg.profiles[0].scheduler_name;
  auto policy = berth::config::LoadPolicyFile(path, known, name);
  if (!policy.ok()) {
    std::cerr << "berth " << command << ": " << policy.error() << "\n";
    return false;
  }
  cfg.profiles.clear();
  cfg.profiles.push_back(std::move(policy->profile));
  if (!policy->extenders.empty()) cfg.extenders = std::move(policy->extenders);
  return true;
}

int Simulate(int argc, char** argv) {
  Flags f =
      ParseFlags(argc, argv, 2, {"cluster", "config", "policy-config-file", "seed"}, {"explain"});
  if (!f.error.empty()) {
    std::cerr << "berth simulate: " << f.error << "\n" << kUsage;
    return 2;
  }
  if (!f.values.count("cluster")) {
    std::cerr << "berth simulate: --cluster FILE is required\n" << kUsage;
    return 2;
  }
  berth::simulate::Options options;
  options.explain = std::find(f.bools.begin(), f.bools.end(), "explain") != f.bools.end();
  if (f.values.count("seed")) {
    const std::string& s = f.values["seed"];
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno != 0 || s[0] == '-') {
      std::cerr << "berth simulate: --seed: invalid value \"" << s
                << "\": must be a non-negative integer\n";
      return 2;
    }
    options.seed = v;
  }
  const berth::framework::Registry registry = berth::plugins::NewInTreeRegistry();
  const std::vector<std::string> known = registry.Names();
  berth::config::SchedulerConfiguration cfg;
  if (f.values.count("config")) {
    auto loaded = berth::config::LoadConfigFile(f.values["config"], known);
    if (!loaded.ok()) {
      std::cerr << "berth simulate: " << loaded.error() << "\n";
      return 2;
    }
    cfg = std::move(*loaded);
  } else {
    cfg = berth::config::DefaultConfig(known);
  }
  if (f.values.count("policy-config-file") &&
      !ApplyPolicyFile("simulate", f.values["policy-config-file"], known, cfg)) {
    return 2;
  }
  // Configured extenders are called as in `berth run` (filter and prioritize); the recording
  // binder stands in for a bindVerb.
  auto extenders = berth::extenders::BuildExtenders(&cfg, /*allow_bind=*/false);
  if (!extenders.ok()) {
    std::cerr << "berth simulate: " << extenders.error() << "\n";
    return 2;
  }
  for (const auto& e : *extenders) {
    options.extenders.push_back(e.get());
    std::cerr << "berth simulate: calling extender " << e->Name() << "\n";
  }
  auto cluster = berth::simulate::LoadClusterFile(f.values["cluster"]);
  if (!cluster.ok()) {
    std::cerr << "berth simulate: " << cluster.error() << "\n";
    return 2;
  }
  for (const auto& w : cluster->warnings) std::cerr << "berth simulate: warning: " << w << "\n";
  auto out = berth::simulate::Run(*cluster, cfg, registry, options);
  if (!out.ok()) {
    std::cerr << "berth simulate: " << (f.values.count("config") ? f.values["config"] + ": " : "")
              << out.error() << "\n";
    return 2;
  }
  std::cout << berth::api::json::ToJson(*out) << "\n";
  return 0;
}

int Run(int argc, char** argv) {
  Flags f =
      ParseFlags(argc, argv, 2,
                 {"config", "policy-config-file", "kubeconfig", "v", "namespace", "bind-address",
                  "secure-port", "tls-cert-file", "tls-private-key-file", "metrics-bind-address"},
                 {});
  if (!f.error.empty()) {
    std::cerr << "berth run: " << f.error << "\n" << kUsage;
    return 2;
  }
  if (f.values.count("v")) berth::log::Verbosity() = std::atoi(f.values["v"].c_str());
  const berth::framework::Registry registry = berth::plugins::NewInTreeRegistry();
  berth::config::SchedulerConfiguration cfg;
  if (f.values.count("config")) {
    auto loaded = berth::config::LoadConfigFile(f.values["config"], registry.Names());
    if (!loaded.ok()) {
      std::cerr << "berth run: " << loaded.error() << "\n";
      return 2;
    }
    cfg = std::move(*loaded);
  } else {
    cfg = berth::config::DefaultConfig(registry.Names());
  }
  if (f.values.count("policy-config-file") &&
      !ApplyPolicyFile("run", f.values["policy-config-file"], registry.Names(), cfg)) {
    return 2;
  }
  auto extenders = berth::extenders::BuildExtenders(&cfg);
  if (!extenders.ok()) {
    std::cerr << "berth run: " << extenders.error() << "\n";
    return 2;
  }
  std::string kubeconfig =
      f.values.count("kubeconfig") ? f.values["kubeconfig"] : cfg.client_connection.kubeconfig;
  berth::run::DaemonOptions options;
  options.config = cfg;
  for (auto& e : *extenders) options.extenders.push_back(std::move(e));
  if (!kubeconfig.empty()) {
    auto c = berth::client::LoadKubeconfig(kubeconfig);
    if (!c.ok()) {
      std::cerr << "berth run: " << c.error() << "\n";
      return 2;
    }
    options.client = std::move(*c);
  } else {
    auto c = berth::client::InClusterConfig();
    if (!c.ok()) {
      std::cerr << "berth run: no --kubeconfig given and not running in a cluster: " << c.error()
                << "\n";
      return 2;
    }
    options.client = std::move(*c);
  }
  // The lease lives in the namespace berth runs in.
  if (f.values.count("namespace")) {
    options.pod_namespace = f.values["namespace"];
  } else if (const char* ns = std::getenv("POD_NAMESPACE"); ns != nullptr && *ns != '\0') {
    options.pod_namespace = ns;
  } else if (!options.client.default_namespace.empty()) {
    options.pod_namespace = options.client.default_namespace;
  }

  // The secure port serves /healthz /livez /readyz /metrics /configz, as kube-scheduler's 10259.
  const std::string bind = f.values.count("bind-address") ? f.values["bind-address"] : "0.0.0.0";
  const std::string port = f.values.count("secure-port") ? f.values["secure-port"] : "10259";
  options.http.secure_address =
      bind.find(':') != std::string::npos ? "[" + bind + "]:" + port : bind + ":" + port;
  options.http.cert_file = f.values.count("tls-cert-file") ? f.values["tls-cert-file"] : "";
  options.http.key_file =
      f.values.count("tls-private-key-file") ? f.values["tls-private-key-file"] : "";
  if (options.http.cert_file.empty() != options.http.key_file.empty()) {
    std::cerr << "berth run: --tls-cert-file and --tls-private-key-file go together\n";
    return 2;
  }
  if (f.values.count("metrics-bind-address")) {
    options.http.plain_address = f.values["metrics-bind-address"];
  }

  // SIGTERM / SIGINT go to one watcher thread (blocked everywhere else).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  berth::run::Daemon daemon(std::move(options), registry);
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

// Loads --kubeconfig, else the in-cluster config. Returns false after printing the error.
bool LoadClient(const std::string& command, const std::string& kubeconfig,
                berth::client::ClientConfig* out) {
  if (!kubeconfig.empty()) {
    auto c = berth::client::LoadKubeconfig(kubeconfig);
    if (!c.ok()) {
      std::cerr << "berth " << command << ": " << c.error() << "\n";
      return false;
    }
    *out = std::move(*c);
    return true;
  }
  auto c = berth::client::InClusterConfig();
  if (!c.ok()) {
    std::cerr << "berth " << command
              << ": no --kubeconfig given and not running in a cluster: " << c.error() << "\n";
    return false;
  }
  *out = std::move(*c);
  return true;
}

int Extender(int argc, char** argv) {
  Flags f = ParseFlags(
      argc, argv, 2, {"config", "listen", "kubeconfig", "profile", "tls-cert", "tls-key", "v"}, {});
  if (!f.error.empty()) {
    std::cerr << "berth extender: " << f.error << "\n" << kUsage;
    return 2;
  }
  if (!f.values.count("config") || !f.values.count("listen")) {
    std::cerr << "berth extender: --config FILE and --listen ADDR are required\n" << kUsage;
    return 2;
  }
  if (f.values.count("v")) berth::log::Verbosity() = std::atoi(f.values["v"].c_str());
  const berth::framework::Registry registry = berth::plugins::NewInTreeRegistry();
  auto loaded = berth::config::LoadConfigFile(f.values["config"], registry.Names());
  if (!loaded.ok()) {
    std::cerr << "berth extender: " << loaded.error() << "\n";
    return 2;
  }
  berth::extender_server::ServerOptions options;
  options.config = std::move(*loaded);
  options.profile = f.values.count("profile") ? f.values["profile"] : "";
  options.listen = f.values["listen"];
  options.tls_cert_file = f.values.count("tls-cert") ? f.values["tls-cert"] : "";
  options.tls_key_file = f.values.count("tls-key") ? f.values["tls-key"] : "";
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    std::cerr << "berth extender: --tls-cert and --tls-key go together\n";
    return 2;
  }
  const std::string kubeconfig = f.values.count("kubeconfig")
                                     ? f.values["kubeconfig"]
                                     : options.config.client_connection.kubeconfig;
  if (!LoadClient("extender", kubeconfig, &options.client)) return 2;

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  berth::extender_server::Server server(std::move(options), registry);
  std::thread watcher([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    server.RequestShutdown();
  });
  int code = server.Run();
  pthread_kill(watcher.native_handle(), SIGTERM);
  watcher.join();
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // A peer that closes a connection (API server, extender, scraper) must surface as a write error
  // on that connection, never kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "simulate") return Simulate(argc, argv);
  if (cmd == "run") return Run(argc, argv);
  if (cmd == "extender") return Extender(argc, argv);
  if (cmd == "version" || cmd == "--version") {
    std::cout << "berth " << kVersion << "\n";
    return 0;
  }
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::cout << kUsage;
    return 0;
  }
  std::cerr << "berth: unknown command \"" << cmd << "\"\n" << kUsage;
  return 2;
}
