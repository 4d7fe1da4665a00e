#pragma once
// Recorder: the metrics the scheduling core records (the runtime, the queue and the Scheduler),
// as an interface so that the core never checks whether metrics are on. The daemon passes its
// Prometheus SchedulerMetrics (scheduler/metrics/metrics.h); simulate and tests get NoMetrics(),
// which records nothing (a null object).
//
// Each method's metric family, labels and meaning are documented on SchedulerMetrics, which
// implements them with upstream's names. Threads: implementations must be thread-safe (the
// scheduling thread, Filter/Score workers, binding workers and the queue all record).
// Label values are copied on first use only, so string_views may point at temporaries.

#include <chrono>
#include <cstdint>
#include <string_view>

#include "scheduler/framework/status.h"

namespace berth::metrics {

// `result` of scheduler_schedule_attempts_total / scheduler_scheduling_attempt_duration_seconds.
inline constexpr std::string_view kScheduled = "scheduled";
inline constexpr std::string_view kUnschedulable = "unschedulable";
inline constexpr std::string_view kError = "error";

// `queue` of scheduler_pending_pods and scheduler_queue_incoming_pods_total.
inline constexpr std::string_view kActiveQueue = "active";
inline constexpr std::string_view kBackoffQueue = "backoff";
inline constexpr std::string_view kUnschedulableQueue = "unschedulable";
inline constexpr std::string_view kGatedQueue = "gated";

// `extension_point` values, upstream's strings.
inline constexpr std::string_view kPreFilter = "PreFilter";
inline constexpr std::string_view kFilter = "Filter";
inline constexpr std::string_view kPreFilterExtensionAddPod = "PreFilterExtensionAddPod";
inline constexpr std::string_view kPreFilterExtensionRemovePod = "PreFilterExtensionRemovePod";
inline constexpr std::string_view kPostFilter = "PostFilter";
inline constexpr std::string_view kPreScore = "PreScore";
inline constexpr std::string_view kScore = "Score";
inline constexpr std::string_view kScoreExtensionNormalize = "ScoreExtensionNormalize";
inline constexpr std::string_view kReserve = "Reserve";
inline constexpr std::string_view kUnreserve = "Unreserve";
inline constexpr std::string_view kPermit = "Permit";
inline constexpr std::string_view kPreBind = "PreBind";
inline constexpr std::string_view kBind = "Bind";
inline constexpr std::string_view kPostBind = "PostBind";

// `operation` of scheduler_goroutines.
inline constexpr std::string_view kBinding = "binding";
inline constexpr std::string_view kPrioritizingExtender = "prioritizing_extender";

// Upstream samples plugin execution durations in 10% of scheduling cycles.
inline constexpr int kPluginMetricsSamplePercent = 10;

// Seconds elapsed since `start` on the steady clock.
inline double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class Recorder {
 public:
  virtual ~Recorder() = default;

  // ---- scheduling and binding cycles ----
  virtual void ScheduleAttempt(std::string_view result, std::string_view profile,
                               double seconds) = 0;
  virtual void SchedulingAlgorithm(double seconds) = 0;
  virtual void ExtensionPoint(std::string_view extension_point, framework::Code status,
                              std::string_view profile, double seconds) = 0;
  // Whether this cycle records PluginExecution; NoMetrics() always says false.
  virtual bool SamplePluginMetrics() = 0;
  virtual void PluginExecution(std::string_view plugin, std::string_view extension_point,
                               framework::Code status, double seconds) = 0;
  virtual void PluginEvaluation(std::string_view plugin, std::string_view extension_point,
                                std::string_view profile) = 0;
  virtual void PodScheduled(int attempts, double sli_seconds) = 0;
  virtual void PreemptionAttempt() = 0;
  virtual void PreemptionVictims(int victims) = 0;
  virtual void PermitWait(framework::Code result, double seconds) = 0;
  virtual void Goroutines(std::string_view operation, double delta) = 0;

  // ---- scheduling queue (called under the queue lock: must not call back into the queue) ----
  virtual void QueueIncomingPods(std::string_view queue, std::string_view event,
                                 int64_t count = 1) = 0;
  virtual void UnschedulablePods(std::string_view plugin, std::string_view profile,
                                 double delta) = 0;
};

// Records nothing.
class NoopRecorder final : public Recorder {
 public:
  void ScheduleAttempt(std::string_view, std::string_view, double) override {}
  void SchedulingAlgorithm(double) override {}
  void ExtensionPoint(std::string_view, framework::Code, std::string_view, double) override {}
  bool SamplePluginMetrics() override { return false; }
  void PluginExecution(std::string_view, std::string_view, framework::Code, double) override {}
  void PluginEvaluation(std::string_view, std::string_view, std::string_view) override {}
  void PodScheduled(int, double) override {}
  void PreemptionAttempt() override {}
  void PreemptionVictims(int) override {}
  void PermitWait(framework::Code, double) override {}
  void Goroutines(std::string_view, double) override {}
  void QueueIncomingPods(std::string_view, std::string_view, int64_t) override {}
  void UnschedulablePods(std::string_view, std::string_view, double) override {}
};

// The shared null recorder (stateless, so one instance serves every caller).
inline Recorder& NoMetrics() {
  static NoopRecorder recorder;
  return recorder;
}

// `r` itself, or NoMetrics() when r is null: resolve optional dependencies once, at construction.
inline Recorder& OrNoMetrics(Recorder* r) { return r != nullptr ? *r : NoMetrics(); }

}  // namespace berth::metrics
