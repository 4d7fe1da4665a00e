// ReplicatedStorage scores, factory args and the score helpers.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "plugins/replicated_storage/pod_claims.h"
#include "plugins/replicated_storage/replicated_storage.h"
#include "test/plugins/replicated_storage/fixture.h"

namespace berth::plugins::replicated_storage {
namespace {

using Scores = std::map<std::string, int64_t>;

// Same world as the filter tests: n1 vg-1 (100Gi, 50Gi free), n2 vg-2 (100Gi, 5Gi free), n3 no
// volume group, plain not a storage node.
class ReplicatedStorageScoreTest : public ReplicatedStorageFixture {
 protected:
  void SetUp() override {
    SetNodes({StorageNode("n1"), StorageNode("n2"), StorageNode("n3"),
              testing::MakeNode("plain").Obj()});
    Lvg("vg-1", "n1", 100, 50);
    Lvg("vg-2", "n2", 100, 5);
    Rsp("thick", "LVM", {{"vg-1", ""}, {"vg-2", ""}});
    for (const char* access : {"Local", "EventuallyLocal", "PreferablyLocal", "Any"}) {
      Class(access, access, "thick");
    }
  }
};

// The worked example, by hand. A 1Gi unbound Local claim:
//   n1: percent left = int((50 - 1) / 100 * 100) = 49; round(log2 49 = 5.61) = 6 -> 60.
//       (Production applies log2 again to the per-claim 6: round(log2 6 = 2.58) = 3 -> 30.)
//   n2: int((5 - 1) / 100 * 100) = 4; log2 4 = 2 -> 20.
//   n3, plain: no volume group, the claim contributes 0; log2 of 0 clamps to 1 -> 10.
TEST_F(ReplicatedStorageScoreTest, WorkedExampleAppliesLog2Once) {
  Claim("data", "Local", 1);
  EXPECT_EQ(Score(PodWith("p", {"data"})),
            (Scores{{"n1", 60}, {"n2", 20}, {"n3", 10}, {"plain", 10}}));
}

TEST_F(ReplicatedStorageScoreTest, DivisorScalesThePercentBeforeLog2) {
  MakePlugin(nullptr);
  api::Value args = api::Value::MakeObject();
  args.Set("defaultDivisor", api::Value::Int(2));
  MakePlugin(&args);
  Claim("data", "Local", 1);
  // n1: 49 / 2 = 24.5; round(log2 24.5 = 4.61) = 5 -> 50.
  EXPECT_EQ(Score(PodWith("p", {"data"}))["n1"], 50);
}

TEST_F(ReplicatedStorageScoreTest, BoundLocalScoresReplicaHolders) {
  Replicas("pv-data", {{"Diskful", "n1"}, {"TieBreaker", "n2"}, {"ShadowDiskful", "n3"}});
  Claim("data", "Local", 10, "pv-data");
  // Replica holders get 10 (all hits); n2's TieBreaker is no replica: base log2(0) -> 1.
  EXPECT_EQ(Score(PodWith("p", {"data"})),
            (Scores{{"n1", 100}, {"n2", 10}, {"n3", 100}, {"plain", 10}}));
}

TEST_F(ReplicatedStorageScoreTest, ReplicaFractionOfThreeVolumes) {
  Replicas("pv-1", {{"Diskful", "n1"}, {"Diskful", "n2"}, {"Diskful", "n3"}});
  Replicas("pv-2", {{"Diskful", "n1"}, {"Diskful", "n2"}});
  Replicas("pv-3", {{"Diskful", "n1"}});
  Claim("v1", "PreferablyLocal", 10, "pv-1");
  Claim("v2", "PreferablyLocal", 10, "pv-2");
  Claim("v3", "PreferablyLocal", 10, "pv-3");
  // n1: 3/3 hits -> 10. n2: 2/3 -> 10*2/3 = 6; its base: v3 is space-scored (growth 0, 5% of
  // vg-2 left) -> (0 + 0 + 5) / 3 = 1 -> log2 1 = 0 -> clamped 1; max(1, 6) = 6. n3: 1/3 -> 3.
  EXPECT_EQ(Score(PodWith("p", {"v1", "v2", "v3"})),
            (Scores{{"n1", 100}, {"n2", 60}, {"n3", 30}, {"plain", 10}}));
}

TEST_F(ReplicatedStorageScoreTest, ClaimsOnOnePoolAreDeductedInTurn) {
  Lvg("vg-2", "n2", 100, 70);
  Claim("d1", "Local", 30);
  Claim("d2", "Local", 10);
  // n2: d1 leaves int((70 - 30) / 100 * 100) = 40, d2 then int((40 - 10) / 100 * 100) = 30;
  // average 35, round(log2 35 = 5.13) = 5 -> 50 (without the deduction: 60 and 6).
  EXPECT_EQ(Score(PodWith("p", {"d1", "d2"}))["n2"], 50);
}

TEST_F(ReplicatedStorageScoreTest, BadArgsNameTheField) {
  api::Value args = api::Value::MakeObject();
  args.Set("defaultDivisor", api::Value::Int(0));
  framework::PluginContext ctx;
  ctx.handle = &h_;
  ctx.args = &args;
  ctx.args_path = "profiles[0].pluginConfig[0].args";
  auto p = New(ctx);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error(), "profiles[0].pluginConfig[0].args.defaultDivisor: must be greater than 0");
  api::Value bad = api::Value::MakeObject();
  bad.Set("reservationTimeoutSecond", api::Value::Int(5));
  ctx.args = &bad;
  p = New(ctx);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("reservationTimeoutSecond"), std::string::npos) << p.error();
}

TEST(ReplicatedStorageHelpersTest, PercentLeftAndLogScore) {
  EXPECT_EQ(PercentLeft(50, 1, 100), 49);
  EXPECT_EQ(PercentLeft(1, 5, 100), -4);
  EXPECT_EQ(PercentLeft(1, 0, 0), 0);
  EXPECT_EQ(LogScore(49, 1), 6);
  EXPECT_EQ(LogScore(6, 1), 3);  // production's second log2
  EXPECT_EQ(LogScore(100, 1), 7);
  EXPECT_EQ(LogScore(0, 1), 1);
  EXPECT_EQ(LogScore(-7, 1), 1);
  EXPECT_EQ(LogScore(1e9, 1), 10);
}

}  // namespace
}  // namespace berth::plugins::replicated_storage
