#include "cmd/berth/app/run/daemon.h"

#include "cmd/berth/app/run/cluster_feed.h"
#include "cmd/berth/app/run/podgroup_controller.h"

#include <unistd.h>

#include <map>

#include "base/log.h"
#include "api/json/parse.h"
#include "informers/client/beast_client.h"
#include "informers/informer.h"
#include "informers/leader_election.h"
#include "scheduler/binder/binder.h"
#include "scheduler/metrics/metrics.h"
#include "scheduler/scheduler.h"
#include "informers/writers/kube_writer.h"

namespace berth::run {

namespace {

using framework::ClusterEvent;
using framework::EventResource;
namespace action = framework::action;

std::string Hostname() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

// Wraps the API writer sink with one log line per decision (pod, node or reason, time taken).
class LoggingSink final : public framework::OutcomeSink {
 public:
  explicit LoggingSink(framework::OutcomeSink& next) : next_(next) {}
  void Attempted(const framework::PodInfo& pod) override {
    std::lock_guard lock(mu_);
    started_[pod.Uid()] = std::chrono::steady_clock::now();
  }
  void Scheduled(const framework::PodInfo& pod, const std::string& node,
                 const std::string& profile) override {
    BERTH_LOG(0) << "scheduled pod=" << pod.key << " node=" << node << " profile=" << profile
                 << " took=" << Took(pod.Uid(), true);
    next_.Scheduled(pod, node, profile);
  }
  void Failed(const framework::PodInfo& pod, const std::string& reason, const std::string& message,
              const std::string& profile) override {
    BERTH_LOG(0) << "unschedulable pod=" << pod.key << " reason=" << reason
                 << " took=" << Took(pod.Uid(), false) << " message=\"" << message << "\"";
    next_.Failed(pod, reason, message, profile);
  }

 private:
  std::string Took(const std::string& uid, bool erase) {
    std::lock_guard lock(mu_);
    auto it = started_.find(uid);
    if (it == started_.end()) return "?";
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - it->second)
            .count();
    if (erase) started_.erase(it);
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1fms", ms);
    return buf;
  }
  framework::OutcomeSink& next_;
  std::mutex mu_;  // guards started_
  std::map<std::string, std::chrono::steady_clock::time_point> started_;
};

// KubeClient decorator recording every request in berth_api_requests_total and
// berth_api_request_duration_seconds{verb,resource,code}.
class InstrumentedClient final : public client::KubeClient {
 public:
  InstrumentedClient(client::KubeClient& next, metrics::SchedulerMetrics& m) : next_(next), m_(m) {}
  Result<client::Response> Do(const client::Request& req) override {
    auto start = std::chrono::steady_clock::now();
    auto r = next_.Do(req);
    m_.ApiRequest(Verb(req), Resource(req.path), r.ok() ? r->status : 0, metrics::Since(start));
    return r;
  }
  Result<int> Stream(const client::Request& req,
                     const std::function<bool(std::string_view line)>& on_line,
                     const std::atomic<bool>* stop, std::string* error_body) override {
    auto start = std::chrono::steady_clock::now();
    auto r = next_.Stream(req, on_line, stop, error_body);
    m_.ApiRequest("WATCH", Resource(req.path), r.ok() ? *r : 0, metrics::Since(start));
    return r;
  }
  std::string Server() const override { return next_.Server(); }

 private:
  // "/api/v1/namespaces/ns/pods/p/binding" -> "pods/binding"; "/apis/g/v/nodes" -> "nodes".
  static std::string Resource(const std::string& path) {
    std::vector<std::string> parts;
    size_t i = 0;
    const std::string p = path.substr(0, path.find('?'));
    while (i < p.size()) {
      size_t j = p.find('/', i);
      if (j == std::string::npos) j = p.size();
      if (j > i) parts.push_back(p.substr(i, j - i));
      i = j + 1;
    }
    size_t k = parts.size() > 0 && parts[0] == "api" ? 2 : 3;  // skip api/v1 or apis/g/v
    if (k < parts.size() && parts[k] == "namespaces" && k + 2 < parts.size()) k += 2;
    if (k >= parts.size()) return "unknown";
    std::string r = parts[k];
    if (k + 2 < parts.size()) r += "/" + parts[k + 2];
    return r;
  }
  static std::string Verb(const client::Request& req) {
    if (req.method != "GET") return req.method;
    // A GET of a collection is a LIST (client-go's verb label).
    std::string r = Resource(req.path);
    const std::string p = req.path.substr(0, req.path.find('?'));
    return p.size() >= r.size() && p.compare(p.size() - r.size(), r.size(), r) == 0 ? "LIST"
                                                                                    : "GET";
  }

