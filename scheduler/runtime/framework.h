#pragma once
// Framework: one profile's plugins, instantiated from config and run per extension point
// (upstream's frameworkImpl). This is the only code that loops over plugins. It also implements
// framework::Handle for the plugins of the profile.
//
// Threading: Run* methods of the scheduling cycle are called from the scheduling thread only;
// RunFilterPlugins/RunScore per node may run on Parallelizer workers; the binding-cycle methods
// (WaitOnPermit, RunPreBind/Bind/PostBind) run on binding workers concurrently with the next
// scheduling cycles.

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/store.h"
#include "base/result.h"
#include "config/types.h"
#include "scheduler/framework/explain.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"
#include "scheduler/metrics/recorder.h"

namespace berth::runtime {

// Shared by every profile's Framework; owned by the Scheduler (or the test).
struct Deps {
  const framework::Snapshot* snapshot = nullptr;
  const api::ClusterObjects* objects = nullptr;
  const framework::Clock* clock = nullptr;
  framework::Parallelizer* parallelizer = nullptr;
  framework::ApiWriter* api_writer = nullptr;
  // scheduler_framework_extension_point_duration_seconds, scheduler_plugin_evaluation_total and,
  // in sampled cycles (CycleState::record_plugin_metrics),
  // scheduler_plugin_execution_duration_seconds. Null records nothing (metrics::NoMetrics()).
  metrics::Recorder* metrics = nullptr;
  // Nominated pods (the queue's nominator). May be null: no nominated pods.
  const framework::PodNominator* nominator = nullptr;
  // Handle::RunAsync: runs a task off the scheduling thread. Null runs it inline.
  std::function<void(std::function<void()>)> run_async;
  // Handle::Stopping. May be null: never stopping.
  const std::atomic<bool>* stopping = nullptr;
};

// The scores of one RunScorePlugins call. Buffers are reused across cycles by the caller, so a
// cycle allocates nothing once they have grown.
struct ScoreTable {
  std::vector<std::string_view> plugins;             // score plugins that ran (not skipped)
  std::vector<framework::NodeScoreList> per_plugin;  // [plugin][node]: normalised, pre-weight
  // [plugin]: the score of every node when the plugin gave all the same (ScorePlugin::
  // UniformScore); per_plugin[plugin] is then left empty.
  std::vector<std::optional<int64_t>> uniform;
  std::vector<int64_t> totals;  // [node]: weighted sum
  size_t num_nodes = 0;

  int64_t Score(size_t plugin, size_t node) const {
    return uniform[plugin] ? *uniform[plugin] : per_plugin[plugin][node].score;
  }
};

class Framework final : public framework::Handle {
 public:
  // Builds the profile: expands multiPoint over the interfaces each plugin implements
  // (upstream's expandMultiPointPlugins), applies per-point enabled/disabled (incl. "*"), and
  // instantiates each plugin once. Errors name the config field:
  //   `profiles[0].plugins.filter.enabled[1]: unknown plugin "Foo"; known plugins: A, B`,
  //   `profiles[0]: plugin "X" does not implement Filter`, factories' arg errors.
  static Result<std::unique_ptr<Framework>> Create(const config::Profile& profile,
                                                   int profile_index,
                                                   int32_t global_percentage_of_nodes_to_score,
                                                   const framework::Registry& registry,
                                                   const Deps& deps);

  const std::string& scheduler_name() const { return scheduler_name_; }
  int32_t percentage_of_nodes_to_score() const { return percentage_; }

  // ---- queue-side ----
  framework::Status RunPreEnqueuePlugins(const framework::PodInfo& pod) const;
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const;
  const framework::QueueSortPlugin* queue_sort() const { return queue_sort_; }
  // plugin name -> events it registered (EnqueueExtensions).
  std::map<std::string, std::vector<framework::ClusterEventWithHint>, std::less<>> Events() const;

