#include "plugins/volume_binding/scorer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace berth::plugins::volume_binding {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

// Upstream's TestScore (scorer_test.go) with the default shape and a custom one.
TEST(VolumeBindingScorerTest, DefaultShape) {
  const auto shape = DefaultShape();
  EXPECT_EQ(ScoreClasses(shape, {}), 0);
  EXPECT_EQ(ScoreClasses(shape, {{"sc", {0, 100 * kGi}}}), 100);
  EXPECT_EQ(ScoreClasses(shape, {{"sc", {30 * kGi, 100 * kGi}}}), 70);
  EXPECT_EQ(ScoreClasses(shape, {{"sc", {100 * kGi, 100 * kGi}}}), 0);
  // Zero capacity or more requested than available count as fully utilised.
  EXPECT_EQ(ScoreClasses(shape, {{"sc", {1, 0}}}), 0);
  EXPECT_EQ(ScoreClasses(shape, {{"sc", {200 * kGi, 100 * kGi}}}), 0);
  EXPECT_EQ(ScoreClasses(shape, {{"a", {50 * kGi, 200 * kGi}}, {"b", {100 * kGi, 200 * kGi}}}), 63);
}

TEST(VolumeBindingScorerTest, CustomShape) {
  const std::vector<UtilizationShapePoint> shape = {{70, 2}, {80, 4}, {100, 10}};
  EXPECT_EQ(ScoreClasses(shape, {{"sc", {10, 100}}}), 20);
  EXPECT_EQ(ScoreClasses(shape, {{"sc", {75, 100}}}), 30);
  EXPECT_EQ(ScoreClasses(shape, {{"sc", {90, 100}}}), 70);
  EXPECT_EQ(ScoreClasses(shape, {{"sc", {100, 100}}}), 100);
}

TEST(VolumeBindingScorerTest, ValidateShape) {
  std::vector<std::string> errs;
  ValidateShape({}, "args.shape", &errs);
  EXPECT_EQ(errs, std::vector<std::string>{"args.shape: Required value: at least one point must be "
                                           "specified"});
  errs.clear();
  ValidateShape({{-1, 0}, {101, 5}}, "args.shape", &errs);
  EXPECT_EQ(errs,
            (std::vector<std::string>{
                "args.shape[0].utilization: Invalid value: -1: not in valid range [0, 100]",
                "args.shape[1].utilization: Invalid value: 101: not in valid range [0, 100]"}));
  errs.clear();
  ValidateShape(DefaultShape(), "args.shape", &errs);
  EXPECT_TRUE(errs.empty());
}

}  // namespace
}  // namespace berth::plugins::volume_binding
