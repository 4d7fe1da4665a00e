#pragma once
// SchedulingQueue: pending pods of every profile (upstream's PriorityQueue).
//  - activeQ: a heap in the QueueSort order; Pop() takes from it.
//  - backoffQ: pods waiting out their backoff (initial << (n-1), capped at max, where n is the
//    unschedulable count, or the consecutive error count when > 0 — v1.34 semantics), ordered
//    by expiry; FlushBackoffCompleted() moves expired ones to activeQ.
//  - unschedulable pool: pods rejected by plugins; cluster events move them back when a hint of
//    one of their rejecting plugins says Queue; FlushUnschedulableLeftover() moves pods that
//    stayed longer than max_in_unschedulable (5 min) back.
//  - gated: pods whose PreEnqueue failed are kept in the unschedulable pool, marked gated, and
//    re-checked when they are updated or an event that concerns their gating plugin arrives.
// A popped pod is "in flight" until Done(uid) or AddUnschedulableIfNotPresent.
// Without in-flight event replay (QueueingHints' replay is not implemented): a pod that fails
// after a move request newer than its cycle goes to backoffQ instead of the unschedulable pool
// (upstream's behaviour with queueing hints off).
//
// Thread-safe. Pop() blocks; TryPop() does not (used by `berth simulate`).

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/clock.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"
#include "scheduler/metrics/recorder.h"
#include "scheduler/queue/nominator.h"

namespace berth::queue {

using QueuedPodInfoPtr = std::shared_ptr<framework::QueuedPodInfo>;

struct QueueOptions {
  // scheduler_queue_incoming_pods_total and scheduler_unschedulable_pods, recorded under the
  // queue lock. Null records nothing (metrics::NoMetrics()).
  metrics::Recorder* metrics = nullptr;
  // Nominated pods, kept current on Add / Update / Delete (upstream's nominator in the queue).
  // May be null (no nominations tracked).
  Nominator* nominator = nullptr;
  framework::Duration initial_backoff = std::chrono::seconds(1);
  framework::Duration max_backoff = std::chrono::seconds(10);
  framework::Duration max_in_unschedulable = std::chrono::minutes(5);
};

// QueueSort order: true when a goes first.
using LessFn =
    std::function<bool(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b)>;
// Runs the PreEnqueue plugins of one profile; returns Success or the first failure with its
// plugin set (Status::plugin()). Called under the queue lock: must not call back into the queue.
using PreEnqueueFn = std::function<framework::Status(const framework::PodInfo& pod)>;
// plugin name -> the events (and hints) it registered.
using EventMap = std::map<std::string, std::vector<framework::ClusterEventWithHint>, std::less<>>;

// What the queue needs from one profile: its PreEnqueue plugins and its queueing hints. Two
// profiles that configure the same plugin differently have different hints.
struct ProfileHooks {
  PreEnqueueFn pre_enqueue;  // empty: no PreEnqueue plugins
  EventMap events;
};
// schedulerName -> the hooks of that profile (upstream's QueueingHintMapPerProfile, with the
// PreEnqueue plugins beside the hints). A pod is gated and requeued by its own profile's hooks;
// a pod of no profile is never gated and moves only on wildcard events.
using ProfileHooksMap = std::map<std::string, ProfileHooks, std::less<>>;

struct PendingCounts {
  int active = 0;
  int backoff = 0;
  int unschedulable = 0;
  int gated = 0;
};

class SchedulingQueue {
 public:
  SchedulingQueue(const framework::Clock& clock, QueueOptions options, LessFn less,
                  ProfileHooksMap profiles);
  // One set of hooks for every pod, whatever its schedulerName (single-profile callers, tests).
  SchedulingQueue(const framework::Clock& clock, QueueOptions options, LessFn less,
                  PreEnqueueFn pre_enqueue, EventMap events);

  // A new pending pod (seq orders pods that compare equal: arrival order).
  void Add(framework::PodInfoPtr pod);
  // The pod object changed while pending (e.g. labels, gates removed).
  void Update(const api::Pod& old_pod, framework::PodInfoPtr new_pod);
  // The pod was deleted or bound by someone else. Also forgets an in-flight pod: its later
  // AddUnschedulableIfNotPresent is dropped.
  void Delete(const api::Pod& pod);

  // Blocks until a pod is in activeQ or Close() was called (then nullptr, also on every later
  // call). Increments the scheduling cycle and the pod's attempts, and clears its rejecting
  // plugins (as upstream's Pop).
  QueuedPodInfoPtr Pop();
  QueuedPodInfoPtr TryPop();
  // The in-flight pod finished its cycle successfully (it was assumed).
  void Done(const std::string& uid);

  // After a failed cycle: requeue to backoffQ or the unschedulable pool (see class comment).
  // `pod_scheduling_cycle` is the cycle in which the pod was popped. Ignored when the pod is
  // queued again already (updated while in flight) or was deleted while in flight.
  void AddUnschedulableIfNotPresent(QueuedPodInfoPtr pod, int64_t pod_scheduling_cycle);

  // A cluster event: moves unschedulable pods whose rejecting plugins' hints say Queue.
  // exclude_uid (may be empty) is left where it is (upstream's precheck that keeps a pod from
  // being moved by the event its own failed binding caused).
  void MoveAllToActiveOrBackoffQueue(const framework::ClusterEvent& event,
                                     const framework::EventObject& old_obj,
                                     const framework::EventObject& new_obj,
                                     const std::string& exclude_uid = "");
  // Moves these pods (by "ns/name") to activeQ if they are in backoffQ or the unschedulable
  // pool (upstream's Activate, used by Coscheduling via PodsToActivate).
  void Activate(const std::set<std::string>& pod_keys);

