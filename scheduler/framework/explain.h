#pragma once
// Explaining a rejection: what a node would need to pass a Filter plugin. This is berth's own
// extension of upstream's framework (upstream reports only the reason), used by the diagnoses
// `berth explain`, /debug/explain and `berth simulate --explain` show as "nearest" nodes.
//
// A Filter plugin that can say more than its reason also derives from FilterExplainer; the
// runtime finds it with dynamic_cast when the profile is built. ExplainFilter is never called
// on the per-node hot path: only after a pod failed, for the few nodes that came nearest, on the
// scheduling thread, with the cycle's CycleState and snapshot.

#include <string>
#include <vector>

#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/framework/status.h"

namespace berth::framework {

// One reason a node failed, and what would make it pass.
struct FilterNeed {
  std::string reason;  // one of the rejecting Status's reasons, as upstream words it
  // What would make the node pass, in the plugin's words ("requests 2, allocatable 8, in use
  // 6.5: short by 500m", "add a toleration for dedicated=gpu:NoSchedule"); empty = the plugin
  // cannot say.
  std::string need;
  // How far the node is from passing, 0 (nearly passes) .. 1 (far, or unknown). Ranks the
  // nearest nodes: a node short by 5% of a resource comes before one short by 80%.
  double gap = 1.0;
};

// kGapOnly: only the gaps are wanted (ranking every rejected node: must be cheap, so `reason`
// and `need` may be left empty, one FilterNeed per reason explained); kFull: reason and need
// text too (the few nearest nodes).
enum class ExplainDetail { kGapOnly, kFull };

class FilterExplainer {
 public:
  virtual ~FilterExplainer() = default;
  // `rejection` is what this plugin's Filter returned for `node` (a rejected status). Appends
  // one FilterNeed per reason it can explain; reasons it leaves out are reported with an empty
  // need and gap 1. Must not throw; reads only the state, the pod and the snapshot.
  virtual void ExplainFilter(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                             const Status& rejection, ExplainDetail detail,
                             std::vector<FilterNeed>* out) const = 0;
};

}  // namespace berth::framework
