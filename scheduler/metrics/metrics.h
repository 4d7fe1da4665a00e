#pragma once
// SchedulerMetrics: every Prometheus family berth exports, with upstream kube-scheduler's names,
// help, types, labels and buckets (pkg/scheduler/metrics/metrics.go, v1.37.2; see
// shared/reference/upstream-features.md §6), plus berth's own informer and API-client families.
//
// No globals (except base/fault_counters.h, which threads without a metrics reference count into
// and Serialize() exports): the daemon creates one SchedulerMetrics and passes a reference (or
// pointer) to the scheduler, the queue, the cache, the kube client and the informers; the HTTP
// server's /metrics handler calls Serialize().
//
// Threads: every method is thread-safe and may be called from any thread (scheduling thread,
// Filter/Score workers, binding workers, informer threads, the HTTP server). Recording methods
// are cheap: a labelled child is looked up under a shared lock in a small map keyed by the label
// values (created with the family's lock only on first use) and then updated atomically; a call
// with an already-seen label set allocates nothing. Series with a fixed label set are
// pre-created (exported as 0 from the start); a family whose label values are known only at run
// time (profile, plugin, ...) appears in Serialize() after its first observation, as upstream's
// client_golang vectors do.
//
// Durations are in seconds (use Since()); label values are copied on first use only, so
// string_views may point at temporaries.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/status.h"
#include "scheduler/metrics/fault_metrics.h"
#include "scheduler/metrics/process_metrics.h"
#include "scheduler/metrics/reason_metrics.h"
#include "scheduler/metrics/recorder.h"

namespace prometheus {
class Registry;
}

namespace berth::metrics {

// Same as Prometheus' ExponentialBuckets: count upper bounds start, start*factor, ...
// (the +Inf bucket is implicit). Requires start > 0, factor > 1, count >= 1.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

// Sizes of the four scheduling-queue sets (scheduler_pending_pods).
struct PendingPodCounts {
  int64_t active = 0;
  int64_t backoff = 0;
  int64_t unschedulable = 0;
  int64_t gated = 0;
};

// Sizes reported by the scheduler cache (scheduler_cache_size).
struct CacheSizes {
  int64_t nodes = 0;
  int64_t pods = 0;
  int64_t assumed_pods = 0;
};

class SchedulerMetrics final : public Recorder {
 public:
  // Creates its own registry and registers every family in it.
  SchedulerMetrics();
  // Registers every family in `registry` (e.g. one shared with other collectors). Names must not
  // already be registered there with a different type or help (prometheus-cpp throws).
  explicit SchedulerMetrics(std::shared_ptr<prometheus::Registry> registry);
  ~SchedulerMetrics();
  SchedulerMetrics(const SchedulerMetrics&) = delete;
  SchedulerMetrics& operator=(const SchedulerMetrics&) = delete;

  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

  // The whole registry in the Prometheus text exposition format (version 0.0.4), for /metrics.
  // Content-Type: "text/plain; version=0.0.4; charset=utf-8".
  std::string Serialize() const;

  // ---- Scheduling cycle (scheduling thread; Filter/Score workers for plugin calls) ----

  // One scheduling attempt ended; call exactly once per attempt, as upstream does: kScheduled
  // from the binding cycle once Bind succeeded (seconds from pop to bound — upstream's "scheduling
  // algorithm + binding"), kUnschedulable or kError from whichever cycle failed (seconds from pop
  // to the failure). scheduler_schedule_attempts_total{result,profile} += 1;
  // scheduler_scheduling_attempt_duration_seconds{result,profile} observes seconds.
  void ScheduleAttempt(std::string_view result, std::string_view profile, double seconds) override;

  // scheduler_scheduling_algorithm_duration_seconds: snapshot → PreFilter … pick a node.
  void SchedulingAlgorithm(double seconds) override;

  // All plugins of one extension point ran in `seconds` and produced `status`.
  // scheduler_framework_extension_point_duration_seconds{extension_point,status,profile}; the
  // status label is upstream's code name ("Success", "Unschedulable", ...).
  void ExtensionPoint(std::string_view extension_point, framework::Code status,
                      std::string_view profile, double seconds) override;

  // Whether this scheduling cycle should record PluginExecution (true in ~10% of calls, as
  // upstream's pluginMetricsSamplePercent). Call once per cycle and keep the answer for it.
  bool SamplePluginMetrics() override;

  // One plugin call at one extension point (only in sampled cycles).
  // scheduler_plugin_execution_duration_seconds{plugin,extension_point,status}.
  void PluginExecution(std::string_view plugin, std::string_view extension_point,
                       framework::Code status, double seconds) override;

  // A plugin was evaluated at PreFilter, Filter, PreScore or Score in a cycle (once per plugin per
  // extension point per cycle, not per node). scheduler_plugin_evaluation_total += 1.
  void PluginEvaluation(std::string_view plugin, std::string_view extension_point,
                        std::string_view profile) override;

