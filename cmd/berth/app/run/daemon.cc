#include "cmd/berth/app/run/daemon.h"

#include <unistd.h>

#include <map>
#include <optional>
#include <set>

#include "base/fault_counters.h"
#include "base/log.h"
#include "base/strings.h"
#include "cmd/berth/app/run/cluster_feed.h"
#include "cmd/berth/app/run/explain_route.h"
#include "cmd/berth/app/run/logging_sink.h"
#include "cmd/berth/app/run/podgroup_controller.h"
#include "cmd/berth/app/serving/debug_flags.h"
#include "config/encode.h"
#include "informers/client/beast_client.h"
#include "informers/client/instrumented_client.h"
#include "informers/informer.h"
#include "informers/leader_election.h"
#include "informers/writers/kube_writer.h"
#include "scheduler/binder/binder.h"
#include "scheduler/housekeeping.h"
#include "scheduler/metrics/metrics.h"
#include "scheduler/metrics/resource_metrics.h"
#include "scheduler/scheduler.h"

namespace berth::run {

namespace {

std::string Hostname() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

// Runs `stop` once, at Stop() or when the guard goes out of scope: what Run started is stopped
// on every way out of it.
class StopGuard {
 public:
  explicit StopGuard(std::function<void()> stop) : stop_(std::move(stop)) {}
  ~StopGuard() { Stop(); }
  StopGuard(const StopGuard&) = delete;
  StopGuard& operator=(const StopGuard&) = delete;
  void Stop() {
    if (!stop_) return;
    auto stop = std::move(stop_);
    stop_ = nullptr;
    stop();
  }

 private:
  std::function<void()> stop_;
};

// Informer and client counters -> metrics, as deltas since the previous Export (called from the
// housekeeping thread only).
class CounterExporter {
 public:
  CounterExporter(metrics::SchedulerMetrics& metrics, const informers::InformerFactory& factory,
                  const client::BeastClient& client)
      : metrics_(metrics), factory_(factory), client_(client) {}

  void Export() {
    for (const auto& [kind, st] : factory_.Stats()) {
      auto& last = last_stats_[kind];
      for (int64_t i = last.watch_restarts; i < st.watch_restarts; ++i) {
        metrics_.InformerWatchRestart(kind);
      }
      for (int64_t i = last.relists; i < st.relists; ++i) metrics_.InformerRelist(kind);
      if (st.last_sync_time != last.last_sync_time &&
          st.last_sync_time.time_since_epoch().count() != 0) {
        metrics_.InformerSynced(kind, st.last_sync_time);
      }
      last = st;
    }
    auto wait = client_.Stats().rate_limit_wait;
    if (wait > last_wait_) {
      metrics_.RateLimiterWait(std::chrono::duration<double>(wait - last_wait_).count());
      last_wait_ = wait;
    }
  }

