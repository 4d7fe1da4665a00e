#include "scheduler/framework/waiting_pod.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "test/testing/builders.h"

namespace berth::framework {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::MakePod;

const TimePoint kT0 = TimePoint(seconds(1700000000));

std::shared_ptr<WaitingPod> MakeWaiting(std::map<std::string, TimePoint> deadlines) {
  return std::make_shared<WaitingPod>(MakePod("p").Info(), "n1", std::move(deadlines), kT0);
}

TEST(WaitingPodTest, Accessors) {
  auto wp = MakeWaiting({{"Coscheduling", kT0 + seconds(10)}, {"Alpha", kT0 + seconds(5)}});
  EXPECT_EQ(wp->pod_info().Name(), "p");
  EXPECT_EQ(wp->pod_ptr()->key, "default/p");
  EXPECT_EQ(wp->node(), "n1");
  EXPECT_EQ(wp->created(), kT0);
  EXPECT_EQ(wp->GetPendingPlugins(), (std::vector<std::string>{"Alpha", "Coscheduling"}));
  EXPECT_FALSE(wp->TryResult().has_value());
  EXPECT_EQ(kMaxPermitTimeout, std::chrono::minutes(15));
}

TEST(WaitingPodTest, AllowByEveryPendingPluginResolvesSuccess) {
  auto wp = MakeWaiting({{"A", kT0 + seconds(10)}, {"B", kT0 + seconds(10)}});
  wp->Allow("A");
  EXPECT_FALSE(wp->TryResult().has_value());
  EXPECT_EQ(wp->GetPendingPlugins(), (std::vector<std::string>{"B"}));
  wp->Allow("Unrelated");  // not pending: no effect
  EXPECT_FALSE(wp->TryResult().has_value());
  wp->Allow("B");
  ASSERT_TRUE(wp->TryResult().has_value());
  EXPECT_TRUE(wp->TryResult()->IsSuccess());
  EXPECT_TRUE(wp->GetPendingPlugins().empty());
  EXPECT_FALSE(wp->NextDeadline().has_value());
  EXPECT_TRUE(wp->Wait().IsSuccess());
}

TEST(WaitingPodTest, RejectResolvesWithThePlugin) {
  auto wp = MakeWaiting({{"A", kT0 + seconds(10)}, {"B", kT0 + seconds(10)}});
  wp->Allow("A");
  wp->Reject("B", "pod group is not ready");
  std::optional<Status> r = wp->TryResult();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code(), Code::kUnschedulable);
  EXPECT_EQ(r->plugin(), "B");
  EXPECT_EQ(r->Message(), "pod group is not ready");
}

TEST(WaitingPodTest, ResolvedExactlyOnce) {
  auto wp = MakeWaiting({{"A", kT0 + seconds(10)}});
  wp->Reject("A", "first");
  wp->Reject("A", "second");
  wp->Allow("A");
  EXPECT_FALSE(wp->ExpireIfDue(kT0 + seconds(100)));
  ASSERT_TRUE(wp->TryResult().has_value());
  EXPECT_EQ(wp->TryResult()->Message(), "first");

  auto allowed = MakeWaiting({{"A", kT0 + seconds(10)}});
  allowed->Allow("A");
  allowed->Reject("A", "too late");
  EXPECT_FALSE(allowed->ExpireIfDue(kT0 + seconds(100)));
  EXPECT_TRUE(allowed->TryResult()->IsSuccess());
}

TEST(WaitingPodTest, ExpireIfDueUsesUpstreamTimeoutMessage) {
  auto wp = MakeWaiting({{"Coscheduling", kT0 + seconds(10)}});
  EXPECT_FALSE(wp->ExpireIfDue(kT0 + seconds(9)));
  EXPECT_FALSE(wp->TryResult().has_value());
  EXPECT_TRUE(wp->ExpireIfDue(kT0 + seconds(10)));
  std::optional<Status> r = wp->TryResult();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code(), Code::kUnschedulable);
  EXPECT_EQ(r->plugin(), "Coscheduling");
  EXPECT_EQ(r->Message(), "rejected due to timeout after waiting 10s at plugin Coscheduling");
}

