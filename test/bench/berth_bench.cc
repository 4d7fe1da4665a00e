// berth-bench: schedules a synthetic cluster through the real engine (the `berth simulate` path:
// real queue, cache, profiles and plugins; a recording binder instead of HTTP) and prints one
// JSON line:
//   {"workload": ..., "nodes": N, "pods": P, "scheduled": S, "seconds": T,
//    "pods_per_second": R, "peak_rss_mb": M}
// --placements FILE also writes one "namespace/name node" line per pod (empty node when it stayed
// pending), in the cluster's pod order: check_decisions.py compares them across builds.
// Time covers feeding the pods to the scheduler and scheduling them all, not generating them.

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "api/json/parse.h"
#include "cmd/berth/app/simulate/simulator.h"
#include "config/load.h"
#include "plugins/registry.h"
#include "test/bench/workloads.h"

namespace {

double PeakRssMb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  }
  return 0;
}

int Usage(const std::string& msg) {
  std::cerr << "berth-bench: " << msg
            << "\nusage: berth-bench --workload NAME --nodes N --pods P [--config FILE] "
               "[--diagnoses on|off] [--placements FILE]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string workload = "SchedulingBasic";
  std::string config_path;
  std::string placements_path;
  // As the daemon, berth-bench keeps a diagnosis of every failed attempt (berth explain);
  // --diagnoses off measures the engine without it.
  bool diagnoses = true;
  int nodes = 5000;
  int pods = 10000;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return Usage("flag " + a + " needs a value");
    std::string v = argv[++i];
    if (a == "--workload") {
      workload = v;
    } else if (a == "--nodes") {
      nodes = std::atoi(v.c_str());
    } else if (a == "--pods") {
      pods = std::atoi(v.c_str());
    } else if (a == "--config") {
      config_path = v;
    } else if (a == "--placements") {
      placements_path = v;
    } else if (a == "--diagnoses") {
      if (v != "on" && v != "off") return Usage("--diagnoses takes on or off");
      diagnoses = v == "on";
    } else {
      return Usage("unknown flag " + a);
    }
  }
  if (nodes <= 0 || pods <= 0) return Usage("--nodes and --pods must be positive");
  auto cluster = berth::bench::Generate(workload, nodes, pods);
  if (!cluster.ok()) return Usage(cluster.error());
  const auto registry = berth::plugins::NewInTreeRegistry();
  berth::config::SchedulerConfiguration cfg;
  if (!config_path.empty()) {
    auto loaded = berth::config::LoadConfigFile(config_path, registry.Names());
    if (!loaded.ok()) return Usage(loaded.error());
    cfg = std::move(*loaded);
  } else if (workload.rfind("Gang", 0) == 0) {
    auto parsed = berth::config::ParseConfig(berth::bench::kGangConfig, "gang", registry.Names());
    if (!parsed.ok()) return Usage(parsed.error());
    cfg = std::move(*parsed);
  } else {
    cfg = berth::config::DefaultConfig(registry.Names());
  }
  berth::simulate::Options options;
  berth::diagnosis::Store store;
  if (diagnoses) options.diagnoses = &store;
  // Unschedulable: one attempt each (no retries while the virtual clock would run on).
  const bool all_pending = workload == "Unschedulable";
  if (all_pending) options.horizon = std::chrono::seconds(0);
  const auto t0 = std::chrono::steady_clock::now();
  auto out = berth::simulate::Run(*cluster, cfg, registry, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!out.ok()) {
    std::cerr << "berth-bench: " << out.error() << "\n";
    return 1;
  }
  int scheduled = 0;
  std::ofstream placements;
  if (!placements_path.empty()) {
    placements.open(placements_path);
    if (!placements) return Usage("cannot write " + placements_path);
  }
  for (const auto& p : out->Find("pods")->AsArray()) {
    if (p.Find("status")->AsString() == "Scheduled") ++scheduled;
    if (placements.is_open()) {
      const auto* node = p.Find("node");
      placements << berth::api::StringMember(&p, "pod") << " "
                 << (node != nullptr && node->IsString() ? node->AsString() : "") << "\n";
    }
  }
  berth::api::Value line = berth::api::Value::MakeObject();
  line.Set("workload", berth::api::Value::String(workload));
  line.Set("nodes", berth::api::Value::Int(nodes));
  line.Set("pods", berth::api::Value::Int(pods));
  line.Set("scheduled", berth::api::Value::Int(scheduled));
  line.Set("seconds", berth::api::Value::Double(seconds));
  line.Set("pods_per_second", berth::api::Value::Double(scheduled / seconds));
  line.Set("peak_rss_mb", berth::api::Value::Double(PeakRssMb()));
  line.Set("diagnoses", berth::api::Value::Int(static_cast<int64_t>(store.NumUnschedulable())));
  if (!cluster->pod_groups.empty()) {
    // Upstream's CI states gang cost per group attempt.
    line.Set("ms_per_group",
             berth::api::Value::Double(seconds * 1000.0 /
                                       static_cast<double>(cluster->pod_groups.size())));
  }
  std::cout << berth::api::json::ToJson(line) << "\n";
  return scheduled == (all_pending ? 0 : pods) ? 0 : 1;
}