 private:
  metrics::SchedulerMetrics& metrics_;
  const informers::InformerFactory& factory_;
  const client::BeastClient& client_;
  std::map<std::string, informers::ReflectorStats> last_stats_;
  std::chrono::nanoseconds last_wait_{0};
};

// Pods and PodGroups -> the PodGroup status controller's work queue (the factory runs PodGroups).
void ConnectPodGroupController(informers::InformerFactory& factory, PodGroupController& pg) {
  factory.pods().AddEventHandlers({
      [&pg](const auto& p) { pg.Enqueue(PodGroupController::GroupKeyOf(*p)); },
      [&pg](const auto& o, const auto& n) {
        pg.Enqueue(PodGroupController::GroupKeyOf(*o));
        pg.Enqueue(PodGroupController::GroupKeyOf(*n));
      },
      [&pg](const auto& p) { pg.Enqueue(PodGroupController::GroupKeyOf(*p)); },
  });
  auto group_key = [](const auto& g) { return g->metadata.namespace_ + "/" + g->metadata.name; };
  factory.Find<api::PodGroup>()->AddEventHandlers({
      [&pg, group_key](const auto& g) { pg.Enqueue(group_key(g)); },
      [&pg, group_key](const auto&, const auto& g) { pg.Enqueue(group_key(g)); },
      nullptr,
  });
}

// The kinds the profiles' plugins read (Registry::Reads) besides Pods and Nodes; every kind
// when extenders are configured, since a pod an extender rejected waits for any cluster event.
std::optional<std::set<std::string>> KindsToWatch(const scheduler::Scheduler& sched,
                                                  const framework::Registry& registry,
                                                  bool extenders) {
  if (extenders) return std::nullopt;
  std::set<std::string> kinds;
  for (const auto& [profile, fwk] : sched.profiles()) {
    for (const auto& [point, names] : fwk->PluginNamesByPoint()) {
      for (const auto& name : names) {
        for (const auto& k : registry.Reads(name)) kinds.insert(k);
      }
    }
  }
  return kinds;
}

std::string UnsyncedKinds(const informers::InformerFactory& factory) {
  std::string kinds;
  for (const auto& k : factory.Unsynced()) kinds += (kinds.empty() ? "" : ", ") + k;
  return kinds;
}

// Waiting pods would hold binding workers forever: reject them (their Unreserve runs).
void RejectWaitingPods(scheduler::Scheduler& sched) {
  for (const auto& [name, fwk] : sched.profiles()) {
    fwk->IterateOverWaitingPods(
        [](framework::WaitingPod& wp) { wp.Reject("", "scheduler is shutting down"); });
  }
}

}  // namespace

struct Daemon::Impl {
  DaemonOptions options;
  const framework::Registry& registry;
  framework::RealClock clock;
  api::ClusterObjects objects;
  metrics::SchedulerMetrics metrics;
  std::unique_ptr<client::BeastClient> beast;
  std::unique_ptr<client::KubeClient> client;  // beast, instrumented

  std::mutex mu;  // guards the flags below
  std::condition_variable cv;
  bool shutdown = false;
  bool leading = false;
  bool failed = false;
  bool ever_led = false;
  std::string leader;  // the lease holder's identity, when known

  // The diagnoses /debug/explain serves and berth_pending_pod_reasons counts.
  diagnosis::Store diagnoses;

  Impl(DaemonOptions o, const framework::Registry& r)
      : options(std::move(o)),
        registry(r),
        diagnoses(diagnosis::StoreOptions{options.explain_placed_pods}) {}

  void Signal(bool* flag) {
    {
      std::lock_guard lock(mu);
      *flag = true;
    }
    cv.notify_all();
  }
  bool Stopping() {
    std::lock_guard lock(mu);
    return shutdown || failed;
  }
  bool Leading() {
    std::lock_guard lock(mu);
    return leading;
  }

