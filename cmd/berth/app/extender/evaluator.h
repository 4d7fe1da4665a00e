#pragma once
// Evaluator: the heart of `berth extender` — one profile's PreFilter+Filter and
// PreScore+Score(+NormalizeScore) plugins run for a pod someone else schedules, over a snapshot
// of a cache the informers keep current (through the same AddNode/.../DeletePod handlers as the
// Scheduler, see cmd/berth/app/run/cluster_feed.h). It never assumes, reserves or binds.
//
// Filter (an ExtenderFilterResult):
//   - no Pod in the args, or a Pod that does not decode -> Error: "ExtenderArgs has no Pod" /
//     "Pod: <field>: <why>";
//   - a node name berth's cache does not know -> FailedNodes: `node "x" is not in berth's cache`;
//   - PreFilter rejecting the pod -> every asked node fails with its message (FailedNodes, or
//     FailedAndUnresolvableNodes when UnschedulableAndUnresolvable); a PreFilter result that
//     narrows the nodes fails the others as upstream words it (UnschedulableAndUnresolvable);
//   - then each node's Filter plugins: the first rejection is the node's reason (joined reasons
//     of the status), UnschedulableAndUnresolvable -> FailedAndUnresolvableNodes;
//   - a plugin Error -> the result's Error.
//   A pod every plugin Skips passes every known node: the default scheduler asks its extender
//   about every pod.
// Prioritize (a HostPriorityList, one entry per asked node):
//   the profile's weighted plugin total T for a node (0..100 × Σ weights of the Score plugins that
//   ran) is rescaled to 0..10 as round(T × 10 / (100 × Σ weights)), so a node perfect on every
//   plugin scores 10 (upstream's MaxExtenderPriority) and the scheduler multiplies it back by
//   weight × 10. Unknown nodes, and all nodes when no Score plugin ran, score 0. Errors (no pod,
//   a plugin Error) come back as Error.
//
// Thread-safe: the handlers may run on informer threads while Filter/Prioritize run on the HTTP
// thread; requests are serialized on one mutex (the snapshot and cycle are per request).

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/store.h"
#include "base/result.h"
#include "cmd/berth/app/extender/wire.h"
#include "config/types.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/clock.h"
#include "scheduler/framework/parallelizer.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/snapshot.h"
#include "scheduler/runtime/framework.h"

namespace berth::extender_server {

class Evaluator {
 public:
  // `profile`: a schedulerName of cfg.profiles, or empty for the first profile. Errors: unknown
  // profile (listing the known ones) and the profile's own errors (unknown plugin, bad args).
  // `objects` and `clock` must outlive the Evaluator.
  static Result<std::unique_ptr<Evaluator>> Create(const config::SchedulerConfiguration& cfg,
                                                   const std::string& profile,
                                                   const framework::Registry& registry,
                                                   const api::ClusterObjects* objects,
                                                   const framework::Clock* clock);
  ~Evaluator();

  const std::string& profile() const { return fwk_->scheduler_name(); }

  // ---- cache feed (app/run/cluster_feed.h); bound, non-terminal pods count on their nodes ----
  void AddNode(std::shared_ptr<const api::Node> node);
  void UpdateNode(const api::Node& old_node, std::shared_ptr<const api::Node> node);
  void DeleteNode(const api::Node& node);
  void AddPod(std::shared_ptr<const api::Pod> pod);
  void UpdatePod(const api::Pod& old_pod, std::shared_ptr<const api::Pod> pod);
  void DeletePod(const api::Pod& pod);
  size_t NodeCount() const { return cache_.NodeCount(); }

  // ---- requests ----
  extenders::FilterAnswer Filter(const extenders::ExtenderArgs& args);
  Result<std::vector<extenders::HostPriority>> Prioritize(const extenders::ExtenderArgs& args);

 private:
  Evaluator(int parallelism);

  class NoWrites;
  std::unique_ptr<NoWrites> writer_;
  framework::Parallelizer parallelizer_;
  cache::Cache cache_;
  std::mutex mu_;  // serializes requests; guards snapshot_ and the framework's cycle
  framework::Snapshot snapshot_;
  std::unique_ptr<runtime::Framework> fwk_;
};

}  // namespace berth::extender_server
