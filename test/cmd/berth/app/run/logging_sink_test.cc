// LoggingSink: outcomes go on to the next sink, and an attempt's start is kept only until its
// outcome (a pod that failed and was then deleted used to keep its entry for the life of the
// process).

#include "cmd/berth/app/run/logging_sink.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/recording_sink.h"

namespace berth::run {
namespace {

using berth::testing::MakePod;
using berth::testing::RecordingSink;

TEST(LoggingSinkTest, OutcomesArePassedOnInOrder) {
  RecordingSink next;
  LoggingSink sink(next);
  auto a = MakePod("a").Namespace("shop").Info();
  auto b = MakePod("b").Namespace("shop").Info();
  sink.Attempted(*a);
  sink.Scheduled(*a, "n1", "berth-scheduler");
  sink.Attempted(*b);
  sink.Failed(*b, "Unschedulable", "0/1 nodes are available: 1 Insufficient cpu.",
              "berth-scheduler");
  auto got = next.Outcomes();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].pod, "shop/a");
  EXPECT_EQ(got[0].kind, "Scheduled");
  EXPECT_EQ(got[0].node, "n1");
  EXPECT_EQ(got[1].pod, "shop/b");
  EXPECT_EQ(got[1].reason, "Unschedulable");
  EXPECT_EQ(got[1].message, "0/1 nodes are available: 1 Insufficient cpu.");
}

// Every pod that fails (and is then deleted, so it is never attempted again) must leave nothing.
TEST(LoggingSinkTest, FailedAttemptsLeaveNoEntryBehind) {
  RecordingSink next;
  LoggingSink sink(next);
  for (int i = 0; i < 1000; ++i) {
    auto pod = MakePod("p" + std::to_string(i)).Info();
    sink.Attempted(*pod);
    sink.Failed(*pod, i % 2 ? "Unschedulable" : "SchedulerError", "no", "berth-scheduler");
  }
  EXPECT_EQ(sink.pending(), 0u);
  auto bound = MakePod("bound").Info();
  sink.Attempted(*bound);
  EXPECT_EQ(sink.pending(), 1u);  // waiting for its binding cycle
  sink.Scheduled(*bound, "n1", "berth-scheduler");
  EXPECT_EQ(sink.pending(), 0u);
}

// A pod attempted again (after a failure whose outcome this sink saw, or not) keeps one entry.
TEST(LoggingSinkTest, RetriesOfOnePodKeepOneEntry) {
  RecordingSink next;
  LoggingSink sink(next);
  auto pod = MakePod("p").Info();
  for (int i = 0; i < 100; ++i) sink.Attempted(*pod);
  EXPECT_EQ(sink.pending(), 1u);
}

}  // namespace
}  // namespace berth::run
