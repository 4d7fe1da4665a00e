#include "config/defaults.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "config/internal.h"

namespace berth::config {

const std::vector<PluginRef>& UpstreamDefaultPlugins() {
  // getDefaultPlugins with v1.37.2's gate defaults: NodeDeclaredFeatures (GA) appended,
  // DynamicResources (GA) inserted before DefaultPreemption; GenericWorkload,
  // TopologyAwareWorkloadScheduling and InPlacePodVerticalScalingSchedulerPreemption are off.
  static const std::vector<PluginRef> kDefaults = {
      {"SchedulingGates", 0},
      {"PrioritySort", 0},
      {"NodeName", 0},
      {"NodeUnschedulable", 0},
      {"TaintToleration", 3},
      {"NodeAffinity", 2},
      {"NodePorts", 0},
      {"NodeResourcesFit", 1},
      {"VolumeRestrictions", 0},
      {"NodeVolumeLimits", 0},
      {"VolumeBinding", 0},
      {"VolumeZone", 0},
      {"PodTopologySpread", 2},
      {"InterPodAffinity", 2},
      {"DynamicResources", 2},
      {"DefaultPreemption", 0},
      {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1},
      {"DefaultBinder", 0},
      {"NodeDeclaredFeatures", 0},
  };
  return kDefaults;
}

Plugins DefaultPlugins(const std::vector<std::string>& available_plugins) {
  Plugins plugins;
  // Only the defaults that exist in berth so far; the others are skipped, not errors.
  for (const PluginRef& p : UpstreamDefaultPlugins()) {
    if (std::find(available_plugins.begin(), available_plugins.end(), p.name) !=
        available_plugins.end()) {
      plugins.multi_point.enabled.push_back(p);
    }
  }
  return plugins;
}

PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& custom) {
  PluginSet merged;
  std::unordered_set<std::string> disabled;
  // Custom disables first, then the defaults' own: the framework's multiPoint expansion reads
  // them to skip plugins at this point.
  for (const std::string& name : custom.disabled) {
    merged.disabled.push_back(name);
    disabled.insert(name);
  }
  for (const std::string& name : defaults.disabled) {
    merged.disabled.push_back(name);
    disabled.insert(name);
  }
  // Name -> index of the custom entry; with duplicates the last one wins, as upstream's map.
  std::unordered_map<std::string, size_t> custom_index;
  for (size_t i = 0; i < custom.enabled.size(); ++i) custom_index[custom.enabled[i].name] = i;
  std::vector<bool> replaced(custom.enabled.size(), false);
  if (disabled.count("*") == 0) {
    for (const PluginRef& d : defaults.enabled) {
      if (disabled.count(d.name) != 0) continue;
      auto it = custom_index.find(d.name);
      if (it != custom_index.end()) {
        merged.enabled.push_back(custom.enabled[it->second]);  // replaced in place
        replaced[it->second] = true;
      } else {
        merged.enabled.push_back(d);
      }
    }
  }
  for (size_t i = 0; i < custom.enabled.size(); ++i) {
    if (!replaced[i]) merged.enabled.push_back(custom.enabled[i]);
  }
  return merged;
}

Plugins MergePlugins(const Plugins& defaults, const Plugins& custom) {
  Plugins merged;
  merged.multi_point = MergePluginSet(defaults.multi_point, custom.multi_point);
  for (const ExtensionPoint& ep : kExtensionPoints) {
    merged.*ep.set = MergePluginSet(defaults.*ep.set, custom.*ep.set);
  }
  for (const PodGroupExtensionPoint& pg : kPodGroupExtensionPoints) {
    merged.*pg.point.set = MergePluginSet(defaults.*pg.point.set, custom.*pg.point.set);
  }
  return merged;
}

namespace internal {

SchedulerConfiguration ApplyDefaults(Decoded decoded,
                                     const std::vector<std::string>& known_plugins) {
  SchedulerConfiguration c = std::move(decoded.config);
  if (c.profiles.empty()) {
    c.profiles.emplace_back();
    decoded.scheduler_name_set.assign(1, false);
  }
  // As upstream, a name is defaulted only for a single profile (validation requires names
  // otherwise); unlike upstream the default is berth-scheduler, since berth runs beside
  // kube-scheduler's default-scheduler.
  if (c.profiles.size() == 1 && !decoded.scheduler_name_set[0]) {
    c.profiles[0].scheduler_name = std::string(kDefaultSchedulerName);
  }
  const Plugins defaults = DefaultPlugins(known_plugins);
  for (Profile& profile : c.profiles) profile.plugins = MergePlugins(defaults, profile.plugins);

  LeaderElection& le = c.leader_election;
  if (le.resource_lock.empty()) le.resource_lock = "leases";
  if (le.resource_name.empty()) le.resource_name = std::string(kDefaultLeaseName);
  // resource_namespace stays empty: the run command resolves it to berth's own namespace.
  // component-base's RecommendedDefaultLeaderElectionConfiguration: zero durations get defaults.
  using std::chrono::milliseconds;
  if (le.lease_duration == milliseconds::zero()) le.lease_duration = milliseconds(15000);
  if (le.renew_deadline == milliseconds::zero()) le.renew_deadline = milliseconds(10000);
  if (le.retry_period == milliseconds::zero()) le.retry_period = milliseconds(2000);

  ClientConnection& cc = c.client_connection;
  if (cc.content_type.empty()) cc.content_type = "application/vnd.kubernetes.protobuf";
  if (cc.qps == 0) cc.qps = 50;
  if (cc.burst == 0) cc.burst = 100;

  // Contention profiling defaults to on only when profiling is on.
  if (!c.enable_profiling && !decoded.contention_profiling_set) {
    c.enable_contention_profiling = false;
  }
  for (Extender& e : c.extenders) {
    if (e.http_timeout == milliseconds::zero()) e.http_timeout = milliseconds(5000);
  }
  return c;
}

}  // namespace internal
}  // namespace berth::config
