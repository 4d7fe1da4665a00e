#pragma once
// Typed KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), after decoding, defaulting and
// validation (config/load.h). Field names follow upstream's JSON names in snake_case; the default
// member initialisers are upstream's v1 defaults except where a comment says berth differs.
// Plain values: copy freely; no thread-safety concerns beyond those of std containers.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/value.h"

namespace berth::config {

inline constexpr std::string_view kApiVersion = "kubescheduler.config.k8s.io/v1";
inline constexpr std::string_view kKind = "KubeSchedulerConfiguration";
// berth is a secondary scheduler: its default profile and lease must not collide with
// kube-scheduler's `default-scheduler` / `kube-scheduler`.
inline constexpr std::string_view kDefaultSchedulerName = "berth-scheduler";
inline constexpr std::string_view kDefaultLeaseName = "berth-scheduler";

// One `enabled` entry of a PluginSet. `weight` is used only at Score; 0 means unset (the framework
// then uses 1).
struct PluginRef {
  std::string name;
  int32_t weight = 0;
};

struct PluginSet {
  std::vector<PluginRef> enabled;
  // Names disabled at this point; "*" disables every default plugin of the point. Kept after
  // merging so that the framework's multiPoint expansion can skip these plugins too.
  std::vector<std::string> disabled;
};

struct Plugins {
  PluginSet pre_enqueue;
  PluginSet queue_sort;
  PluginSet pre_filter;
  PluginSet filter;
  PluginSet post_filter;
  PluginSet pre_score;
  PluginSet score;
  PluginSet reserve;
  PluginSet permit;
  PluginSet pre_bind;
  PluginSet bind;
  PluginSet post_bind;
  PluginSet multi_point;
  // The pod-group (workload) points of v1.37, used upstream only with the GenericWorkload and
  // TopologyAwareWorkloadScheduling gates (off by default). berth decodes and merges them so that
  // files written for kube-scheduler load; no berth plugin implements them (see
  // kPodGroupExtensionPoints).
  PluginSet placement_generate;
  PluginSet placement_score;
  PluginSet pod_group_post_filter;
};

// The 12 specific extension points (every set except multiPoint), in upstream's order, with their
// configuration names. Iterate as `for (const auto& ep : kExtensionPoints) plugins.*ep.set`.
// The runtime extends each row (by index) with the plugin interface and the list it keeps the
// point's plugins in: runtime::Framework::Points() in scheduler/runtime/framework.cc.
struct ExtensionPoint {
  std::string_view name;  // "preEnqueue", "queueSort", ...
  PluginSet Plugins::*set;
};
inline constexpr std::array<ExtensionPoint, 12> kExtensionPoints = {{
    {"preEnqueue", &Plugins::pre_enqueue},
    {"queueSort", &Plugins::queue_sort},
    {"preFilter", &Plugins::pre_filter},
    {"filter", &Plugins::filter},
    {"postFilter", &Plugins::post_filter},
    {"preScore", &Plugins::pre_score},
    {"score", &Plugins::score},
    {"reserve", &Plugins::reserve},
    {"permit", &Plugins::permit},
    {"preBind", &Plugins::pre_bind},
    {"bind", &Plugins::bind},
    {"postBind", &Plugins::post_bind},
}};
inline constexpr ExtensionPoint kMultiPoint = {"multiPoint", &Plugins::multi_point};

// The pod-group points: decoded, merged and validated, never run. Validation rejects every
// enabled entry (an unknown plugin, or "plugin ... does not extend <interface>", as upstream's
// framework says of a plugin lacking the interface); disabling is accepted.
struct PodGroupExtensionPoint {
  ExtensionPoint point;
  std::string_view interface_name;  // upstream's interface: "PlacementGeneratePlugin", ...
};
inline constexpr std::array<PodGroupExtensionPoint, 3> kPodGroupExtensionPoints = {{
    {{"placementGenerate", &Plugins::placement_generate}, "PlacementGeneratePlugin"},
    {{"placementScore", &Plugins::placement_score}, "PlacementScorePlugin"},
    {{"podGroupPostFilter", &Plugins::pod_group_post_filter}, "PodGroupPostFilterPlugin"},
}};

// `pluginConfig[j]`: the args stay an untyped tree; each plugin's factory decodes them and
// prefixes its errors with `path` ("profiles[i].pluginConfig[j].args").
struct PluginConfig {
  std::string name;
  api::Value args;  // null when absent
  std::string path;
};

struct Profile {
  std::string scheduler_name;
  // Overrides SchedulerConfiguration::percentage_of_nodes_to_score when set.
  std::optional<int32_t> percentage_of_nodes_to_score;
  Plugins plugins;  // defaults merged in (see config/defaults.h)
  std::vector<PluginConfig> plugin_config;

  // The args of pluginConfig entry `name`; nullptr when there is no such entry.
  const api::Value* Args(std::string_view name) const;
  // The whole pluginConfig entry `name`; nullptr when there is none.
  const PluginConfig* FindPluginConfig(std::string_view name) const;
};

struct TLSConfig {
  bool insecure = false;
  std::string server_name;
  std::string cert_file;
  std::string key_file;
  std::string ca_file;
  // PEM bytes, already base64-decoded from the JSON/YAML (they are []byte upstream).
  std::string cert_data;
  std::string key_data;
  std::string ca_data;
};

struct ManagedResource {
  std::string name;
  bool ignored_by_scheduler = false;
};

// berth's default bound on an extender's answer (Extender::max_response_bytes).
inline constexpr int64_t kDefaultExtenderMaxResponseBytes = int64_t{16} << 20;

struct Extender {
  std::string url_prefix;
  std::string filter_verb;
  std::string preempt_verb;
  std::string prioritize_verb;
  std::string bind_verb;
  int64_t weight = 0;
  bool enable_https = false;  // JSON `enableHTTPS`
  std::optional<TLSConfig> tls_config;
  std::chrono::milliseconds http_timeout{5000};  // upstream's DefaultExtenderTimeout; 0 -> 5s
  bool node_cache_capable = false;
  std::vector<ManagedResource> managed_resources;
  bool ignorable = false;
  // berth's own field (`maxResponseBytes`, not in upstream's Extender): the largest answer body
  // read from this extender; a longer one fails the call without being read. Upstream reads any
  // size; the default matches `berth extender --max-request-bytes`.
  int64_t max_response_bytes = kDefaultExtenderMaxResponseBytes;
};

struct LeaderElection {
  bool leader_elect = true;
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  std::string resource_lock = "leases";
  std::string resource_name = std::string(kDefaultLeaseName);  // upstream: kube-scheduler
  // Empty means "the namespace berth runs in" (resolved by the run command); upstream defaults to
  // kube-system.
  std::string resource_namespace;
};

struct ClientConnection {
  std::string kubeconfig;
  std::string accept_content_types;
  std::string content_type = "application/vnd.kubernetes.protobuf";  // upstream's default
  float qps = 50;
  int32_t burst = 100;
};

struct SchedulerConfiguration {
  int32_t parallelism = 16;
  LeaderElection leader_election;
  ClientConnection client_connection;
  // 0 means adaptive (upstream's DefaultPercentageOfNodesToScore).
  int32_t percentage_of_nodes_to_score = 0;
  int64_t pod_initial_backoff_seconds = 1;
  int64_t pod_max_backoff_seconds = 10;
  std::vector<Profile> profiles;
  std::vector<Extender> extenders;
  bool delay_cache_until_active = false;
  // Accepted for compatibility with upstream files (inline DebuggingConfiguration).
  bool enable_profiling = true;
  bool enable_contention_profiling = true;
};

}  // namespace berth::config
