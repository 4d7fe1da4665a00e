#pragma once
// NodeDeclaredFeatures (PreFilter, Filter) — upstream's nodedeclaredfeatures plugin (v1.37, gate
// NodeDeclaredFeatures GA) with component-helpers' nodedeclaredfeatures registry.
//   PreFilter: infers the node features the pod requires from its spec (RequiredFeatures); none
//     -> Skip, so Filter does not run. Otherwise stores them in the CycleState.
//   Filter: UnschedulableAndUnresolvable with kErrReasonUnsatisfiedRequirements unless every
//     required feature is in the node's status.declaredFeatures; Error without PreFilter state.
// Requeue: Node/Add|UpdateNodeDeclaredFeature (hint: Queue unless an update left
// declaredFeatures unchanged) and Pod/Update (hint: Queue when the rejected pod itself changed
// its required features).
// Stateless; thread-safe.

#include <memory>
#include <string>
#include <vector>

#include "api/types.h"
#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::node_declared_features {

inline constexpr const char kName[] = "NodeDeclaredFeatures";
inline constexpr const char kErrReasonUnsatisfiedRequirements[] =
    "node(s) didn't match Pod's required features";

// The features of component-helpers v0.37.2's registry that a pod can require at scheduling
// (the other six registered ones are only inferred for pod updates), in the registry's (sorted)
// order:
//   RestartAllContainersOnContainerExits  a container or init container has a restartPolicyRules
//                                         entry with action RestartAllContainers;
//   UserNamespacesHostNetworkSupport      hostNetwork with hostUsers: false;
//   VolumeBindMountOptions                a volume mount (any container kind) has
//                                         bindMountOptions.
std::vector<std::string> RequiredFeatures(const api::PodSpec& spec);

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::node_declared_features