  int Run();
  // The pieces of Run, in order.
  bool ConnectClient();
  HttpHandlers Handlers(informers::InformerFactory& factory, scheduler::Scheduler& sched);
  Result<std::unique_ptr<HttpServer>> StartServer(HttpHandlers handlers);
  enum class Sync { kSynced, kStopped, kTimedOut };
  Sync WaitForCaches(const informers::InformerFactory& factory);
  // Null without leader election (this instance leads at once).
  // pg may be null (no PodGroup informer).
  Result<std::unique_ptr<informers::LeaderElector>> StartLeaderElection(PodGroupController* pg);
  // The scheduling thread: while leading, ScheduleOne until the queue closes or shutdown.
  void ScheduleLoop(scheduler::Scheduler& sched);
  // Blocks until shutdown or failure; true on failure.
  bool WaitForStop();
};

Daemon::Daemon(DaemonOptions options, const framework::Registry& registry)
    : impl_(std::make_unique<Impl>(std::move(options), registry)) {}

Daemon::~Daemon() = default;

void Daemon::RequestShutdown() { impl_->Signal(&impl_->shutdown); }

int Daemon::Run() { return impl_->Run(); }

bool Daemon::Impl::ConnectClient() {
  const config::SchedulerConfiguration& cfg = options.config;
  client::ClientOptions client_options;
  client_options.max_idle_connections = 32;  // one per binding worker and writer, and some
  beast = std::make_unique<client::BeastClient>(options.client, cfg.client_connection.qps,
                                                cfg.client_connection.burst, client_options);
  if (auto ok = beast->InitStatus(); !ok) {
    BERTH_ERROR_S(ok.error(), "Unable to create the kube client");
    return false;
  }
  client =
      std::make_unique<client::InstrumentedClient>(*beast, [this](const client::RequestRecord& r) {
        metrics.ApiRequest(r.verb, r.resource, r.code, r.seconds);
      });
  BERTH_INFO_S(0, "Starting berth", "server", client->Server(), "profiles", cfg.profiles.size(),
               "qps", cfg.client_connection.qps, "burst", cfg.client_connection.burst);
  return true;
}

// Health, readiness, metrics and configz, served from the start (readyz fails until synced).
HttpHandlers Daemon::Impl::Handlers(informers::InformerFactory& factory,
                                    scheduler::Scheduler& sched) {
  HttpHandlers handlers;
  handlers.readiness = [this, &factory]() {
    std::vector<std::string> reasons;
    if (!factory.HasSynced()) reasons.push_back("informers not synced: " + UnsyncedKinds(factory));
    std::lock_guard lock(mu);
    if (ever_led && !leading) reasons.push_back("leader election: lease lost, campaigning again");
    if (shutdown) reasons.push_back("shutting down");
    return reasons;
  };
  handlers.metrics = [this, &sched]() {
    metrics::PendingPodCounts q;
    auto c = sched.queue().Counts();
    q.active = c.active;
    q.backoff = c.backoff;
    q.unschedulable = c.unschedulable;
    q.gated = c.gated;
    metrics.PendingPods(q);
    metrics.CacheSize({static_cast<int64_t>(sched.cache().NodeCount()),
                       static_cast<int64_t>(sched.cache().PodCount()),
                       static_cast<int64_t>(sched.cache().AssumedPodCount())});
    metrics.PendingPodReasons(diagnoses.ReasonCounts());
    return metrics.Serialize();
  };
  handlers.configz = [this]() {
    // As loaded and defaulted, with the lease namespace berth actually uses.
    config::SchedulerConfiguration effective = options.config;
    if (effective.leader_election.resource_namespace.empty()) {
      effective.leader_election.resource_namespace = options.pod_namespace;
    }
    return config::RenderConfigz(effective);
  };
  // /metrics/resources, as kube-scheduler: the leader answers with every pod's requests and
  // limits; a standby answers 200 with an empty body.
  const api::Store<api::Pod>& pods = factory.pods().store();
  // /debug/flags/v (run-time verbosity) too, as upstream does when profiling is enabled.
  handlers.routes = [this, &pods, debug_flags = options.debug_flags](
                        std::string_view method, std::string_view path,
                        const std::string& body) -> std::optional<HttpReply> {
    if (path.starts_with("/debug/explain/")) {
      ExplainRouteState st;
      {
        std::lock_guard lock(mu);
        st.leading = leading;
        st.leader = leader;
      }
      return ExplainRoute(method, path, diagnoses, st);
    }
    if (path != "/metrics/resources") {
      if (debug_flags) return DebugFlagsRoute(method, path, body);
      return std::nullopt;
    }
    if (method != "GET" && method != "HEAD") {
      return HttpReply{
          405, "text/plain; charset=utf-8", "method not allowed\n", {{"Allow", "GET, HEAD"}}};
    }
    {
      std::lock_guard lock(mu);
      if (!leading) return HttpReply{200, "text/plain; version=0.0.4; charset=utf-8", "", {}};
    }
    return HttpReply{200,
                     "text/plain; version=0.0.4; charset=utf-8",
                     metrics::RenderPodResourceMetrics(pods.List()),
                     {}};
  };
  if (options.auth && options.auth->auth) {
    handlers.authorize = [auth = options.auth->auth.get()](RequestCredentials request,
                                                           AuthorizeDone done) {
      auth->Authorize(std::move(request), std::move(done));
    };
  }
  return handlers;
}

Result<std::unique_ptr<HttpServer>> Daemon::Impl::StartServer(HttpHandlers handlers) {
  auto server = HttpServer::Start(options.http, std::move(handlers));
  if (!server.ok()) {
    BERTH_ERROR() << "health/metrics server: " << server.error();
    return server;
  }
  BERTH_LOG(0) << "serving /healthz /livez /readyz /metrics /configz on https port "
               << (*server)->secure_port()
               << ((*server)->plain_port() > 0
                       ? " and http port " + std::to_string((*server)->plain_port())
                       : std::string());
  return server;
}

// Waits for the first lists, so the first decisions see the whole cluster.
Daemon::Impl::Sync Daemon::Impl::WaitForCaches(const informers::InformerFactory& factory) {
  const auto sync_deadline = std::chrono::steady_clock::now() + options.cache_sync_timeout;
  while (!factory.HasSynced()) {
    if (Stopping()) return Sync::kStopped;
    if (std::chrono::steady_clock::now() > sync_deadline) {
      BERTH_ERROR() << "caches did not sync within " << options.cache_sync_timeout.count()
                    << "s: " << UnsyncedKinds(factory);
      return Sync::kTimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Sync::kSynced;
}

Result<std::unique_ptr<informers::LeaderElector>> Daemon::Impl::StartLeaderElection(
    PodGroupController* pg) {
  const config::SchedulerConfiguration& cfg = options.config;
  if (!cfg.leader_election.leader_elect) {
    Signal(&leading);
    return std::unique_ptr<informers::LeaderElector>();
  }
  informers::LeaderElectionConfig le;
  le.lease_namespace = cfg.leader_election.resource_namespace.empty()
                           ? options.pod_namespace
                           : cfg.leader_election.resource_namespace;
  le.lease_name = cfg.leader_election.resource_name;
  const std::string lease = le.lease_namespace + "/" + le.lease_name;
  le.lease_duration = cfg.leader_election.lease_duration;
  le.renew_deadline = cfg.leader_election.renew_deadline;
  le.retry_period = cfg.leader_election.retry_period;
  metrics.LeaderElectionStatus(le.lease_name, false);
  le.on_started_leading = [this, pg, lease, lease_name = le.lease_name] {
    metrics.LeaderElectionStatus(lease_name, true);
    BERTH_INFO_S(0, "Successfully acquired lease; became leader, scheduling starts", "lease",
                 lease);
    {
      std::lock_guard lock(mu);
      ever_led = true;
    }
    Signal(&leading);
    if (pg != nullptr) pg->EnqueueAll();  // statuses a standby left alone
  };
  le.on_stopped_leading = [this, lease, lease_name = le.lease_name] {
    metrics.LeaderElectionStatus(lease_name, false);
    if (Stopping()) return;
    // Unlike kube-scheduler, which exits, berth pauses and campaigns again: its informers
    // keep the cache current, and binding preconditions make a late bind fail with 409.
    BERTH_WARN_S("Leader election lost the lease: scheduling paused until re-elected", "lease",
                 lease);
    {
      std::lock_guard lock(mu);
      leading = false;
    }
    cv.notify_all();
  };
  le.on_new_leader = [this, lease](const std::string& id) {
    BERTH_INFO_S(0, "New leader elected", "lease", lease, "identity", id);
    std::lock_guard lock(mu);
    leader = id;
  };
  auto elector = informers::LeaderElector::Create(*client, le);
  if (!elector.ok()) {
    BERTH_ERROR_S(elector.error(), "Unable to start leader election", "lease", lease);
    return elector.status();
  }
  BERTH_INFO_S(0, "Attempting to acquire leader lease; campaigning", "lease", lease, "identity",
               (*elector)->identity());
  (*elector)->Start();
  return std::move(*elector);
}

void Daemon::Impl::ScheduleLoop(scheduler::Scheduler& sched) {
  for (;;) {
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return leading || shutdown || failed; });
      if (shutdown || failed) return;
    }
    try {
      if (!sched.ScheduleOne(/*block=*/true)) return;  // queue closed
    } catch (const std::exception& e) {
      // Nothing may escape the thread (std::terminate): log and go on with the next pod.
      BERTH_ERROR_S(e.what(), "Scheduling loop error");
      CountFault(Fault::kRecoveredException, "scheduling");
    }
  }
}

