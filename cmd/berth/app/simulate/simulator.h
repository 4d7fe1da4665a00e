#pragma once
// The `berth simulate` driver: the daemon's scheduler with two seams swapped — objects come
// from a cluster file instead of watches, and a recording writer binds instead of HTTP — on a
// virtual clock. Gangs (Permit Wait) resolve on that clock: when no pod can make progress, the
// clock jumps to the next backoff expiry or Permit deadline, exactly as time would pass in the
// daemon.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/value.h"
#include "base/result.h"
#include "cmd/berth/app/simulate/cluster_file.h"
#include "config/types.h"
#include "scheduler/diagnosis/store.h"
#include "scheduler/framework/extender.h"
#include "scheduler/framework/registry.h"

namespace berth::simulate {

struct Options {
  uint64_t seed = 1;
  bool explain = false;
  // Virtual time after which the simulation stops retrying (pods still pending are reported
  // with their last failure).
  std::chrono::seconds horizon = std::chrono::hours(24);
  // Scheduler extenders to call (filter and prioritize run as in the daemon); not owned.
  std::vector<framework::Extender*> extenders;
  // Where the diagnoses go (berth explain --offline reads its pod's there); not owned. Null:
  // with explain, the simulation keeps its own.
  diagnosis::Store* diagnoses = nullptr;
};

// Runs the simulation and returns the output document:
//   {"pods": [{"pod": "ns/name", "node": "n1" | null, "status": "Scheduled" | "Unschedulable" |
//   "Error", "message": "...", "filter": {...}, "scores": {...}, "nearest": [...],
//   "preemption": {...}}]}
// (with explain, "nearest" and "preemption" as scheduler/diagnosis/json.h describes them, for a
// pod whose last attempt failed).
// Error only when the configuration cannot be instantiated (a plugin's args are invalid).
Result<api::Value> Run(const ClusterFile& cluster, const config::SchedulerConfiguration& cfg,
                       const framework::Registry& registry, const Options& options);

}  // namespace berth::simulate
