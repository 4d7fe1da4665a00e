#include "scheduler/metrics/metrics.h"

#include <array>
#include <charconv>
#include <cmath>
#include <random>
#include <sstream>
#include <utility>

#include "base/version.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "scheduler/metrics/label_cache.h"

namespace berth::metrics {

using prometheus::Counter;
using prometheus::Gauge;
using prometheus::Histogram;
template <size_t N>
using Counters = internal::ChildCache<Counter, N>;
template <size_t N>
using Gauges = internal::ChildCache<Gauge, N>;
template <size_t N>
using Histograms = internal::ChildCache<Histogram, N>;

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  if (count < 1 || start <= 0 || factor <= 1) return out;
  out.reserve(count);
  double b = start;
  for (int i = 0; i < count; ++i) {
    out.push_back(b);
    b *= factor;
  }
  return out;
}

namespace {

prometheus::Family<Counter>& CounterFamily(prometheus::Registry& r, const char* name,
                                           const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}
prometheus::Family<Gauge>& GaugeFamily(prometheus::Registry& r, const char* name,
                                       const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(r);
}
prometheus::Family<Histogram>& HistogramFamily(prometheus::Registry& r, const char* name,
                                               const std::string& help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r);
}

// component-base prefixes every help text with the metric's stability level: "[STABLE] ...".
std::string Stable(const char* help) { return std::string("[STABLE] ") + help; }
std::string Beta(const char* help) { return std::string("[BETA] ") + help; }
std::string Alpha(const char* help) { return std::string("[ALPHA] ") + help; }

// Same breakdown as upstream's getAttemptsLabel: capped to keep the cardinality low.
constexpr std::array<std::string_view, 16> kAttemptsLabels = {
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15+"};

// Same buckets as client-go's rest_client_request_duration_seconds.
const std::vector<double> kApiLatencyBuckets = {0.005, 0.025, 0.1, 0.25, 0.5,  1.0,
                                                2.0,   4.0,   8.0, 15.0, 30.0, 60.0};

}  // namespace

