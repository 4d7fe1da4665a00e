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

TEST(ResourceAllocationTest, AllocatableAndRequested) {
  auto running = MakePod("running").Req({{"cpu", "1"}}).Info();
  auto node = MakeNode("n").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Info({running});
  int64_t alloc = 0, req = 0;
  ASSERT_TRUE(AllocatableAndRequested(MakeScoredResource("cpu", 1), node, 500, true, &alloc, &req));
  EXPECT_EQ(alloc, 4000);
  EXPECT_EQ(req, 1500);
  // An extended resource the pod does not request, or one the node lacks, takes no part.
  EXPECT_FALSE(AllocatableAndRequested(MakeScoredResource("example.com/gpu", 1), node, 0, true,
                                       &alloc, &req));
  EXPECT_FALSE(AllocatableAndRequested(MakeScoredResource("example.com/gpu", 1), node, 1, true,
                                       &alloc, &req));
  EXPECT_FALSE(AllocatableAndRequested(MakeScoredResource("pods", 1), node, 1, true, &alloc, &req));
}

}  // namespace
}  // namespace berth::plugins::common
