#pragma once
// NodeResourcesFit's FilterExplainer half (scheduler/framework/explain.h): for each reason of a
// rejection, what the node lacks, from the requests PreFilter recorded (state.h: pod-level
// resources, ignored and DRA-delegated extended resources already accounted for, exactly as
// Filter saw them).
//   "Insufficient <resource>": need "requests 2, allocatable 8, in use 6.5: short by 500m",
//     gap = shortfall / request, clamped to [0, 1]. When the request exceeds the node's
//     allocatable outright (the UnschedulableAndUnresolvable case): "requests 16, allocatable 8:
//     no node of this size can fit it", gap 1.
//   "Too many pods": need "allowed 110 pods, running 110", gap 1 (a whole pod slot is missing).
// Reasons it does not know are left out (the runtime reports them with gap 1). kGapOnly formats
// nothing and leaves `reason` empty (one FilterNeed per reason explained, as explain.h allows).
// Called on the scheduling thread; reads only its arguments.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/node_resources_fit/state.h"
#include "scheduler/framework/explain.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/status.h"

namespace berth::plugins::node_resources_fit {

void ExplainInsufficient(const PreFilterState& s, const framework::NodeInfo& node,
                         const framework::Status& rejection, framework::ExplainDetail detail,
                         std::vector<framework::FilterNeed>* out);

// An amount of `resource` as Kubernetes writes quantities: cpu (milli-cores) as cores or
// millicores ("2", "500m", "6.5"); memory, ephemeral-storage and hugepages-* (bytes) with the
// largest binary suffix that is exact ("512Mi", "3Gi", "1536Mi"), else plain bytes; pods and
// extended resources as integers.
std::string FormatQuantity(std::string_view resource, int64_t amount);

}  // namespace berth::plugins::node_resources_fit