  void FlushBackoffCompleted();
  void FlushUnschedulableLeftover();
  // Earliest time a backoffQ pod becomes ready, if any (simulate advances its clock to it).
  std::optional<framework::TimePoint> NextBackoffExpiry() const;
  // Earliest time an unschedulable pod's leftover flush would fire.
  std::optional<framework::TimePoint> NextLeftoverExpiry() const;

  int64_t SchedulingCycle() const;
  PendingCounts Counts() const;
  // Every pod the queue holds or has in flight, by key (for tests and debugging).
  bool Has(const std::string& pod_key) const;
  void Close();

  // Backoff duration for a queued pod (exposed for tests).
  framework::Duration BackoffDuration(const framework::QueuedPodInfo& p) const;

 private:
  // An indexed binary heap of queued pods (uid -> position), so removal and in-place update are
  // O(log n) like upstream's heap. `before(a, b)` is true when a comes out first.
  class PodHeap {
   public:
    using Before =
        std::function<bool(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b)>;
    explicit PodHeap(Before before) : before_(std::move(before)) {}
    void Push(QueuedPodInfoPtr p);
    QueuedPodInfoPtr Pop();
    const QueuedPodInfoPtr& Top() const { return items_.front(); }
    bool Remove(const std::string& uid);
    // Restores the order after the entry's sort keys changed.
    void Fix(const std::string& uid);
    size_t size() const { return items_.size(); }
    bool empty() const { return items_.empty(); }

   private:
    void Swap(size_t i, size_t j);
    bool Up(size_t i);
    void Down(size_t i);
    Before before_;
    std::vector<QueuedPodInfoPtr> items_;
    // uid -> entry; its position is the entry's heap_slot (kept up to date by Swap), so sifting
    // touches no map.
    std::unordered_map<std::string, framework::QueuedPodInfo*> index_;
  };
  enum class Where { kActive, kBackoff, kUnschedulable };
  struct Location {
    QueuedPodInfoPtr pod;
    Where where;
  };

  // All below guarded by mu_. PreEnqueue and queueing-hint functions run under it and must not
  // call back into the queue.
  // Runs PreEnqueue and records the gating plugin (cleared when it passes). True when gated.
  bool IsGatedLocked(framework::QueuedPodInfo& p);
  // Into activeQ, or the unschedulable pool as gated when PreEnqueue fails.
  void AddToActiveOrGatedLocked(QueuedPodInfoPtr p);
  void UpdateLocked(const api::Pod& old_pod, framework::PodInfoPtr new_pod);
  void PushBackoffLocked(QueuedPodInfoPtr p);
  void PushUnschedulableLocked(QueuedPodInfoPtr p);
  // Upstream's requeuePodWithQueueingStrategy: activeQ when `to_active` or the backoff expired,
  // else backoffQ.
  void MoveToActiveOrBackoffLocked(QueuedPodInfoPtr p, bool to_active);
  // Takes the pod out of whichever sub-queue holds it; nullptr if none.
  QueuedPodInfoPtr RemoveLocked(const std::string& uid);
  bool IsBackingOffLocked(const framework::QueuedPodInfo& p) const;
  framework::TimePoint BackoffExpiry(const framework::QueuedPodInfo& p) const;
  QueuedPodInfoPtr PopActiveLocked();
  // Upstream's isEventOfInterest: some plugin registered an event matching `e`.
  bool IsEventOfInterest(const framework::ClusterEvent& e) const;
  // Upstream's isPodWorthRequeuing for a non-gated pod.
  bool WorthRequeuing(const framework::QueuedPodInfo& p, const framework::ClusterEvent& e,
                      const framework::EventObject& old_obj, const framework::EventObject& new_obj,
                      bool* to_active) const;
  // Whether an event may lift the gate of a gated pod (its gating plugin registered it).
  bool GateWorthRechecking(const framework::QueuedPodInfo& p, const framework::ClusterEvent& e,
                           const framework::EventObject& old_obj,
                           const framework::EventObject& new_obj) const;
  // The hooks of the pod's profile; nullptr for a pod of no profile.
  const ProfileHooks* HooksFor(const api::Pod& pod) const;
  // A pod entered (delta +1) or left (-1) the unschedulable pool: scheduler_unschedulable_pods.
  void CountUnschedulable(const framework::QueuedPodInfo& p, double delta);
  static std::string UidOf(const api::Pod& pod);

  const framework::Clock& clock_;
  const QueueOptions options_;
  metrics::Recorder& metrics_;  // options_.metrics or NoMetrics()
  const LessFn less_;
  const ProfileHooksMap profiles_;
  // Set by the single-hooks constructor: these hooks serve every pod.
  const ProfileHooks* every_pod_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  PodHeap active_;   // by less_, then seq
  PodHeap backoff_;  // by backoff expiry, then less_, then seq
  std::unordered_map<std::string, QueuedPodInfoPtr> unschedulable_;  // by uid (includes gated)
  std::unordered_map<std::string, Location> where_;      // uid -> entry in any sub-queue
  std::unordered_map<std::string, std::string> by_key_;  // "ns/name" -> uid, queued pods
  std::unordered_map<std::string, QueuedPodInfoPtr> in_flight_;
  // In-flight pods deleted before their cycle ended: their requeue is dropped.
  std::set<std::string> deleted_in_flight_;
  int64_t scheduling_cycle_ = 0;
  int64_t move_request_cycle_ = -1;
  uint64_t next_seq_ = 0;
  bool closed_ = false;
  // The event being handled, for scheduler_queue_incoming_pods_total (valid during one locked
  // call).
  std::string_view event_ = "";
};

}  // namespace berth::queue
