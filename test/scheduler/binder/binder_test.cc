// SplitExecutor routing: tasks that may block (Permit waits, PreBind waiting for volumes) go to
// the elastic pool, ordinary bindings to the fixed one.

#include "scheduler/binder/binder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <system_error>
#include <thread>

#include "base/fault_counters.h"

namespace berth::binder {
namespace {

TEST(SplitExecutorTest, BlockingPreBindGoesToTheWaitingPool) {
  DeferredExecutor plain;
  DeferredExecutor waiting;
  SplitExecutor split(plain, waiting);
  int ran = 0;
  split.Submit(BindingTask{nullptr, [&] { ++ran; }});
  BindingTask blocking{nullptr, [&] { ran += 10; }};
  blocking.may_block = true;
  split.Submit(std::move(blocking));
  EXPECT_EQ(plain.Held(), 1u);
  EXPECT_EQ(waiting.Held(), 1u);
  EXPECT_EQ(waiting.RunReady(), 1);
  EXPECT_EQ(ran, 10);
  EXPECT_EQ(plain.RunReady(), 1);
  EXPECT_EQ(ran, 11);
}

// A task that throws (a fault outside the binding cycle's own error handling, e.g. out of file
// descriptors) does not escape the worker thread (std::terminate): it is logged, counted as done,
// and the pool goes on with the next task.
uint64_t RecoveredInBinding() {
  for (const FaultCount& c : FaultCounts()) {
    if (c.fault == Fault::kRecoveredException && c.where == "binding") return c.count;
  }
  return 0;
}

TEST(ThreadPoolExecutorTest, ATaskThatThrowsDoesNotKillTheWorker) {
  const uint64_t before = RecoveredInBinding();
  ThreadPoolExecutor pool(1, 1);
  std::atomic<int> ran{0};
  pool.Submit(BindingTask{
      nullptr, [] { throw std::system_error(EMFILE, std::generic_category(), "socket"); }});
  pool.Submit(BindingTask{nullptr, [&] { ++ran; }});
  for (int i = 0; i < 500 && pool.InFlight() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(pool.InFlight(), 0u);
  EXPECT_EQ(ran.load(), 1);
  // berth_recovered_exceptions_total{thread="binding"} counts it.
  EXPECT_EQ(RecoveredInBinding(), before + 1);
}

}  // namespace
}  // namespace berth::binder
