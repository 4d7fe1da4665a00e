#include "cmd/berth/app/extender/server.h"

#include <sstream>

#include "base/log.h"
#include "cmd/berth/app/extender/evaluator.h"
#include "cmd/berth/app/extender/wire.h"
#include "cmd/berth/app/run/cluster_feed.h"
#include "informers/client/beast_client.h"
#include "informers/informer.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "scheduler/metrics/fault_metrics.h"
#include "scheduler/metrics/process_metrics.h"

namespace berth::extender_server {

namespace {

bool Is(std::string_view path, std::string_view verb) {
  return path == "/" + std::string(verb) || path == "/scheduler/" + std::string(verb);
}

run::HttpReply Text(int status, std::string body) {
  return run::HttpReply{status, "text/plain; charset=utf-8", std::move(body) + "\n", {}};
}

}  // namespace

run::HttpHandlers MakeHandlers(Evaluator* evaluator, std::function<bool()> synced) {
  run::HttpHandlers h;
  // /metrics: the process metrics and the fault counters (recovered exceptions, accept errors,
  // refused connections), so that an operator sees this port being flooded.
  auto registry = std::make_shared<prometheus::Registry>();
  auto faults = std::make_shared<metrics::FaultMetrics>(*registry);
  auto process = std::make_shared<metrics::ProcessMetrics>(*registry);
  h.metrics = [registry, faults, process]() {
    faults->Sync();
    process->Sync();
    std::ostringstream out;
    prometheus::TextSerializer().Serialize(out, registry->Collect());
    return out.str();
  };
  h.readiness = [synced]() -> std::vector<std::string> {
    if (synced()) return {};
    return {"informers not synced"};
  };
  h.routes = [evaluator, synced](std::string_view method, std::string_view path,
                                 const std::string& body) -> std::optional<run::HttpReply> {
    const bool filter = Is(path, "filter");
    const bool prioritize = Is(path, "prioritize");
    if (!filter && !prioritize) return std::nullopt;
    if (method != "POST") {
      run::HttpReply reply = Text(405, "method not allowed: use POST");
      reply.headers.emplace_back("Allow", "POST");
      return reply;
    }
    auto args = extenders::DecodeExtenderArgs(body);
    if (filter) {
      extenders::FilterAnswer answer;
      if (!args.ok()) {
        answer.error = "berth extender: " + args.error();
      } else if (!synced()) {
        answer.error = "berth extender: informer caches not synced yet";
      } else {
        answer = evaluator->Filter(*args);
      }
      if (!answer.error.empty()) {
        BERTH_LOG(1) << "filter: " << answer.error;
      }
      BERTH_LOG(2) << "filter: " << answer.passed.size() << " passed, " << answer.failed.size()
                   << " failed, " << answer.failed_and_unresolvable.size() << " unresolvable";
      return run::HttpReply{200, "application/json", extenders::EncodeFilterAnswer(answer), {}};
    }
    if (!args.ok()) return Text(400, "berth extender: " + args.error());
    if (!synced()) return Text(503, "berth extender: informer caches not synced yet");
    auto scores = evaluator->Prioritize(*args);
    if (!scores.ok()) return Text(400, "berth extender: " + scores.error());
    return run::HttpReply{200, "application/json", extenders::EncodeHostPriorityList(*scores), {}};
  };
  return h;
}

Server::Server(ServerOptions options, const framework::Registry& registry)
    : options_(std::move(options)), registry_(registry) {}

Server::~Server() = default;

void Server::RequestShutdown() {
  {
    std::lock_guard lock(mu_);
    shutdown_ = true;
  }
  cv_.notify_all();
}

int Server::Run() {
  const config::SchedulerConfiguration& cfg = options_.config;
  framework::RealClock clock;
  api::ClusterObjects objects;
  auto evaluator = Evaluator::Create(cfg, options_.profile, registry_, &objects, &clock);
  if (!evaluator.ok()) {
    BERTH_ERROR() << "invalid configuration: " << evaluator.error();
    return 1;
  }
  client::BeastClient kube(options_.client, cfg.client_connection.qps, cfg.client_connection.burst,
                           client::ClientOptions{});
  if (auto ok = kube.InitStatus(); !ok) {
    BERTH_ERROR() << "kube client: " << ok.error();
    return 1;
  }
  informers::InformerFactory factory(kube, objects);
  run::ConnectNodesAndPods(factory, **evaluator, nullptr);
  factory.Start();

  run::HttpServerOptions http;
  const bool tls = !options_.tls_cert_file.empty();
  (tls ? http.secure_address : http.plain_address) = options_.listen;
  if (!tls) http.secure_address.clear();
  http.cert_file = options_.tls_cert_file;
  http.key_file = options_.tls_key_file;
  http.max_request_body = options_.max_request_bytes;
  http.max_connections = options_.max_connections;
  auto server = run::HttpServer::Start(
      http, MakeHandlers(evaluator->get(), [&factory] { return factory.HasSynced(); }));
  if (!server.ok()) {
    BERTH_ERROR() << "extender server: " << server.error();
    factory.Stop();
    return 1;
  }
  BERTH_LOG(0) << "berth extender: profile " << (*evaluator)->profile() << ", api server "
               << kube.Server() << ", serving /filter and /prioritize (also under /scheduler/) on "
               << (tls ? "https" : "http") << " port "
               << (tls ? (*server)->secure_port() : (*server)->plain_port());

  const auto deadline = std::chrono::steady_clock::now() + options_.cache_sync_timeout;
  bool synced_logged = false;
  int code = 0;
  std::unique_lock lock(mu_);
  while (!shutdown_) {
    cv_.wait_for(lock, std::chrono::milliseconds(100));
    if (!synced_logged && factory.HasSynced()) {
      BERTH_LOG(0) << "caches synced: " << (*evaluator)->NodeCount() << " nodes";
      synced_logged = true;
    }
    if (!synced_logged && std::chrono::steady_clock::now() > deadline) {
      std::string kinds;
      for (const auto& k : factory.Unsynced()) kinds += (kinds.empty() ? "" : ", ") + k;
      BERTH_ERROR() << "caches did not sync within " << options_.cache_sync_timeout.count()
                    << "s: " << kinds;
      code = 1;
      break;
    }
  }
  lock.unlock();
  BERTH_LOG(0) << "shutting down";
  (*server)->Stop();
  factory.Stop();
  return code;
}

}  // namespace berth::extender_server
