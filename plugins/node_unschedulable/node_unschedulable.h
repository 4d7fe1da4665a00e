#pragma once
// NodeUnschedulable (PreFilter, Filter) — upstream's nodeunschedulable plugin (v1.37).
// PreFilter always succeeds (upstream's skips only pods with a deferred resize, gated off).
// Filter rejects nodes with spec.unschedulable unless the pod tolerates the taint
// node.kubernetes.io/unschedulable:NoSchedule.
// Filter returns Success, or UnschedulableAndUnresolvable with kErrReasonUnschedulable; a NodeInfo
// without a node (deleted while pods remain) gets kErrReasonUnknownCondition, as upstream did.
// ExplainFilter (berth's FilterExplainer): for kErrReasonUnschedulable, kExplainNeed with gap
// kExplainGap (fixable by uncordoning or by the pod's author); kErrReasonUnknownCondition is left
// to the runtime.
// Requeue: Node/Add|UpdateNodeTaint (hint: the node is new and schedulable, or became
// schedulable) and Pod/UpdatePodToleration (hint: the pod itself now tolerates the taint).

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::node_unschedulable {

inline constexpr const char kName[] = "NodeUnschedulable";
inline constexpr const char kErrReasonUnschedulable[] = "node(s) were unschedulable";
inline constexpr const char kErrReasonUnknownCondition[] = "node(s) had unknown conditions";
inline constexpr const char kTaintNodeUnschedulable[] = "node.kubernetes.io/unschedulable";
inline constexpr const char kExplainNeed[] =
    "node is cordoned (spec.unschedulable): uncordon it, or tolerate "
    "node.kubernetes.io/unschedulable:NoSchedule";
inline constexpr double kExplainGap = 0.5;

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::node_unschedulable
