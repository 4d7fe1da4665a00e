#pragma once
// Coscheduling's read-only questions about a PodGroup and its pods (upstream's core.go helpers).
// All functions are pure over what they are given; none keeps state.

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/store.h"
#include "api/types.h"
#include "scheduler/framework/clock.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/node_info.h"

namespace berth::plugins::coscheduling {

// The value of the pod's scheduling.x-k8s.io/pod-group label; empty when it has none.
std::string_view GroupLabel(const api::Pod& pod);

// "<namespace>/<podgroup>" of a labelled pod (the key of the group's caches and messages).
std::string GroupKey(const api::Pod& pod);

// Whether `pod` belongs to the group `name` in namespace `ns`.
inline bool InGroup(const api::Pod& pod, const std::string& ns, std::string_view name) {
  return !name.empty() && GroupLabel(pod) == name && pod.metadata.namespace_ == ns;
}

// Pods in the store that carry the group's label (bound or not), as upstream lists them from the
// pod informer.
int CountSiblings(const api::Store<api::Pod>& pods, const std::string& ns, std::string_view name);

// "ns/name" of the group's pods in the store, except `exclude_uid`.
std::set<std::string> SiblingKeys(const api::Store<api::Pod>& pods, const std::string& ns,
                                  std::string_view name, const std::string& exclude_uid);

// Uids of the group's pods that hold a node: on a node of the snapshot (bound or assumed) or
// waiting on Permit and not rejected. Each pod once. Scheduling thread only (reads the snapshot).
std::vector<std::string> AssignedUids(framework::Handle& handle, const std::string& ns,
                                      std::string_view name);

// Upstream's CheckClusterResource: what of `min_resources` (plus pods: min_member) the cluster's
// free resources do not cover, summing node by node. A node's free amount is its allocatable
// minus the requests of the pods on it that are not in the group (so what the group already
// holds counts as available to it); negative free amounts count as zero. Empty when covered;
// otherwise "resource gap: map[<name>:<quantity> ...]" with names sorted, as Go prints a map.
std::string ResourceGap(const std::vector<const framework::NodeInfo*>& nodes,
                        const api::ResourceList& min_resources, int32_t min_member,
                        const std::string& ns, std::string_view name);

// Upstream's util.GetWaitTimeDuration: the group's scheduleTimeoutSeconds if > 0, else the
// plugin's permitWaitingTimeSeconds if > 0, else kDefaultWaitTime.
framework::Duration WaitTime(const api::PodGroup& pg, int64_t permit_waiting_time_seconds);

}  // namespace berth::plugins::coscheduling
