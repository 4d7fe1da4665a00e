#include "cmd/berth/app/extender/main.h"

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "base/log.h"
#include "base/strings.h"
#include "cmd/berth/app/extender/server.h"
#include "cmd/berth/app/flags.h"
#include "config/load.h"
#include "plugins/registry.h"

namespace berth::extender_server {

namespace {

constexpr char kExtenderUsage[] =
    "berth extender --config FILE --listen ADDR [flags]: serve the Filter and Score plugins of "
    "the config's first profile (or --profile) as a scheduler extender.";

const std::vector<app::FlagSpec>& ExtenderFlags() {
  static const std::vector<app::FlagSpec> specs = {
      {"config", "The scheduler configuration whose profile is served (required)."},
      {"listen", "The address to listen on, HOST:PORT (required)."},
      {"kubeconfig",
       "kubeconfig of the cluster (default: clientConnection.kubeconfig, else "
       "in-cluster)."},
      {"profile", "The profile to serve.", false, "the config's first"},
      {"tls-cert", "Serve HTTPS with this PEM certificate (with --tls-key)."},
      {"tls-key", "The PEM key of --tls-cert."},
      {"max-request-bytes", "Larger request bodies are answered 413.", false, "16777216"},
      {"max-connections", "Most connections open at once; more are refused.", false, "1024"},
      {"v", "Number for the log level verbosity.", false, "0"},
      {"vmodule", "Comma-separated list of pattern=N settings for file-filtered logging."},
      {"logging-format", "Sets the log format: text, json.", false, "text"},
  };
  return specs;
}

}  // namespace

int Main(int argc, char** argv) {
  app::Flags f = app::ParseFlags("extender", kExtenderUsage, argc, argv, ExtenderFlags());
  if (f.help) return 0;
  if (!f.error.empty()) {
    std::cerr << "berth extender: " << f.error << "\n";
    return 2;
  }
  if (!f.Has("config") || !f.Has("listen")) {
    std::cerr << "berth extender: --config FILE and --listen ADDR are required\n";
    return 2;
  }
  size_t max_request_bytes = 0, max_connections = 0;
  if (!app::PositiveFlag("extender", f, "max-request-bytes", ServerOptions{}.max_request_bytes,
                         &max_request_bytes) ||
      !app::PositiveFlag("extender", f, "max-connections", ServerOptions{}.max_connections,
                         &max_connections)) {
    return 2;
  }
  if (!app::ApplyLoggingFlags("extender", f)) return 2;
  const framework::Registry registry = plugins::NewInTreeRegistry();
  auto loaded = config::LoadConfigFile(f.Get("config"), registry.Names());
  if (!loaded.ok()) {
    std::cerr << "berth extender: " << OneLine(loaded.error()) << "\n";
    return 2;
  }
  ServerOptions options;
  options.max_request_bytes = max_request_bytes;
  options.max_connections = max_connections;
  options.config = std::move(*loaded);
  options.profile = f.Get("profile");
  options.listen = f.Get("listen");
  options.tls_cert_file = f.Get("tls-cert");
  options.tls_key_file = f.Get("tls-key");
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    std::cerr << "berth extender: --tls-cert and --tls-key go together\n";
    return 2;
  }
  const std::string kubeconfig = f.Get("kubeconfig", options.config.client_connection.kubeconfig);
  if (!app::LoadClient("extender", kubeconfig, &options.client)) return 2;

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  Server server(std::move(options), registry);
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

}  // namespace berth::extender_server
