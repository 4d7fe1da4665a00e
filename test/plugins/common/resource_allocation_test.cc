#include "plugins/common/resource_allocation.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"

namespace berth::plugins::common {
namespace {

using testing::MakeNode;
using testing::MakePod;

TEST(ResourceAllocationTest, KindOf) {
  EXPECT_EQ(KindOf("cpu"), ResourceKind::kCpu);
  EXPECT_EQ(KindOf("memory"), ResourceKind::kMemory);
  EXPECT_EQ(KindOf("ephemeral-storage"), ResourceKind::kEphemeralStorage);
  EXPECT_EQ(KindOf("example.com/gpu"), ResourceKind::kScalar);
  EXPECT_EQ(KindOf("pods"), ResourceKind::kOther);
}

// A container without requests counts 100m / 200Mi only when scoring with the non-zero defaults
// (NodeResourcesFit), not with plain requests (BalancedAllocation).
TEST(ResourceAllocationTest, PodRequestNonZeroDefaultsOnlyWithoutUseRequested) {
  auto pod = MakePod("p").Req({}).Info();
  const ScoredResource cpu = MakeScoredResource("cpu", 1);
  const ScoredResource memory = MakeScoredResource("memory", 1);
  EXPECT_EQ(PodRequest(cpu, *pod, /*use_requested=*/true), 0);
  EXPECT_EQ(PodRequest(cpu, *pod, /*use_requested=*/false), 100);
  EXPECT_EQ(PodRequest(memory, *pod, /*use_requested=*/true), 0);
  EXPECT_EQ(PodRequest(memory, *pod, /*use_requested=*/false), 200 * 1024 * 1024);
}

TEST(ResourceAllocationTest, AllocatableAndAllocated) {
  auto running = MakePod("running").Req({{"cpu", "1"}}).Info();
  auto node = MakeNode("n").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Info({running});
  int64_t alloc = 0, req = 0;
  ASSERT_TRUE(AllocatableAndAllocated(MakeScoredResource("cpu", 1), node, 500, true, &alloc, &req));
  EXPECT_EQ(alloc, 4000);
  EXPECT_EQ(req, 1000);
  // Without use_requested the node's non-zero aggregate counts (the running pod sets no memory).
  ASSERT_TRUE(
      AllocatableAndAllocated(MakeScoredResource("memory", 1), node, 0, false, &alloc, &req));
  EXPECT_EQ(req, 200 * 1024 * 1024);
  // An extended resource the pod does not request, or one the node lacks, takes no part.
  EXPECT_FALSE(AllocatableAndAllocated(MakeScoredResource("example.com/gpu", 1), node, 0, true,
                                       &alloc, &req));
  EXPECT_FALSE(AllocatableAndAllocated(MakeScoredResource("example.com/gpu", 1), node, 1, true,
                                       &alloc, &req));
  EXPECT_FALSE(AllocatableAndAllocated(MakeScoredResource("pods", 1), node, 1, true, &alloc, &req));
}

// Pod-level requests replace the container sums; the scorers' non-zero defaults fill only what
// neither sets.
// BalancedAllocation's scorer (use_requested) counts pod-level requests like the cache; Fit's
// scorer is built without the feature flags upstream, so it keeps the containers' sums (100m for
// the first container, the 100m default for the second).
TEST(ResourceAllocationTest, PodLevelRequestsCountForBalancedAllocationOnly) {
  auto pod = MakePod("p").Req({{"cpu", "100m"}}).Req({}).Info();
  api::Pod with_pod_level = pod->Pod();
  with_pod_level.spec.resources.requests["cpu"] = api::Quantity::FromMilli(2000);
  auto info = framework::MakePodInfo(std::make_shared<const api::Pod>(with_pod_level));
  const ScoredResource cpu = MakeScoredResource("cpu", 1);
  const ScoredResource memory = MakeScoredResource("memory", 1);
  EXPECT_EQ(PodRequest(cpu, *info, /*use_requested=*/true), 2000);
  EXPECT_EQ(PodRequest(cpu, *info, /*use_requested=*/false), 200);
  EXPECT_EQ(PodRequest(memory, *info, /*use_requested=*/true), 0);
  EXPECT_EQ(PodRequest(memory, *info, /*use_requested=*/false), 2 * 200 * 1024 * 1024);
}

}  // namespace
}  // namespace berth::plugins::common
