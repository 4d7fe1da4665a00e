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

int Main(int argc, char** argv) {
  app::Flags f = app::ParseFlags(argc, argv, 2,
                                 {"config", "listen", "kubeconfig", "profile", "tls-cert",
                                  "tls-key", "v", "max-request-bytes", "max-connections"},
                                 {});
  if (!f.error.empty()) {
    std::cerr << "berth extender: " << f.error << "\n" << app::kUsage;
    return 2;
  }
  if (!f.Has("config") || !f.Has("listen")) {
    std::cerr << "berth extender: --config FILE and --listen ADDR are required\n" << app::kUsage;
    return 2;
  }
  size_t max_request_bytes = 0, max_connections = 0;
  if (!app::PositiveFlag("extender", f, "max-request-bytes", ServerOptions{}.max_request_bytes,
                         &max_request_bytes) ||
      !app::PositiveFlag("extender", f, "max-connections", ServerOptions{}.max_connections,
                         &max_connections)) {
    return 2;
  }
  if (f.Has("v")) log::Verbosity() = std::atoi(f.Get("v").c_str());
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
