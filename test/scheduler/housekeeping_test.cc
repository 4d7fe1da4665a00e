// Housekeeping (scheduler/housekeeping.h): FlushDue on the scheduler's clock, as simulate calls
// it, and the thread that runs the same upkeep on real time for `berth run`.

#include "scheduler/housekeeping.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "test/testing/scheduler_harness.h"

namespace berth::scheduler {
namespace {

using framework::Status;
using testing::MakePod;
using testing::SchedulerHarness;

constexpr auto kPermit = &config::Plugins::permit;
constexpr auto kFilter = &config::Plugins::filter;

// Pod "w" waits in Permit (30 s timeout); pod "e" hit a Filter error and backs off.
class HousekeepingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    h_.Plugin("Gang").permit = [](const std::string&, framework::Duration* timeout) {
      *timeout = std::chrono::seconds(30);
      return Status::Wait();
    };
    h_.Plugin("Flaky").filter = [](const framework::PodInfo& pod, const framework::NodeInfo&) {
      return pod.Name() == "e" ? Status::Error("disk on fire") : Status();
    };
    h_.Enable(kPermit, "Gang");
    h_.Enable(kFilter, "Flaky");
    h_.Start();
    h_.AddNodes({"n1"});
    h_.Submit(MakePod("w"));
    ASSERT_TRUE(h_.ScheduleOne());
    h_.Submit(MakePod("e"));
    ASSERT_TRUE(h_.ScheduleOne());
    ASSERT_EQ(h_.sched().NumWaitingPods(), 1u);
    ASSERT_EQ(h_.queue().Counts().backoff, 1);
  }
  SchedulerHarness h_;
};

TEST_F(HousekeepingTest, FlushDueDoesNothingBeforeTheDeadlines) {
  h_.clock().Advance(std::chrono::milliseconds(500));
  FlushDue(h_.sched());
  EXPECT_EQ(h_.sched().NumWaitingPods(), 1u);
  EXPECT_EQ(h_.queue().Counts().backoff, 1);
  EXPECT_EQ(h_.queue().Counts().active, 0);
}

TEST_F(HousekeepingTest, FlushDueRejectsTimedOutWaitersAndMovesCompletedBackoffs) {
  h_.clock().Advance(std::chrono::seconds(31));
  FlushDue(h_.sched());
  // The rejection wakes the binding cycle waiting in WaitOnPermit, which unreserves and reports.
  EXPECT_EQ(h_.RunBindings(), 1);
  EXPECT_EQ(h_.sched().NumWaitingPods(), 0u);
  EXPECT_EQ(h_.sink().Last().message,
            "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin "
            "Gang.");
  EXPECT_TRUE(h_.writer().Bindings().empty());
  // "e" left backoff for the active queue; "w" was rejected into the unschedulable pods.
  EXPECT_EQ(h_.queue().Counts().backoff, 0);
  EXPECT_EQ(h_.queue().Counts().active, 1);
}

TEST_F(HousekeepingTest, TheThreadRunsTheSameUpkeepAndStops) {
  h_.clock().Advance(std::chrono::seconds(31));
  std::atomic<int> ticks{0};
  Housekeeping hk(
      h_.sched(),
      {std::chrono::milliseconds(1), std::chrono::milliseconds(1), std::chrono::milliseconds(1)},
      [&] { ticks.fetch_add(1); });
  hk.Start();
  // Bounded wait (not a timing assertion): the thread flushes within a few periods.
  for (int i = 0; i < 5000 && (ticks.load() < 2 || h_.queue().Counts().backoff != 0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  hk.Stop();
  hk.Stop();  // idempotent
  EXPECT_GE(ticks.load(), 2);
  EXPECT_EQ(h_.queue().Counts().backoff, 0);
  // The thread expired the waiting pod: its binding cycle (deferred here) now reports the timeout.
  EXPECT_EQ(h_.RunBindings(), 1);
  EXPECT_EQ(h_.sched().NumWaitingPods(), 0u);
  EXPECT_EQ(h_.sink().Last().message,
            "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin "
            "Gang.");
  const int after_stop = ticks.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(ticks.load(), after_stop) << "no tick after Stop()";
}

}  // namespace
}  // namespace berth::scheduler