  // A pod was bound after `attempts` scheduling attempts (>= 1), `sli_seconds` after it first
  // entered the queue. scheduler_pod_scheduling_sli_duration_seconds{attempts="1".."14"|"15+"}
  // and scheduler_pod_scheduling_attempts observe.
  void PodScheduled(int attempts, double sli_seconds) override;

  // PostFilter tried preemption. scheduler_preemption_attempts_total += 1.
  void PreemptionAttempt() override;
  // Preemption chose `victims` pods to evict. scheduler_preemption_victims observes.
  void PreemptionVictims(int victims) override;

  // WaitOnPermit returned `result` after `seconds` (binding worker).
  // scheduler_permit_wait_duration_seconds{result=code name}.
  void PermitWait(framework::Code result, double seconds) override;

  // Adds delta (may be negative) to scheduler_goroutines{operation}: +1 when a binding worker
  // starts a binding cycle (kBinding), -1 when it ends.
  void Goroutines(std::string_view operation, double delta) override;

  // ---- Scheduling queue ----

  // Sets scheduler_pending_pods{queue=active|backoff|unschedulable|gated}.
  void PendingPods(const PendingPodCounts& counts);
  // Replaces berth_pending_pod_reasons{profile,plugin,reason} (reason_metrics.h).
  void PendingPodReasons(const ReasonCounts& counts);

  // `count` pods moved into `queue` (kActiveQueue, kBackoffQueue, kUnschedulableQueue,
  // kGatedQueue) because of `event` (upstream's event label: "PodAdd", "NodeAdd",
  // "ScheduleAttemptFailure", "BackoffComplete", "UnschedulableTimeout", ...).
  // scheduler_queue_incoming_pods_total{queue,event} += count.
  void QueueIncomingPods(std::string_view queue, std::string_view event,
                         int64_t count = 1) override;

  // Adds delta to scheduler_unschedulable_pods{plugin,profile}: +1 for each rejecting plugin when
  // a pod enters the unschedulable set, -1 for each when it leaves it (as upstream's queue does).
  void UnschedulablePods(std::string_view plugin, std::string_view profile, double delta) override;

  // ---- Cache and event handlers ----

  // Sets scheduler_cache_size{type=nodes|pods|assumed_pods}.
  void CacheSize(const CacheSizes& sizes);

  // An informer event was handled (cache + queue update) in `seconds`; event like "PodAdd",
  // "NodeUpdate". scheduler_event_handling_duration_seconds{event}.
  void EventHandling(std::string_view event, double seconds);

  // ---- Informers (berth's own); resource is the kind: "Pod", "Node", ... ----

  // A watch ended and was re-opened (timeout, disconnect, error).
  // berth_informer_watch_restarts_total{resource} += 1.
  void InformerWatchRestart(std::string_view resource);
  // A full list was done again (initial list excluded; 410 Gone, resync).
  // berth_informer_relists_total{resource} += 1.
  void InformerRelist(std::string_view resource);
  // The informer's store is in sync with the server as of `when` (after a list, or a bookmark /
  // event that advanced the resourceVersion). berth_informer_last_sync_timestamp_seconds{resource}
  // is set to `when` in Unix seconds.
  void InformerSynced(std::string_view resource, std::chrono::system_clock::time_point when =
                                                     std::chrono::system_clock::now());

  // ---- API client (berth's own) ----

  // One HTTP request to the API server finished. verb: "GET", "LIST", "WATCH", "POST", "PATCH",
  // ...; resource: "pods", "bindings", ...; code: the HTTP status, or <= 0 when no response came
  // (label "<error>", as client-go). berth_api_requests_total{verb,resource,code} += 1 and
  // berth_api_request_duration_seconds{verb,resource,code} observes seconds.
  void ApiRequest(std::string_view verb, std::string_view resource, int code, double seconds);

  // The client-side rate limiter delayed a request by `seconds`.
  // berth_api_rate_limiter_wait_seconds_total += seconds.
  void RateLimiterWait(double seconds);

  // ---- Process (leader election; the scrape itself) ----

  // leader_election_master_status{name=lease} = 1 while this process holds the lease, else 0.
  // Exported only once called, as upstream only has it with leader election on.
  void LeaderElectionStatus(std::string_view lease, bool leading);
  // berth_build_info{version,kube_scheduler_version,compiler} = 1 (base/version.h) and the
  // process_* metrics of process_metrics.h are always exported.

 private:
  struct Families;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<Families> f_;
  std::unique_ptr<FaultMetrics> faults_;     // synced on each Serialize()
  std::unique_ptr<ProcessMetrics> process_;  // synced on each Serialize()
  std::unique_ptr<PendingReasonMetrics> reasons_;
};

}  // namespace berth::metrics
