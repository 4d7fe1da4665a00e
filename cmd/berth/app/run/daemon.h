#pragma once
// Daemon: `berth run` — the scheduler against a real API server. Wires the kube client
// (instrumented into the API metrics), the informers the profiles need (feeding the scheduler's
// event handlers and the object stores; cluster_feed.h), leader election, the scheduling thread,
// the binding workers, the writers, and the scheduler's housekeeping.
//
//   scheduling thread: waits for leadership, then ScheduleOne(block) until shutdown
//   housekeeping:      Permit timeouts (100 ms), backoffQ flush (1 s), leftover flush (30 s)
//                      (scheduler/housekeeping.h), plus the informer and client counters (1 s)
//   informer threads:  one per kind (informers/)
//   binding workers:   scheduler/binder ThreadPoolExecutor
//   writer threads:    events and pod conditions (informers/writers/)
//
// Shutdown (SIGTERM/SIGINT → RequestShutdown): stop scheduling, reject waiting pods, drain the
// binding workers and writers, stop informers, release the lease.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "cmd/berth/app/serving/auth_setup.h"
#include "cmd/berth/app/serving/http_server.h"
#include "config/types.h"
#include "informers/client/config.h"
#include "scheduler/framework/extender.h"
#include "scheduler/framework/registry.h"

namespace berth::run {

struct DaemonOptions {
  config::SchedulerConfiguration config;
  client::ClientConfig client;
  // Namespace of the leader-election lease when the config leaves it empty (the namespace berth
  // runs in).
  std::string pod_namespace = "default";
  // How long to wait for the informers' first lists before giving up.
  std::chrono::seconds cache_sync_timeout{120};
  // /healthz, /livez, /readyz, /metrics, /configz (HTTPS on 10259 by default).
  HttpServerOptions http;
  // Authentication and authorization of the HTTPS port (serving::SetUpDelegatedAuth); null = none.
  std::shared_ptr<serving::AuthSetup> auth;
  // Also serve /debug/flags/v (run-time verbosity), as upstream does when profiling is enabled.
  bool debug_flags = true;
  // The configured scheduler extenders, in call order (extenders::BuildExtenders).
  std::vector<std::shared_ptr<framework::Extender>> extenders;
  // How many placements keep their diagnosis for /debug/explain (--explain-placed-pods).
  size_t explain_placed_pods = 0;
};

class Daemon {
 public:
  Daemon(DaemonOptions options, const framework::Registry& registry);
  ~Daemon();

  // Runs until RequestShutdown or a fatal error (lost leadership, caches never synced, invalid
  // profile). Returns the process exit code: 0 after a requested shutdown, 1 on failure.
  int Run();
  // Thread-safe; may be called from a signal-watching thread.
  void RequestShutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth::run
