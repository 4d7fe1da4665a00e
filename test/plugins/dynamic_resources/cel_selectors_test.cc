// CelSelectors: the same verdicts with and without the per-device cache, and the cache follows the
// slices the plugin retains (a slice that goes away takes its prepared devices with it).
#include "plugins/dynamic_resources/cel_selectors.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace berth::plugins::dynamic_resources {
namespace {

std::shared_ptr<const api::ResourceSlice> Slice(const std::string& name,
                                                const std::vector<std::string>& models) {
  auto slice = std::make_shared<api::ResourceSlice>();
  slice->metadata.name = name;
  slice->spec.driver = "gpu.example.com";
  for (size_t i = 0; i < models.size(); ++i) {
    api::Device d;
    d.name = "gpu-" + std::to_string(i);
    d.attributes["model"].string_value = models[i];
    d.attributes["gpu.example.com/version"].version_value =
        models[i] == "bad" ? "not-semver" : "1.2.3";
    slice->spec.devices.push_back(std::move(d));
  }
  return slice;
}

// An evaluation is cut short by the search's deadline or its stop flag, and says which.
TEST(CelSelectorsTest, EvaluationsStopAtTheDeadlineAndAtShutdown) {
  auto slice = Slice("node-a", {"a100"});
  const std::string slow = "lists.range(100000).all(i, i >= 0)";
  CelSelectors selectors;
  structured::Interruption late;
  late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  auto out = selectors.Evaluate(slow, "gpu.example.com", slice->spec.devices[0], late);
  EXPECT_EQ(out.interrupted, "context deadline exceeded");
  EXPECT_FALSE(out.runtime_error.has_value());
  structured::Interruption stop;
  stop.stopping = [] { return true; };
  out = selectors.Evaluate(slow, "gpu.example.com", slice->spec.devices[0], stop);
  EXPECT_EQ(out.interrupted, "context canceled");
  out = selectors.Evaluate(slow, "gpu.example.com", slice->spec.devices[0]);
  EXPECT_FALSE(out.interrupted.has_value());
  EXPECT_TRUE(out.matches);
}

TEST(CelSelectorsTest, CachedDevicesGiveTheSameVerdictsAsUncached) {
  auto slice = Slice("node-a", {"a100", "h100", "bad"});
  const std::string by_model = R"(device.attributes["gpu.example.com"].model == "h100")";
  const std::string by_version =
      R"(device.attributes["gpu.example.com"].version.isGreaterThan(semver("1.0.0")))";
  CelSelectors uncached;
  CelSelectors cached;
  cached.Retain({slice});
  for (int round = 0; round < 2; ++round) {  // the second round reads the cache
    for (const auto* expression : {&by_model, &by_version}) {
      for (const auto& device : slice->spec.devices) {
        auto want = uncached.Evaluate(*expression, slice->spec.driver, device);
        auto got = cached.Evaluate(*expression, slice->spec.driver, device);
        EXPECT_EQ(got.matches, want.matches) << *expression << " on " << device.name;
        EXPECT_EQ(got.runtime_error, want.runtime_error) << *expression << " on " << device.name;
        EXPECT_EQ(got.compile_error, want.compile_error);
      }
    }
  }
  EXPECT_EQ(cached.PreparedCount(), 3u);
  EXPECT_EQ(uncached.PreparedCount(), 0u);  // nothing retained: nothing kept
  // The models are told apart, and a device with a bad version is an error for every selector (as
  // upstream checks versions before evaluating), not a silent non-match.
  EXPECT_FALSE(cached.Evaluate(by_model, "gpu.example.com", slice->spec.devices[0]).matches);
  EXPECT_TRUE(cached.Evaluate(by_model, "gpu.example.com", slice->spec.devices[1]).matches);
  auto bad = cached.Evaluate(by_model, "gpu.example.com", slice->spec.devices[2]);
  ASSERT_TRUE(bad.runtime_error.has_value());
  EXPECT_NE(bad.runtime_error->find("parse semantic version"), std::string::npos)
      << *bad.runtime_error;
}

TEST(CelSelectorsTest, ASliceThatGoesAwayTakesItsPreparedDevicesWithIt) {
  auto a = Slice("node-a", {"a100"});
  auto b = Slice("node-b", {"h100", "h100"});
  const std::string expression = R"(device.attributes["gpu.example.com"].model == "h100")";
  CelSelectors selectors;
  selectors.Retain({a, b});
  for (const auto& s : {a, b})
    for (const auto& d : s->spec.devices) selectors.Evaluate(expression, s->spec.driver, d);
  EXPECT_EQ(selectors.PreparedCount(), 3u);
  // node-b's driver republishes its slice (a new object): the old devices are dropped.
  auto b2 = Slice("node-b", {"a100", "a100"});
  selectors.Retain({a, b2});
  EXPECT_EQ(selectors.PreparedCount(), 1u);
  for (const auto& d : b2->spec.devices)
    EXPECT_FALSE(selectors.Evaluate(expression, b2->spec.driver, d).matches);
  EXPECT_EQ(selectors.PreparedCount(), 3u);
  selectors.Retain({});
  EXPECT_EQ(selectors.PreparedCount(), 0u);
}

}  // namespace
}  // namespace berth::plugins::dynamic_resources
