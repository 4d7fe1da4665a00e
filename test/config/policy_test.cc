#include "config/policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace berth::config {
namespace {

const std::vector<std::string> kKnown = {
    "DefaultBinder",    "ImageLocality",     "InterPodAffinity",  "NodeAffinity",
    "NodeLabel",        "NodeName",          "NodePorts",         "NodeResourcesBalancedAllocation",
    "NodeResourcesFit", "NodeUnschedulable", "PodTopologySpread", "PrioritySort",
    "SchedulingGates",  "SelectorSpread",    "ServiceAffinity",   "TaintToleration"};

Result<PolicyResult> Parse(const std::string& body) {
  return ParsePolicy("kind: Policy\napiVersion: v1\n" + body, "policy.yaml", kKnown, "berth");
}

std::vector<std::string> Names(const PluginSet& set) {
  std::vector<std::string> out;
  for (const auto& r : set.enabled) out.push_back(r.name);
  return out;
}

int32_t Weight(const PluginSet& set, const std::string& name) {
  for (const auto& r : set.enabled) {
    if (r.name == name) return r.weight;
  }
  return -1;
}

std::vector<std::string> Strings(const api::Value* v) {
  std::vector<std::string> out;
  if (v == nullptr) return out;
  for (const auto& e : v->AsArray()) out.push_back(e.AsString());
  return out;
}

using V = std::vector<std::string>;

TEST(Policy, MandatoryPredicatesAndFixedPlugins) {
  auto r = Parse("predicates: []\npriorities: []\n");
  ASSERT_TRUE(r.ok()) << r.error();
  const Plugins& p = r->profile.plugins;
  EXPECT_EQ(r->profile.scheduler_name, "berth");
  EXPECT_EQ(Names(p.filter), (V{"NodeUnschedulable", "TaintToleration"}));
  EXPECT_TRUE(p.score.enabled.empty());
  EXPECT_EQ(Names(p.queue_sort), V{"PrioritySort"});
  EXPECT_EQ(Names(p.bind), V{"DefaultBinder"});
  EXPECT_EQ(Names(p.pre_enqueue), V{"SchedulingGates"});
  EXPECT_TRUE(p.multi_point.enabled.empty());
}

TEST(Policy, PredicateNamesMapToPluginsInUpstreamOrder) {
  auto r = Parse(
      "predicates:\n- {name: MatchInterPodAffinity}\n- {name: GeneralPredicates}\n"
      "- {name: EvenPodsSpread}\n- {name: PodFitsPorts}\n- {name: HostName}\n"
      "- {name: MatchNodeSelector}\n- {name: PodFitsResources}\npriorities: []\n");
  ASSERT_TRUE(r.ok()) << r.error();
  const Plugins& p = r->profile.plugins;
  EXPECT_EQ(Names(p.filter),
            (V{"NodeUnschedulable", "NodeResourcesFit", "NodeName", "NodePorts", "NodeAffinity",
               "TaintToleration", "PodTopologySpread", "InterPodAffinity"}));
  EXPECT_EQ(Names(p.pre_filter), (V{"NodeResourcesFit", "NodePorts", "NodeAffinity",
                                    "PodTopologySpread", "InterPodAffinity"}));
}

TEST(Policy, PriorityNamesWeightsAndAliases) {
  auto r = Parse(
      "predicates: []\npriorities:\n- {name: ServiceSpreadingPriority, weight: 2}\n"
      "- {name: InterPodAffinityPriority, weight: 1}\n- {name: NodeAffinityPriority, weight: 4}\n"
      "- {name: TaintTolerationPriority, weight: 5}\n- {name: ImageLocalityPriority, weight: 6}\n"
      "- {name: EvenPodsSpreadPriority, weight: 7}\n- {name: BalancedResourceAllocation, "
      "weight: 8}\n- {name: MostRequestedPriority, weight: 9}\n- {name: EqualPriority, weight: "
      "1}\n");
  ASSERT_TRUE(r.ok()) << r.error();
  const Plugins& p = r->profile.plugins;
  EXPECT_EQ(Weight(p.score, "SelectorSpread"), 2);
  EXPECT_EQ(Weight(p.score, "InterPodAffinity"), 1);
  EXPECT_EQ(Weight(p.score, "NodeAffinity"), 4);
  EXPECT_EQ(Weight(p.score, "TaintToleration"), 5);
  EXPECT_EQ(Weight(p.score, "ImageLocality"), 6);
  EXPECT_EQ(Weight(p.score, "PodTopologySpread"), 7);
  EXPECT_EQ(Weight(p.score, "NodeResourcesBalancedAllocation"), 8);
  EXPECT_EQ(Weight(p.score, "NodeResourcesFit"), 9);
  EXPECT_EQ(p.score.enabled.size(), 8u);
  const V pre_score = Names(p.pre_score);
  EXPECT_NE(std::find(pre_score.begin(), pre_score.end(), "SelectorSpread"), pre_score.end());
  const api::Value* fit = r->profile.Args("NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->Find("scoringStrategy")->Find("type")->AsString(), "MostAllocated");
}

TEST(Policy, LabelsPresenceMapsToNodeLabelFilter) {
  auto r = Parse(
      "predicates:\n- {name: RequireZone, argument: {labelsPresence: {labels: [zone], presence: "
      "true}}}\n- {name: NoRetiring, argument: {labelsPresence: {labels: [retiring, old]}}}\n"
      "priorities: []\n");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(Names(r->profile.plugins.filter),
            (V{"NodeUnschedulable", "TaintToleration", "NodeLabel"}));
  const api::Value* args = r->profile.Args("NodeLabel");
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(Strings(args->Find("presentLabels")), V{"zone"});
  EXPECT_EQ(Strings(args->Find("absentLabels")), (V{"retiring", "old"}));
}

TEST(Policy, LabelPreferenceWeightTimesNumberOfLabels) {
  auto r = Parse(
      "predicates: []\npriorities:\n- {name: A, weight: 2, argument: {labelPreference: {label: "
      "ssd, presence: true}}}\n- {name: B, weight: 2, argument: {labelPreference: {label: spot}}}"
      "\n- {name: C, weight: 2, argument: {labelPreference: {label: gpu, presence: true}}}\n");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(Weight(r->profile.plugins.score, "NodeLabel"), 6);
  const api::Value* args = r->profile.Args("NodeLabel");
  EXPECT_EQ(Strings(args->Find("presentLabelsPreference")), (V{"ssd", "gpu"}));
  EXPECT_EQ(Strings(args->Find("absentLabelsPreference")), V{"spot"});
  auto bad = Parse(
      "priorities:\n- {name: A, weight: 2, argument: {labelPreference: {label: a}}}\n"
      "- {name: B, weight: 3, argument: {labelPreference: {label: b}}}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("policy.yaml: priorities[1].weight: labelPreference priorities must "
                             "all have the same weight"),
            std::string::npos)
      << bad.error();
}

TEST(Policy, ServiceAffinityAndAntiAffinity) {
  auto r = Parse(
      "predicates:\n- {name: TestZoneAffinity, argument: {serviceAffinity: {labels: [zone]}}}\n"
      "priorities:\n- {name: RackSpread, weight: 3, argument: {serviceAntiAffinity: {label: "
      "rack}}}\n- {name: RowSpread, weight: 3, argument: {serviceAntiAffinity: {label: row}}}\n");
  ASSERT_TRUE(r.ok()) << r.error();
  const Plugins& p = r->profile.plugins;
  EXPECT_EQ(Names(p.filter), (V{"NodeUnschedulable", "TaintToleration", "ServiceAffinity"}));
  EXPECT_EQ(Names(p.pre_filter), V{"ServiceAffinity"});
  EXPECT_EQ(Weight(p.score, "ServiceAffinity"), 6);
  EXPECT_EQ(Names(p.pre_score), V{"ServiceAffinity"});
  const api::Value* args = r->profile.Args("ServiceAffinity");
  EXPECT_EQ(Strings(args->Find("affinityLabels")), V{"zone"});
  EXPECT_EQ(Strings(args->Find("antiAffinityLabelsPreference")), (V{"rack", "row"}));
}

TEST(Policy, RequestedToCapacityRatio) {
  auto r = Parse(
      "predicates: []\npriorities:\n- name: RTCR\n  weight: 2\n  argument:\n"
      "    requestedToCapacityRatioArguments:\n      shape: [{utilization: 0, score: 0}, "
      "{utilization: 100, score: 10}]\n      resources: [{name: cpu, weight: 3}, {name: "
      "memory}]\n");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(Weight(r->profile.plugins.score, "NodeResourcesFit"), 2);
  const api::Value* s = r->profile.Args("NodeResourcesFit")->Find("scoringStrategy");
  EXPECT_EQ(s->Find("type")->AsString(), "RequestedToCapacityRatio");
  EXPECT_EQ(s->Find("resources")->AsArray()[0].Find("weight")->AsInt(), 3);
  EXPECT_EQ(s->Find("resources")->AsArray()[1].Find("weight")->AsInt(), 1);
  const auto& shape = s->Find("requestedToCapacityRatio")->Find("shape")->AsArray();
  ASSERT_EQ(shape.size(), 2u);
  EXPECT_EQ(shape[1].Find("score")->AsInt(), 10);
  auto both = Parse(
      "priorities:\n- {name: LeastRequestedPriority, weight: 1}\n- {name: MostRequestedPriority, "
      "weight: 1}\n");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error().find("priorities[1]: berth scores resources with one NodeResourcesFit"),
            std::string::npos)
      << both.error();
}

