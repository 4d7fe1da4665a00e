#pragma once
// `berth explain --offline`: re-evaluates one pending pod on a snapshot of the cluster (listed
// live by cmd/berth/app/simulate/cluster_lister.h, or read from a file) with the simulate
// engine, as the scheduler would now: every pending pod of berth's profiles is scheduled in
// queue order, and the target's last attempt is its diagnosis (scheduler/diagnosis/record.h).
// It is a re-evaluation, not the scheduler's own record: the cluster may have changed since the
// scheduler's attempt, and pods ahead of it in the queue are placed first.

#include <string>
#include <vector>

#include "cmd/berth/app/simulate/cluster_file.h"
#include "config/types.h"
#include "scheduler/diagnosis/record.h"
#include "scheduler/framework/extender.h"
#include "scheduler/framework/registry.h"

namespace berth::explain {

inline constexpr char kOfflineSource[] =
    "re-evaluation of the current cluster state (offline), not the scheduler's own record";

struct OfflineResult {
  enum class Kind {
    kExplained,      // record is set
    kNotApplicable,  // the pod is missing, bound, finished or not berth's: message says which
    kError,          // the configuration cannot be instantiated: message
  };
  Kind kind = Kind::kError;
  diagnosis::Record record;
  std::string message;
};

// Messages of kNotApplicable (one line):
//   `pod shop/web-1 not found`
//   `pod shop/web-1 is not pending: it is bound to node n3`
//   `pod shop/web-1 is not pending: it has finished (phase Succeeded)`
//   `pod shop/web-1 is not berth's: its schedulerName "default-scheduler" is no profile of
//    berth's configuration (berth-scheduler)`
//   `pod shop/web-1 is held by its scheduling gates (scheduling.example/wait); no scheduler
//    tries it until they are removed`
OfflineResult ExplainOffline(const simulate::ClusterFile& cluster,
                             const config::SchedulerConfiguration& cfg,
                             const framework::Registry& registry,
                             const std::vector<framework::Extender*>& extenders,
                             const std::string& ns, const std::string& pod);

}  // namespace berth::explain
