#pragma once
// /metrics/resources, as kube-scheduler serves it: kube_pod_resource_request and
// kube_pod_resource_limit for every pod the informer holds that is not terminal (bound pods with
// phase Succeeded or Failed are left out; pending pods of any scheduler are in, with node=""),
// one series per non-zero resource, labelled namespace, pod, node, scheduler, priority (the pod's
// spec.priority, "" when unset), resource and unit (cores, bytes, integer for attachable volumes,
// "" otherwise). Requests and limits are counted as upstream's resource.PodRequests and
// resource.PodLimits with default options (framework/pod_requests.h).
// Pure function; safe from any thread.

#include <memory>
#include <string>
#include <vector>

#include "api/types.h"

namespace berth::metrics {

// The Prometheus text exposition (0.0.4) of the two families for `pods`.
std::string RenderPodResourceMetrics(const std::vector<std::shared_ptr<const api::Pod>>& pods);

}  // namespace berth::metrics
