#pragma once
// PodGroupController: keeps PodGroup status (scheduling.x-k8s.io/v1alpha1) as
// scheduler-plugins' controller does, so users of gangs need nothing else (upstream-features
// §8.3):
//   ""        -> Pending
//   Pending   -> Scheduling when the group has >= minMember pods (occupiedBy from the first
//                pod's owners, scheduleStartTime = now)
//   otherwise running/succeeded/failed are recounted from pod phases, and
//     #pods < minMember                          -> Pending
//     running + succeeded < minMember            -> Scheduling
//     running + succeeded >= minMember           -> Running
//     failed > 0 and failed+running+succeeded >= minMember -> Failed   (terminal)
//     succeeded >= minMember                     -> Finished (terminal)
// Writes go through the status subresource (merge patch), only when something changed, on the
// controller's own thread. Enqueue is cheap and thread-safe (informer handlers call it).

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "api/store.h"
#include "informers/client/kube_client.h"
#include "scheduler/framework/clock.h"

namespace berth::run {

// The status the controller wants for `group` given its pods (pure; exposed for tests).
api::PodGroupStatus DesiredPodGroupStatus(const api::PodGroup& group,
                                          const std::vector<const api::Pod*>& pods, api::Time now);

class PodGroupController {
 public:
  // `active` tells whether this instance may write (the leader); may be empty (always).
  PodGroupController(client::KubeClient& client, const api::ClusterObjects& objects,
                     const framework::Clock& clock, std::function<bool()> active);
  ~PodGroupController();  // Stop()s

  void Start();
  void Stop();
  // "ns/name" of a PodGroup to reconcile.
  void Enqueue(const std::string& key);
  // Every known PodGroup (e.g. after becoming leader: what the standby skipped).
  void EnqueueAll();
  // The group key of a pod ("ns/<label>"), or "" when it has no pod-group label.
  static std::string GroupKeyOf(const api::Pod& pod);

 private:
  void Loop();
  void Reconcile(const std::string& key);

  client::KubeClient& client_;
  const api::ClusterObjects& objects_;
  const framework::Clock& clock_;
  std::function<bool()> active_;

  std::mutex mu_;  // guards queue_, queued_, stop_
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::set<std::string> queued_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace berth::run
