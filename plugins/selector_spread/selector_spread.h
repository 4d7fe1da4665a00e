#pragma once
// SelectorSpread (upstream's removed selectorspread plugin, v1.21; the Policy's
// SelectorSpreadPriority / ServiceSpreadingPriority, design seed 003). Only reachable through a
// legacy Policy file (config/policy.h) or an explicit profile entry; never in the default profile.
//   PreScore: Skip for pods with topologySpreadConstraints (upstream's skipSelectorSpread);
//             otherwise upstream's helper.DefaultSelector (plugins/common/default_selector.h):
//             the Services selecting the pod, ANDed with its ReplicationController / ReplicaSet /
//             StatefulSet's selector when that controller exists.
//   Score:    the number of pods on the node in the pod's namespace, not being deleted, matched by
//             that selector (0 when that selector is empty).
//   NormalizeScore: seed 003's `10 * (maxCount - count) / maxCount`, on upstream's 0..100 scale
//             (100 * (maxCount - count) / maxCount; 100 everywhere when maxCount is 0). When
//             nodes carry zone labels (topology.kubernetes.io/zone|region or the
//             failure-domain.beta ones), the zone's score is mixed in with weight 2/3, as
//             upstream's zoneWeighting; nodes without a zone keep the node score.
// No args. Stateless between cycles; Score is safe from any worker thread.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::selector_spread {

inline constexpr const char kName[] = "SelectorSpread";

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::selector_spread