bool Daemon::Impl::WaitForStop() {
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return shutdown || failed; });
  return failed && !shutdown;
}

// Wires the daemon (the header's threads), runs until shutdown and stops everything in reverse.
// About 80 lines: one straight sequence of steps whose locals outlive each other in this order;
// the steps themselves are the functions above.
int Daemon::Impl::Run() {
  if (!ConnectClient()) return 1;
  const std::string instance = "berth-scheduler-" + Hostname();
  writers::KubeApiWriter api_writer(*client);
  api_writer.set_reporting_instance(instance);  // Preempted events
  writers::KubeOutcomeSink api_sink(*client, clock, instance);
  LoggingSink sink(api_sink);
  // Binding workers: a fixed pool of 16 for ordinary bindings (as many pooled API connections),
  // and an elastic one for pods that wait in Permit (gangs), which may block for minutes.
  // At most 256 ordinary bindings wait for a worker (~0.2 s of Binding calls at the API server's
  // pace): beyond that the scheduling thread waits, instead of assuming a whole backlog ahead of
  // its bindings (each held an assumed copy of its pod and its CycleState: ~5 KB a pod, the
  // largest item of the heap peak on a backlog of 3000 pods).
  // Destroyed explicitly before the scheduler their tasks use (see the end of Run).
  auto plain_executor = std::make_unique<binder::ThreadPoolExecutor>(16, 16, 256);
  auto waiting_executor = std::make_unique<binder::ThreadPoolExecutor>(4, 1024);
  binder::SplitExecutor executor(*plain_executor, *waiting_executor);
  scheduler::SchedulerDeps deps{&clock, &objects, &api_writer, &executor, &sink, &metrics};
  deps.diagnoses = &diagnoses;
  // Set at shutdown: bindings waiting in PreBind (volume provisioning) give up (Handle::Stopping).
  std::atomic<bool> stopping{false};
  deps.stopping = &stopping;
  for (const auto& e : options.extenders) deps.extenders.push_back(e.get());
  auto created = scheduler::Scheduler::Create(options.config, registry, deps, {});
  if (!created.ok()) {
    BERTH_ERROR_S(created.error(), "Invalid configuration");
    return 1;
  }
  scheduler::Scheduler& sched = **created;

  // Only the informers the profiles need (Pods and Nodes always).
  informers::InformerFactory factory(*client, objects, {},
                                     KindsToWatch(sched, registry, !options.extenders.empty()));
  BERTH_LOG(0) << "informers: " << Join(factory.Kinds(), ", ");
  ConnectNodesAndPods(factory, sched, &metrics);  // shared with `berth extender`
  ConnectRequeueEvents(factory, sched);
  // Gang status, as scheduler-plugins' PodGroup controller keeps it (leader only), when PodGroups
  // are watched (Coscheduling).
  std::unique_ptr<PodGroupController> pg_controller;
  if (factory.Find<api::PodGroup>() != nullptr) {
    pg_controller =
        std::make_unique<PodGroupController>(*client, objects, clock, [this] { return Leading(); });
    ConnectPodGroupController(factory, *pg_controller);
  }
  factory.Start();
  if (pg_controller) pg_controller->Start();
  StopGuard informers_guard([&] {
    if (pg_controller) pg_controller->Stop();
    factory.Stop();
  });

  auto server = StartServer(Handlers(factory, sched));
  if (!server.ok()) return 1;
  switch (WaitForCaches(factory)) {
    case Sync::kStopped:
      return 0;
    case Sync::kTimedOut:
      return 1;
    case Sync::kSynced:
      break;
  }
  BERTH_INFO_S(0, "Informer caches synced", "nodes", sched.cache().NodeCount(), "pods",
               objects.pods.Size());
  auto elector = StartLeaderElection(pg_controller.get());
  if (!elector.ok()) return 1;

  std::thread scheduling([&] { ScheduleLoop(sched); });
  CounterExporter counters(metrics, factory, *beast);
  scheduler::Housekeeping housekeeping(sched, {}, [&counters] { counters.Export(); });
  housekeeping.Start();

  const bool was_failure = WaitForStop();
  if (was_failure) {
    BERTH_ERROR_S("fatal error", "Stopping after a fatal error");
  } else {
    BERTH_INFO_S(0, "Shutting down");
  }
  sched.queue().Close();
  scheduling.join();
  housekeeping.Stop();
  RejectWaitingPods(sched);
  stopping.store(true);
  waiting_executor.reset();  // finishes bindings in flight
  plain_executor.reset();
  (*server)->Stop();
  informers_guard.Stop();
  if (*elector) (*elector)->Stop();
  api_sink.Flush(std::chrono::seconds(2));
  return was_failure ? 1 : 0;
}

}  // namespace berth::run