  client::KubeClient& next_;
  metrics::SchedulerMetrics& m_;
};

}  // namespace

struct Daemon::Impl {
  DaemonOptions options;
  const framework::Registry& registry;
  framework::RealClock clock;
  api::ClusterObjects objects;

  std::mutex mu;  // guards the flags below
  std::condition_variable cv;
  bool shutdown = false;
  bool leading = false;
  bool failed = false;

  Impl(DaemonOptions o, const framework::Registry& r) : options(std::move(o)), registry(r) {}

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
  int Run();
};

Daemon::Daemon(DaemonOptions options, const framework::Registry& registry)
    : impl_(std::make_unique<Impl>(std::move(options), registry)) {}

Daemon::~Daemon() = default;

void Daemon::RequestShutdown() { impl_->Signal(&impl_->shutdown); }

int Daemon::Run() { return impl_->Run(); }

int Daemon::Impl::Run() {
  const config::SchedulerConfiguration& cfg = options.config;
  metrics::SchedulerMetrics metrics;
  client::ClientOptions client_options;
  client_options.max_idle_connections = 32;  // one per binding worker and writer, and some
  auto beast = std::make_unique<client::BeastClient>(options.client, cfg.client_connection.qps,
                                                     cfg.client_connection.burst, client_options);
  if (auto ok = beast->InitStatus(); !ok) {
    BERTH_ERROR() << "kube client: " << ok.error();
    return 1;
  }
  auto client = std::make_unique<InstrumentedClient>(*beast, metrics);
  BERTH_LOG(0) << "berth starting: api server " << client->Server() << ", profiles "
               << cfg.profiles.size() << ", qps " << cfg.client_connection.qps << " burst "
               << cfg.client_connection.burst;

  writers::KubeApiWriter api_writer(
      *client, [this](const api::Pod& pod, std::shared_ptr<const api::Pod> current) {
        // The API server says the pod was deleted or bound elsewhere: update the store now so the
        // failure handler drops the pod quietly (the informer will confirm shortly).
        if (current) {
          objects.pods.Upsert(std::move(current));
        } else {
          objects.pods.Remove(pod.Key());
        }
      });
  api_writer.set_reporting_instance("berth-scheduler-" + Hostname());  // Preempted events
  writers::KubeOutcomeSink api_sink(*client, clock, "berth-scheduler-" + Hostname());
  LoggingSink sink(api_sink);
  // Binding workers: a fixed pool of 16 for ordinary bindings (as many pooled API connections),
  // and an elastic one for pods that wait in Permit (gangs), which may block for minutes.
  // Destroyed explicitly before the scheduler their tasks use (see the end of Run).
  auto plain_executor = std::make_unique<binder::ThreadPoolExecutor>(16, 16);
  auto waiting_executor = std::make_unique<binder::ThreadPoolExecutor>(4, 1024);
  binder::SplitExecutor executor(*plain_executor, *waiting_executor);

  scheduler::SchedulerDeps deps{&clock, &objects, &api_writer, &executor, &sink, &metrics};
  // Set at shutdown: bindings waiting in PreBind (volume provisioning) give up (Handle::Stopping).
  std::atomic<bool> stopping{false};
  deps.stopping = &stopping;
  for (const auto& e : options.extenders) deps.extenders.push_back(e.get());
  auto created = scheduler::Scheduler::Create(cfg, registry, deps, {});
  if (!created.ok()) {
    BERTH_ERROR() << "invalid configuration: " << created.error();
    return 1;
  }
  scheduler::Scheduler& sched = **created;

  informers::InformerFactory factory(*client, objects);
  // Nodes and pods -> the scheduler's event handlers (shared with `berth extender`).
  ConnectNodesAndPods(factory, sched, &metrics);
  // Other kinds only requeue pods that a plugin rejected for them.
  auto requeue = [&](auto& informer, EventResource resource, const char* label,
                     auto to_event_object) {
    using T = typename std::remove_reference_t<decltype(informer)>::Ptr::element_type;
    informer.AddEventHandlers({
        [&sched, resource, label, to_event_object](const std::shared_ptr<const T>& o) {
          sched.OnClusterEvent(ClusterEvent{resource, action::kAdd, std::string(label) + "Add"},
                               std::monostate{}, to_event_object(o.get()));
        },
        [&sched, resource, label, to_event_object](const std::shared_ptr<const T>& o,
                                                   const std::shared_ptr<const T>& n) {
          sched.OnClusterEvent(
              ClusterEvent{resource, action::kUpdate, std::string(label) + "Update"},
              to_event_object(o.get()), to_event_object(n.get()));
        },
        [&sched, resource, label, to_event_object](const std::shared_ptr<const T>& o) {
          sched.OnClusterEvent(
              ClusterEvent{resource, action::kDelete, std::string(label) + "Delete"},
              to_event_object(o.get()), std::monostate{});
        },
    });
  };
  auto as_obj = [](const auto* p) { return framework::EventObject(p); };
  requeue(factory.pvcs(), EventResource::kPersistentVolumeClaim, "PersistentVolumeClaim", as_obj);
  requeue(factory.pvs(), EventResource::kPersistentVolume, "PersistentVolume", as_obj);
  requeue(factory.storage_classes(), EventResource::kStorageClass, "StorageClass", as_obj);
  requeue(factory.csi_nodes(), EventResource::kCSINode, "CSINode", as_obj);
  requeue(factory.services(), EventResource::kService, "Service", as_obj);
  requeue(factory.pod_groups(), EventResource::kPodGroup, "PodGroup", as_obj);
  // storage.deckhouse.io objects carry no event object (EventObject has no such alternative).
  auto no_obj = [](const auto*) { return framework::EventObject(std::monostate{}); };
  requeue(factory.replicated_storage_classes(), EventResource::kReplicatedStorage,
          "ReplicatedStorageClass", no_obj);
  requeue(factory.replicated_storage_pools(), EventResource::kReplicatedStorage,
          "ReplicatedStoragePool", no_obj);
  requeue(factory.lvm_volume_groups(), EventResource::kReplicatedStorage, "LVMVolumeGroup",
          no_obj);
  requeue(factory.lvm_logical_volumes(), EventResource::kReplicatedStorage, "LVMLogicalVolume",
          no_obj);
  requeue(factory.replicated_volumes(), EventResource::kReplicatedStorage, "ReplicatedVolume",
          no_obj);
  // Gang status, as scheduler-plugins' PodGroup controller keeps it (leader only).
  PodGroupController pg_controller(*client, objects, clock, [this] {
    std::lock_guard lock(mu);
    return leading;
  });
  factory.pods().AddEventHandlers({
      [&](const auto& p) { pg_controller.Enqueue(PodGroupController::GroupKeyOf(*p)); },
      [&](const auto& o, const auto& n) {
        pg_controller.Enqueue(PodGroupController::GroupKeyOf(*o));
        pg_controller.Enqueue(PodGroupController::GroupKeyOf(*n));
      },
      [&](const auto& p) { pg_controller.Enqueue(PodGroupController::GroupKeyOf(*p)); },
  });
  auto group_key = [](const auto& g) { return g->metadata.namespace_ + "/" + g->metadata.name; };
  factory.pod_groups().AddEventHandlers({
      [&](const auto& g) { pg_controller.Enqueue(group_key(g)); },
      [&](const auto&, const auto& g) { pg_controller.Enqueue(group_key(g)); },
      nullptr,
  });
  factory.Start();
  pg_controller.Start();

  // Health, readiness, metrics and configz, served from the start (readyz fails until synced).
  std::unique_ptr<informers::LeaderElector> elector;
  bool ever_led = false;  // guarded by mu
  HttpHandlers handlers;
  handlers.readiness = [&]() {
    std::vector<std::string> reasons;
    if (!factory.HasSynced()) {
      std::string kinds;
      for (const auto& k : factory.Unsynced()) kinds += (kinds.empty() ? "" : ", ") + k;
      reasons.push_back("informers not synced: " + kinds);
    }
    std::lock_guard lock(mu);
    if (ever_led && !leading) reasons.push_back("leader election: lease lost, campaigning again");
    if (shutdown) reasons.push_back("shutting down");
    return reasons;
  };
  handlers.metrics = [&metrics, &beast, &factory, &sched]() {
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
    return metrics.Serialize();
  };
  handlers.configz = [&]() {
    api::Value doc = api::Value::MakeObject();
    doc.Set("apiVersion", api::Value::String("kubescheduler.config.k8s.io/v1"));
    doc.Set("kind", api::Value::String("KubeSchedulerConfiguration"));
    doc.Set("parallelism", api::Value::Int(cfg.parallelism));
    doc.Set("percentageOfNodesToScore", api::Value::Int(cfg.percentage_of_nodes_to_score));
    doc.Set("podInitialBackoffSeconds", api::Value::Int(cfg.pod_initial_backoff_seconds));
    doc.Set("podMaxBackoffSeconds", api::Value::Int(cfg.pod_max_backoff_seconds));
    api::Value le = api::Value::MakeObject();
    le.Set("leaderElect", api::Value::Bool(cfg.leader_election.leader_elect));
    le.Set("resourceName", api::Value::String(cfg.leader_election.resource_name));
    doc.Set("leaderElection", std::move(le));
    api::Value cc = api::Value::MakeObject();
    cc.Set("qps", api::Value::Double(cfg.client_connection.qps));
    cc.Set("burst", api::Value::Int(cfg.client_connection.burst));
    doc.Set("clientConnection", std::move(cc));
    api::Value profiles = api::Value::MakeArray();
    for (const auto& [name, fwk] : sched.profiles()) {
      api::Value prof = api::Value::MakeObject();
      prof.Set("schedulerName", api::Value::String(name));
      api::Value plugins = api::Value::MakeObject();
      for (const auto& [point, names] : fwk->PluginNamesByPoint()) {
        api::Value list = api::Value::MakeArray();
        for (const auto& n : names) {
          api::Value e = api::Value::MakeObject();
          e.Set("name", api::Value::String(n));
          if (point == "score") e.Set("weight", api::Value::Int(fwk->ScoreWeight(n)));
          list.Push(std::move(e));
        }
        plugins.Set(point, std::move(list));
      }
      prof.Set("plugins", std::move(plugins));
      profiles.Push(std::move(prof));
    }
    doc.Set("profiles", std::move(profiles));
    return api::json::ToJson(doc);
  };
  auto server = HttpServer::Start(options.http, handlers);
  if (!server.ok()) {
    BERTH_ERROR() << "health/metrics server: " << server.error();
    pg_controller.Stop();
    factory.Stop();
    return 1;
  }
  BERTH_LOG(0) << "serving /healthz /livez /readyz /metrics /configz on https port "
               << (*server)->secure_port()
               << ((*server)->plain_port() > 0
                       ? " and http port " + std::to_string((*server)->plain_port())
                       : std::string());

  // Wait for the first lists, so the first decisions see the whole cluster.
  const auto sync_deadline = std::chrono::steady_clock::now() + options.cache_sync_timeout;
  while (!factory.HasSynced()) {
    if (Stopping()) {
      pg_controller.Stop();
      factory.Stop();
      return 0;
    }
    if (std::chrono::steady_clock::now() > sync_deadline) {
      std::string kinds;
      for (const auto& k : factory.Unsynced()) kinds += (kinds.empty() ? "" : ", ") + k;
      BERTH_ERROR() << "caches did not sync within " << options.cache_sync_timeout.count()
                    << "s: " << kinds;
      pg_controller.Stop();
      factory.Stop();
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  BERTH_LOG(0) << "caches synced: " << sched.cache().NodeCount() << " nodes, "
               << objects.pods.Size() << " pods";

  if (cfg.leader_election.leader_elect) {
    informers::LeaderElectionConfig le;
    le.lease_namespace = cfg.leader_election.resource_namespace.empty()
                             ? options.pod_namespace
                             : cfg.leader_election.resource_namespace;
    le.lease_name = cfg.leader_election.resource_name;
    le.lease_duration = cfg.leader_election.lease_duration;
    le.renew_deadline = cfg.leader_election.renew_deadline;
    le.retry_period = cfg.leader_election.retry_period;
    le.on_started_leading = [this, &pg_controller, &ever_led] {
      BERTH_LOG(0) << "became leader: scheduling starts";
      {
        std::lock_guard lock(mu);
        ever_led = true;
      }
      Signal(&leading);
      pg_controller.EnqueueAll();  // statuses a standby left alone
    };
    le.on_stopped_leading = [this] {
      if (Stopping()) return;
      // Unlike kube-scheduler, which exits, berth pauses and campaigns again: its informers
      // keep the cache current, and binding preconditions make a late bind fail with 409.
      BERTH_WARN() << "lost the lease: scheduling paused until re-elected";
      {
        std::lock_guard lock(mu);
        leading = false;
      }
      cv.notify_all();
    };
    le.on_new_leader = [](const std::string& id) { BERTH_LOG(0) << "leader is " << id; };
    auto e = informers::LeaderElector::Create(*client, le);
    if (!e.ok()) {
      BERTH_ERROR() << e.error();
      pg_controller.Stop();
      factory.Stop();
      return 1;
    }
    elector = std::move(*e);
    BERTH_LOG(0) << "campaigning for lease " << le.lease_namespace << "/" << le.lease_name << " as "
                 << elector->identity();
    elector->Start();
  } else {
    Signal(&leading);
  }

  std::thread scheduling([&] {
    for (;;) {
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return leading || shutdown || failed; });
        if (shutdown || failed) return;
      }
      if (!sched.ScheduleOne(/*block=*/true)) return;  // queue closed
    }
  });
  std::map<std::string, informers::ReflectorStats> last_stats;
  std::chrono::nanoseconds last_wait{0};
  // Informer and client counters -> metrics (deltas since the last tick).
  auto export_counters = [&] {
    for (const auto& [kind, st] : factory.Stats()) {
      auto& last = last_stats[kind];
      for (int64_t i = last.watch_restarts; i < st.watch_restarts; ++i) {
        metrics.InformerWatchRestart(kind);
      }
      for (int64_t i = last.relists; i < st.relists; ++i) metrics.InformerRelist(kind);
      if (st.last_sync_time != last.last_sync_time &&
          st.last_sync_time.time_since_epoch().count() != 0) {
        metrics.InformerSynced(kind, st.last_sync_time);
      }
      last = st;
    }
    auto wait = beast->Stats().rate_limit_wait;
    if (wait > last_wait) {
      metrics.RateLimiterWait(std::chrono::duration<double>(wait - last_wait).count());
      last_wait = wait;
    }
  };
  std::thread timers([&] {
    auto last_backoff = std::chrono::steady_clock::now();
    auto last_leftover = last_backoff;
    std::unique_lock lock(mu);
    while (!shutdown && !failed) {
      cv.wait_for(lock, std::chrono::milliseconds(100));
      if (shutdown || failed) break;
      lock.unlock();
      sched.ExpireWaitingPods();
      auto now = std::chrono::steady_clock::now();
      if (now - last_backoff >= std::chrono::seconds(1)) {
        sched.queue().FlushBackoffCompleted();
        export_counters();
        last_backoff = now;
      }
      if (now - last_leftover >= std::chrono::seconds(30)) {
        sched.queue().FlushUnschedulableLeftover();
        last_leftover = now;
      }
      lock.lock();
    }
  });

  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return shutdown || failed; });
  }
  const bool was_failure = failed && !shutdown;
  BERTH_LOG(0) << (was_failure ? "stopping after a fatal error" : "shutting down");
  sched.queue().Close();
  scheduling.join();
  timers.join();
  // Waiting pods would hold binding workers forever: reject them (their Unreserve runs).
  for (const auto& [name, fwk] : sched.profiles()) {
    fwk->IterateOverWaitingPods(
        [](framework::WaitingPod& wp) { wp.Reject("", "scheduler is shutting down"); });
  }
  stopping.store(true);
  waiting_executor.reset();  // finishes bindings in flight
  plain_executor.reset();
  (*server)->Stop();
  pg_controller.Stop();
  factory.Stop();
  if (elector) elector->Stop();
  api_sink.Flush(std::chrono::seconds(2));
  return was_failure ? 1 : 0;
}

}  // namespace berth::run
