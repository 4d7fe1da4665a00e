#pragma once
// Scheduler: owns the queue, the cache, the profiles and the binding executor, and runs
// upstream's scheduling cycle (schedule_one.cc) and binding cycle. Informers (or simulate's file
// loader) feed it through the event handlers (event_handlers.cc); outcomes leave through an
// OutcomeSink (events and pod conditions in the daemon, JSON lines in simulate).
//
// Threading: event handlers may be called from any thread; ScheduleOne only from the scheduling
// thread; binding cycles run on the executor's threads.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "api/store.h"
#include "base/result.h"
#include "config/types.h"
#include "scheduler/binder/binder.h"
#include "scheduler/cache/cache.h"
#include "scheduler/diagnosis/store.h"
#include "scheduler/framework/extender.h"
#include "scheduler/framework/outcome_sink.h"
#include "scheduler/framework/registry.h"
#include "scheduler/metrics/recorder.h"
#include "scheduler/queue/scheduling_queue.h"
#include "scheduler/runtime/framework.h"

namespace berth::scheduler {

struct SchedulerDeps {
  const framework::Clock* clock = nullptr;
  const api::ClusterObjects* objects = nullptr;
  framework::ApiWriter* api_writer = nullptr;
  binder::BindingExecutor* executor = nullptr;
  framework::OutcomeSink* sink = nullptr;
  // The daemon's metrics::SchedulerMetrics; null records nothing (simulate, tests).
  metrics::Recorder* metrics = nullptr;
  // Scheduler extenders in call order (upstream puts ignorable ones last); not owned, must
  // outlive the Scheduler. See scheduler/framework/extender.h.
  std::vector<framework::Extender*> extenders;
  // Set by the daemon when it shuts down (Handle::Stopping); may be null.
  const std::atomic<bool>* stopping = nullptr;
  // Where the diagnosis of every failed attempt goes (berth explain); null keeps none. Not
  // owned, must outlive the Scheduler.
  diagnosis::Store* diagnoses = nullptr;
};

struct SchedulerOptions {
  uint64_t seed = 1;     // tie-break PRNG
  bool explain = false;  // collect Explanations
};

class Scheduler {
 public:
  static Result<std::unique_ptr<Scheduler>> Create(const config::SchedulerConfiguration& cfg,
                                                   const framework::Registry& registry,
                                                   const SchedulerDeps& deps,
                                                   SchedulerOptions options);
  ~Scheduler();

  // ---- event handlers (event_handlers.cc) ----
  void AddNode(std::shared_ptr<const api::Node> node);
  void UpdateNode(const api::Node& old_node, std::shared_ptr<const api::Node> node);
  void DeleteNode(const api::Node& node);
  void AddPod(std::shared_ptr<const api::Pod> pod);
  void UpdatePod(const api::Pod& old_pod, std::shared_ptr<const api::Pod> pod);
  void DeletePod(const api::Pod& pod);
  // Another object kind changed (PVC, PV, StorageClass, CSINode, Service, PodGroup, ...).
  void OnClusterEvent(const framework::ClusterEvent& event, const framework::EventObject& old_obj,
                      const framework::EventObject& new_obj);

  // Whether a profile schedules pods of this schedulerName.
  bool Responsible(const api::Pod& pod) const;

  // ---- scheduling ----
  // Pops one pod (blocking or not) and runs its scheduling cycle; the binding cycle goes to the
  // executor. Returns false when no pod was available (non-blocking) or the queue is closed.
  bool ScheduleOne(bool block);
  // Rejects waiting pods whose Permit timed out; returns the earliest remaining deadline.
  std::optional<framework::TimePoint> ExpireWaitingPods();
  size_t NumWaitingPods() const;

  queue::SchedulingQueue& queue() { return *queue_; }
  const queue::Nominator& nominator() const { return nominator_; }
  cache::Cache& cache() { return cache_; }
  const std::map<std::string, std::unique_ptr<runtime::Framework>, std::less<>>& profiles() const {
    return profiles_;
  }

 private:
  Scheduler(const config::SchedulerConfiguration& cfg, const SchedulerDeps& deps,
            SchedulerOptions options);

  struct ScheduleResult {
    std::string host;
    int evaluated_nodes = 0;
    int feasible_nodes = 0;
    // Set when PostFilter asked to override the pod's nomination (preemption chose this node;
    // empty = clear it).
    std::optional<std::string> nominated_node;
    // PostFilter's verdict, for the diagnosis: whether it ran, and the victims it chose.
    bool post_filter_ran = false;
    std::vector<std::pair<std::string, int32_t>> victims;
  };

