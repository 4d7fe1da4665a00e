#pragma once
// NodeLabel (upstream's removed nodelabel plugin, design seed 001): Filter and Score nodes by
// label *keys* named in the plugin's own args, never by the pod.
//   Filter: every presentLabels key must exist on the node and no absentLabels key may exist;
//           otherwise UnschedulableAndUnresolvable kErrReasonPresenceViolated. A NodeInfo without
//           a node is an Error "node not found".
//   Score:  100 for each satisfied preference (presentLabelsPreference key present,
//           absentLabelsPreference key absent), integer-divided by the number of preferences;
//           0 when there are none.
// Args (NodeLabelArgs): presentLabels, absentLabels, presentLabelsPreference,
// absentLabelsPreference (string lists); a key may not be both present and absent (upstream's
// ValidateNodeLabelArgs). Stateless; Filter/Score are safe from any worker thread.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::node_label {

inline constexpr const char kName[] = "NodeLabel";
inline constexpr const char kErrReasonPresenceViolated[] =
    "node(s) didn't have the requested labels";

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::node_label
