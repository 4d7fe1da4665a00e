// docs/examples/resources.yaml through `berth simulate`, as a user runs it: pod-level requests
// and an in-place resize counted as kube-scheduler v1.37 counts them, and
// NodeResourcesBalancedAllocation's balance-improvement score (see the comment in the example).

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "api/json/parse.h"
#include "test/cmd/berth/run_berth.h"

namespace {

TEST(ResourcesExample, PlacementsReasonsAndScores) {
  const berth::testing::Run r =
      berth::testing::Berth(std::string("simulate --cluster ") + BERTH_SOURCE_DIR +
                            "/docs/examples/resources.yaml --explain");
  const std::string& out = r.out;
  ASSERT_EQ(r.code, 0) << r.err << out;
  auto doc = berth::api::json::ParseJson(out);
  ASSERT_TRUE(doc.ok()) << doc.error();
  std::map<std::string, const berth::api::Value*> pods;
  for (const auto& pod : doc->Find("pods")->AsArray()) pods[pod.Find("pod")->AsString()] = &pod;
  ASSERT_EQ(pods.size(), 2u) << out;
  auto node = [&](const std::string& pod) {
    const berth::api::Value* n = pods.at(pod)->Find("node");
    return n->IsString() ? n->AsString() : std::string("<none>");
  };
  auto score = [&](const std::string& pod, const std::string& node, const std::string& plugin) {
    const berth::api::Value* s = pods.at(pod)->Find("scores")->Find(node);
    if (s == nullptr || s->Find(plugin) == nullptr) return int64_t{-1};
    return s->Find(plugin)->AsInt();
  };

  // The resize in progress holds 3 cpu on node-a; big's pod-level 2 cpu does not fit there.
  EXPECT_EQ(node("default/big"), "node-b") << out;
  const berth::api::Value* reason = pods.at("default/big")->Find("filter")->Find("node-a");
  ASSERT_NE(reason, nullptr) << out;
  EXPECT_EQ(reason->AsString(), "Insufficient cpu");

  EXPECT_EQ(node("default/balancer"), "node-a") << out;
  EXPECT_EQ(score("default/balancer", "node-a", "NodeResourcesBalancedAllocation"), 84) << out;
  EXPECT_EQ(score("default/balancer", "node-b", "NodeResourcesBalancedAllocation"), 72) << out;
  EXPECT_EQ(score("default/balancer", "node-a", "NodeResourcesFit"), 36) << out;
  EXPECT_EQ(score("default/balancer", "node-b", "NodeResourcesFit"), 11) << out;
}

}  // namespace