TEST(Policy, HardPodAffinitySymmetricWeight) {
  auto r = Parse(
      "hardPodAffinitySymmetricWeight: 10\nalwaysCheckAllPredicates: true\npredicates: []\n"
      "priorities: [{name: InterPodAffinityPriority, weight: 1}]\n");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->profile.Args("InterPodAffinity")->Find("hardPodAffinityWeight")->AsInt(), 10);
  auto bad = Parse("hardPodAffinitySymmetricWeight: 101\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("hardPodAffinitySymmetricWeight: Invalid value: 101"),
            std::string::npos);
}

TEST(Policy, DefaultsSkipPluginsBerthLacks) {
  auto r = Parse("");
  ASSERT_TRUE(r.ok()) << r.error();
  const Plugins& p = r->profile.plugins;
  EXPECT_EQ(Names(p.filter),
            (V{"NodeUnschedulable", "NodeResourcesFit", "NodeName", "NodePorts", "NodeAffinity",
               "TaintToleration", "PodTopologySpread", "InterPodAffinity"}));
  EXPECT_EQ(Weight(p.score, "PodTopologySpread"), 2);
  EXPECT_EQ(Weight(p.score, "SelectorSpread"), 1);
  EXPECT_EQ(Weight(p.score, "NodePreferAvoidPods"), -1);
}