  // ---- scheduling cycle ----
  // As upstream's frameworkImpl, RunPreFilter/PostFilter/PreScore/Score/Reserve/Permit/PreBind/
  // BindPlugins record their own scheduler_framework_extension_point_duration_seconds
  // {extension_point,status,profile}; Filter runs per node, so its caller records it (upstream's
  // findNodesThatPassFilters does the same).
  // Upstream's RunPreFilterPlugins: Skip -> state.skip_filter_plugins; UU returns at once;
  // Unschedulable is remembered while later plugins run; Error -> `running PreFilter plugin
  // "X": msg`. An empty intersection of node sets -> UU `node(s) didn't satisfy plugin X` /
  // `node(s) didn't satisfy plugin(s) [A B] simultaneously`. plugins_with_nodes gets the names
  // of plugins that narrowed the node set.
  framework::Status RunPreFilterPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                        framework::PreFilterResult* result,
                                        std::vector<std::string>* plugins_with_nodes) const;
  // First non-Success status (plugin set), skipping plugins in state.skip_filter_plugins.
  // A non-rejection failure becomes Error `running "X" filter plugin: msg`.
  framework::Status RunFilterPlugins(const framework::CycleState& state,
                                     const framework::PodInfo& pod,
                                     const framework::NodeInfo& node) const;
  framework::Status RunPostFilterPlugins(framework::CycleState& state,
                                         const framework::PodInfo& pod,
                                         const framework::NodeToStatus& statuses,
                                         framework::PostFilterResult* result) const;
  framework::Status RunPreScorePlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                       const std::vector<const framework::NodeInfo*>& nodes) const;
  // Score (parallel over nodes), NormalizeScore, weights; scores outside [0,100] are an Error.
  framework::Status RunScorePlugins(const framework::CycleState& state,
                                    const framework::PodInfo& pod,
                                    const std::vector<const framework::NodeInfo*>& nodes,
                                    ScoreTable* out) const;
  // berth explain (off the hot path, scheduling thread): every Filter plugin not skipped this
  // cycle, run on `node` without stopping at the first rejection; for each rejection, what the
  // plugin's FilterExplainer says the node would need (a reason it does not explain gets an
  // empty need and gap 1). Errors are left out.
  struct Rejection {
    std::string plugin;
    std::vector<framework::FilterNeed> needs;
  };
  std::vector<Rejection> ExplainNode(const framework::CycleState& state,
                                     const framework::PodInfo& pod,
                                     const framework::NodeInfo& node) const;
  // How far `node` is from passing the plugin that rejected it with `s` (its explainer's gaps
  // summed, 1 per reason it does not explain). Cheap: for ranking every rejected node.
  double RejectionGap(const framework::CycleState& state, const framework::PodInfo& pod,
                      const framework::NodeInfo& node, const framework::Status& s) const;
  bool HasFilterPlugins() const { return !filter_.empty(); }
  bool HasScorePlugins() const { return !score_.empty(); }
  bool HasPostFilterPlugins() const { return !post_filter_.empty(); }

  framework::Status RunReservePluginsReserve(framework::CycleState& state,
                                             const framework::PodInfo& pod,
                                             const std::string& node) const;
  // Every reserve plugin's Unreserve, in reverse order.
  void RunReservePluginsUnreserve(framework::CycleState& state, const framework::PodInfo& pod,
                                  const std::string& node) const;
  // Success, Wait (a waiting pod was registered), or a rejection/Error with the plugin set.
  framework::Status RunPermitPlugins(framework::CycleState& state, framework::PodInfoPtr pod,
                                     const std::string& node);

  // ---- binding cycle ----
  // Blocks until the pod's waiting entry is resolved (Success when it was never waiting);
  // the entry is removed afterwards.
  framework::Status WaitOnPermit(const framework::PodInfo& pod);
  // The waiting entry of a pod, if any (simulate polls it instead of blocking).
  std::shared_ptr<framework::WaitingPod> WaitingPodFor(const std::string& uid);
  framework::Status RunPreBindPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                      const std::string& node) const;
  framework::Status RunBindPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                   const std::string& node) const;
  void RunPostBindPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                          const std::string& node) const;

  // Rejects due waiting pods; returns the earliest remaining deadline.
  std::optional<framework::TimePoint> ExpireWaitingPods(framework::TimePoint now);
  size_t NumWaitingPods() const;

  // Plugin names per extension point, for logs and /configz.
  std::map<std::string, std::vector<std::string>> PluginNamesByPoint() const;
  int64_t ScoreWeight(const std::string& plugin) const;

  // ---- framework::Handle ----
  const framework::Snapshot& snapshot() const override { return *deps_.snapshot; }
  const api::ClusterObjects& objects() const override { return *deps_.objects; }
  const framework::Clock& clock() const override { return *deps_.clock; }
  framework::Parallelizer& parallelizer() override { return *deps_.parallelizer; }
  framework::ApiWriter& api_writer() override { return *deps_.api_writer; }
  void IterateOverWaitingPods(const std::function<void(framework::WaitingPod&)>& fn) override;
  std::shared_ptr<framework::WaitingPod> GetWaitingPod(const std::string& uid) override;
  void RejectWaitingPod(const std::string& uid, const std::string& plugin,
                        const std::string& msg) override;
  framework::Status RunFilterPluginsWithNominatedPods(
      const framework::CycleState& state, const framework::PodInfo& pod,
      const framework::NodeInfo& node) const override;
  framework::Status RunPreFilterExtensionAddPod(framework::CycleState& state,
                                                const framework::PodInfo& pod_to_schedule,
                                                const framework::PodInfo& pod_to_add,
                                                const framework::NodeInfo& node) const override;
  framework::Status RunPreFilterExtensionRemovePod(framework::CycleState& state,
                                                   const framework::PodInfo& pod_to_schedule,
                                                   const framework::PodInfo& pod_to_remove,
                                                   const framework::NodeInfo& node) const override;
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(const std::string& node) const override;
  void RunAsync(std::function<void()> fn) override;
  bool Stopping() const override { return deps_.stopping != nullptr && deps_.stopping->load(); }
  void RecordPreemptionAttempt() override { metrics_.PreemptionAttempt(); }
  void RecordPreemptionVictims(int victims) override { metrics_.PreemptionVictims(victims); }
  // Whether any pod is nominated anywhere (the node search calls the plain RunFilterPlugins
  // when not, so Filter costs nothing extra without preemption).
  bool HasNominatedPods() const {
    return deps_.nominator != nullptr && deps_.nominator->HasNominatedPods();
  }

 private:
  // One row of the extension-point table (framework.cc): everything the runtime knows about a
  // point. Defined there, with the table.
  struct Point;
  static const std::array<Point, 12>& Points();
  template <typename T, std::vector<const T*> Framework::*kList>
  static constexpr Point MakePoint(size_t config_index, std::string_view interface_name);

  explicit Framework(const Deps& deps)
      : deps_(deps), metrics_(metrics::OrNoMetrics(deps.metrics)) {}
  // Instantiates every plugin the profile names (once each), with its args.
  Ok InstantiatePlugins(const config::Profile& profile, const std::string& prefix,
                        const framework::Registry& registry);
  // The plugins of one point in upstream's expandMultiPointPlugins order: specific plugins that
  // override a multiPoint entry, then multiPoint plugins, then the remaining specific plugins.
  Result<std::vector<std::string>> OrderedPlugins(const config::Plugins& plugins,
                                                  const Point& point,
                                                  const std::string& prefix) const;
  // Counts a plugin evaluated at a point (PreFilter, Filter, PreScore, Score) this cycle.
  void Evaluated(std::string_view plugin, std::string_view point) const {
    metrics_.PluginEvaluation(plugin, point, scheduler_name_);
  }
  // Runs fn() (a plugin call returning Status) and, in sampled cycles, records its duration.
  template <typename Fn>
  framework::Status Timed(const framework::CycleState& state, std::string_view plugin,
                          std::string_view point, Fn&& fn) const {
    if (!state.record_plugin_metrics) return fn();
    auto start = std::chrono::steady_clock::now();
    framework::Status s = fn();
    metrics_.PluginExecution(plugin, point, s.code(), metrics::Since(start));
    return s;
  }
  // Runs body() (the loop of one Run*Plugins) and records the point's duration and status, as
  // upstream's deferred metrics.FrameworkExtensionPointDuration.
  template <typename Fn>
  framework::Status AtPoint(std::string_view point, Fn&& body) const {
    const auto start = std::chrono::steady_clock::now();
    framework::Status s = body();
    metrics_.ExtensionPoint(point, s.code(), scheduler_name_, metrics::Since(start));
    return s;
  }
  framework::Status RunPreFilterLoop(framework::CycleState& state, const framework::PodInfo& pod,
                                     framework::PreFilterResult* result,
                                     std::vector<std::string>* plugins_with_nodes) const;

  Deps deps_;
  metrics::Recorder& metrics_;  // deps_.metrics or NoMetrics()
  std::string scheduler_name_;
  int32_t percentage_ = 0;
  std::map<std::string, std::shared_ptr<framework::Plugin>, std::less<>> plugins_;
  std::vector<const framework::PreEnqueuePlugin*> pre_enqueue_;
  std::vector<const framework::QueueSortPlugin*> queue_sorts_;  // exactly one after Create
  const framework::QueueSortPlugin* queue_sort_ = nullptr;      // queue_sorts_.front()
  std::vector<const framework::PreFilterPlugin*> pre_filter_;
  std::vector<const framework::FilterPlugin*> filter_;
  // Parallel to filter_: each Filter plugin's FilterExplainer, or null.
  std::vector<const framework::FilterExplainer*> filter_explainers_;
  std::vector<const framework::PostFilterPlugin*> post_filter_;
  std::vector<const framework::PreScorePlugin*> pre_score_;
  std::vector<const framework::ScorePlugin*> score_;
  std::vector<int64_t> score_weights_;  // parallel to score_
  std::vector<const framework::ReservePlugin*> reserve_;
  std::vector<const framework::PermitPlugin*> permit_;
  std::vector<const framework::PreBindPlugin*> pre_bind_;
  std::vector<const framework::BindPlugin*> bind_;
  std::vector<const framework::PostBindPlugin*> post_bind_;

  mutable std::mutex waiting_mu_;                                          // guards waiting_
  std::map<std::string, std::shared_ptr<framework::WaitingPod>> waiting_;  // by pod uid
};

}  // namespace berth::runtime
