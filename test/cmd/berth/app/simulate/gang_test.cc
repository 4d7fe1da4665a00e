// `berth simulate` on the gang examples (docs/examples/gang-*.yaml with their .config.yaml): the
// outcomes the Coscheduling issue asks for — too few siblings, a group that fits, a group of
// which only part fits (and whose capacity a later pod then uses), and two competing groups of
// which exactly one completes.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "api/json/parse.h"
#include "cmd/berth/app/simulate/simulator.h"
#include "config/load.h"
#include "plugins/registry.h"

namespace berth::simulate {
namespace {

struct Outcome {
  std::string status;
  std::string node;
  std::string message;
};

// The messages a gang member can end with after its group failed.
bool IsGangReason(const std::string& msg, const std::string& group, const std::string& pod) {
  return msg == "0/1 nodes are available: 1 optimistic rejection in PostFilter." ||
         msg ==
             "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin "
             "Coscheduling." ||
         msg == "0/2 nodes are available: 2 Insufficient cpu. PodGroup default/" + group +
                    " gets rejected due to Pod " + pod + " is unschedulable even after PostFilter";
}

class GangSimulateTest : public ::testing::Test {
 protected:
  GangSimulateTest() : registry_(plugins::NewInTreeRegistry()) {}

  // Runs docs/examples/<name>.yaml with docs/examples/<name>.config.yaml; outcomes by "ns/name",
  // and the pods in output order (order of first attempt).
  std::map<std::string, Outcome> Run(const std::string& name) {
    const std::string dir = std::string(BERTH_SOURCE_DIR) + "/docs/examples/";
    auto cluster = LoadClusterFile(dir + name + ".yaml");
    EXPECT_TRUE(cluster.ok()) << cluster.error();
    auto cfg = config::LoadConfigFile(dir + name + ".config.yaml", registry_.Names());
    EXPECT_TRUE(cfg.ok()) << cfg.error();
    if (!cluster.ok() || !cfg.ok()) return {};
    auto out = simulate::Run(*cluster, *cfg, registry_, Options{});
    EXPECT_TRUE(out.ok()) << out.error();
    if (!out.ok()) return {};
    json_ = api::json::ToJson(*out);
    std::map<std::string, Outcome> by_pod;
    order_.clear();
    for (const auto& p : out->Find("pods")->AsArray()) {
      auto str = [&](const char* f) {
        const api::Value* v = p.Find(f);
        return v == nullptr || v->IsNull() ? std::string() : v->AsString();
      };
      by_pod[str("pod")] = {str("status"), str("node"), str("message")};
      order_.push_back(str("pod"));
    }
    return by_pod;
  }

  framework::Registry registry_;
  std::string json_;
  std::vector<std::string> order_;
};

TEST_F(GangSimulateTest, TooFewSiblingsGivesTheSeedsMessage) {
  auto pods = Run("gang-too-few");
  ASSERT_EQ(pods.size(), 2u) << json_;
  for (const char* name : {"nginx-0", "nginx-1"}) {
    const Outcome& o = pods["default/" + std::string(name)];
    EXPECT_EQ(o.status, "Unschedulable") << json_;
    EXPECT_EQ(o.message, "0/2 nodes are available: pre-filter pod " + std::string(name) +
                             " cannot find enough sibling pods, current pods number: 2, "
                             "minMember of group: 3. preemption: 0/2 nodes are available: 2 "
                             "Preemption is not helpful for scheduling.")
        << json_;
  }
}

TEST_F(GangSimulateTest, AGroupThatFitsIsScheduledWhole) {
  auto pods = Run("gang-fits");
  ASSERT_EQ(pods.size(), 3u) << json_;
  std::map<std::string, int> per_node;
  for (const char* name : {"train-0", "train-1", "train-2"}) {
    const Outcome& o = pods["default/" + std::string(name)];
    EXPECT_EQ(o.status, "Scheduled") << json_;
    EXPECT_EQ(o.message, "") << json_;
    per_node[o.node]++;
  }
  // 2 cpu each on two 4-cpu nodes: two on one node, one on the other.
  EXPECT_EQ(per_node.size(), 2u) << json_;
}

TEST_F(GangSimulateTest, APartialGroupPlacesNothingAndReleasesItsCapacity) {
  auto pods = Run("gang-partial");
  ASSERT_EQ(pods.size(), 4u) << json_;
  // The gang is tried first (its PodGroup is older than the web pod).
  EXPECT_EQ(order_[0], "default/big-0") << json_;
  EXPECT_EQ(order_[3], "default/web") << json_;
  // Each member ends with one of the gang's reasons: rejected while waiting when a sibling did
  // not fit, the sibling that did not fit, or a wait that timed out (after the web pod took
  // half the capacity, the gang's retries can hold at most one node).
  for (const char* name : {"big-0", "big-1", "big-2"}) {
    const Outcome& o = pods["default/" + std::string(name)];
    EXPECT_EQ(o.status, "Unschedulable") << json_;
    EXPECT_TRUE(IsGangReason(o.message, "big", name)) << o.message;
  }
  // What they held is free again: the web pod, which needs a whole node, is scheduled.
  EXPECT_EQ(pods["default/web"].status, "Scheduled") << json_;
  EXPECT_NE(pods["default/web"].node, "") << json_;
}

TEST_F(GangSimulateTest, OfTwoCompetingGroupsTheOlderCompletesAndTheOtherHoldsNothing) {
  auto pods = Run("gang-competing");
  ASSERT_EQ(pods.size(), 6u) << json_;
  // QueueSort keeps each group together, in PodGroup creation order.
  EXPECT_EQ(order_,
            (std::vector<std::string>{"default/alpha-0", "default/alpha-1", "default/alpha-2",
                                      "default/beta-0", "default/beta-1", "default/beta-2"}))
      << json_;
  for (const char* name : {"alpha-0", "alpha-1", "alpha-2"}) {
    EXPECT_EQ(pods["default/" + std::string(name)].status, "Scheduled") << json_;
  }
  // beta never holds more than the one free cpu: beta-0 takes it and waits, beta-1 fits nowhere
  // so PostFilter releases beta-0, beta-2 takes the cpu and times out after 10 s (retries in
  // between, which depend on the queue's requeue events, end the same ways).
  for (const char* name : {"beta-0", "beta-1", "beta-2"}) {
    const Outcome& o = pods["default/" + std::string(name)];
    EXPECT_EQ(o.status, "Unschedulable") << json_;
    EXPECT_TRUE(IsGangReason(o.message, "beta", name)) << o.message;
  }
}

// The gang examples are deterministic: same output twice.
TEST_F(GangSimulateTest, OutputIsDeterministic) {
  for (const char* name : {"gang-too-few", "gang-fits", "gang-partial", "gang-competing"}) {
    Run(name);
    std::string first = json_;
    Run(name);
    EXPECT_EQ(first, json_) << name;
  }
}

}  // namespace
}  // namespace berth::simulate