// Help strings and stability levels are upstream v1.37.2's (pkg/scheduler/metrics/metrics.go) for
// the scheduler_* families; berth_* families carry no level.
struct SchedulerMetrics::Families {
  explicit Families(prometheus::Registry& r)
      : schedule_attempts(
            CounterFamily(r, "scheduler_schedule_attempts_total",
                          Stable("Number of attempts to schedule pods, by the result. "
                                 "'unschedulable' means a pod could not be scheduled, while "
                                 "'error' means an internal scheduler problem.")),
            {"result", "profile"}),
        attempt_duration(
            HistogramFamily(r, "scheduler_scheduling_attempt_duration_seconds",
                            Stable("Scheduling attempt latency in seconds (scheduling algorithm + "
                                   "binding)")),
            {"result", "profile"}, ExponentialBuckets(0.001, 2, 15)),
        algorithm_duration(HistogramFamily(r, "scheduler_scheduling_algorithm_duration_seconds",
                                           Beta("Scheduling algorithm latency in seconds"))
                               .Add({}, ExponentialBuckets(0.001, 2, 15))),
        pending_pods_family(GaugeFamily(
            r, "scheduler_pending_pods",
            Stable(
                "Number of pending pods, by the queue type. 'active' means number of pods in "
                "activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number "
                "of pods in unschedulableEntities that the scheduler attempted to schedule and "
                "failed; 'gated' is the number of unschedulable pods that the scheduler never "
                "attempted to schedule because they are gated; 'incomplete' means number of pods "
                "in "
                "incompletePodGroupPods; 'pending' means number of pods in pendingPodGroupPods."))),
        pending_active(pending_pods_family.Add({{"queue", std::string(kActiveQueue)}})),
        pending_backoff(pending_pods_family.Add({{"queue", std::string(kBackoffQueue)}})),
        pending_unschedulable(
            pending_pods_family.Add({{"queue", std::string(kUnschedulableQueue)}})),
        pending_gated(pending_pods_family.Add({{"queue", std::string(kGatedQueue)}})),
        incoming_pods(
            CounterFamily(
                r, "scheduler_queue_incoming_pods_total",
                Stable("Number of pods added to scheduling queues by event and queue type.")),
            {"queue", "event"}),
        extension_point(
            HistogramFamily(
                r, "scheduler_framework_extension_point_duration_seconds",
                Stable("Latency for running all plugins of a specific extension point.")),
            {"extension_point", "status", "profile"}, ExponentialBuckets(0.0001, 2, 12)),
        plugin_execution(
            HistogramFamily(r, "scheduler_plugin_execution_duration_seconds",
                            Beta("Duration for running a plugin at a specific extension point.")),
            {"plugin", "extension_point", "status"}, ExponentialBuckets(0.00001, 1.5, 20)),
        sli_duration(HistogramFamily(
                         r, "scheduler_pod_scheduling_sli_duration_seconds",
                         Beta("E2e latency for a pod being scheduled, from the time the pod enters "
                              "the scheduling queue and might involve multiple scheduling "
                              "attempts.")),
                     {"attempts"}, ExponentialBuckets(0.01, 2, 20)),
        scheduling_attempts(
            HistogramFamily(r, "scheduler_pod_scheduling_attempts",
                            Stable("Number of attempts to successfully schedule a pod."))
                .Add({}, ExponentialBuckets(1, 2, 5))),
        preemption_attempts(
            CounterFamily(r, "scheduler_preemption_attempts_total",
                          Stable("Total preemption attempts in the cluster till now"))
                .Add({})),
        preemption_victims(
            HistogramFamily(r, "scheduler_preemption_victims",
                            Stable("Number of selected preemption victims for preemption "
                                   "initiated by a single pod"))
                .Add({}, ExponentialBuckets(1, 2, 7))),
        unschedulable_pods(
            GaugeFamily(
                r, "scheduler_unschedulable_pods",
                Beta("The number of unschedulable pods broken down by plugin name. A pod will "
                     "increment the gauge for all plugins that caused it to not schedule and "
                     "so this metric have meaning only when broken down by plugin.")),
            {"plugin", "profile"}),
        goroutines(
            GaugeFamily(r, "scheduler_goroutines",
                        Beta("Number of running goroutines split by the work they do such as "
                             "binding.")),
            {"operation"}),
        permit_wait(HistogramFamily(r, "scheduler_permit_wait_duration_seconds",
                                    Beta("Duration of waiting on permit.")),
                    {"result"}, ExponentialBuckets(0.001, 2, 15)),
        plugin_evaluation(
            CounterFamily(
                r, "scheduler_plugin_evaluation_total",
                Beta("Number of attempts to schedule pods by each plugin and the extension "
                     "point (available only in PreFilter, Filter, PreScore, and Score).")),
            {"plugin", "extension_point", "profile"}),
        event_handling(HistogramFamily(r, "scheduler_event_handling_duration_seconds",
                                       Alpha("Event handling latency in seconds.")),
                       {"event"}, ExponentialBuckets(0.0001, 2, 12)),
        cache_size_family(GaugeFamily(
            r, "scheduler_cache_size",
            Alpha("Number of nodes, pods, and assumed (bound) pods in the scheduler cache."))),
        cache_nodes(cache_size_family.Add({{"type", "nodes"}})),
        cache_pods(cache_size_family.Add({{"type", "pods"}})),
        cache_assumed_pods(cache_size_family.Add({{"type", "assumed_pods"}})),
        watch_restarts(CounterFamily(r, "berth_informer_watch_restarts_total",
                                     "Number of times an informer re-opened its watch."),
                       {"resource"}),
        relists(CounterFamily(r, "berth_informer_relists_total",
                              "Number of full re-lists by an informer after its initial list "
                              "(410 Gone or resync)."),
                {"resource"}),
        last_sync(GaugeFamily(r, "berth_informer_last_sync_timestamp_seconds",
                              "Unix time at which the informer's store was last known to be in "
                              "sync with the API server."),
                  {"resource"}),
        api_duration(HistogramFamily(r, "berth_api_request_duration_seconds",
                                     "API server request latency in seconds, by verb, resource "
                                     "and HTTP status code."),
                     {"verb", "resource", "code"}, kApiLatencyBuckets),
        api_requests(CounterFamily(r, "berth_api_requests_total",
                                   "Number of API server requests, by verb, resource and HTTP "
                                   "status code ('<error>' when no response arrived)."),
                     {"verb", "resource", "code"}),
        rate_limiter_wait(CounterFamily(r, "berth_api_rate_limiter_wait_seconds_total",
                                        "Total time requests waited in the client-side rate "
                                        "limiter, in seconds.")
                              .Add({})),
        // client-go's leader-election metric (component-base/metrics/prometheus/clientgo).
        leader_status(GaugeFamily(r, "leader_election_master_status",
                                  Alpha("Gauge of if the reporting system is master of the "
                                        "relevant lease, 0 indicates backup, 1 indicates master. "
                                        "'name' is the string used to identify the lease. Please "
                                        "make sure to group by name."))){
            GaugeFamily(
                r, "berth_build_info",
                Alpha("A metric with a constant '1' value labeled by the berth version, the "
                      "kube-scheduler version whose behaviour it matches, and the compiler it "
                      "was built with."))
                .Add({
                  {"version", kBerthVersion}, {"kube_scheduler_version", kUpstreamVersion},
#if defined(__clang__)
                  {
                    "compiler", "clang " __clang_version__
                  }
                })
#else
                  {
                    "compiler", "gcc " __VERSION__
                  }
                })
