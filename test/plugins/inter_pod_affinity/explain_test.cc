// InterPodAffinity's FilterExplainer: which pods make a node fail the pod's affinity, its
// anti-affinity, or an existing pod's anti-affinity.

#include "scheduler/framework/explain.h"

#include <gtest/gtest.h>

#include "test/plugins/inter_pod_affinity/test_env.h"

namespace berth::plugins::inter_pod_affinity::test {
namespace {

using framework::ExplainDetail;
using framework::FilterNeed;

// PreFilter, then Filter and the explainer (both levels of detail) on node `name`; the needs of
// kFull, after checking what holds for every explanation: one need per reason, kGapOnly the same
// gaps with no string at all, gap 0.7.
std::vector<FilterNeed> Explain(const Env& env, const api::Pod& pod, const std::string& name) {
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
  framework::CycleState state;
  framework::PreFilterResult result;
  EXPECT_TRUE(env.As<framework::PreFilterPlugin>()
                  .PreFilter(state, *info, env.Nodes(), &result)
                  .IsSuccess());
  const framework::NodeInfo& node = env.Node(name);
  const framework::Status st = env.As<framework::FilterPlugin>().Filter(state, *info, node);
  EXPECT_TRUE(st.IsRejected()) << Describe(st);
  const auto& explainer = env.As<framework::FilterExplainer>();
  std::vector<FilterNeed> full, gap_only;
  explainer.ExplainFilter(state, *info, node, st, ExplainDetail::kFull, &full);
  explainer.ExplainFilter(state, *info, node, st, ExplainDetail::kGapOnly, &gap_only);
  EXPECT_EQ(full.size(), st.reasons().size());
  EXPECT_EQ(gap_only.size(), full.size());
  for (size_t i = 0; i < full.size() && i < gap_only.size(); ++i) {
    EXPECT_EQ(full[i].reason, st.reasons()[i]);
    EXPECT_DOUBLE_EQ(full[i].gap, 0.7);
    EXPECT_EQ(gap_only[i].reason, "") << "kGapOnly copies no string";
    EXPECT_EQ(gap_only[i].need, "");
    EXPECT_DOUBLE_EQ(gap_only[i].gap, 0.7);
  }
  return full;
}

std::vector<api::Node> Zones() {
  return {NodeWith("n1", {{"zone", "eu-1a"}}), NodeWith("n2", {{"zone", "eu-1a"}}),
          NodeWith("n3", {{"zone", "eu-1b"}}), NodeWith("n4", {})};
}

api::Pod ShopPod(const std::string& name, const std::string& node, api::Labels labels) {
  return WithLabels(MakePod(name).Namespace("shop").Node(node).Obj(), std::move(labels));
}

TEST(InterPodAffinityExplainTest, AntiAffinityNamesThePodInTheDomain) {
  const api::Pod pod =
      MakePod("p").Namespace("shop").PodAntiAffinity(Term("app", kIn, {"web"}, "zone")).Obj();
  Env env = SetUpEnv(
      Zones(), {ShopPod("web-2", "n2", {{"app", "web"}}), ShopPod("db-1", "n1", {{"app", "db"}})});
  auto needs = Explain(env, pod, "n1");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].reason, kErrReasonAntiAffinityRulesNotMatch);
  EXPECT_EQ(needs[0].need, "anti-affinity with pod shop/web-2 (zone=eu-1a)");

  // The node's own pods come first; the others are counted.
  env = SetUpEnv(
      Zones(),
      {ShopPod("web-2", "n2", {{"app", "web"}}), ShopPod("web-3", "n1", {{"app", "web"}}),
       ShopPod("web-4", "n2", {{"app", "web"}}), ShopPod("web-5", "n3", {{"app", "web"}})});
  needs = Explain(env, pod, "n1");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].need, "anti-affinity with pod shop/web-3 (zone=eu-1a) and 2 more");
}

TEST(InterPodAffinityExplainTest, ExistingAntiAffinityNamesThePodWhoseTermRejects) {
  const api::Pod pod = WithLabels(MakePod("p").Namespace("shop").Obj(), {{"app", "web"}});
  api::Pod db = MakePod("db-1")
                    .Namespace("shop")
                    .Node("n2")
                    .PodAntiAffinity(Term("app", kIn, {"web"}, "zone"))
                    .Obj();
  // A term over another key the node lacks does not count.
  api::Pod other = MakePod("cache-1")
                       .Namespace("shop")
                       .Node("n3")
                       .PodAntiAffinity(Term("app", kIn, {"web"}, "zone"))
                       .Obj();
  Env env = SetUpEnv(Zones(), {db, other});
  auto needs = Explain(env, pod, "n1");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].reason, kErrReasonExistingAntiAffinityRulesNotMatch);
  EXPECT_EQ(needs[0].need, "anti-affinity with pod shop/db-1 (zone=eu-1a)");
  needs = Explain(env, pod, "n3");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].need, "anti-affinity with pod shop/cache-1 (zone=eu-1b)");
}

TEST(InterPodAffinityExplainTest, AffinityNamesTheDomainWithoutAMatchingPod) {
  const api::Pod pod =
      MakePod("p").Namespace("shop").PodAffinity(Term("app", kIn, {"cache"}, "zone")).Obj();
  Env env = SetUpEnv(Zones(), {ShopPod("cache-1", "n3", {{"app", "cache"}})});
  auto needs = Explain(env, pod, "n1");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].reason, kErrReasonAffinityRulesNotMatch);
  EXPECT_EQ(needs[0].need, "no pod matching the affinity term in zone=eu-1a");
  needs = Explain(env, pod, "n4");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].need, "node has no label zone");

  // No matching pod anywhere (and the pod does not match its own term).
  env = SetUpEnv(Zones(), {ShopPod("web-1", "n3", {{"app", "web"}})});
  needs = Explain(env, pod, "n1");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].need, "no pod matching the affinity term in zone=eu-1a (none in any domain)");
}

TEST(InterPodAffinityExplainTest, OtherReasonsAreLeftToTheRuntime) {
  Env env = SetUpEnv(Zones(), {});
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(MakePod("p").Obj()));
  framework::CycleState state;
  std::vector<FilterNeed> out;
  env.As<framework::FilterExplainer>().ExplainFilter(
      state, *info, env.Node("n1"), framework::Status::Unschedulable("something else"),
      ExplainDetail::kFull, &out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace berth::plugins::inter_pod_affinity::test
