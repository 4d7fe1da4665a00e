#pragma once
// ServiceAffinity (upstream's removed serviceaffinity plugin, v1.21; the Policy's `serviceAffinity`
// predicate and `serviceAntiAffinity` priority, design seed 003). Only reachable through a legacy
// Policy file (config/policy.h) or an explicit profile entry; never in the default profile.
//   PreFilter: Skip when affinityLabels is empty; otherwise records the Services selecting the pod
//              and the pods (any node, same namespace) whose labels carry all of the pod's labels.
//   Filter:    the node must carry, for every affinityLabels key, the value the pod's nodeSelector
//              gives it or, failing that (and when a Service selects the pod), the value on the
//              node of the first such pod. Otherwise Unschedulable kErrReasonAffinityNotMatch.
//   PreScore/Score: number of pods on the node (same namespace, not being deleted) that the first
//              Service selecting the pod selects.
//   NormalizeScore: per antiAffinityLabelsPreference label, spreads over that label's values:
//              100 * (total - count(value)) / total, averaged over the labels; nodes without the
//              label get 0 for it (upstream's updateNodeScoresForLabel).
// Args (ServiceAffinityArgs): affinityLabels, antiAffinityLabelsPreference (string lists).
// Services are read from handle->objects().services; a Service without a selector selects nothing.
// Stateless between cycles; Filter/Score are safe from any worker thread.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::service_affinity {

inline constexpr const char kName[] = "ServiceAffinity";
inline constexpr const char kErrReasonAffinityNotMatch[] = "node(s) didn't match service affinity";

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::service_affinity