#endif
                .Set(1);
}

Counters<2>
    schedule_attempts;
Histograms<2> attempt_duration;
Histogram& algorithm_duration;
prometheus::Family<Gauge>& pending_pods_family;
Gauge& pending_active;
Gauge& pending_backoff;
Gauge& pending_unschedulable;
Gauge& pending_gated;
Counters<2> incoming_pods;
Histograms<3> extension_point;
Histograms<3> plugin_execution;
Histograms<1> sli_duration;
Histogram& scheduling_attempts;
Counter& preemption_attempts;
Histogram& preemption_victims;
Gauges<2> unschedulable_pods;
Gauges<1> goroutines;
Histograms<1> permit_wait;
Counters<3> plugin_evaluation;
Histograms<1> event_handling;
prometheus::Family<Gauge>& cache_size_family;
Gauge& cache_nodes;
Gauge& cache_pods;
Gauge& cache_assumed_pods;
Counters<1> watch_restarts;
Counters<1> relists;
Gauges<1> last_sync;
Histograms<3> api_duration;
Counters<3> api_requests;
Counter& rate_limiter_wait;
prometheus::Family<Gauge>& leader_status;
};  // namespace berth::metrics

SchedulerMetrics::SchedulerMetrics() : SchedulerMetrics(std::make_shared<prometheus::Registry>()) {}

SchedulerMetrics::SchedulerMetrics(std::shared_ptr<prometheus::Registry> registry)
    : registry_(std::move(registry)),
      f_(std::make_unique<Families>(*registry_)),
      faults_(std::make_unique<FaultMetrics>(*registry_)),
      process_(std::make_unique<ProcessMetrics>(*registry_)),
      reasons_(std::make_unique<PendingReasonMetrics>(*registry_)) {}

SchedulerMetrics::~SchedulerMetrics() = default;

