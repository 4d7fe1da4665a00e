#pragma once
// Synthetic clusters for berth-bench, mirroring upstream's scheduler_perf templates:
// nodes are node-default.yaml (4 cpu, 32Gi, 110 pods), pods are pod-default.yaml
// (100m cpu / 500Mi requests and limits, image pause:3.10).

#include <string>
#include <vector>

#include "base/result.h"
#include "cmd/berth/app/simulate/cluster_file.h"

namespace berth::bench {

// Names of the workloads Generate knows. Gang3 / Gang50 are PodGroups of 3 / 50 pods and need
// the Coscheduling profile (GangConfig).
std::vector<std::string> WorkloadNames();

// Builds the cluster: `nodes` nodes and `pods` pending pods for profile berth-scheduler.
// Error for an unknown workload.
Result<simulate::ClusterFile> Generate(const std::string& workload, int nodes, int pods);

// The scheduler-plugins style profile the gang workloads run with.
inline constexpr const char kGangConfig[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: berth-scheduler
  plugins:
    multiPoint:
      enabled: [{name: Coscheduling}]
    queueSort:
      enabled: [{name: Coscheduling}]
      disabled: [{name: "*"}]
)";

}  // namespace berth::bench