  runtime::Framework* FrameworkFor(const api::Pod& pod) const;
  // schedule_one.cc
  framework::Status SchedulingCycle(runtime::Framework& fwk, framework::CycleState& state,
                                    const queue::QueuedPodInfoPtr& qpi, ScheduleResult* result,
                                    framework::PodInfoPtr* assumed, framework::Diagnosis* diag);
  framework::Status SchedulePod(runtime::Framework& fwk, framework::CycleState& state,
                                const framework::PodInfo& pod, ScheduleResult* result,
                                framework::Diagnosis* diag);
  framework::Status FindNodesThatFitPod(runtime::Framework& fwk, framework::CycleState& state,
                                        const framework::PodInfo& pod,
                                        std::vector<const framework::NodeInfo*>* feasible,
                                        framework::Diagnosis* diag);
  framework::Status FindNodesThatPassFilters(runtime::Framework& fwk,
                                             const framework::CycleState& state,
                                             const framework::PodInfo& pod,
                                             const std::vector<const framework::NodeInfo*>& nodes,
                                             std::vector<const framework::NodeInfo*>* feasible,
                                             framework::Diagnosis* diag);
  int NumFeasibleNodesToFind(int32_t percentage, int num_all_nodes) const;
  // extenders.cc: upstream's findNodesThatPassExtenders (Error unless the extender is ignorable),
  // the extenders' part of prioritizeNodes (added to totals, parallel to nodes), and
  // extendersBinding (*bound = false when no interested binder took the pod).
  framework::Status FindNodesThatPassExtenders(const framework::PodInfo& pod,
                                               std::vector<const framework::NodeInfo*>* feasible,
                                               framework::Diagnosis* diag);
  void AddExtenderScores(const framework::PodInfo& pod,
                         const std::vector<const framework::NodeInfo*>& nodes,
                         std::vector<int64_t>* totals);
  framework::Status ExtendersBinding(const api::Pod& pod, const std::string& node, bool* bound);
  std::string SelectHost(const std::vector<const framework::NodeInfo*>& nodes,
                         const std::vector<int64_t>& totals);
  using SteadyTime = std::chrono::steady_clock::time_point;
  // placed: the placement's diagnosis, recorded once bound (null unless the store keeps them).
  void BindingCycle(runtime::Framework* fwk, std::shared_ptr<framework::CycleState> state,
                    queue::QueuedPodInfoPtr qpi, framework::PodInfoPtr assumed, std::string host,
                    int64_t cycle, SteadyTime started, bool waited,
                    std::shared_ptr<diagnosis::Record> placed);
  void HandleBindingCycleError(runtime::Framework* fwk, framework::CycleState& state,
                               const queue::QueuedPodInfoPtr& qpi,
                               const framework::PodInfoPtr& assumed, const std::string& host,
                               const framework::Status& status, int64_t cycle, SteadyTime started);
  // nominated_node: upstream's NominatingInfo in override mode (the node preemption chose, or
  // empty to clear the nomination); nullopt leaves the nomination alone.
  // state and result (the scheduling cycle's; null after a binding-cycle failure) feed the
  // diagnosis recorded for a requeued pod.
  void FailureHandler(runtime::Framework& fwk, const queue::QueuedPodInfoPtr& qpi,
                      const framework::Status& status, const framework::Diagnosis* diag,
                      int64_t cycle, SteadyTime started,
                      const std::optional<std::string>& nominated_node = std::nullopt,
                      const framework::CycleState* state = nullptr,
                      const ScheduleResult* result = nullptr);
  // diagnose.cc: the diagnosis of a failed attempt (berth explain), with the nearest nodes and
  // what each would need. Scheduling thread only (it reads the snapshot).
  diagnosis::Record Diagnose(runtime::Framework& fwk, const framework::CycleState* state,
                             const framework::PodInfo& pod, const framework::Status& status,
                             const framework::Diagnosis* diag, const ScheduleResult* result,
                             const std::string& nominated_node) const;
  // Upstream's evaluateNominatedNode: the pod's nominated node alone, before the full search.
  // True (and the node in *feasible) when it passes the Filter plugins.
  bool EvaluateNominatedNode(runtime::Framework& fwk, const framework::CycleState& state,
                             const framework::PodInfo& pod,
                             std::vector<const framework::NodeInfo*>* feasible);
  // Records an extension point's duration (the points the runtime does not time itself).
  void ObservePoint(std::string_view point, const framework::Status& s, const std::string& profile,
                    SteadyTime start);
  void Explain(runtime::Framework& fwk, framework::CycleState& state, const framework::PodInfo& pod,
               const framework::Diagnosis& diag,
               const std::vector<const framework::NodeInfo*>& feasible);

  const config::SchedulerConfiguration cfg_;
  const SchedulerDeps deps_;
  metrics::Recorder& metrics_;  // deps_.metrics or NoMetrics()
  const SchedulerOptions options_;
  framework::Parallelizer parallelizer_;
  queue::Nominator nominator_;  // before the profiles and the queue, which point at it
  cache::Cache cache_;
  framework::Snapshot snapshot_;  // scheduling thread only
  std::map<std::string, std::unique_ptr<runtime::Framework>, std::less<>> profiles_;
  std::unique_ptr<queue::SchedulingQueue> queue_;
  std::mt19937_64 rng_;               // scheduling thread only
  size_t next_start_node_index_ = 0;  // scheduling thread only
  // Reused per cycle to avoid allocations (scheduling thread only).
  std::vector<const framework::NodeInfo*> feasible_buf_;
  runtime::ScoreTable score_table_;
  std::vector<uint8_t> filter_state_;
  std::vector<std::optional<framework::Status>> filter_status_;
};

}  // namespace berth::scheduler