std::string SchedulerMetrics::Serialize() const {
  faults_->Sync();
  process_->Sync();
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

void SchedulerMetrics::ScheduleAttempt(std::string_view result, std::string_view profile,
                                       double seconds) {
  f_->schedule_attempts.Get({result, profile}).Increment();
  f_->attempt_duration.Get({result, profile}).Observe(seconds);
}

void SchedulerMetrics::SchedulingAlgorithm(double seconds) {
  f_->algorithm_duration.Observe(seconds);
}

void SchedulerMetrics::ExtensionPoint(std::string_view extension_point, framework::Code status,
                                      std::string_view profile, double seconds) {
  f_->extension_point.Get({extension_point, framework::CodeName(status), profile}).Observe(seconds);
}

bool SchedulerMetrics::SamplePluginMetrics() {
  thread_local std::minstd_rand rng(std::random_device{}());
  return static_cast<int>(rng() % 100) < kPluginMetricsSamplePercent;
}

void SchedulerMetrics::PluginExecution(std::string_view plugin, std::string_view extension_point,
                                       framework::Code status, double seconds) {
  f_->plugin_execution.Get({plugin, extension_point, framework::CodeName(status)}).Observe(seconds);
}

void SchedulerMetrics::PluginEvaluation(std::string_view plugin, std::string_view extension_point,
                                        std::string_view profile) {
  f_->plugin_evaluation.Get({plugin, extension_point, profile}).Increment();
}

void SchedulerMetrics::PodScheduled(int attempts, double sli_seconds) {
  size_t idx = attempts < 0 ? 0 : static_cast<size_t>(attempts);
  if (idx >= kAttemptsLabels.size()) idx = kAttemptsLabels.size() - 1;
  f_->sli_duration.Get({kAttemptsLabels[idx]}).Observe(sli_seconds);
  f_->scheduling_attempts.Observe(attempts);
}

void SchedulerMetrics::PreemptionAttempt() { f_->preemption_attempts.Increment(); }

void SchedulerMetrics::PreemptionVictims(int victims) { f_->preemption_victims.Observe(victims); }

void SchedulerMetrics::PermitWait(framework::Code result, double seconds) {
  f_->permit_wait.Get({framework::CodeName(result)}).Observe(seconds);
}

void SchedulerMetrics::Goroutines(std::string_view operation, double delta) {
  f_->goroutines.Get({operation}).Increment(delta);
}

void SchedulerMetrics::PendingPods(const PendingPodCounts& counts) {
  f_->pending_active.Set(static_cast<double>(counts.active));
  f_->pending_backoff.Set(static_cast<double>(counts.backoff));
  f_->pending_unschedulable.Set(static_cast<double>(counts.unschedulable));
  f_->pending_gated.Set(static_cast<double>(counts.gated));
}

void SchedulerMetrics::PendingPodReasons(const ReasonCounts& counts) { reasons_->Set(counts); }

void SchedulerMetrics::QueueIncomingPods(std::string_view queue, std::string_view event,
                                         int64_t count) {
  if (count <= 0) return;  // prometheus-cpp ignores negative increments anyway
  f_->incoming_pods.Get({queue, event}).Increment(static_cast<double>(count));
}

void SchedulerMetrics::UnschedulablePods(std::string_view plugin, std::string_view profile,
                                         double delta) {
  f_->unschedulable_pods.Get({plugin, profile}).Increment(delta);
}

void SchedulerMetrics::CacheSize(const CacheSizes& sizes) {
  f_->cache_nodes.Set(static_cast<double>(sizes.nodes));
  f_->cache_pods.Set(static_cast<double>(sizes.pods));
  f_->cache_assumed_pods.Set(static_cast<double>(sizes.assumed_pods));
}

void SchedulerMetrics::EventHandling(std::string_view event, double seconds) {
  f_->event_handling.Get({event}).Observe(seconds);
}

void SchedulerMetrics::InformerWatchRestart(std::string_view resource) {
  f_->watch_restarts.Get({resource}).Increment();
}

void SchedulerMetrics::InformerRelist(std::string_view resource) {
  f_->relists.Get({resource}).Increment();
}

void SchedulerMetrics::InformerSynced(std::string_view resource,
                                      std::chrono::system_clock::time_point when) {
  f_->last_sync.Get({resource}).Set(std::chrono::duration<double>(when.time_since_epoch()).count());
}

void SchedulerMetrics::ApiRequest(std::string_view verb, std::string_view resource, int code,
                                  double seconds) {
  char buf[12];
  std::string_view code_label = "<error>";
  if (code > 0) {
    auto res = std::to_chars(buf, buf + sizeof(buf), code);
    code_label = std::string_view(buf, static_cast<size_t>(res.ptr - buf));
  }
  f_->api_requests.Get({verb, resource, code_label}).Increment();
  f_->api_duration.Get({verb, resource, code_label}).Observe(seconds);
}

void SchedulerMetrics::LeaderElectionStatus(std::string_view lease, bool leading) {
  f_->leader_status.Add({{"name", std::string(lease)}}).Set(leading ? 1 : 0);
}

void SchedulerMetrics::RateLimiterWait(double seconds) {
  if (seconds > 0) f_->rate_limiter_wait.Increment(seconds);
}

}  // namespace berth::metrics
