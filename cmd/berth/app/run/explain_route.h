#pragma once
// GET /debug/explain/{namespace}/{pod}: the scheduler's own diagnosis of a pod (berth explain).
// A non-resource path, so that RBAC can grant it apart from /metrics (nonResourceURLs
// ["/debug/explain/*"]); it sits behind the secure port's authentication and authorization like
// every path not in --authorization-always-allow-paths.
//
//   200 application/json   the diagnosis (scheduler/diagnosis/json.h)
//   404 application/json   a metav1.Status (reason NotFound): no diagnosis of that pod (it was
//                          never attempted, was placed, or is gone); on a standby, the message
//                          names the leader, which alone schedules and so alone has diagnoses
//   405                    any method but GET and HEAD
// Other paths are not handled (nullopt). Thread-safe: the Store locks.

#include <optional>
#include <string>
#include <string_view>

#include "cmd/berth/app/serving/http_server.h"
#include "scheduler/diagnosis/store.h"

namespace berth::run {

struct ExplainRouteState {
  bool leading = false;
  std::string leader;  // the lease holder's identity, when known
};

std::optional<HttpReply> ExplainRoute(std::string_view method, std::string_view path,
                                      const diagnosis::Store& store,
                                      const ExplainRouteState& state);

}  // namespace berth::run