// The wait is printed as Go's time.Duration String() prints it.
TEST(WaitingPodTest, TimeoutMessageFormatsDurationsLikeGo) {
  struct Case {
    Duration wait;
    std::string printed;
  };
  const std::vector<Case> cases = {
      {milliseconds(1500), "1.5s"},
      {milliseconds(10250), "10.25s"},
      {seconds(90), "1m30s"},
      {std::chrono::minutes(15), "15m0s"},
      {std::chrono::hours(1), "1h0m0s"},
      {std::chrono::hours(1) + seconds(1) + milliseconds(500), "1h0m1.5s"},
      {milliseconds(500), "500ms"},
      {std::chrono::microseconds(1500), "1.5ms"},
      {std::chrono::microseconds(250), "250\u00b5s"},
      {std::chrono::microseconds(1000001), "1.000001s"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.printed);
    auto wp = MakeWaiting({{"Coscheduling", kT0 + c.wait}});
    ASSERT_TRUE(wp->ExpireIfDue(kT0 + c.wait));
    EXPECT_EQ(wp->TryResult()->Message(),
              "rejected due to timeout after waiting " + c.printed + " at plugin Coscheduling");
  }
}

TEST(WaitingPodTest, EarliestExpiredDeadlineWins) {
  // Both deadlines passed by the time the timer loop looks (e.g. a coarse virtual clock): the
  // plugin whose timer would have fired first is the one reported.
  auto wp = MakeWaiting({{"A", kT0 + seconds(20)}, {"B", kT0 + seconds(10)}});
  EXPECT_TRUE(wp->ExpireIfDue(kT0 + seconds(25)));
  EXPECT_EQ(wp->TryResult()->plugin(), "B");
  EXPECT_EQ(wp->TryResult()->Message(), "rejected due to timeout after waiting 10s at plugin B");
}

TEST(WaitingPodTest, AllowedPluginsNoLongerTimeOut) {
  auto wp = MakeWaiting({{"A", kT0 + seconds(5)}, {"B", kT0 + seconds(30)}});
  EXPECT_EQ(wp->NextDeadline(), kT0 + seconds(5));
  wp->Allow("A");
  EXPECT_EQ(wp->NextDeadline(), kT0 + seconds(30));
  EXPECT_FALSE(wp->ExpireIfDue(kT0 + seconds(10)));
  EXPECT_TRUE(wp->ExpireIfDue(kT0 + seconds(30)));
  EXPECT_EQ(wp->TryResult()->plugin(), "B");
  EXPECT_FALSE(wp->NextDeadline().has_value());
}

TEST(WaitingPodTest, WaitBlocksUntilAnotherThreadAllows) {
  auto wp = MakeWaiting({{"Coscheduling", kT0 + seconds(10)}});
  std::atomic<bool> returned{false};
  std::optional<Status> result;
  std::thread waiter([&] {
    result = wp->Wait();
    returned = true;
  });
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(returned.load()) << "Wait() returned before the pod was resolved";
  wp->Allow("Coscheduling");
  waiter.join();
  ASSERT_TRUE(result.has_value());
  EXPECT_TRUE(result->IsSuccess());
}

TEST(WaitingPodTest, RejectWakesEveryWaiter) {
  auto wp = MakeWaiting({{"Coscheduling", kT0 + seconds(10)}});
  std::vector<std::optional<Status>> results(3);
  std::vector<std::thread> waiters;
  for (int i = 0; i < 3; ++i) waiters.emplace_back([&, i] { results[i] = wp->Wait(); });
  wp->Reject("Coscheduling", "group rejected");
  for (auto& w : waiters) w.join();
  for (const auto& r : results) {
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->code(), Code::kUnschedulable);
    EXPECT_EQ(r->plugin(), "Coscheduling");
    EXPECT_EQ(r->Message(), "group rejected");
  }
}

TEST(WaitingPodTest, ConcurrentAllowsResolveOnce) {
  std::map<std::string, TimePoint> deadlines;
  for (int i = 0; i < 8; ++i) deadlines["P" + std::to_string(i)] = kT0 + seconds(10);
  auto wp = MakeWaiting(deadlines);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) threads.emplace_back([&, i] { wp->Allow("P" + std::to_string(i)); });
  Status s = wp->Wait();
  for (auto& t : threads) t.join();
  EXPECT_TRUE(s.IsSuccess());
}

}  // namespace
}  // namespace berth::framework
