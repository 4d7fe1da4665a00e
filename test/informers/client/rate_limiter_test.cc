#include "informers/client/rate_limiter.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace berth::client {
namespace {

using std::chrono::milliseconds;

// Time moves only when advanced or slept on; records every sleep.
class FakeLimiterClock final : public LimiterClock {
 public:
  TimePoint Now() override {
    std::lock_guard<std::mutex> lock(mu_);
    return now_;
  }
  void SleepFor(Duration d) override {
    std::lock_guard<std::mutex> lock(mu_);
    sleeps.push_back(d);
    if (advance_on_sleep) now_ += d;
  }
  void Advance(Duration d) {
    std::lock_guard<std::mutex> lock(mu_);
    now_ += d;
  }
  std::vector<Duration> sleeps;
  // False: sleeping callers do not move time, as if they all arrived at the same instant.
  bool advance_on_sleep = true;

 private:
  std::mutex mu_;
  TimePoint now_{std::chrono::seconds(1000)};
};

TEST(TokenBucketTest, BurstThenOnePerInterval) {
  auto clock = std::make_shared<FakeLimiterClock>();
  TokenBucket bucket(/*qps=*/10, /*burst=*/3, clock);
  for (int i = 0; i < 3; ++i) bucket.Wait();
  EXPECT_TRUE(clock->sleeps.empty());
  for (int i = 0; i < 4; ++i) bucket.Wait();
  ASSERT_EQ(clock->sleeps.size(), 4u);
  for (auto d : clock->sleeps) EXPECT_EQ(std::chrono::duration_cast<milliseconds>(d).count(), 100);
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(bucket.TotalWaited()).count(), 400);
}

TEST(TokenBucketTest, RefillsUpToBurst) {
  auto clock = std::make_shared<FakeLimiterClock>();
  TokenBucket bucket(2, 4, clock);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(bucket.TryAccept());
  EXPECT_FALSE(bucket.TryAccept());
  clock->Advance(milliseconds(500));  // one token at 2 qps
  EXPECT_TRUE(bucket.TryAccept());
  EXPECT_FALSE(bucket.TryAccept());
  clock->Advance(std::chrono::seconds(60));  // capped at burst
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(bucket.TryAccept());
  EXPECT_FALSE(bucket.TryAccept());
  EXPECT_TRUE(clock->sleeps.empty());
}

TEST(TokenBucketTest, SimultaneousWaitersQueueUp) {
  // Reservations accumulate debt, so callers arriving together are spaced one interval apart.
  auto clock = std::make_shared<FakeLimiterClock>();
  clock->advance_on_sleep = false;
  TokenBucket bucket(4, 1, clock);
  for (int i = 0; i < 4; ++i) bucket.Wait();
  ASSERT_EQ(clock->sleeps.size(), 3u);
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(clock->sleeps[0]).count(), 250);
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(clock->sleeps[1]).count(), 500);
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(clock->sleeps[2]).count(), 750);
  EXPECT_FALSE(bucket.TryAccept());
  clock->Advance(milliseconds(1000));  // debt of 3 repaid, one token accrued
  EXPECT_TRUE(bucket.TryAccept());
}

TEST(TokenBucketTest, UnlimitedWhenQpsNotPositive) {
  auto clock = std::make_shared<FakeLimiterClock>();
  TokenBucket bucket(0, 1, clock);
  for (int i = 0; i < 1000; ++i) bucket.Wait();
  EXPECT_TRUE(bucket.TryAccept());
  EXPECT_TRUE(clock->sleeps.empty());
  EXPECT_EQ(bucket.TotalWaited().count(), 0);
}

TEST(TokenBucketTest, BurstBelowOneIsOne) {
  auto clock = std::make_shared<FakeLimiterClock>();
  TokenBucket bucket(1, 0, clock);
  EXPECT_EQ(bucket.burst(), 1);
  EXPECT_TRUE(bucket.TryAccept());
  EXPECT_FALSE(bucket.TryAccept());
}

TEST(TokenBucketTest, RealClockThreadsShareTheRate) {
  TokenBucket bucket(50, 1);  // 20 ms per token after the first
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 3; ++i) bucket.Wait();
    });
  }
  for (auto& t : threads) t.join();
  auto elapsed = std::chrono::steady_clock::now() - start;
  // 12 tokens: 1 immediately, 11 × 20 ms = 220 ms.
  EXPECT_GE(elapsed, milliseconds(200));
  // The waits are measured per caller from when each asked: on a busy machine a caller may be
  // scheduled late and wait less itself, so only a looser bound is certain.
  EXPECT_GE(bucket.TotalWaited(), milliseconds(100));
}

}  // namespace
}  // namespace berth::client
