#pragma once
// TaintToleration (PreFilter, Filter, PreScore, Score + NormalizeScore) — upstream's
// tainttoleration plugin (v1.37).
//   PreFilter: always Success (upstream's skips only pods with a deferred resize, gated off).
//   Filter: the first NoSchedule/NoExecute taint of the node (in node order) that no toleration of
//     the pod tolerates rejects it: UnschedulableAndUnresolvable, kErrReasonUntoleratedTaints (the
//     taint itself is not named, as in upstream v1.37).
//   ExplainFilter (berth's FilterExplainer): for kErrReasonUntoleratedTaints, the need
//     "add a toleration for dedicated=gpu:NoSchedule" (key=value:effect, key:effect without a
//     value; "add tolerations for a=b:NoSchedule, c:NoExecute" when several are untolerated),
//     gap kExplainGap (the pod's author can fix it: ranked before unresolvable shortfalls).
//   PreScore: keeps the pod's tolerations whose effect is PreferNoSchedule or empty; never Skips.
//   Score: the number of the node's PreferNoSchedule taints those tolerations don't tolerate.
//   NormalizeScore: DefaultNormalizeScore(100, reverse=true), so fewer intolerable taints score
//     higher. Score without PreScore state returns Error.
// Requeue: Node/Add|UpdateNodeTaint (hint: the node went from untolerated to tolerated) and
// Pod/UpdatePodToleration (hint: Queue for the rejected pod itself).

#include <memory>

#include "api/types.h"
#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::taint_toleration {

inline constexpr const char kName[] = "TaintToleration";
// Declared by upstream as well, though its Filter returns kErrReasonUntoleratedTaints.
inline constexpr const char kErrReasonNotMatch[] =
    "node(s) had taints that the pod didn't tolerate";
// The Filter reason of upstream v1.37.
inline constexpr const char kErrReasonUntoleratedTaints[] = "node(s) had untolerated taint(s)";
// The gap ExplainFilter reports: fixable by the pod's author.
inline constexpr double kExplainGap = 0.5;

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::taint_toleration