TEST(Policy, MissingPluginIsAnErrorNamingThePredicate) {
  auto r = Parse("predicates:\n- {name: PodFitsResources}\n- {name: NoDiskConflict}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("policy.yaml: predicates[1].name: predicate \"NoDiskConflict\" needs "
                           "plugin \"VolumeRestrictions\", which berth does not have yet"),
            std::string::npos)
      << r.error();
  auto p = Parse("priorities:\n- {name: NodePreferAvoidPodsPriority, weight: 1}\n");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("NodePreferAvoidPods"), std::string::npos);
}

TEST(Policy, VolumeLimitsWhenTheRegistryHasIt) {
  std::vector<std::string> known = kKnown;
  known.push_back("NodeVolumeLimits");
  auto r = ParsePolicy("kind: Policy\npredicates: [{name: MaxCSIVolumeCountPred}]\n", "p.yaml",
                       known, "b");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(Names(r->profile.plugins.pre_filter), V{"NodeVolumeLimits"});
  EXPECT_EQ(Names(r->profile.plugins.filter),
            (V{"NodeUnschedulable", "TaintToleration", "NodeVolumeLimits"}));
}

TEST(Policy, UnknownNamesListKnownOnes) {
  auto r = Parse("predicates:\n- {name: PredicateOne}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("policy.yaml: predicates[0].name: unknown predicate \"PredicateOne\""),
            std::string::npos)
      << r.error();
  EXPECT_NE(r.error().find("known predicates: CheckNodeLabelPresence, CheckNodeUnschedulable"),
            std::string::npos)
      << r.error();
  auto p = Parse("priorities:\n- {name: PriorityOne, weight: 2}\n");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("priorities[0].name: unknown priority \"PriorityOne\""),
            std::string::npos);
  EXPECT_NE(p.error().find("known priorities: BalancedResourceAllocation, EqualPriority"),
            std::string::npos)
      << p.error();
}

