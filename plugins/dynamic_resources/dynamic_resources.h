#pragma once
// DynamicResources (PreEnqueue, PreFilter, PostFilter, Score) — the part of upstream's
// dynamicresources plugin (v1.37, default profile, weight 2) that concerns pods without resource
// claims, which is every pod berth places today. Allocating devices for `spec.resourceClaims` is
// not implemented yet: the registry already declares the resource.k8s.io/v1 kinds it will read
// (so their informers run and stores fill), but this code does not read them; a pod that names
// claims is refused, never bound with its claims unallocated.
//
//   PreEnqueue: Success. (Upstream checks the claims exist; berth refuses such pods in PreFilter.)
//   PreFilter:  records in the CycleState that the pod has no claims and returns Skip (so Filter
//               is skipped); a pod with claims gets UnschedulableAndUnresolvable
//               "berth does not allocate resource claims yet: pod uses spec.resourceClaims".
//   PostFilter: Unschedulable without a reason when PreFilter ran (nothing to deallocate), so the
//               next PostFilter plugin (DefaultPreemption) decides. When an earlier PreFilter
//               plugin stopped the cycle before this one ran, Error "not found", as upstream's
//               CycleState read fails: the FailedScheduling message then ends in "not found".
//   Score:      0 on every node (upstream scores only prioritized-list claims), normalised as
//               upstream's DefaultNormalizeScore (all zeros stay zero).
// Stateless; per-pod data lives in the CycleState. Thread-safe.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::dynamic_resources {

inline constexpr const char kName[] = "DynamicResources";

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::dynamic_resources
