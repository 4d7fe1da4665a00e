#include "scheduler/framework/resource.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "test/testing/builders.h"

namespace berth::framework {
namespace {

using testing::MakeList;
using testing::MakePod;

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

// Upstream's component-helpers resource TestPodResourceRequests (requests part).
TEST(PodRequestsTest, UpstreamTable) {
  struct Case {
    std::string name;
    std::function<api::Pod()> pod;
    int64_t milli_cpu;
    int64_t memory;
  };
  const std::vector<Case> cases = {
      {"larger init container",
       [] {
         return MakePod("p").InitReq({{"cpu", "4"}}).Req({{"cpu", "1"}}).Obj();
       },
       4000, 0},
      {"larger containers",
       [] {
         return MakePod("p").InitReq({{"cpu", "2"}}).Req({{"cpu", "2"}}).Req({{"cpu", "3"}}).Obj();
       },
       5000, 0},
      {"pod overhead included",
       [] {
         return MakePod("p")
             .Overhead({{"cpu", "1"}, {"memory", "1Gi"}})
             .InitReq({{"cpu", "2"}})
             .Req({{"cpu", "2"}})
             .Req({{"cpu", "3"}})
             .Obj();
       },
       6000, kGi},
      {"restartable init container",
       [] {
         return MakePod("p").InitReq({{"cpu", "1"}}, true).Req({{"cpu", "1"}}).Obj();
       },
       2000, 0},
      {"multiple restartable init containers",
       // max(5, sidecars (1+2+3) + regular (1)) = 7
       [] {
         return MakePod("p")
             .InitReq({{"cpu", "5"}})
             .InitReq({{"cpu", "1"}}, true)
             .InitReq({{"cpu", "2"}}, true)
             .InitReq({{"cpu", "3"}}, true)
             .Req({{"cpu", "1"}})
             .Obj();
       },
       7000, 0},
      {"multiple restartable and regular init containers",
       // init-2 needs 5 + the sidecars started before it (1+2) = 8; the sidecar after it doesn't
       // count.
       [] {
         return MakePod("p")
             .InitReq({{"cpu", "5"}})
             .InitReq({{"cpu", "1"}}, true)
             .InitReq({{"cpu", "2"}}, true)
             .InitReq({{"cpu", "5"}})
             .InitReq({{"cpu", "3"}}, true)
             .Req({{"cpu", "1"}})
             .Obj();
       },
       8000, 0},
      {"restartable-init, init and regular",
       [] {
         return MakePod("p")
             .InitReq({{"cpu", "10"}}, true)
             .InitReq({{"cpu", "200"}})
             .Req({{"cpu", "100"}})
             .Obj();
       },
       210000, 0},
      {"no containers request anything", [] { return MakePod("p").Req({}).Obj(); }, 0, 0},
      {"memory and cpu maxed independently",
       [] {
         return MakePod("p")
             .InitReq({{"cpu", "3"}, {"memory", "100Mi"}})
             .Req({{"cpu", "1"}, {"memory", "1Gi"}})
             .Obj();
       },
       3000, kGi},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Resource r = PodRequests(c.pod());
    EXPECT_EQ(r.milli_cpu, c.milli_cpu);
    EXPECT_EQ(r.memory, c.memory);
  }
}

TEST(PodRequestsTest, ExtendedResourcesAndOverheadAreSummed) {
  api::Pod pod = MakePod("p")
                     .Req({{"nvidia.com/gpu", "1"}, {"ephemeral-storage", "1Gi"}})
                     .Req({{"nvidia.com/gpu", "2"}})
                     .InitReq({{"nvidia.com/gpu", "4"}})
                     .Overhead({{"ephemeral-storage", "1Mi"}})
                     .Obj();
  Resource r = PodRequests(pod);
  EXPECT_EQ(r.Scalar("nvidia.com/gpu"), 4);
  EXPECT_EQ(r.ephemeral_storage, kGi + kMi);
}

// Upstream's non-zero requests (pkg/scheduler/framework PodInfo.CalculateResource): a container
// that omits cpu or memory counts as 100m / 200Mi; an explicit zero stays zero.
TEST(PodNonZeroRequestsTest, Table) {
  struct Case {
    std::string name;
    std::function<api::Pod()> pod;
    int64_t cpu;
    int64_t memory;
  };
  const std::vector<Case> cases = {
      {"requestless container", [] { return MakePod("p").Req({}).Obj(); }, kDefaultMilliCPURequest,
       kDefaultMemoryRequest},
      {"cpu only",
       [] {
         return MakePod("p").Req({{"cpu", "500m"}}).Obj();
       },
       500, kDefaultMemoryRequest},
      {"memory only",
       [] {
         return MakePod("p").Req({{"memory", "500Mi"}}).Obj();
       },
       kDefaultMilliCPURequest, 500 * kMi},
      {"both",
       [] {
         return MakePod("p").Req({{"cpu", "500m"}, {"memory", "500Mi"}}).Obj();
       },
       500, 500 * kMi},
      {"explicit zeros stay zero",
       [] {
         return MakePod("p").Req({{"cpu", "0"}, {"memory", "0"}}).Obj();
       },
       0, 0},
      {"two containers, one requestless",
       [] {
         return MakePod("p").Req({{"cpu", "500m"}, {"memory", "500Mi"}}).Req({}).Obj();
       },
       600, 700 * kMi},
      {"requestless init container dominates a small container",
       [] {
         return MakePod("p").InitReq({}).Req({{"cpu", "50m"}, {"memory", "1Mi"}}).Obj();
       },
       kDefaultMilliCPURequest, kDefaultMemoryRequest},
      {"requestless sidecar runs alongside",
       [] { return MakePod("p").InitReq({}, true).Req({}).Obj(); }, 2 * kDefaultMilliCPURequest,
       2 * kDefaultMemoryRequest},
      {"overhead is added",
       [] {
         return MakePod("p").Req({}).Overhead({{"cpu", "1"}, {"memory", "1Gi"}}).Obj();
       },
       1000 + kDefaultMilliCPURequest, kGi + kDefaultMemoryRequest},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto [cpu, mem] = PodNonZeroRequests(c.pod());
    EXPECT_EQ(cpu, c.cpu);
    EXPECT_EQ(mem, c.memory);
  }
  EXPECT_EQ(kDefaultMemoryRequest, 200 * kMi);
}

}  // namespace
}  // namespace berth::framework
