#pragma once
// The selector of system default spreading (upstream's helper.DefaultSelector), shared by
// PodTopologySpread's system defaults and SelectorSpread:
//   - the selectors of the Services in the pod's namespace that select it, merged (a Service
//     without a selector selects nothing);
//   - ANDed with the selector of the pod's controller (its ownerReference with controller: true)
//     only when that controller is a v1 ReplicationController, an apps/v1 ReplicaSet or an apps/v1
//     StatefulSet found by name in the pod's namespace. A ReplicationController's map is merged
//     into the Services' labels (its values win on a shared key); a ReplicaSet's or StatefulSet's
//     selector adds its requirements (an absent, empty or invalid one adds none).
// Pods owned by anything else (Jobs, DaemonSets, custom controllers) or by a controller that does
// not exist count only through Services. An empty result (no match_labels, no match_expressions)
// means "no default spreading" to both callers. Reads the object stores; safe from any thread.

#include "api/store.h"
#include "api/types.h"

namespace berth::plugins::common {

api::LabelSelector DefaultSelector(const api::Pod& pod, const api::ClusterObjects& objects);

// No requirement at all (labels.Selector.Empty()).
inline bool IsEmptySelector(const api::LabelSelector& s) {
  return s.match_labels.empty() && s.match_expressions.empty();
}

}  // namespace berth::plugins::common
