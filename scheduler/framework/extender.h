#pragma once
// Extender: a scheduler extender as the scheduling and binding cycles see it (upstream's
// framework.Extender). The core calls this interface only; the HTTP implementation lives in
// cmd/berth/app/extender/ (linked only by cmd/), so the core links no HTTP code and tests use
// fakes.
//
// Where it is called (mirroring upstream's schedule_one.go):
//   - Filter: after the Filter plugins, extenders in order, each on the survivors of the previous
//     one (findNodesThatPassExtenders). Skipped when !IsInterested(pod) or !IsFilter().
//   - Prioritize: after the Score plugins, every interested prioritizer; each node's score
//     (0..kMaxExtenderPriority) × weight × (kMaxNodeScore / kMaxExtenderPriority) is added to the
//     node's plugin total (prioritizeNodes). An error drops that extender's scores (as upstream).
//   - Bind: in the binding cycle, the first binder interested in the pod binds it instead of the
//     Bind plugins (extendersBinding).
//
// Threading: EXCEPTION to "no HTTP on the scheduling thread": as upstream, Filter and Prioritize
// run synchronously on the scheduling thread (one call per extender per cycle, bounded by the
// extender's httpTimeout); Prioritize may be called concurrently for different extenders, Bind
// from binding workers. Implementations are thread-safe.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/types.h"
#include "base/result.h"
#include "scheduler/framework/node_info.h"

namespace berth::framework {

// Upstream's extenderv1.MaxExtenderPriority / MinExtenderPriority.
inline constexpr int64_t kMaxExtenderPriority = 10;
inline constexpr int64_t kMinExtenderPriority = 0;
// The plugin name under which extender rejections are recorded (upstream's ExtenderName): a pod
// an extender rejected is requeued by any cluster event.
inline constexpr const char* kExtenderName = "Extender";

// What Filter returns: `passed` is a subset of the nodes given (same pointers, the extender's
// order); failed maps node name -> the extender's reason.
struct ExtenderFilterOutcome {
  std::vector<const NodeInfo*> passed;
  std::map<std::string, std::string> failed;                   // -> Unschedulable
  std::map<std::string, std::string> failed_and_unresolvable;  // -> UnschedulableAndUnresolvable
};

class Extender {
 public:
  virtual ~Extender() = default;

  // Identifies the extender in messages and logs (upstream: the URL prefix).
  virtual const std::string& Name() const = 0;
  // Whether a failure of this extender is skipped instead of failing the pod.
  virtual bool IsIgnorable() const = 0;
  virtual bool IsFilter() const = 0;
  virtual bool IsPrioritizer() const = 0;
  virtual bool IsBinder() const = 0;
  // Whether the pod requests (or limits) one of the extender's managedResources; always true
  // when it manages none.
  virtual bool IsInterested(const api::Pod& pod) const = 0;

  // Asks the extender which of `nodes` may run the pod. Errors (unreachable, timeout, non-200,
  // malformed answer, an `Error` in the answer, a passing node that was not asked about) name the
  // extender and the problem, e.g.
  //   `extender "http://x/sched" filter: HTTP 500 Internal Server Error from
  //   http://x/sched/filter`.
  virtual Result<ExtenderFilterOutcome> Filter(const api::Pod& pod,
                                               const std::vector<const NodeInfo*>& nodes) = 0;
  // Per node of `nodes` (parallel vector) the extender's score in 0..kMaxExtenderPriority; nodes
  // the extender did not score get 0. Errors are worded like Filter's.
  virtual Result<std::vector<int64_t>> Prioritize(const api::Pod& pod,
                                                  const std::vector<const NodeInfo*>& nodes) = 0;
  virtual int64_t Weight() const = 0;
  // Binds the pod to `node` through the extender. Error as for Filter.
  virtual Ok Bind(const api::Pod& pod, const std::string& node) = 0;
};

}  // namespace berth::framework
