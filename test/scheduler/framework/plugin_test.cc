#include "scheduler/framework/plugin.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace berth::framework {
namespace {

NodeScoreList ToList(const std::vector<int64_t>& scores) {
  NodeScoreList out;
  for (int64_t s : scores) out.push_back(NodeScore{nullptr, s});
  return out;
}

std::vector<int64_t> Scores(const NodeScoreList& list) {
  std::vector<int64_t> out;
  for (const auto& s : list) out.push_back(s.score);
  return out;
}

// Upstream's helper TestDefaultNormalizeScore, plus the all-zero and empty cases.
TEST(DefaultNormalizeScoreTest, UpstreamTable) {
  struct Case {
    bool reverse;
    std::vector<int64_t> scores;
    std::vector<int64_t> expected;
  };
  const std::vector<Case> cases = {
      {false, {1, 2, 3, 4}, {25, 50, 75, 100}},
      {true, {1, 2, 3, 4}, {75, 50, 25, 0}},
      {false, {1000, 10, 20, 30}, {100, 1, 2, 3}},
      {true, {1000, 10, 20, 30}, {0, 99, 98, 97}},
      {false, {1, 1, 1, 1}, {100, 100, 100, 100}},
      {false, {1000, 1, 1, 1}, {100, 0, 0, 0}},
      {true, {0, 1, 1, 1}, {100, 0, 0, 0}},
      // All zeros: unchanged, or every node at the maximum when reversed.
      {false, {0, 0, 0}, {0, 0, 0}},
      {true, {0, 0, 0}, {100, 100, 100}},
      {false, {}, {}},
      {true, {}, {}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case_" + std::to_string(i));
    NodeScoreList list = ToList(cases[i].scores);
    DefaultNormalizeScore(kMaxNodeScore, cases[i].reverse, list);
    EXPECT_EQ(Scores(list), cases[i].expected);
  }
}

TEST(DefaultNormalizeScoreTest, ScalesToAnyMaximumAndKeepsNodes) {
  std::string a = "a", b = "b";
  NodeScoreList list = {{&a, 3}, {&b, 6}};
  DefaultNormalizeScore(10, false, list);
  EXPECT_EQ(list[0].name, &a);
  EXPECT_EQ(list[1].name, &b);
  EXPECT_EQ(Scores(list), (std::vector<int64_t>{5, 10}));
}

TEST(DefaultNormalizeScoreTest, ResultsStayWithinNodeScoreBounds) {
  NodeScoreList list = ToList({7, 3, 0, 123456789, 42});
  DefaultNormalizeScore(kMaxNodeScore, true, list);
  for (const auto& s : list) {
    EXPECT_GE(s.score, kMinNodeScore);
    EXPECT_LE(s.score, kMaxNodeScore);
  }
}

// A score plugin that does not override NormalizeScore leaves the scores alone.
class PlainScore : public ScorePlugin {
 public:
  std::string_view Name() const override { return "PlainScore"; }
  Status Score(const CycleState&, const PodInfo&, const NodeInfo&, int64_t* score) const override {
    *score = 7;
    return Status();
  }
};

TEST(ScorePluginTest, DefaultNormalizeScoreHookIsANoOp) {
  PlainScore p;
  EXPECT_FALSE(p.HasNormalizeScore());
  CycleState state;
  PodInfo pod;
  NodeScoreList list = ToList({7, 300});
  EXPECT_TRUE(p.NormalizeScore(state, pod, list).IsSuccess());
  EXPECT_EQ(Scores(list), (std::vector<int64_t>{7, 300}));
}

}  // namespace
}  // namespace berth::framework
