#pragma once
// GroupCache: Coscheduling's memory of PodGroups across scheduling cycles (upstream's
// PodGroupManager caches permittedPG and backedOffPG, plus the group's last failure time).
// Everything here is group-level, keyed by "<namespace>/<podgroup>"; nothing is per pod.
//
//   last failed    when the group last failed as a whole (PostFilter rejected it, or a member was
//                  unreserved). QueueSort orders the group by it instead of its creation time,
//                  so a failing group does not block the head of the queue; cleared when the
//                  group is finally allowed in Permit.
//   last released  when members of the group that held a node (waiting on Permit or assumed)
//                  were last let go because the group failed; Permit does not re-activate
//                  siblings right after (see coscheduling.h).
//   permitted      PreFilter's minResources check passed; skip it until the TTL expires.
//   backed off     the group failed and podGroupBackoffSeconds > 0: PreFilter rejects its pods
//                  until then.
//
// Thread-safe: one mutex guards the map. QueueSort's Less reads it from the queue (under the
// queue's lock), PreFilter/PostFilter/Permit from the scheduling thread, Unreserve from binding
// workers. The lock is held only for the map access itself; no callback runs under it except
// Prune's `exists`, so it nests inside the queue lock and never outside it.

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "scheduler/framework/clock.h"

namespace berth::plugins::coscheduling {

class GroupCache {
 public:
  // ---- failure ----
  void MarkFailed(const std::string& group, framework::TimePoint now);
  void ClearFailed(const std::string& group);
  std::optional<framework::TimePoint> LastFailed(const std::string& group) const;
  void MarkReleased(const std::string& group, framework::TimePoint now);
  std::optional<framework::TimePoint> LastReleased(const std::string& group) const;

  // ---- permitted (minResources passed) ----
  void Permit(const std::string& group, framework::TimePoint until);
  void ClearPermitted(const std::string& group);
  bool IsPermitted(const std::string& group, framework::TimePoint now) const;

  // ---- backoff ----
  // Starts a backoff until `until` unless one is running already (a running backoff is not
  // extended, so pods retrying into it cannot starve their group forever).
  void Backoff(const std::string& group, framework::TimePoint until, framework::TimePoint now);
  bool IsBackedOff(const std::string& group, framework::TimePoint now) const;

  // Drops the entries of groups for which `exists` is false (deleted PodGroups). Called by the
  // plugin now and then; `exists` runs under the cache's lock and must not call back into it.
  void Prune(const std::function<bool(const std::string& group)>& exists);
  size_t Size() const;

 private:
  struct Entry {
    std::optional<framework::TimePoint> last_failed;
    std::optional<framework::TimePoint> last_released;
    std::optional<framework::TimePoint> permitted_until;
    std::optional<framework::TimePoint> backoff_until;
  };

  mutable std::mutex mu_;  // guards entries_
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace berth::plugins::coscheduling
