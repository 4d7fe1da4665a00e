#include "scheduler/framework/resource.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/testing/builders.h"

namespace berth::framework {
namespace {

using testing::MakeList;

constexpr int64_t kMi = 1024 * 1024;
constexpr int64_t kGi = 1024 * kMi;

// Upstream's TestNewResource.
TEST(ResourceTest, FromListConvertsEveryKnownResource) {
  EXPECT_EQ(Resource::FromList({}), Resource{});

  Resource r = Resource::FromList(MakeList({{"cpu", "4m"},
                                            {"memory", "2000"},
                                            {"pods", "80"},
                                            {"ephemeral-storage", "5000"},
                                            {"scalar.test/scalar1", "1"},
                                            {"hugepages-test", "2"}}));
  EXPECT_EQ(r.milli_cpu, 4);
  EXPECT_EQ(r.memory, 2000);
  EXPECT_EQ(r.allowed_pod_number, 80);
  EXPECT_EQ(r.ephemeral_storage, 5000);
  EXPECT_EQ(r.Scalar("scalar.test/scalar1"), 1);
  EXPECT_EQ(r.Scalar("hugepages-test"), 2);
  ASSERT_EQ(r.scalar.size(), 2u);
  // Kept sorted by name.
  EXPECT_EQ(r.scalar[0].first, "hugepages-test");
  EXPECT_EQ(r.scalar[1].first, "scalar.test/scalar1");
}

TEST(ResourceTest, FromListIgnoresUnknownUnprefixedNames) {
  Resource r = Resource::FromList(MakeList({{"cpu", "1"}, {"foo", "3"}}));
  EXPECT_EQ(r.milli_cpu, 1000);
  EXPECT_TRUE(r.scalar.empty());
  EXPECT_EQ(r.Get("foo"), 0);
}

TEST(ResourceTest, QuantitiesAreConvertedToSchedulerUnits) {
  Resource r = Resource::FromList(
      MakeList({{"cpu", "1.5"}, {"memory", "1Gi"}, {"ephemeral-storage", "1G"}}));
  EXPECT_EQ(r.Get("cpu"), 1500);
  EXPECT_EQ(r.Get("memory"), kGi);
  EXPECT_EQ(r.Get("ephemeral-storage"), 1000000000);
}

TEST(ResourceTest, IsScalarResourceName) {
  struct Case {
    std::string name;
    bool scalar;
  };
  const std::vector<Case> cases = {
      {"nvidia.com/gpu", true},
      {"example.com/foo", true},
      {"hugepages-2Mi", true},
      {"hugepages-1Gi", true},
      {"attachable-volumes-aws-ebs", true},
      {"kubernetes.io/batteries", true},  // prefixed native resource
      {"cpu", false},
      {"memory", false},
      {"pods", false},
      {"ephemeral-storage", false},
      {"requests.nvidia.com/gpu", false},
      {"foo", false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(IsScalarResourceName(c.name), c.scalar) << c.name;
  }
  EXPECT_TRUE(IsHugePageResourceName("hugepages-2Mi"));
  EXPECT_FALSE(IsHugePageResourceName("nvidia.com/gpu"));
}

TEST(ResourceTest, AddAndSubAreInverse) {
  Resource a = Resource::FromList(MakeList({{"cpu", "1"}, {"memory", "1Gi"}, {"a.io/x", "2"}}));
  Resource b = Resource::FromList(
      MakeList({{"cpu", "500m"}, {"ephemeral-storage", "10"}, {"a.io/x", "1"}, {"b.io/y", "4"}}));
  Resource sum = a;
  sum.Add(b);
  EXPECT_EQ(sum.milli_cpu, 1500);
  EXPECT_EQ(sum.memory, kGi);
  EXPECT_EQ(sum.ephemeral_storage, 10);
  EXPECT_EQ(sum.Scalar("a.io/x"), 3);
  EXPECT_EQ(sum.Scalar("b.io/y"), 4);

  sum.Sub(b);
  EXPECT_EQ(sum.milli_cpu, a.milli_cpu);
  EXPECT_EQ(sum.memory, a.memory);
  EXPECT_EQ(sum.ephemeral_storage, 0);
  EXPECT_EQ(sum.Scalar("a.io/x"), 2);
  EXPECT_EQ(sum.Scalar("b.io/y"), 0);
}

TEST(ResourceTest, SetMaxIsComponentWise) {
  Resource a = Resource::FromList(MakeList({{"cpu", "2"}, {"memory", "1Gi"}, {"a.io/x", "1"}}));
  Resource b = Resource::FromList(
      MakeList({{"cpu", "1"}, {"memory", "2Gi"}, {"a.io/x", "3"}, {"b.io/y", "2"}}));
  a.SetMax(b);
  EXPECT_EQ(a.milli_cpu, 2000);
  EXPECT_EQ(a.memory, 2 * kGi);
  EXPECT_EQ(a.Scalar("a.io/x"), 3);
  EXPECT_EQ(a.Scalar("b.io/y"), 2);
}

TEST(ResourceTest, ScalarSettersKeepNamesSortedAndUnique) {
  Resource r;
  r.SetScalar("z.io/c", 1);
  r.AddScalar("a.io/a", 2);
  r.SetScalar("m.io/b", 3);
  r.AddScalar("a.io/a", 5);
  r.SetScalar("z.io/c", 9);
  ASSERT_EQ(r.scalar.size(), 3u);
  EXPECT_EQ(r.scalar[0], (std::pair<std::string, int64_t>{"a.io/a", 7}));
  EXPECT_EQ(r.scalar[1], (std::pair<std::string, int64_t>{"m.io/b", 3}));
  EXPECT_EQ(r.scalar[2], (std::pair<std::string, int64_t>{"z.io/c", 9}));
  EXPECT_EQ(r.Get("m.io/b"), 3);
  EXPECT_EQ(r.Get("absent.io/r"), 0);
}

}  // namespace
}  // namespace berth::framework
