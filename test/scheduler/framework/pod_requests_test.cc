#include "scheduler/framework/pod_requests.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "test/testing/builders.h"

namespace berth::framework {
namespace {

using testing::MakeList;
using testing::MakePod;

constexpr int64_t kMi = 1024 * 1024;
constexpr int64_t kGi = 1024 * kMi;

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
TEST(CalculatePodResourceTest, NonZeroTable) {
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
    const PodResource r = CalculatePodResource(c.pod());
    const int64_t cpu = r.non_zero_cpu, mem = r.non_zero_memory;
    EXPECT_EQ(cpu, c.cpu);
    EXPECT_EQ(mem, c.memory);
  }
  EXPECT_EQ(kDefaultMemoryRequest, 200 * kMi);
}

// A container status for an in-place resize; nullopt leaves a field absent (Go's nil).
api::ContainerStatus Status(std::string name, std::optional<api::ResourceList> allocated,
                            std::optional<api::ResourceList> actual) {
  api::ContainerStatus cs;
  cs.name = std::move(name);
  cs.allocated_resources = std::move(allocated);
  cs.resources_requests = std::move(actual);
  return cs;
}

api::PodCondition ResizePending(std::string reason) {
  return api::PodCondition{"PodResizePending", "True", std::move(reason), ""};
}

PodRequestsOptions UseStatus() {
  PodRequestsOptions opts;
  opts.use_status_resources = true;
  return opts;
}

// Upstream's component-helpers TestPodResourceRequests, the in-place resize cases.
TEST(PodRequestListTest, InPlaceResizeUpstreamTable) {
  struct Case {
    std::string name;
    std::function<api::Pod()> pod;
    PodRequestsOptions opts;
    api::ResourceList want;
  };
  const std::vector<Case> cases = {
      {"resized, infeasible",
       [] {
         api::Pod p = MakePod("p").Obj();
         p.spec.containers.push_back({"container-1", "", {MakeList({{"cpu", "4"}}), {}}, {}, ""});
         p.status.conditions.push_back(ResizePending("Infeasible"));
         p.status.container_statuses.push_back(
             Status("container-1", std::nullopt, MakeList({{"cpu", "2"}})));
         return p;
       },
       UseStatus(), MakeList({{"cpu", "2"}})},
      {"resized, infeasible & in-progress",
       [] {
         api::Pod p = MakePod("p").Obj();
         p.spec.containers.push_back({"container-1", "", {MakeList({{"cpu", "6"}}), {}}, {}, ""});
         p.status.conditions.push_back(ResizePending("Infeasible"));
         p.status.container_statuses.push_back(
             Status("container-1", MakeList({{"cpu", "4"}}), MakeList({{"cpu", "2"}})));
         return p;
       },
       UseStatus(), MakeList({{"cpu", "4"}})},
      {"resized, no resize status",
       [] {
         api::Pod p = MakePod("p").Obj();
         p.spec.containers.push_back({"container-1", "", {MakeList({{"cpu", "4"}}), {}}, {}, ""});
         p.status.container_statuses.push_back(
             Status("container-1", std::nullopt, MakeList({{"cpu", "2"}})));
         return p;
       },
       UseStatus(), MakeList({{"cpu", "4"}})},
      {"resized: per-resource 3-way maximum",
       [] {
         api::Pod p = MakePod("p").Obj();
         p.spec.containers.push_back(
             {"container-1",
              "",
              {MakeList({{"cpu", "30m"}, {"memory", "20M"}, {"ephemeral-storage", "10G"}}), {}},
              {},
              ""});
         p.status.container_statuses.push_back(
             Status("container-1",
                    MakeList({{"cpu", "20m"}, {"memory", "10M"}, {"ephemeral-storage", "30G"}}),
                    MakeList({{"cpu", "10m"}, {"memory", "30M"}, {"ephemeral-storage", "20G"}})));
         return p;
       },
       UseStatus(), MakeList({{"cpu", "30m"}, {"memory", "30M"}, {"ephemeral-storage", "30G"}})},
      {"resized, infeasible, but don't use status",
       [] {
         api::Pod p = MakePod("p").Obj();
         p.spec.containers.push_back({"container-1", "", {MakeList({{"cpu", "4"}}), {}}, {}, ""});
         p.status.conditions.push_back(ResizePending("Infeasible"));
         p.status.container_statuses.push_back(
             Status("container-1", std::nullopt, MakeList({{"cpu", "2"}})));
         return p;
       },
       PodRequestsOptions{}, MakeList({{"cpu", "4"}})},
      {"resized, restartable init container, infeasible",
       [] {
         api::Pod p = MakePod("p").Obj();
         p.spec.init_containers.push_back(
             {"restartable-init-1", "", {MakeList({{"cpu", "4"}}), {}}, {}, "Always"});
         p.status.conditions.push_back(ResizePending("Infeasible"));
         p.status.init_container_statuses.push_back(
             Status("restartable-init-1", std::nullopt, MakeList({{"cpu", "2"}})));
         return p;
       },
       UseStatus(), MakeList({{"cpu", "2"}})},
      {"resized, restartable init container, no resize status",
       [] {
         api::Pod p = MakePod("p").Obj();
         p.spec.init_containers.push_back(
             {"restartable-init-1", "", {MakeList({{"cpu", "4"}}), {}}, {}, "Always"});
         p.status.init_container_statuses.push_back(
             Status("restartable-init-1", std::nullopt, MakeList({{"cpu", "2"}})));
         return p;
       },
       UseStatus(), MakeList({{"cpu", "4"}})},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(PodRequestList(c.pod(), c.opts), c.want);
  }
}

// Upstream's TestPodLevelResourceRequests.
TEST(PodRequestListTest, PodLevelUpstreamTable) {
  PodRequestsOptions skip;
  skip.skip_pod_level_resources = true;
  struct Case {
    std::string name;
    std::function<api::Pod()> pod;
    PodRequestsOptions opts;
    api::ResourceList want;
  };
  const std::vector<Case> cases = {
      {"nil", [] { return MakePod("p").Obj(); }, {}, {}},
      {"pod level memory resource with SkipPodLevelResources true",
       [] {
         return MakePod("p").PodReq({{"memory", "2Mi"}}).Obj();
       },
       skip,
       {}},
      {"pod level memory resource with SkipPodLevelResources false",
       [] {
         return MakePod("p").PodReq({{"memory", "2Mi"}}).Obj();
       },
       {},
       MakeList({{"memory", "2Mi"}})},
      {"pod level memory and container level cpu resources",
       [] {
         return MakePod("p").PodReq({{"memory", "2Mi"}}).Req({{"cpu", "2m"}}).Obj();
       },
       {},
       MakeList({{"memory", "2Mi"}, {"cpu", "2m"}})},
      {"pod level unsupported resources set at both pod-level and container-level",
       [] {
         return MakePod("p").PodReq({{"storage", "2Mi"}}).Req({{"storage", "3Mi"}}).Obj();
       },
       {},
       MakeList({{"storage", "3Mi"}})},
      {"pod level unsupported resources set at pod-level",
       [] {
         return MakePod("p").PodReq({{"storage", "2Mi"}}).Req({{"memory", "3Mi"}}).Obj();
       },
       {},
       MakeList({{"memory", "3Mi"}})},
      {"both container-level and pod-level resources set",
       [] {
         return MakePod("p")
             .PodReq({{"memory", "6Mi"}, {"cpu", "8m"}})
             .Req({{"memory", "3Mi"}, {"cpu", "2m"}})
             .Obj();
       },
       {},
       MakeList({{"memory", "6Mi"}, {"cpu", "8m"}})},
      {"container-level resources and init container set, SkipPodLevelResources true",
       [] {
         return MakePod("p")
             .Req({{"memory", "3Mi"}, {"cpu", "2m"}})
             .InitReq({{"memory", "5Mi"}, {"cpu", "4m"}})
             .Obj();
       },
       skip, MakeList({{"memory", "5Mi"}, {"cpu", "4m"}})},
      {"container-level resources, init and sidecar container set",
       [] {
         return MakePod("p")
             .Req({{"memory", "3Mi"}, {"cpu", "2m"}})
             .InitReq({{"memory", "5Mi"}, {"cpu", "4m"}}, true)
             .InitReq({{"memory", "6Mi"}, {"cpu", "8m"}})
             .Obj();
       },
       {},
       MakeList({{"memory", "11Mi"}, {"cpu", "12m"}})},
      {"pod-level resources, container-level resources, init and sidecar container set",
       [] {
         return MakePod("p")
             .PodReq({{"memory", "15Mi"}, {"cpu", "18m"}})
             .Req({{"memory", "3Mi"}, {"cpu", "2m"}})
             .InitReq({{"memory", "5Mi"}, {"cpu", "4m"}}, true)
             .InitReq({{"memory", "6Mi"}, {"cpu", "8m"}})
             .Obj();
       },
       {},
       MakeList({{"memory", "15Mi"}, {"cpu", "18m"}})},
      {"pod-level resources, container-level resources, hugepage multiple page sizes between "
       "pod-level and container-level",
       [] {
         return MakePod("p")
             .PodReq({{"cpu", "1"}, {"hugepages-2Mi", "10Mi"}})
             .Req({{"memory", "4Mi"}, {"hugepages-1Gi", "1Gi"}})
             .Obj();
       },
       {},
       MakeList(
           {{"cpu", "1"}, {"memory", "4Mi"}, {"hugepages-2Mi", "10Mi"}, {"hugepages-1Gi", "1Gi"}})},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(PodRequestList(c.pod(), c.opts), c.want);
  }
}

// Upstream's TestPodRequestsAndLimitsVerticalScalingWrappers (requests part).
TEST(PodRequestListTest, PodLevelInPlaceResize) {
  PodRequestsOptions opts = UseStatus();
  opts.in_place_pod_level_resize = true;
  api::Pod p = MakePod("p").PodReq({{"cpu", "2"}}).Req({{"cpu", "1"}}).Obj();
  p.status.allocated_resources = MakeList({{"cpu", "3"}});
  p.status.resources =
      api::PodStatusResources{MakeList({{"cpu", "3.5"}}), MakeList({{"cpu", "5"}})};
  EXPECT_EQ(PodRequestList(p, opts), MakeList({{"cpu", "3.5"}}));

  // Infeasible: the spec is left out of the maximum.
  p.spec.resources.requests = MakeList({{"cpu", "10"}});
  p.status.resources->requests = MakeList({{"cpu", "4"}});
  p.status.conditions.push_back(ResizePending("Infeasible"));
  EXPECT_EQ(PodRequestList(p, opts), MakeList({{"cpu", "4"}}));

  // Non-missing container requests reach init and regular containers alike.
  api::ResourceList defaults = MakeList({{"memory", "100Mi"}});
  PodRequestsOptions with_defaults;
  with_defaults.non_missing_container_requests = &defaults;
  EXPECT_EQ(PodRequestList(MakePod("i").InitReq({{"cpu", "1"}}).Obj(), with_defaults),
            MakeList({{"cpu", "1"}, {"memory", "100Mi"}}));
  EXPECT_EQ(PodRequestList(MakePod("c").Req({{"cpu", "1"}}).Obj(), with_defaults),
            MakeList({{"cpu", "1"}, {"memory", "100Mi"}}));
}

TEST(PodRequestListTest, PodLevelStatusReplacesContainerStatusAggregation) {
  // With both pod-level status maps, they stand for every container's status.
  api::Pod p = MakePod("p").Req({{"cpu", "1"}}).Obj();
  p.status.container_statuses.push_back(Status("c0", MakeList({{"cpu", "5"}}), std::nullopt));
  EXPECT_EQ(CalculatePodResource(p).requests.milli_cpu, 5000);
  p.status.allocated_resources = MakeList({{"cpu", "2"}});
  p.status.resources = api::PodStatusResources{MakeList({{"cpu", "1500m"}}), std::nullopt};
  EXPECT_EQ(CalculatePodResource(p).requests.milli_cpu, 2000);
}

// Upstream's PodInfo.CalculateResource with pod-level requests: the non-zero defaults fill only
// what neither the containers nor the pod level set.
TEST(CalculatePodResourceTest, PodLevelNonZero) {
  // Pod-level cpu only, no container memory: memory gets 200Mi per container.
  PodResource r = CalculatePodResource(MakePod("p").PodReq({{"cpu", "2"}}).Req({}).Req({}).Obj());
  EXPECT_EQ(r.requests.milli_cpu, 2000);
  EXPECT_EQ(r.requests.memory, 0);
  EXPECT_EQ(r.non_zero_cpu, 2000);
  EXPECT_EQ(r.non_zero_memory, 2 * kDefaultMemoryRequest);
  // Pod-level memory only; one container sets cpu, the other not: the requests already name
  // cpu, so no default is added for the requestless container.
  r = CalculatePodResource(
      MakePod("p").PodReq({{"memory", "1Gi"}}).Req({{"cpu", "300m"}}).Req({}).Obj());
  EXPECT_EQ(r.non_zero_cpu, 300);
  EXPECT_EQ(r.non_zero_memory, kGi);
}

// NodeResourcesFit's scorer is built without the feature flags (upstream's NewFit): it ignores
// pod-level requests and status resources, and fills every requestless container with the
// non-zero defaults. The cache's view of the same pod differs.
TEST(FitScorerRequestListTest, SpecContainersOnlyWithDefaults) {
  api::Pod p = MakePod("p").PodReq({{"memory", "1Gi"}}).Req({{"cpu", "300m"}}).Req({}).Obj();
  p.status.container_statuses.push_back(Status("c0", MakeList({{"cpu", "3"}}), std::nullopt));
  const api::ResourceList r = FitScorerRequestList(p);
  EXPECT_EQ(r.at("cpu").MilliValue(), 400);
  EXPECT_EQ(r.at("memory").Value(), 2 * kDefaultMemoryRequest);
  EXPECT_TRUE(ScorerRequestsDifferFromCache(p));
  EXPECT_EQ(CalculatePodResource(p).non_zero_memory, kGi);
  EXPECT_FALSE(ScorerRequestsDifferFromCache(MakePod("q").Req({{"cpu", "1"}}).Obj()));
}

// NodeResourcesFit's computePodResourceRequest ignores status resources; the cache counts them.
TEST(PodSpecRequestsTest, IgnoresStatusResources) {
  api::Pod p = MakePod("p").Req({{"cpu", "1"}}).PodReq({{"memory", "1Gi"}}).Obj();
  p.status.container_statuses.push_back(Status("c0", MakeList({{"cpu", "3"}}), std::nullopt));
  EXPECT_EQ(PodSpecRequests(p).milli_cpu, 1000);
  EXPECT_EQ(PodSpecRequests(p).memory, kGi);
  EXPECT_EQ(PodRequests(p).milli_cpu, 3000);
}

// Upstream's extractPodScaleDown: a request that shrinks or disappears, status resources counted.
TEST(PodRequestsScaledDownTest, ComparesWhatTheCacheCounts) {
  const api::Pod big = MakePod("p").Req({{"cpu", "2"}, {"memory", "1Gi"}}).Obj();
  EXPECT_TRUE(
      PodRequestsScaledDown(big, MakePod("p").Req({{"cpu", "1"}, {"memory", "1Gi"}}).Obj()));
  EXPECT_TRUE(PodRequestsScaledDown(big, MakePod("p").Req({{"cpu", "2"}}).Obj()));
  EXPECT_FALSE(
      PodRequestsScaledDown(big, MakePod("p").Req({{"cpu", "3"}, {"memory", "1Gi"}}).Obj()));
  EXPECT_FALSE(PodRequestsScaledDown(big, big));
  // The spec shrank but the kubelet still holds the old allocation: nothing is freed yet.
  api::Pod resizing = MakePod("p").Req({{"cpu", "1"}, {"memory", "1Gi"}}).Obj();
  resizing.status.container_statuses.push_back(
      Status("c0", MakeList({{"cpu", "2"}, {"memory", "1Gi"}}), std::nullopt));
  EXPECT_FALSE(PodRequestsScaledDown(big, resizing));
  // Pod-level requests count too.
  EXPECT_TRUE(PodRequestsScaledDown(MakePod("p").PodReq({{"cpu", "4"}}).Req({{"cpu", "1"}}).Obj(),
                                    MakePod("p").PodReq({{"cpu", "3"}}).Req({{"cpu", "1"}}).Obj()));
}

TEST(PodRequestsHelpersTest, SupportedResourcesAndResizeConditions) {
  EXPECT_TRUE(IsSupportedPodLevelResource("cpu"));
  EXPECT_TRUE(IsSupportedPodLevelResource("memory"));
  EXPECT_TRUE(IsSupportedPodLevelResource("hugepages-2Mi"));
  EXPECT_FALSE(IsSupportedPodLevelResource("ephemeral-storage"));
  EXPECT_FALSE(IsPodLevelRequestsSet(MakePod("p").PodReq({{"storage", "1"}}).Obj()));
  EXPECT_TRUE(IsPodLevelRequestsSet(MakePod("p").PodReq({{"cpu", "1"}}).Obj()));
  api::Pod p = MakePod("p").Obj();
  p.status.conditions.push_back(ResizePending("Deferred"));
  EXPECT_FALSE(IsPodResizeInfeasible(p));
  p.status.conditions[0].reason = "Infeasible";
  EXPECT_TRUE(IsPodResizeInfeasible(p));
}

}  // namespace
}  // namespace berth::framework
