#include "config/load.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "api/json/parse.h"
#include "config/encode.h"

namespace berth::config {
namespace {

using std::chrono::milliseconds;

// A fixed registry: a subset of upstream's defaults (so that the defaults berth lacks are
// dropped) plus out-of-tree plugins.
const std::vector<std::string> kKnown = {
    "PrioritySort",     "SchedulingGates",   "NodeUnschedulable",
    "NodeName",         "TaintToleration",   "NodeAffinity",
    "NodeResourcesFit", "DefaultPreemption", "NodeResourcesBalancedAllocation",
    "ImageLocality",    "DefaultBinder",     "Coscheduling",
    "NodeLabel",        "CustomSort"};

const char kKnownList[] =
    "Coscheduling, CustomSort, DefaultBinder, DefaultPreemption, ImageLocality, NodeAffinity, "
    "NodeLabel, NodeName, NodeResourcesBalancedAllocation, NodeResourcesFit, NodeUnschedulable, "
    "PrioritySort, SchedulingGates, TaintToleration";

const std::vector<std::string> kDefaultMultiPoint = {
    "SchedulingGates",     "PrioritySort",       "NodeName",
    "NodeUnschedulable",   "TaintToleration(3)", "NodeAffinity(2)",
    "NodeResourcesFit(1)", "DefaultPreemption",  "NodeResourcesBalancedAllocation(1)",
    "ImageLocality(1)",    "DefaultBinder"};

std::string Cfg(const std::string& body) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + body;
}

Result<SchedulerConfiguration> Parse(const std::string& yaml) {
  return ParseConfig(yaml, "cfg.yaml", kKnown);
}

std::vector<std::string> Names(const PluginSet& set) {
  std::vector<std::string> out;
  for (const PluginRef& p : set.enabled) {
    out.push_back(p.weight == 0 ? p.name : p.name + "(" + std::to_string(p.weight) + ")");
  }
  return out;
}

TEST(DefaultConfigTest, Defaults) {
  SchedulerConfiguration c = DefaultConfig(kKnown);
  EXPECT_EQ(c.parallelism, 16);
  EXPECT_EQ(c.percentage_of_nodes_to_score, 0);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 1);
  EXPECT_EQ(c.pod_max_backoff_seconds, 10);
  EXPECT_FALSE(c.delay_cache_until_active);
  EXPECT_TRUE(c.extenders.empty());
  EXPECT_TRUE(c.leader_election.leader_elect);
  EXPECT_EQ(c.leader_election.lease_duration, milliseconds(15000));
  EXPECT_EQ(c.leader_election.renew_deadline, milliseconds(10000));
  EXPECT_EQ(c.leader_election.retry_period, milliseconds(2000));
  EXPECT_EQ(c.leader_election.resource_lock, "leases");
  EXPECT_EQ(c.leader_election.resource_name, "berth-scheduler");
  EXPECT_EQ(c.leader_election.resource_namespace, "");
  EXPECT_EQ(c.client_connection.qps, 50);
  EXPECT_EQ(c.client_connection.burst, 100);
  EXPECT_EQ(c.client_connection.content_type, "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(c.profiles.size(), 1u);
  const Profile& p = c.profiles[0];
  EXPECT_EQ(p.scheduler_name, "berth-scheduler");
  EXPECT_FALSE(p.percentage_of_nodes_to_score.has_value());
  EXPECT_EQ(Names(p.plugins.multi_point), kDefaultMultiPoint);
  for (const ExtensionPoint& ep : kExtensionPoints) {
    EXPECT_TRUE((p.plugins.*ep.set).enabled.empty()) << ep.name;
    EXPECT_TRUE((p.plugins.*ep.set).disabled.empty()) << ep.name;
  }
  EXPECT_TRUE(p.plugin_config.empty());
}

TEST(ParseConfigTest, MinimalFileEqualsDefaults) {
  auto c = Parse(Cfg(""));
  ASSERT_TRUE(c.ok()) << c.error();
  SchedulerConfiguration d = DefaultConfig(kKnown);
  EXPECT_EQ(c->parallelism, d.parallelism);
  ASSERT_EQ(c->profiles.size(), 1u);
  EXPECT_EQ(c->profiles[0].scheduler_name, "berth-scheduler");
  EXPECT_EQ(Names(c->profiles[0].plugins.multi_point), kDefaultMultiPoint);
  EXPECT_EQ(c->leader_election.resource_name, "berth-scheduler");
}

TEST(ParseConfigTest, EmptyProfilesListGetsOneProfile) {
  auto c = Parse(Cfg("profiles: []\n"));
  ASSERT_TRUE(c.ok()) << c.error();
  ASSERT_EQ(c->profiles.size(), 1u);
  EXPECT_EQ(c->profiles[0].scheduler_name, "berth-scheduler");
}

TEST(ParseConfigTest, JsonIsYaml) {
  auto c =
      Parse(R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration",)"
            R"("parallelism":4})");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->parallelism, 4);
}

