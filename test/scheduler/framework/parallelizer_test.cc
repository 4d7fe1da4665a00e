#include "scheduler/framework/parallelizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace berth::framework {
namespace {

// Runs Until(n) and returns how often each index ran.
std::vector<int> RunCounts(Parallelizer& p, int n, const std::atomic<bool>* stop = nullptr) {
  auto counts = std::make_unique<std::atomic<int>[]>(static_cast<size_t>(std::max(n, 1)));
  for (int i = 0; i < n; ++i) counts[i] = 0;
  p.Until(
      n, [&](int i) { counts[i].fetch_add(1, std::memory_order_relaxed); }, stop);
  std::vector<int> out(static_cast<size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) out[i] = counts[i].load();
  return out;
}

TEST(ParallelizerTest, ParallelismIsCappedByHardware) {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(Parallelizer(1).parallelism(), 1);
  EXPECT_EQ(Parallelizer(0).parallelism(), 1);
  EXPECT_EQ(Parallelizer(-3).parallelism(), 1);
  EXPECT_EQ(Parallelizer(16).parallelism(), std::min(16, hw));
  EXPECT_EQ(Parallelizer(2).parallelism(), std::min(2, hw));
}

TEST(ParallelizerTest, EveryIndexRunsExactlyOnce) {
  for (int parallelism : {1, 2, 4, 16}) {
    Parallelizer p(parallelism);
    for (int n : {0, 1, 5, 31, 32, 33, 64, 100, 1000, 4099, 10007}) {
      SCOPED_TRACE("parallelism=" + std::to_string(parallelism) + " n=" + std::to_string(n));
      std::vector<int> counts = RunCounts(p, n);
      ASSERT_EQ(counts.size(), static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) ASSERT_EQ(counts[i], 1) << "index " << i;
    }
  }
}

TEST(ParallelizerTest, NegativeCountRunsNothing) {
  Parallelizer p(4);
  int calls = 0;
  p.Until(-5, [&](int) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelizerTest, ResultsAreVisibleWhenUntilReturns) {
  // fn writes plain (non-atomic) slots; Until must not return before every write is done.
  Parallelizer p(16);
  for (int round = 0; round < 50; ++round) {
    std::vector<int> out(2000, -1);
    p.Until(2000, [&](int i) { out[i] = i * 2; });
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(out[i], i * 2);
  }
}

TEST(ParallelizerTest, PresetStopRunsNothing) {
  std::atomic<bool> stop{true};
  for (int parallelism : {1, 16}) {
    Parallelizer p(parallelism);
    for (int n : {10, 1000}) {
      std::vector<int> counts = RunCounts(p, n, &stop);
      for (int c : counts) EXPECT_EQ(c, 0);
    }
  }
}

TEST(ParallelizerTest, StopInSmallJobStopsAtOnce) {
  // Below the pool threshold the caller runs indices in order.
  Parallelizer p(16);
  std::atomic<bool> stop{false};
  std::vector<int> ran;
  p.Until(
      20,
      [&](int i) {
        ran.push_back(i);
        if (i == 5) stop = true;
      },
      &stop);
  EXPECT_EQ(ran, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(ParallelizerTest, StopFlagStopsClaimingNewChunks) {
  for (int parallelism : {1, 2, 16}) {
    SCOPED_TRACE("parallelism=" + std::to_string(parallelism));
    Parallelizer p(parallelism);
    const int n = 100000;
    std::atomic<bool> stop{false};
    auto counts = std::make_unique<std::atomic<int>[]>(n);
    for (int i = 0; i < n; ++i) counts[i] = 0;
    std::atomic<int> total{0};
    p.Until(
        n,
        [&](int i) {
          counts[i].fetch_add(1);
          // Like the node search: stop once enough feasible nodes were found.
          if (total.fetch_add(1) + 1 >= 10) stop = true;
        },
        &stop);
    // Chunks already claimed finish; no new ones start. A chunk is about sqrt(n) items, so far
    // fewer than n indices run.
    EXPECT_GE(total.load(), 10);
    EXPECT_LT(total.load(), n / 10);
    for (int i = 0; i < n; ++i) ASSERT_LE(counts[i].load(), 1) << "index " << i;
  }
}

TEST(ParallelizerTest, ConcurrentUntilCallsAreSafe) {
  Parallelizer p(16);
  constexpr int kCallers = 4;
  constexpr int kRounds = 200;
  std::vector<int> failures(kCallers, 0);
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        // Alternate pooled and inline sizes so that jobs of different shapes interleave.
        int n = (round % 3 == 0) ? 17 : 257 + t * 31 + round;
        std::vector<int> counts = RunCounts(p, n);
        for (int c : counts) failures[t] += c == 1 ? 0 : 1;
      }
    });
  }
  for (auto& c : callers) c.join();
  for (int t = 0; t < kCallers; ++t) EXPECT_EQ(failures[t], 0) << "caller " << t;
}

TEST(ParallelizerTest, ManyShortJobsBackToBack) {
  // Workers that wake late for a finished job must not run (or disturb) the next one.
  Parallelizer p(16);
  for (int round = 0; round < 2000; ++round) {
    int n = 32 + round % 7;
    std::vector<int> counts = RunCounts(p, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(counts[i], 1) << "round " << round << " index " << i;
  }
}

TEST(ParallelizerTest, DestructionWithIdleWorkersIsClean) {
  for (int i = 0; i < 20; ++i) {
    Parallelizer p(16);
    if (i % 2 == 0) RunCounts(p, 100);
  }
  SUCCEED();
}

}  // namespace
}  // namespace berth::framework