TEST(Policy, ArgumentErrors) {
  struct Case {
    std::string body;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"predicates:\n- {name: X, argument: {}}\n",
       "policy.yaml: predicates[0].argument: exactly one of serviceAffinity, labelsPresence is "
       "required, found 0"},
      {"predicates:\n- {name: X, argument: {serviceAffinity: {labels: [a]}, labelsPresence: "
       "{labels: [b]}}}\n",
       "predicates[0].argument: exactly one of serviceAffinity, labelsPresence is required, "
       "found 2"},
      {"priorities:\n- {name: X, weight: 1, argument: {labelPreference: {label: a}, "
       "serviceAntiAffinity: {label: b}}}\n",
       "priorities[0].argument: exactly one of"},
      {"priorities:\n- {name: X, weight: 1, argument: {bogus: 1}}\n",
       "unknown field \"priorities[0].argument.bogus\""},
      {"priorities:\n- {name: LeastRequestedPriority}\n", "priorities[0].weight: Invalid value: 0"},
      {"priorities:\n- {name: RequestedToCapacityRatioPriority, weight: 1}\n",
       "priorities[0].argument: Required value"},
      {"predicates:\n- {name: X, argument: {labelsPresence: {labels: a}}}\n",
       "predicates[0].argument.labelsPresence.labels: expected array of strings"},
      {"predicates:\n- {name: X, argument: {serviceAffinity: {labels: []}}}\n",
       "predicates[0].argument.serviceAffinity.labels: Required value"},
      {"bogus: 1\n", "policy.yaml: strict decoding error: unknown field \"bogus\""},
      {"extenders:\n- {urlPrefix: http://x, prioritizeVerb: p}\n",
       "extenders[0].weight: priority for extender http://x should have a positive weight"},
      {"extenders:\n- {urlPrefix: http://x, bindVerb: b}\n- {urlPrefix: http://y, bindVerb: b}\n",
       "extenders: Only one extender can implement bind, found 2"},
  };
  for (const auto& c : cases) {
    auto r = Parse(c.body);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_NE(r.error().find(c.want), std::string::npos) << c.body << "\n" << r.error();
  }
  auto kind = ParsePolicy("kind: KubeSchedulerConfiguration\n", "p.yaml", kKnown, "b");
  ASSERT_FALSE(kind.ok());
  EXPECT_NE(kind.error().find("p.yaml: kind: want \"Policy\""), std::string::npos);
}

TEST(Policy, LegacyExtenders) {
  auto r = ParsePolicy(
      R"({"kind": "Policy", "apiVersion": "v1", "extenders": [{"urlPrefix": "https://ext:8443",
          "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 5,
          "enableHttps": true, "httpTimeout": 1500000000, "nodeCacheCapable": true,
          "managedResources": [{"name": "example.com/foo", "ignoredByScheduler": true}],
          "ignorable": true}, {"urlPrefix": "http://b"}]})",
      "policy.json", kKnown, "b");
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->extenders.size(), 2u);
  const Extender& e = r->extenders[0];
  EXPECT_EQ(e.url_prefix, "https://ext:8443");
  EXPECT_EQ(e.filter_verb, "filter");
  EXPECT_EQ(e.weight, 5);
  EXPECT_TRUE(e.enable_https);
  EXPECT_EQ(e.http_timeout, std::chrono::milliseconds(1500));
  EXPECT_TRUE(e.node_cache_capable);
  EXPECT_TRUE(e.ignorable);
  ASSERT_EQ(e.managed_resources.size(), 1u);
  EXPECT_TRUE(e.managed_resources[0].ignored_by_scheduler);
  EXPECT_EQ(r->extenders[1].http_timeout, std::chrono::milliseconds(5000));
  auto v1name = Parse("extenders:\n- {urlPrefix: http://x, enableHTTPS: true}\n");
  ASSERT_FALSE(v1name.ok());
  EXPECT_NE(v1name.error().find("enableHttps"), std::string::npos);
}

TEST(Policy, SeedExampleTranslates) {
  // Seed 003's policy, with its placeholder names replaced by real ones.
  auto r = ParsePolicy(R"({"kind" : "Policy", "apiVersion" : "v1",
    "predicates" : [
      {"name" : "TestZoneAffinity", "argument" : {"serviceAffinity" : {"labels" : ["zone"]}}},
      {"name" : "TestRequireZone", "argument" : {"labelsPresence" : {"labels" : ["zone"], "presence" : true}}},
      {"name" : "PodFitsResources"}, {"name" : "HostName"}],
    "priorities" : [
      {"name" : "RackSpread", "weight" : 3, "argument" : {"serviceAntiAffinity" : {"label" : "rack"}}},
      {"name" : "SelectorSpreadPriority", "weight" : 2}, {"name" : "LeastRequestedPriority", "weight" : 1}]})",
                       "seed.json", kKnown, "berth-scheduler");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(Names(r->profile.plugins.filter),
            (V{"NodeUnschedulable", "NodeName", "NodeResourcesFit", "TaintToleration", "NodeLabel",
               "ServiceAffinity"}));
  EXPECT_EQ(Weight(r->profile.plugins.score, "ServiceAffinity"), 3);
  EXPECT_EQ(Weight(r->profile.plugins.score, "SelectorSpread"), 2);
}

TEST(Policy, LoadPolicyFileReportsUnreadableFile) {
  auto r = LoadPolicyFile("/nonexistent/policy.yaml", kKnown, "b");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind("/nonexistent/policy.yaml: cannot read file", 0), 0u);
}

}  // namespace
}  // namespace berth::config