TEST(ParseConfigTest, EveryField) {
  auto c = Parse(Cfg(R"(
parallelism: 8
percentageOfNodesToScore: 50
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 30
delayCacheUntilActive: true
enableProfiling: false
leaderElection:
  leaderElect: true
  leaseDuration: 1m30s
  renewDeadline: 1m
  retryPeriod: 500ms
  resourceLock: leases
  resourceName: my-lock
  resourceNamespace: sched
clientConnection:
  kubeconfig: /etc/kube.conf
  acceptContentTypes: application/json
  contentType: application/json
  qps: 12.5
  burst: 30
profiles:
- schedulerName: berth-a
  percentageOfNodesToScore: 30
  plugins:
    permit:
      enabled:
      - name: Coscheduling
  pluginConfig:
  - name: NodeLabel
    args:
      presentLabels: [zone]
  - name: Coscheduling
    args:
      permitWaitingTimeSeconds: 60
extenders:
- urlPrefix: http://ext:8888/
  filterVerb: filter
  preemptVerb: preempt
  prioritizeVerb: prioritize
  bindVerb: bind
  weight: 5
  enableHTTPS: true
  tlsConfig:
    insecure: true
    serverName: ext.local
    certFile: /c
    keyFile: /k
    caFile: /ca
    certData: aGVsbG8=
    keyData: aGk
    caData: ""
  httpTimeout: 1h
  nodeCacheCapable: true
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
  ignorable: true
)"));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->parallelism, 8);
  EXPECT_EQ(c->percentage_of_nodes_to_score, 50);
  EXPECT_EQ(c->pod_initial_backoff_seconds, 2);
  EXPECT_EQ(c->pod_max_backoff_seconds, 30);
  EXPECT_TRUE(c->delay_cache_until_active);
  EXPECT_FALSE(c->enable_profiling);
  EXPECT_FALSE(c->enable_contention_profiling);
  EXPECT_EQ(c->leader_election.lease_duration, milliseconds(90000));
  EXPECT_EQ(c->leader_election.renew_deadline, milliseconds(60000));
  EXPECT_EQ(c->leader_election.retry_period, milliseconds(500));
  EXPECT_EQ(c->leader_election.resource_name, "my-lock");
  EXPECT_EQ(c->leader_election.resource_namespace, "sched");
  EXPECT_EQ(c->client_connection.kubeconfig, "/etc/kube.conf");
  EXPECT_EQ(c->client_connection.accept_content_types, "application/json");
  EXPECT_EQ(c->client_connection.content_type, "application/json");
  EXPECT_FLOAT_EQ(c->client_connection.qps, 12.5f);
  EXPECT_EQ(c->client_connection.burst, 30);
  ASSERT_EQ(c->profiles.size(), 1u);
  const Profile& p = c->profiles[0];
  EXPECT_EQ(p.scheduler_name, "berth-a");
  EXPECT_EQ(p.percentage_of_nodes_to_score, 30);
  EXPECT_EQ(Names(p.plugins.permit), (std::vector<std::string>{"Coscheduling"}));
  ASSERT_EQ(p.plugin_config.size(), 2u);
  EXPECT_EQ(p.plugin_config[1].name, "Coscheduling");
  EXPECT_EQ(p.plugin_config[1].path, "profiles[0].pluginConfig[1].args");
  ASSERT_NE(p.Args("Coscheduling"), nullptr);
  EXPECT_EQ(api::json::ToJson(*p.Args("Coscheduling")), R"({"permitWaitingTimeSeconds":60})");
  EXPECT_EQ(api::json::ToJson(*p.Args("NodeLabel")), R"({"presentLabels":["zone"]})");
  EXPECT_EQ(p.Args("TaintToleration"), nullptr);
  ASSERT_EQ(c->extenders.size(), 1u);
  const Extender& e = c->extenders[0];
  EXPECT_EQ(e.url_prefix, "http://ext:8888/");
  EXPECT_EQ(e.filter_verb, "filter");
  EXPECT_EQ(e.preempt_verb, "preempt");
  EXPECT_EQ(e.prioritize_verb, "prioritize");
  EXPECT_EQ(e.bind_verb, "bind");
  EXPECT_EQ(e.weight, 5);
  EXPECT_TRUE(e.enable_https);
  ASSERT_TRUE(e.tls_config.has_value());
  EXPECT_TRUE(e.tls_config->insecure);
  EXPECT_EQ(e.tls_config->server_name, "ext.local");
  EXPECT_EQ(e.tls_config->cert_file, "/c");
  EXPECT_EQ(e.tls_config->key_file, "/k");
  EXPECT_EQ(e.tls_config->ca_file, "/ca");
  EXPECT_EQ(e.tls_config->cert_data, "hello");
  EXPECT_EQ(e.tls_config->key_data, "hi");
  EXPECT_EQ(e.tls_config->ca_data, "");
  EXPECT_EQ(e.http_timeout, milliseconds(3600000));
  EXPECT_TRUE(e.node_cache_capable);
  ASSERT_EQ(e.managed_resources.size(), 1u);
  EXPECT_EQ(e.managed_resources[0].name, "example.com/gpu");
  EXPECT_TRUE(e.managed_resources[0].ignored_by_scheduler);
  EXPECT_TRUE(e.ignorable);
}

TEST(ParseConfigTest, ZeroAndNullMeanDefault) {
  // As upstream: zero durations, qps, burst and an empty lock name are defaulted; nulls are absent.
  auto c = Parse(Cfg(R"(
parallelism: null
leaderElection:
  leaseDuration: 0s
  renewDeadline: "0"
  retryPeriod: 0ms
  resourceLock: ""
  resourceName: ""
clientConnection:
  qps: 0
  burst: 0
extenders:
- urlPrefix: http://e
  httpTimeout: 0s
)"));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->parallelism, 16);
  EXPECT_EQ(c->leader_election.lease_duration, milliseconds(15000));
  EXPECT_EQ(c->leader_election.renew_deadline, milliseconds(10000));
  EXPECT_EQ(c->leader_election.retry_period, milliseconds(2000));
  EXPECT_EQ(c->leader_election.resource_lock, "leases");
  EXPECT_EQ(c->leader_election.resource_name, "berth-scheduler");
  EXPECT_EQ(c->client_connection.qps, 50);
  EXPECT_EQ(c->client_connection.burst, 100);
  EXPECT_EQ(c->extenders[0].http_timeout, milliseconds(5000));
}

TEST(ParseConfigTest, DuplicateKeysAreErrorsNotLastWins) {
  // With "last wins" the profile would silently be "other" and no berth pod would be scheduled.
  auto cfg = Parse(Cfg("profiles:\n- schedulerName: berth-scheduler\n  schedulerName: other\n"));
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error(),
            "cfg.yaml: line 5, column 3: profiles[0].schedulerName: key \"schedulerName\" already "
            "set in map");
  auto args =
      Parse(Cfg("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
                "      scoringStrategy: {type: MostAllocated, type: LeastAllocated}\n"));
  ASSERT_FALSE(args.ok());
  EXPECT_NE(
      args.error().find("profiles[0].pluginConfig[0].args.scoringStrategy.type: key \"type\""),
      std::string::npos)
      << args.error();
}

TEST(ParseConfigTest, DurationsInGoFormat) {
  struct Case {
    std::string text;
    milliseconds want;
  };
  const std::vector<Case> cases = {{"15s", milliseconds(15000)},
                                   {"1m30s", milliseconds(90000)},
                                   {"500ms", milliseconds(500)},
                                   {"1h", milliseconds(3600000)},
                                   {"1.5s", milliseconds(1500)}};
  for (const Case& c : cases) {
    auto cfg = Parse(Cfg("extenders:\n- urlPrefix: http://e\n  httpTimeout: " + c.text + "\n"));
    ASSERT_TRUE(cfg.ok()) << c.text << ": " << cfg.error();
    EXPECT_EQ(cfg->extenders[0].http_timeout, c.want) << c.text;
  }
}

TEST(ParseConfigTest, MultipleProfiles) {
  auto c = Parse(Cfg(R"(
profiles:
- schedulerName: berth-scheduler
- schedulerName: gang
  percentageOfNodesToScore: 100
  plugins:
    multiPoint:
      enabled:
      - name: Coscheduling
    score:
      disabled:
      - name: ImageLocality
)"));
  ASSERT_TRUE(c.ok()) << c.error();
  ASSERT_EQ(c->profiles.size(), 2u);
  EXPECT_EQ(c->profiles[0].scheduler_name, "berth-scheduler");
  EXPECT_EQ(Names(c->profiles[0].plugins.multi_point), kDefaultMultiPoint);
  EXPECT_EQ(c->profiles[1].scheduler_name, "gang");
  EXPECT_EQ(c->profiles[1].percentage_of_nodes_to_score, 100);
  std::vector<std::string> want = kDefaultMultiPoint;
  want.push_back("Coscheduling");
  EXPECT_EQ(Names(c->profiles[1].plugins.multi_point), want);
  EXPECT_EQ(c->profiles[1].plugins.score.disabled, (std::vector<std::string>{"ImageLocality"}));
}

TEST(ParseConfigTest, MergeCases) {
  struct Case {
    std::string name;
    std::string plugins;  // YAML under `plugins:` of the single profile, indented 4
    ExtensionPoint point;
    std::vector<std::string> want_enabled;
    std::vector<std::string> want_disabled;
    std::vector<std::string> want_multi_point;
  };
  std::vector<std::string> appended = kDefaultMultiPoint;
  appended.push_back("NodeLabel(4)");
  std::vector<std::string> reweighted = kDefaultMultiPoint;
  reweighted[4] = "TaintToleration(10)";
  const std::vector<Case> cases = {
      {"disable one default at score",
       "    score:\n      disabled:\n      - name: TaintToleration\n",
       {"score", &Plugins::score},
       {},
       {"TaintToleration"},
       kDefaultMultiPoint},
      {"star at queueSort with a custom",
       "    queueSort:\n      enabled:\n      - name: CustomSort\n      disabled:\n      - name: "
       "\"*\"\n",
       {"queueSort", &Plugins::queue_sort},
       {"CustomSort"},
       {"*"},
       kDefaultMultiPoint},
      {"replace a default's weight via multiPoint",
       "    multiPoint:\n      enabled:\n      - name: TaintToleration\n        weight: 10\n",
       kMultiPoint,
       reweighted,
       {},
       reweighted},
      {"append a custom",
       "    multiPoint:\n      enabled:\n      - name: NodeLabel\n        weight: 4\n",
       kMultiPoint,
       appended,
       {},
       appended},
      {"star at multiPoint drops every default",
       "    multiPoint:\n      enabled:\n      - name: NodeLabel\n      disabled:\n      - name: "
       "\"*\"\n",
       kMultiPoint,
       {"NodeLabel"},
       {"*"},
       {"NodeLabel"}},
      {"disable an upstream default berth lacks is a no-op",
       "    filter:\n      disabled:\n      - name: VolumeBinding\n      - name: EBSLimits\n",
       {"filter", &Plugins::filter},
       {},
       {"VolumeBinding", "EBSLimits"},
       kDefaultMultiPoint},
  };
  for (const Case& c : cases) {
    auto cfg = Parse(Cfg("profiles:\n- plugins:\n" + c.plugins));
    ASSERT_TRUE(cfg.ok()) << c.name << ": " << cfg.error();
    const Plugins& p = cfg->profiles[0].plugins;
    EXPECT_EQ(Names(p.*c.point.set), c.want_enabled) << c.name;
    EXPECT_EQ((p.*c.point.set).disabled, c.want_disabled) << c.name;
    EXPECT_EQ(Names(p.multi_point), c.want_multi_point) << c.name;
  }
}

struct ErrorCase {
  std::string name;
  std::string yaml;   // full document
  std::string error;  // whole message, without the leading "cfg.yaml: "
};

void RunErrorCases(const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    auto cfg = Parse(c.yaml);
    ASSERT_FALSE(cfg.ok()) << c.name;
    EXPECT_EQ(cfg.error(), "cfg.yaml: " + c.error) << c.name;
  }
}

TEST(ParseConfigTest, ValidationErrors) {
  const std::string unknown = std::string("; known plugins: ") + kKnownList;
  const std::string removed =
      "was invalid in version \"kubescheduler.config.k8s.io/v1\" (KubeSchedulerConfiguration is "
      "version \"kubescheduler.config.k8s.io/v1\")";
  RunErrorCases({
      {"parallelism", Cfg("parallelism: 0\n"),
       "parallelism: Invalid value: 0: should be an integer value greater than zero"},
      {"percentage high", Cfg("percentageOfNodesToScore: 101\n"),
       "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"},
      {"percentage negative", Cfg("percentageOfNodesToScore: -1\n"),
       "percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"},
      {"profile percentage", Cfg("profiles:\n- percentageOfNodesToScore: 200\n"),
       "profiles[0].percentageOfNodesToScore: Invalid value: 200: not in valid range [0-100]"},
      {"initial backoff", Cfg("podInitialBackoffSeconds: 0\n"),
       "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"},
      {"max backoff", Cfg("podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4\n"),
       "podMaxBackoffSeconds: Invalid value: 4: must be greater than or equal to "
       "PodInitialBackoffSeconds"},
      {"qps not a number", Cfg("clientConnection:\n  qps: .nan\n"),
       "clientConnection.qps: Invalid value: nan: must be a finite number"},
      {"qps infinite", Cfg("clientConnection:\n  qps: .inf\n"),
       "clientConnection.qps: Invalid value: inf: must be a finite number"},
      {"qps tiny", Cfg("clientConnection:\n  qps: 1e-30\n"),
       "clientConnection.qps: Invalid value: 1e-30: must be 0 (the default, 50) or at least 0.001"},
      {"backoff overflows", Cfg("podMaxBackoffSeconds: 9223372036854775807\n"),
       "podMaxBackoffSeconds: Invalid value: 9223372036854775807: must be at most 1000000000"},
      {"explicit empty scheduler name", Cfg("profiles:\n- schedulerName: \"\"\n"),
       "profiles[0].schedulerName: Required value"},
      {"no name defaulting with two profiles",
       Cfg("profiles:\n- schedulerName: a\n- plugins: {}\n"),
       "profiles[1].schedulerName: Required value"},
      {"duplicate scheduler name", Cfg("profiles:\n- schedulerName: a\n- schedulerName: a\n"),
       "profiles[1].schedulerName: Duplicate value: \"a\""},
      {"queueSort differs",
       Cfg("profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n"
           "      enabled: [{name: CustomSort}]\n      disabled: [{name: \"*\"}]\n"),
       "profiles[1].plugins.queueSort: Invalid value: {enabled: [CustomSort], disabled: [*]}: "
       "must be the same for all profiles"},
      {"two queueSort plugins",
       Cfg("profiles:\n- plugins:\n    queueSort:\n"
           "      enabled: [{name: PrioritySort}, {name: CustomSort}]\n"),
       "profiles[0].plugins.queueSort.enabled: Invalid value: 2: only one queue sort plugin can "
       "be enabled"},
      {"queueSort args differ",
       Cfg("profiles:\n"
           "- schedulerName: a\n"
           "  plugins: {queueSort: {enabled: [{name: CustomSort}], disabled: [{name: '*'}]}}\n"
           "  pluginConfig: [{name: CustomSort, args: {x: 1}}]\n"
           "- schedulerName: b\n"
           "  plugins: {queueSort: {enabled: [{name: CustomSort}], disabled: [{name: '*'}]}}\n"
           "  pluginConfig: [{name: CustomSort, args: {x: 2}}]\n"),
       "profiles[1].pluginConfig[0].args: Invalid value: {\"x\":2}: queueSort must be the same "
       "for all profiles"},
      {"unknown enabled plugin",
       Cfg("profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeLabel\n"
           "      - name: Foo\n"),
       "profiles[0].plugins.score.enabled[1]: unknown plugin \"Foo\"" + unknown},
      {"unknown multiPoint plugin",
       Cfg("profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: VolumeBinding}]\n"),
       "profiles[0].plugins.multiPoint.enabled[0]: unknown plugin \"VolumeBinding\"" + unknown},
      {"unknown disabled plugin",
       Cfg("profiles:\n- plugins:\n    filter:\n      disabled: [{name: Bar}]\n"),
       "profiles[0].plugins.filter.disabled[0]: unknown plugin \"Bar\"" + unknown},
      {"pod-group point: a known plugin does not implement it",
       Cfg("profiles:\n- plugins:\n    placementGenerate:\n      enabled: [{name: NodeName}]\n"),
       "profiles[0].plugins.placementGenerate.enabled[0]: plugin \"NodeName\" does not extend "
       "PlacementGeneratePlugin"},
      {"pod-group point: unknown plugin",
       Cfg("profiles:\n- plugins:\n    podGroupPostFilter:\n      enabled: [{name: "
           "GangScheduling}]\n"),
       "profiles[0].plugins.podGroupPostFilter.enabled[0]: unknown plugin \"GangScheduling\"" +
           unknown},
      {"unknown pluginConfig", Cfg("profiles:\n- pluginConfig:\n  - name: Foo\n    args: {}\n"),
       "profiles[0].pluginConfig[0]: unknown plugin \"Foo\"" + unknown},
      {"empty plugin name",
       Cfg("profiles:\n- plugins:\n    score:\n      enabled: [{weight: 1}]\n"),
       "profiles[0].plugins.score.enabled[0].name: Required value"},
      {"duplicate pluginConfig",
       Cfg("profiles:\n- pluginConfig:\n  - name: NodeLabel\n  - name: Coscheduling\n"
           "  - name: NodeLabel\n"),
       "profiles[0].pluginConfig[2]: Duplicate value: \"NodeLabel\""},
      {"removed plugin enabled",
       Cfg("profiles:\n- plugins:\n    filter:\n      enabled: [{name: EBSLimits}]\n"),
       "profiles[0].plugins.filter.enabled[0]: Invalid value: \"EBSLimits\": " + removed},
      {"removed plugin in pluginConfig", Cfg("profiles:\n- pluginConfig:\n  - name: GCEPDLimits\n"),
       "profiles[0].pluginConfig[0]: Invalid value: \"GCEPDLimits\": " + removed},
      {"negative score weight",
       Cfg("profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeLabel, weight: -1}]\n"),
       "profiles[0].plugins.score.enabled[0].weight: Invalid value: -1: must be non-negative"},
      {"negative multiPoint weight",
       Cfg("profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: NodeLabel, weight: "
           "-3}]\n"),
       "profiles[0].plugins.multiPoint.enabled[0].weight: Invalid value: -3: must be "
       "non-negative"},
      {"extender urlPrefix", Cfg("extenders:\n- filterVerb: filter\n"),
       "extenders[0].urlPrefix: Required value"},
      {"extender weight", Cfg("extenders:\n- urlPrefix: http://e\n  prioritizeVerb: prio\n"),
       "extenders[0].weight: Invalid value: 0: must have a positive weight applied to it"},
      {"two binders",
       Cfg("extenders:\n- urlPrefix: http://a\n  bindVerb: bind\n- urlPrefix: http://b\n"
           "  bindVerb: bind\n"),
       "extenders: Invalid value: \"found 2 extenders implementing bind\": only one extender can "
       "implement bind"},
      {"extender timeout", Cfg("extenders:\n- urlPrefix: http://e\n  httpTimeout: -1s\n"),
       "extenders[0].httpTimeout: Invalid value: \"-1s\": must be non-negative"},
      {"managed resource name",
       Cfg("extenders:\n- urlPrefix: http://e\n  managedResources: [{ignoredByScheduler: true}]\n"),
       "extenders[0].managedResources[0].name: Required value"},
      {"duplicate managed resource",
       Cfg("extenders:\n- urlPrefix: http://a\n  managedResources: [{name: example.com/gpu}]\n"
           "- urlPrefix: http://b\n  managedResources: [{name: example.com/gpu}]\n"),
       "extenders[1].managedResources[0].name: Invalid value: \"example.com/gpu\": duplicate "
       "extender managed resource name"},
      {"resource lock", Cfg("leaderElection:\n  resourceLock: endpoints\n"),
       "leaderElection.resourceLock: Invalid value: \"endpoints\": resourceLock value must be "
       "\"leases\""},
      {"lease not above renew", Cfg("leaderElection:\n  leaseDuration: 10s\n"),
       "leaderElection.leaseDuration: Invalid value: \"10s\": must be greater than renewDeadline "
       "(\"10s\")"},
      {"renew not above jittered retry",
       Cfg("leaderElection:\n  renewDeadline: 2s\n  retryPeriod: 2s\n"),
       "leaderElection.renewDeadline: Invalid value: \"2s\": must be greater than retryPeriod*1.2 "
       "(\"2.4s\")"},
      {"negative retry", Cfg("leaderElection:\n  retryPeriod: -1s\n"),
       "leaderElection.retryPeriod: Invalid value: \"-1s\": must be greater than zero"},
      {"negative lease: every problem reported, one per line",
       Cfg("leaderElection:\n  leaseDuration: -1s\n"),
       "leaderElection.leaseDuration: Invalid value: \"-1s\": must be greater than zero\n"
       "cfg.yaml: leaderElection.leaseDuration: Invalid value: \"-1s\": must be greater than "
       "renewDeadline (\"10s\")"},
      {"qps", Cfg("clientConnection:\n  qps: -1\n"),
       "clientConnection.qps: Invalid value: -1: must be non-negative"},
      {"burst", Cfg("clientConnection:\n  burst: -1\n"),
       "clientConnection.burst: Invalid value: -1: must be non-negative"},
      {"name and other errors together",
       Cfg("parallelism: -2\nprofiles:\n- plugins:\n    bind:\n      enabled: [{name: Nope}]\n"),
       "profiles[0].plugins.bind.enabled[0]: unknown plugin \"Nope\"" + unknown +
           "\ncfg.yaml: parallelism: Invalid value: -2: should be an integer value greater than "
           "zero"},
  });
}

// v1.37's pod-group points load (kube-scheduler files may carry them); disabling is a no-op.
TEST(ParseConfigTest, PodGroupPointsDecodeAndMerge) {
  auto c =
      Parse(Cfg("profiles:\n- plugins:\n    placementScore: {disabled: [{name: '*'}]}\n"
                "    podGroupPostFilter: {disabled: [{name: DefaultPreemption}]}\n"
                "    placementGenerate: {}\n"));
  ASSERT_TRUE(c.ok()) << c.error();
  const Plugins& p = c->profiles[0].plugins;
  EXPECT_EQ(p.placement_score.disabled, (std::vector<std::string>{"*"}));
  EXPECT_EQ(p.pod_group_post_filter.disabled, (std::vector<std::string>{"DefaultPreemption"}));
  EXPECT_TRUE(p.placement_generate.enabled.empty());
  EXPECT_EQ(Names(p.multi_point), kDefaultMultiPoint);
}

// berth's own extender field: the bound on an extender's answer.
TEST(ParseConfigTest, ExtenderMaxResponseBytes) {
  auto c =
      Parse(Cfg("extenders:\n- {urlPrefix: 'http://e', filterVerb: f}\n"
                "- {urlPrefix: 'http://g', filterVerb: f, maxResponseBytes: 67108864}\n"));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->extenders[0].max_response_bytes, 16 << 20);
  EXPECT_EQ(c->extenders[1].max_response_bytes, 64 << 20);
  // /configz shows it only when set, so that a default document stays upstream's.
  const api::Value doc = EncodeConfig(*c);
  const auto& extenders = doc.Find("extenders")->AsArray();
  EXPECT_EQ(extenders[0].Find("maxResponseBytes"), nullptr);
  ASSERT_NE(extenders[1].Find("maxResponseBytes"), nullptr);
  EXPECT_EQ(extenders[1].Find("maxResponseBytes")->AsInt(), 64 << 20);
  auto bad = Parse(Cfg("extenders:\n- {urlPrefix: 'http://e', maxResponseBytes: 0}\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("extenders[0].maxResponseBytes: Invalid value: 0: must be positive"),
            std::string::npos)
      << bad.error();
}

TEST(ParseConfigTest, LeaderElectionOffSkipsItsChecks) {
  auto c =
      Parse(Cfg("leaderElection:\n  leaderElect: false\n  resourceLock: endpoints\n"
                "  leaseDuration: 1s\n"));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_FALSE(c->leader_election.leader_elect);
}

TEST(ParseConfigTest, DecodeErrors) {
  RunErrorCases({
      {"unknown top-level field", Cfg("parallelizm: 4\n"),
       "strict decoding error: unknown field \"parallelizm\""},
      {"unknown nested field", Cfg("profiles:\n- schedulerName: a\n  plugin: {}\n"),
       "strict decoding error: unknown field \"profiles[0].plugin\""},
      {"unknown extension point", Cfg("profiles:\n- plugins:\n    scores: {}\n"),
       "strict decoding error: unknown field \"profiles[0].plugins.scores\""},
      {"unknown leader election field", Cfg("leaderElection:\n  leaseDuraton: 1s\n"),
       "strict decoding error: unknown field \"leaderElection.leaseDuraton\""},
      {"wrong type", Cfg("parallelism: \"16\"\n"), "parallelism: expected integer, got string"},
      {"float for int", Cfg("parallelism: 1.5\n"), "parallelism: expected integer, got number"},
      {"int32 range", Cfg("parallelism: 3000000000\n"),
       "parallelism: value 3000000000 out of range for int32"},
      {"profiles not a list", Cfg("profiles: {}\n"), "profiles: expected array, got object"},
      {"duration as number", Cfg("leaderElection:\n  leaseDuration: 15\n"),
       "leaderElection.leaseDuration: expected a duration string such as \"15s\", got integer"},
      {"duration unit", Cfg("leaderElection:\n  leaseDuration: 15x\n"),
       "leaderElection.leaseDuration: time: unknown unit \"x\" in duration \"15x\""},
      {"duration missing unit", Cfg("extenders:\n- urlPrefix: http://e\n  httpTimeout: \"30\"\n"),
       "extenders[0].httpTimeout: time: missing unit in duration \"30\""},
      {"bad base64", Cfg("extenders:\n- urlPrefix: http://e\n  tlsConfig:\n    caData: \"!!\"\n"),
       "extenders[0].tlsConfig.caData: illegal base64 data"},
      {"v1 casing of enableHTTPS", Cfg("extenders:\n- urlPrefix: http://e\n  enableHttps: true\n"),
       "strict decoding error: unknown field \"extenders[0].enableHttps\""},
  });
}

TEST(ParseConfigTest, DocumentErrors) {
  RunErrorCases({
      {"wrong apiVersion",
       "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
       "apiVersion \"kubescheduler.config.k8s.io/v1beta3\" is not supported: only "
       "\"kubescheduler.config.k8s.io/v1\" is served (kubescheduler.config.k8s.io/v1beta* are no "
       "longer served; migrate the file to v1)"},
      {"missing apiVersion", "kind: KubeSchedulerConfiguration\n",
       "apiVersion is required: want \"kubescheduler.config.k8s.io/v1\""},
      {"missing kind", "apiVersion: kubescheduler.config.k8s.io/v1\n",
       "kind is required: want \"KubeSchedulerConfiguration\""},
      {"legacy Policy", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy\n",
       "kind \"Policy\" is not supported: want \"KubeSchedulerConfiguration\" (the scheduler "
       "Policy API was removed; express it as profiles and pluginConfig)"},
      {"empty file", "", "empty file: expected a KubeSchedulerConfiguration document"},
      {"two documents", Cfg("---\n") + Cfg(""), "expected one YAML document, found 2"},
      {"not an object", "- a\n- b\n", "expected a KubeSchedulerConfiguration object, got array"},
  });
}

TEST(ParseConfigTest, BadYamlNamesSourceLineAndColumn) {
  auto c = Parse(Cfg("profiles: [\n  {schedulerName: a\n"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().rfind("cfg.yaml: line ", 0), 0u) << c.error();
  EXPECT_NE(c.error().find(", column "), std::string::npos) << c.error();
}

TEST(LoadConfigFileTest, ReadsFileAndNamesItInErrors) {
  const std::string path = ::testing::TempDir() + "/berth_config_test.yaml";
  {
    std::ofstream out(path);
    out << Cfg("parallelism: 3\n");
  }
  auto c = LoadConfigFile(path, kKnown);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->parallelism, 3);
  {
    std::ofstream out(path);
    out << Cfg("parallelism: 0\n");
  }
  c = LoadConfigFile(path, kKnown);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error(), path +
                           ": parallelism: Invalid value: 0: should be an integer value "
                           "greater than zero");
  std::remove(path.c_str());

  c = LoadConfigFile(path, kKnown);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error(), path + ": cannot read file: No such file or directory");
}

}  // namespace
}  // namespace berth::config
