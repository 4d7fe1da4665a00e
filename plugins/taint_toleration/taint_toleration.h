#pragma once
// TaintToleration (Filter, PreScore, Score + NormalizeScore) — upstream's tainttoleration plugin.
//   Filter: the first NoSchedule/NoExecute taint of the node (in node order) that no toleration of
//     the pod tolerates rejects it: UnschedulableAndUnresolvable,
//     "node(s) had untolerated taint {<key>: <value>}" (an empty value reads "{key: }").
//   PreScore: keeps the pod's tolerations whose effect is PreferNoSchedule or empty; never Skips.
//   Score: the number of the node's PreferNoSchedule taints those tolerations don't tolerate.
//   NormalizeScore: DefaultNormalizeScore(100, reverse=true), so fewer intolerable taints score
//     higher. Score without PreScore state returns Error.
// Requeue: Node/Add|UpdateNodeTaint (hint: the node went from untolerated to tolerated) and
// Pod/UpdatePodToleration (hint: Queue for the rejected pod itself).

#include <memory>
#include <string>

#include "api/types.h"
#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::taint_toleration {

inline constexpr const char kName[] = "TaintToleration";
// Declared by upstream as well, though its Filter uses the per-taint form below.
inline constexpr const char kErrReasonNotMatch[] =
    "node(s) had taints that the pod didn't tolerate";

// "node(s) had untolerated taint {<key>: <value>}"
std::string UntoleratedTaintReason(const api::Taint& taint);

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::taint_toleration
