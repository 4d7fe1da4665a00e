#pragma once
// The structured allocator: picks concrete devices for a pod's ResourceClaims on one node, as
// upstream's structured.Allocator (the "incubating" implementation, which v1.37's default
// features select) does, with the same search order and therefore the same choice.
//
// Search: claims in order, each claim's requests in order, each request's devices one by one;
// for a device, pools sorted by (driver, pool), their slices by name, devices in slice order.
// A request with firstAvailable tries its subrequests in order and keeps the first that lets
// the whole search succeed. The first complete solution wins (depth-first with backtracking).
//
// Consumable capacity (DRAConsumableCapacity, on): a device with allowMultipleAllocations is
// never taken whole; each allocation is a share with a shareID that consumes part of the
// device's capacities (consumable_capacity.h), and the device stays a candidate while the
// shares fit. Capacity requests also filter ordinary devices (a request for more than a device
// has does not fit it).
//
// Thread-safety: an Allocator is immutable apart from an internal, locked cache of the counters
// still available per pool; Allocate may run on many nodes at once (Filter).

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/types.h"
#include "api/types_resource.h"
#include "base/result.h"
#include "plugins/dynamic_resources/structured/pools.h"
#include "plugins/dynamic_resources/structured/types.h"

namespace berth::plugins::dynamic_resources::structured {

class Allocator {
 public:
  // `slices`: every ResourceSlice in the cluster; they and the classes behind `classes` must
  // outlive the Allocator. `selectors` evaluates CEL expressions (not owned).
  Allocator(Features features, AllocatedState allocated, DeviceClassLookup classes,
            std::vector<const api::ResourceSlice*> slices, const SelectorEvaluator* selectors);

  struct Outcome {
    // One result per claim, in the claims' order, when every claim could be allocated.
    std::vector<api::AllocationResult> results;
    bool allocated = false;
    // Set when allocation failed and some pool on this node is invalid: upstream's
    // ErrFailedAllocationOnNode, which the plugin reports as Unschedulable on this node only.
    std::optional<std::string> failed_on_node;
    // The deadline passed before the search ended (upstream's context.DeadlineExceeded under
    // DynamicResourcesArgs.filterTimeout), possibly in the middle of a CEL selector.
    bool timed_out = false;
    // The scheduler is shutting down (upstream's cancelled context).
    bool stopped = false;
  };
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;

  // Allocates devices for `claims` (none of them allocated yet) on `node`.
  //   Ok, allocated:            results hold every claim's allocation.
  //   Ok, !allocated:           the devices are not there on this node (Unschedulable).
  //   Error:                    a claim or class cannot be handled at all (a missing class, an
  //                             unsupported request, a CEL error) — the message names it as
  //                             upstream's does.
  // With a deadline, a search still running then stops with Outcome::timed_out; once
  // `stop.stopping` says so, with Outcome::stopped. Both are checked every 64 devices tried and
  // inside each CEL selector's evaluation.
  Result<Outcome> Allocate(const api::Node& node,
                           const std::vector<const api::ResourceClaim*>& claims,
                           Deadline deadline = std::nullopt) const {
    return Allocate(node, claims, Interruption{deadline, nullptr});
  }
  Result<Outcome> Allocate(const api::Node& node,
                           const std::vector<const api::ResourceClaim*>& claims,
                           const Interruption& stop) const;

  // How many devices were tried in total, over every Allocate call (upstream's
  // NumAllocateOneInvocations), for benchmarks.
  int64_t AllocateOneInvocations() const;

 private:
  friend class Search;
  using CounterSets =
      std::map<std::string, std::map<std::string, int64_t>>;  // set -> counter -> milli
  // The counters of `pool` not consumed by allocated devices; computed once per pool.
  const CounterSets& AvailableCounters(const Pool& pool) const;

  const Features features_;
  const AllocatedState allocated_;
  const DeviceClassLookup classes_;
  const std::vector<const api::ResourceSlice*> all_slices_;
  std::map<std::string, std::vector<const api::ResourceSlice*>> slices_on_node_;
  std::vector<const api::ResourceSlice*> slices_shared_;
  const SelectorEvaluator* const selectors_;

  // Guarded by mu_:
  mutable std::mutex mu_;
  mutable std::map<PoolId, std::unique_ptr<CounterSets>> available_counters_;
  mutable int64_t allocate_one_invocations_ = 0;
};

}  // namespace berth::plugins::dynamic_resources::structured
