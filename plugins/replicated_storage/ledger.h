#pragma once
// ReservationLedger: space the ReplicatedStorage plugin has promised to pods being bound, held
// across scheduling cycles until the volume's LVMLogicalVolume shows up.
//
// Why state across cycles (the one exception to "plugins are stateless across cycles"): between
// Reserve and the moment the CSI driver carves the LVMLogicalVolume, neither the LVMVolumeGroup's
// vgFree nor the LVMLogicalVolume list shows the space a just-placed pod will take. Without a
// hold, the next pod would see the same free space and two volumes could be promised the last
// gigabytes of one volume group. The production extender keeps the same kind of in-memory
// reservations (with a TTL) for the same reason.
//
// A hold ends (Prune) when the volume has landed (the caller's `landed`: its LVMLogicalVolume
// exists on the held pool, its replicas were placed on other nodes, or the claim is gone), on
// Unreserve, or after the timeout — unless the pod is by then bound to the held node: such a pod
// waits for its volume there, so its space stays promised until the volume lands or the pod goes.
// (Without that exception a pod retried after the timeout could be given space already promised,
// e.g. in `berth simulate`, where no provisioner ever creates the volume.)
//
// Ownership and threads: one ledger per plugin instance (one per profile), owned by the plugin.
// Hold runs on the scheduling thread (Reserve); Release on the scheduling thread or a binding
// worker (Unreserve); Prune and HeldBytes on the scheduling thread (PreFilter). Every method
// takes mu_, so any thread may call any method. Per-node Filter/Score never touch the ledger:
// PreFilter copies what they need into CycleState.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "scheduler/framework/clock.h"

namespace berth::plugins::replicated_storage {

// One pool of an LVMVolumeGroup: the whole group (thick) or one thin pool.
struct PoolKey {
  std::string lvg;
  std::string thin_pool;  // empty for thick
  auto operator<=>(const PoolKey&) const = default;
};

struct SpaceHold {
  std::string claim_key;  // "namespace/name" of the PVC
  std::string node;       // the node the pod was reserved on (the pool's node)
  PoolKey pool;
  int64_t bytes = 0;
};

class ReservationLedger {
 public:
  explicit ReservationLedger(framework::Duration timeout) : timeout_(timeout) {}

  // Records the holds of one pod ("namespace/name" pod_key), replacing any it had; they expire
  // at now + timeout.
  void Hold(const std::string& pod_uid, const std::string& pod_key, std::vector<SpaceHold> holds,
            framework::TimePoint now);
  // Drops every hold of the pod. Idempotent.
  void Release(const std::string& pod_uid);
  // Drops holds for which `landed` returns true, and the holds of expired pods (now >= deadline)
  // unless `bound_to(pod_uid, pod_key, node)` says the pod is bound to the hold's node. Pods left
  // without holds are forgotten. Both callbacks run under the ledger's lock: they must not call
  // back into it.
  void Prune(framework::TimePoint now, const std::function<bool(const SpaceHold&)>& landed,
             const std::function<bool(const std::string& pod_uid, const std::string& pod_key,
                                      const std::string& node)>& bound_to);
  // Bytes held per pool by every pod except `except_pod_uid`.
  std::map<PoolKey, int64_t> HeldBytes(const std::string& except_pod_uid) const;
  // Number of pods holding space.
  size_t Size() const;

 private:
  struct Entry {
    std::string pod_key;
    std::vector<SpaceHold> holds;
    framework::TimePoint deadline;
  };
  const framework::Duration timeout_;
  mutable std::mutex mu_;  // guards by_pod_
  std::map<std::string, Entry> by_pod_;
};

}  // namespace berth::plugins::replicated_storage
