#pragma once
// Coscheduling (kubernetes-sigs/scheduler-plugins, design seed 004): gang scheduling with
// PodGroups. A pod joins the PodGroup `scheduling.x-k8s.io/v1alpha1` named by its label
// `scheduling.x-k8s.io/pod-group` in its own namespace; the group's pods are placed all together
// (at least spec.minMember of them) or not at all. Enabled the way scheduler-plugins' manifests
// do it: multiPoint enabled [Coscheduling] + queueSort enabled [Coscheduling], disabled ["*"].
// Not part of the default profile.
//
// Args (CoschedulingArgs, strict): permitWaitingTimeSeconds (60, >= 0), podGroupBackoffSeconds
// (0 = off, >= 0), podGroupRejectPercentage (10, 0..100). An invalid value is an Error
// `<args_path>.<field>: Invalid value: <v>: <why>`.
//
// Extension points (pods without the label are left alone everywhere; "assigned" = the group's
// pods on a node in the snapshot — bound or assumed — plus its waiting pods not yet rejected):
//   QueueSort   priority (higher first), then the group's time — its last failure if it failed,
//               else its creationTimestamp — or, for a pod without a group, the pod's first
//               attempt time (else its queue timestamp); then "ns/name". Siblings are adjacent.
//               A group's time moves when it fails; pods of it already in activeQ keep their
//               heap position until they are queued again (as upstream's heap does).
//   PreFilter   UnschedulableAndUnresolvable (so preemption is not tried), checked in order:
//                 backoff:   `podGroup <ns>/<pg> failed recently`
//                 siblings:  `pre-filter pod <p> cannot find enough sibling pods, current pods
//                            number: <n>, minMember of group: <m>`
//                 resources: only with spec.minResources and when the group is not in the
//                            permitted cache: free cluster resources (allocatable − requests of
//                            pods outside the group, summed over nodes; pods: minMember) must
//                            cover them, else `resource gap: map[cpu:2 pods:1]` (what is missing).
//                            A pass is cached for permitWaitingTimeSeconds.
//               A pod whose PodGroup object does not exist passes.
//   PostFilter  Unschedulable, never a nomination. No group object: `can not find pod group`.
//               When assigned >= minMember, or the missing share (minMember − assigned) /
//               minMember is within podGroupRejectPercentage, nothing else happens (empty
//               message). Otherwise every waiting sibling is rejected ("optimistic rejection in
//               PostFilter"), the group backs off (if configured and it has >= minMember pods),
//               its permitted mark is cleared, it is marked failed, and the message is
//               `PodGroup <ns>/<pg> gets rejected due to Pod <p> is unschedulable even after
//               PostFilter` — or empty when this plugin's own PreFilter rejected the pod (its
//               message already says why, and the event then reads as the seed's).
//   Permit      No group object: Unschedulable `PodGroup not found`. assigned (with this pod) >=
//               minMember: Success, every waiting sibling is allowed, the failure mark cleared.
//               Else Wait for spec.scheduleTimeoutSeconds || permitWaitingTimeSeconds || 60 s;
//               when this is the group's first assigned pod, its siblings ("ns/name") go into
//               CycleState::pods_to_activate — unless members of the group that held nodes
//               were released (PostFilter or Unreserve) less than a second ago: those siblings
//               come back through their own backoff, and re-activating them at once would let
//               members of a group that cannot fit evict each other forever at the same instant
//               (a livelock upstream's rule "activate when assigned == 0" does not prevent).
//   Reserve     no-op (it exists for Unreserve).
//   Unreserve   every waiting sibling is rejected ("rejection in Unreserve"), the permitted mark
//               cleared, the group marked failed (and backed off if configured).
//   EnqueueExtensions  Pod Add; PodGroup Add|Update (no hints: always Queue).
//
// Threading: Less runs on the queue's callers under the queue lock; PreFilter, PostFilter and
// Permit on the scheduling thread (they read the snapshot); Unreserve on binding workers (it
// reads only the object stores and waiting pods). Group-level state lives in one GroupCache
// behind its own mutex (group_cache.h); nothing per pod is kept in the plugin.

#include <chrono>
#include <cstdint>
#include <memory>

#include "base/result.h"
#include "scheduler/framework/clock.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::coscheduling {

inline constexpr const char kName[] = "Coscheduling";

// Upstream's util.DefaultWaitTime: the Permit wait when neither the group nor the args set one.
inline constexpr framework::Duration kDefaultWaitTime = std::chrono::seconds(60);
// A group whose placed members were released less than this long ago does not re-activate its
// siblings from Permit.
inline constexpr framework::Duration kSiblingActivationQuietPeriod = std::chrono::seconds(1);

struct Args {
  int64_t permit_waiting_time_seconds = 60;
  int64_t pod_group_backoff_seconds = 0;
  int64_t pod_group_reject_percentage = 10;
};

// Strict parse and validation of CoschedulingArgs (nullptr args = defaults).
Result<Args> ParseArgs(const framework::PluginContext& ctx);

// The factory; ctx.handle must be non-null.
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::coscheduling
