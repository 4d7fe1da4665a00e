#include "config/defaults.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace berth::config {
namespace {

// "Name" or "Name(weight)" per enabled entry, for compact expectations.
std::vector<std::string> Names(const PluginSet& set) {
  std::vector<std::string> out;
  for (const PluginRef& p : set.enabled) {
    out.push_back(p.weight == 0 ? p.name : p.name + "(" + std::to_string(p.weight) + ")");
  }
  return out;
}

TEST(DefaultPluginsTest, UpstreamOrderAndWeights) {
  std::vector<std::string> all;
  for (const PluginRef& p : UpstreamDefaultPlugins()) all.push_back(p.name);
  Plugins plugins = DefaultPlugins(all);
  EXPECT_EQ(Names(plugins.multi_point),
            (std::vector<std::string>{"SchedulingGates",
                                      "PrioritySort",
                                      "NodeName",
                                      "NodeUnschedulable",
                                      "TaintToleration(3)",
                                      "NodeAffinity(2)",
                                      "NodePorts",
                                      "NodeResourcesFit(1)",
                                      "VolumeRestrictions",
                                      "NodeVolumeLimits",
                                      "VolumeBinding",
                                      "VolumeZone",
                                      "PodTopologySpread(2)",
                                      "InterPodAffinity(2)",
                                      "DynamicResources(2)",
                                      "DefaultPreemption",
                                      "NodeResourcesBalancedAllocation(1)",
                                      "ImageLocality(1)",
                                      "DefaultBinder",
                                      "NodeDeclaredFeatures"}));
  for (const ExtensionPoint& ep : kExtensionPoints) {
    EXPECT_TRUE((plugins.*ep.set).enabled.empty()) << ep.name;
  }
}

TEST(DefaultPluginsTest, UnregisteredDefaultsAreLeftOut) {
  // Until berth registers DynamicResources, the defaults simply skip it.
  Plugins plugins = DefaultPlugins(
      {"InterPodAffinity", "DefaultPreemption", "NodeDeclaredFeatures", "DefaultBinder"});
  EXPECT_EQ(Names(plugins.multi_point),
            (std::vector<std::string>{"InterPodAffinity(2)", "DefaultPreemption", "DefaultBinder",
                                      "NodeDeclaredFeatures"}));
}

TEST(DefaultPluginsTest, OnlyAvailablePluginsKeepOrder) {
  Plugins plugins =
      DefaultPlugins({"DefaultBinder", "NodeLabel", "TaintToleration", "PrioritySort"});
  EXPECT_EQ(Names(plugins.multi_point),
            (std::vector<std::string>{"PrioritySort", "TaintToleration(3)", "DefaultBinder"}));
}

TEST(DefaultPluginsTest, ExtensionPointNames) {
  std::vector<std::string> names;
  for (const ExtensionPoint& ep : kExtensionPoints) names.emplace_back(ep.name);
  EXPECT_EQ(names, (std::vector<std::string>{"preEnqueue", "queueSort", "preFilter", "filter",
                                             "postFilter", "preScore", "score", "reserve", "permit",
                                             "preBind", "bind", "postBind"}));
  EXPECT_EQ(kMultiPoint.name, "multiPoint");
}

struct MergeCase {
  std::string name;
  PluginSet defaults;
  PluginSet custom;
  std::vector<std::string> want_enabled;
  std::vector<std::string> want_disabled;
};

TEST(MergePluginSetTest, Table) {
  const PluginSet defaults{{{"A", 0}, {"B", 2}, {"C", 1}}, {}};
  const std::vector<MergeCase> cases = {
      {"no custom", defaults, {}, {"A", "B(2)", "C(1)"}, {}},
      {"disable one", defaults, {{}, {"B"}}, {"A", "C(1)"}, {"B"}},
      {"disable all with a custom", defaults, {{{"X", 0}}, {"*"}}, {"X"}, {"*"}},
      {"replace weight in place", defaults, {{{"B", 5}}, {}}, {"A", "B(5)", "C(1)"}, {}},
      {"append custom", defaults, {{{"X", 4}}, {}}, {"A", "B(2)", "C(1)", "X(4)"}, {}},
      {"replace and append keep custom order",
       defaults,
       {{{"Y", 0}, {"C", 7}, {"X", 0}}, {}},
       {"A", "B(2)", "C(7)", "Y", "X"},
       {}},
      {"duplicate custom: last replaces, first appended",
       defaults,
       {{{"A", 1}, {"A", 9}}, {}},
       {"A(9)", "B(2)", "C(1)", "A(1)"},
       {}},
      {"defaults' disabled kept after custom's",
       PluginSet{{{"A", 0}, {"B", 0}}, {"B"}},
       {{}, {"A"}},
       {},
       {"A", "B"}},
      {"disabled and re-enabled custom is appended",
       defaults,
       {{{"B", 3}}, {"B"}},
       {"A", "C(1)", "B(3)"},
       {"B"}},
  };
  for (const MergeCase& c : cases) {
    PluginSet merged = MergePluginSet(c.defaults, c.custom);
    EXPECT_EQ(Names(merged), c.want_enabled) << c.name;
    EXPECT_EQ(merged.disabled, c.want_disabled) << c.name;
  }
}

TEST(MergePluginsTest, EveryPointMerged) {
  Plugins defaults = DefaultPlugins({"PrioritySort", "TaintToleration", "DefaultBinder"});
  Plugins custom;
  custom.score.disabled = {"TaintToleration"};
  custom.queue_sort.disabled = {"*"};
  custom.queue_sort.enabled = {{"CustomSort", 0}};
  custom.multi_point.enabled = {{"TaintToleration", 10}, {"NodeLabel", 0}};
  custom.permit.enabled = {{"Coscheduling", 0}};
  Plugins merged = MergePlugins(defaults, custom);
  EXPECT_EQ(Names(merged.multi_point),
            (std::vector<std::string>{"PrioritySort", "TaintToleration(10)", "DefaultBinder",
                                      "NodeLabel"}));
  EXPECT_EQ(Names(merged.queue_sort), (std::vector<std::string>{"CustomSort"}));
  EXPECT_EQ(merged.queue_sort.disabled, (std::vector<std::string>{"*"}));
  EXPECT_TRUE(merged.score.enabled.empty());
  EXPECT_EQ(merged.score.disabled, (std::vector<std::string>{"TaintToleration"}));
  EXPECT_EQ(Names(merged.permit), (std::vector<std::string>{"Coscheduling"}));
}

}  // namespace
}  // namespace berth::config
