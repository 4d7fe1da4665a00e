#pragma once
// `berth extender`: berth's plugins served as a scheduler extender, so the default kube-scheduler
// (or any scheduler speaking the extender protocol) can use them without being replaced.
//
//   POST /filter, /scheduler/filter          ExtenderArgs -> ExtenderFilterResult
//   POST /prioritize, /scheduler/prioritize  ExtenderArgs -> HostPriorityList
//   GET  /healthz (/livez)                   "ok"
//   GET  /readyz                             "ok" once the informers have synced
// Semantics of the answers: cmd/berth/app/extender/evaluator.h. A body that is not ExtenderArgs
// gets, for filter, a 200 whose Error says what is wrong (the scheduler shows it in
// FailedScheduling); for prioritize a 400 with the reason. Before the caches have synced, filter
// answers Error "berth extender: informer caches not synced yet" and prioritize 503.
//
// Plain HTTP on the listen address, or HTTPS with the given certificate and key. Informers feed
// the cache through cmd/berth/app/run/cluster_feed.h, as in `berth run`. One request at a time, on
// the server's I/O thread.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "cmd/berth/app/serving/http_server.h"
#include "config/types.h"
#include "informers/client/config.h"
#include "scheduler/framework/registry.h"

namespace berth::extender_server {

class Evaluator;

struct ServerOptions {
  config::SchedulerConfiguration config;
  std::string profile;  // empty = the first profile
  client::ClientConfig client;
  std::string listen = "127.0.0.1:8888";    // host:port
  std::string tls_cert_file, tls_key_file;  // both or neither; neither = plain HTTP
  std::chrono::seconds cache_sync_timeout{120};
  // Largest request body (--max-request-bytes); bigger ones are answered 413. ExtenderArgs with
  // full Node objects (nodeCacheCapable: false) of a big cluster may need it raised.
  size_t max_request_bytes = 16 << 20;
  // Most connections open at once (--max-connections); more are refused.
  size_t max_connections = 1024;
};

// The HTTP routes over an evaluator (exposed for tests). `synced` says whether the caches are
// ready.
run::HttpHandlers MakeHandlers(Evaluator* evaluator, std::function<bool()> synced);

class Server {
 public:
  Server(ServerOptions options, const framework::Registry& registry);
  ~Server();
  // Runs until RequestShutdown. 0 after a requested shutdown, 1 on a start-up failure (bad
  // profile, listen address in use, caches never synced), with the reason logged.
  int Run();
  void RequestShutdown();

 private:
  ServerOptions options_;
  const framework::Registry& registry_;
  std::mutex mu_;  // guards shutdown_
  std::condition_variable cv_;
  bool shutdown_ = false;
};

}  // namespace berth::extender_server
