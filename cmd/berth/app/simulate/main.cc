#include "cmd/berth/app/simulate/main.h"

#include <cerrno>
#include <cstdlib>
#include <iostream>

#include "api/json/parse.h"
#include "base/strings.h"
#include "cmd/berth/app/activity.h"
#include "cmd/berth/app/extender/http_extender.h"
#include "cmd/berth/app/flags.h"
#include "cmd/berth/app/kube_flags.h"
#include "cmd/berth/app/simulate/cluster_file.h"
#include "cmd/berth/app/simulate/cluster_lister.h"
#include "cmd/berth/app/simulate/simulated_extender.h"
#include "cmd/berth/app/simulate/simulator.h"
#include "config/load.h"
#include "plugins/registry.h"

namespace berth::simulate {

namespace {

// --seed: a non-negative integer. False after printing the error.
bool ParseSeed(const std::string& s, uint64_t* seed) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0 || s[0] == '-') {
    std::cerr << "berth simulate: --seed: invalid value \"" << s
              << "\": must be a non-negative integer\n";
    return false;
  }
  *seed = v;
  return true;
}

// --config (or the defaults) and --policy-config-file. False after printing the error.
bool LoadConfig(const app::Flags& f, const std::vector<std::string>& known,
                config::SchedulerConfiguration* cfg) {
  if (f.Has("config")) {
    auto loaded = config::LoadConfigFile(f.Get("config"), known);
    if (!loaded.ok()) {
      std::cerr << "berth simulate: " << OneLine(loaded.error()) << "\n";
      return false;
    }
    *cfg = std::move(*loaded);
  } else {
    *cfg = config::DefaultConfig(known);
  }
  return !f.Has("policy-config-file") ||
         app::ApplyPolicyFile("simulate", f.Get("policy-config-file"), known, *cfg);
}

}  // namespace

constexpr char kSimulateUsage[] =
    "berth simulate (--cluster FILE | --kubeconfig FILE [--context C] [--save FILE]) [flags]: "
    "schedule the pending pods of a cluster file (kubectl get ... -o yaml), or of a snapshot "
    "listed from a live API server (read-only), offline and print where each goes and why, as "
    "JSON.";

const std::vector<app::FlagSpec>& SimulateFlags() {
  static const std::vector<app::FlagSpec> specs = {
      {"cluster", "The cluster file: nodes, pods and other objects as YAML."},
      {"kubeconfig",
       "Take the cluster from this kubeconfig's API server instead of --cluster (list only: "
       "no watch, no write)."},
      {"context", "The kubeconfig context to use.", false, "the current context"},
      {"save", "With --kubeconfig: also write the snapshot as a cluster file (a JSON List)."},
      {"kube-api-qps", "Requests per second to the API server (client-side limit).", false, "50"},
      {"kube-api-burst", "Burst of requests to the API server above --kube-api-qps.", false, "100"},
      app::RequestTimeoutFlagSpec(),
      {"config", "The scheduler configuration (KubeSchedulerConfiguration v1)."},
      {"policy-config-file", "A legacy scheduler Policy used instead of the config's profiles."},
      {"explain", "Say for each pod why each node was or was not chosen.", true, "false"},
      {"seed", "Seed for the tie-breaking random choices.", false, "0"},
  };
  return specs;
}

namespace {

// --cluster FILE, or a live listing through --kubeconfig (saved to --save). An error with an
// empty message was printed already.
Result<ClusterFile> LoadCluster(const app::Flags& f) {
  if (f.Has("cluster")) {
    app::Doing doing("reading the cluster file " + f.Get("cluster"));
    return LoadClusterFile(f.Get("cluster"));
  }
  app::KubeAccess access;
  if (!app::ReadKubeAccess("simulate", f, /*kubeconfig_required=*/true, &access)) {
    return Error{""};  // printed
  }
  auto client = app::NewKubeClient(access);
  app::Doing doing("listing the cluster from " + client->Server());
  BERTH_ASSIGN_OR_RETURN(LiveCluster live, ListCluster(*client));
  if (f.Has("save")) BERTH_RETURN_IF_ERROR(SaveClusterFile(live, f.Get("save")));
  return ToClusterFile(live);
}

}  // namespace

int Main(int argc, char** argv) {
  app::Flags f = app::ParseFlags("simulate", kSimulateUsage, argc, argv, SimulateFlags());
  if (f.help) return 0;
  if (!f.error.empty()) {
    std::cerr << "berth simulate: " << f.error << "\n";
    return 2;
  }
  if (f.Has("cluster") == f.Has("kubeconfig")) {
    std::cerr << "berth simulate: "
              << (f.Has("cluster") ? "--cluster and --kubeconfig exclude each other"
                                   : "--cluster FILE or --kubeconfig FILE is required")
              << "\n";
    return 2;
  }
  for (const char* live_only :
       {"context", "save", "kube-api-qps", "kube-api-burst", "request-timeout"}) {
    if (f.Has(live_only) && !f.Has("kubeconfig")) {
      std::cerr << "berth simulate: --" << live_only << " needs --kubeconfig\n";
      return 2;
    }
  }
  Options options;
  options.explain = f.Bool("explain");
  if (f.Has("seed") && !ParseSeed(f.Get("seed"), &options.seed)) return 2;
  const framework::Registry registry = plugins::NewInTreeRegistry();
  config::SchedulerConfiguration cfg;
  if (!LoadConfig(f, registry.Names(), &cfg)) return 2;
  // Configured extenders are called as in `berth run` (filter and prioritize); the recording
  // binder stands in for a bindVerb.
  auto built = extenders::BuildExtenders(&cfg);
  if (!built.ok()) {
    std::cerr << "berth simulate: " << OneLine(built.error()) << "\n";
    return 2;
  }
  const auto extenders = ForSimulation(std::move(*built));
  for (const auto& e : extenders) {
    options.extenders.push_back(e.get());
    std::cerr << "berth simulate: calling extender " << e->Name() << "\n";
  }
  auto cluster = LoadCluster(f);
  if (!cluster.ok()) {
    if (!cluster.error().empty()) {
      std::cerr << "berth simulate: " << OneLine(cluster.error()) << "\n";
    }
    return 2;
  }
  for (const auto& w : cluster->warnings)
    std::cerr << "berth simulate: warning: " << OneLine(w) << "\n";
  app::Doing doing("scheduling the cluster's pods");
  auto out = Run(*cluster, cfg, registry, options);
  if (!out.ok()) {
    std::cerr << "berth simulate: " << (f.Has("config") ? f.Get("config") + ": " : "")
              << OneLine(out.error()) << "\n";
    return 2;
  }
  std::cout << api::json::ToJson(*out) << "\n";
  return 0;
}

}  // namespace berth::simulate
