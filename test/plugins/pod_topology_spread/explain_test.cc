// PodTopologySpread's FilterExplainer: the violated constraints with their skew, from the
// PreFilter counts.

#include "scheduler/framework/explain.h"

#include <gtest/gtest.h>

#include "test/plugins/pod_topology_spread/spread_testing.h"

namespace berth::plugins::pod_topology_spread {
namespace {

using framework::ExplainDetail;
using framework::FilterNeed;
using namespace spread_testing;  // NOLINT

api::Pod FooPod(std::vector<Spread> spreads) {
  auto p = MakePod("p").Label("foo", "");
  for (const auto& s : spreads) AddSpread(p, s);
  return p.Obj();
}

std::vector<api::Pod> Foo(const std::vector<std::pair<std::string, std::string>>& name_node) {
  std::vector<api::Pod> out;
  for (const auto& [name, node] : name_node) out.push_back(PodOn(name, node, {{"foo", ""}}));
  return out;
}

// maxSkew 1 over `key` counting pods labelled foo.
Spread FooSpread(const std::string& key, std::optional<int32_t> min_domains = std::nullopt) {
  Spread s;
  s.key = key;
  s.selector = Exists("foo");
  s.min_domains = min_domains;
  return s;
}

std::vector<api::Node> Nodes() {
  return {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"), ZoneNode("node-x", "zone2"),
          ZoneNode("node-y", "zone2"), ZoneNode("node-z", "")};
}

// PreFilter, then Filter and the explainer on `node` (both levels of detail); the kFull needs,
// after checking one need per reason, gap 0.6, and no text in kGapOnly.
std::vector<FilterNeed> Explain(const Env& env, const api::Pod& pod, const std::string& node) {
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
  framework::CycleState state;
  EXPECT_TRUE(env.PreFilter(state, *info).IsSuccess());
  const framework::Status st = env.filter().Filter(state, *info, env.Node(node));
  EXPECT_TRUE(st.IsRejected()) << st.Message();
  const auto& explainer = dynamic_cast<const framework::FilterExplainer&>(env.filter());
  std::vector<FilterNeed> full, gap_only;
  explainer.ExplainFilter(state, *info, env.Node(node), st, ExplainDetail::kFull, &full);
  explainer.ExplainFilter(state, *info, env.Node(node), st, ExplainDetail::kGapOnly, &gap_only);
  EXPECT_EQ(full.size(), st.reasons().size());
  EXPECT_EQ(gap_only.size(), full.size());
  for (size_t i = 0; i < full.size() && i < gap_only.size(); ++i) {
    EXPECT_EQ(full[i].reason, st.reasons()[i]);
    EXPECT_DOUBLE_EQ(full[i].gap, 0.6);
    EXPECT_EQ(gap_only[i].reason, "") << "kGapOnly copies no string";
    EXPECT_EQ(gap_only[i].need, "");
    EXPECT_DOUBLE_EQ(gap_only[i].gap, 0.6);
  }
  return full;
}

TEST(PodTopologySpreadExplainTest, SkewAboveMaxSkew) {
  const api::Value args = ListArgs();
  Env env(Nodes(), Foo({{"p-a1", "node-a"}, {"p-a2", "node-a"}, {"p-x1", "node-x"}}), &args);
  const api::Pod pod = FooPod({FooSpread("zone")});
  const auto needs = Explain(env, pod, "node-b");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].reason, kErrReasonConstraintsNotMatch);
  EXPECT_EQ(needs[0].need,
            "placing it here makes skew 2 > maxSkew 1 for topologyKey zone (zone=zone1 has 2 "
            "matching pods, the least loaded 1)");
}

TEST(PodTopologySpreadExplainTest, MissingTopologyLabel) {
  const api::Value args = ListArgs();
  Env env(Nodes(), {}, &args);
  const api::Pod pod = FooPod({FooSpread("zone")});
  const auto needs = Explain(env, pod, "node-z");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].reason, kErrReasonNodeLabelNotMatch);
  EXPECT_EQ(needs[0].need, "node has no label zone");
}

// Every violated constraint is named, not only the first Filter stopped at.
TEST(PodTopologySpreadExplainTest, EveryViolatedConstraint) {
  const api::Value args = ListArgs();
  Env env(Nodes(), Foo({{"p-a1", "node-a"}, {"p-a2", "node-a"}, {"p-b1", "node-b"}}), &args);
  const api::Pod pod = FooPod({FooSpread("zone"), FooSpread("node")});
  const auto needs = Explain(env, pod, "node-a");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].need,
            "placing it here makes skew 4 > maxSkew 1 for topologyKey zone (zone=zone1 has 3 "
            "matching pods, the least loaded 0); placing it here makes skew 3 > maxSkew 1 for "
            "topologyKey node (node=node-a has 2 matching pods, the least loaded 0)");
}

TEST(PodTopologySpreadExplainTest, FewerDomainsThanMinDomains) {
  const api::Value args = ListArgs();
  Env env(Nodes(), Foo({{"p-a1", "node-a"}, {"p-x1", "node-x"}}), &args);
  const api::Pod pod = FooPod({FooSpread("zone", 3)});
  const auto needs = Explain(env, pod, "node-a");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].need,
            "placing it here makes skew 2 > maxSkew 1 for topologyKey zone (zone=zone1 has 1 "
            "matching pod, the least loaded 0 while fewer than minDomains 3 domains exist)");
}

TEST(PodTopologySpreadExplainTest, OtherReasonsAreLeftToTheRuntime) {
  Env env(Nodes(), {});
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(MakePod("p").Obj()));
  framework::CycleState state;
  std::vector<FilterNeed> out;
  dynamic_cast<const framework::FilterExplainer&>(env.filter())
      .ExplainFilter(state, *info, env.Node("node-a"),
                     framework::Status::Unschedulable("something else"), ExplainDetail::kFull,
                     &out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace berth::plugins::pod_topology_spread
