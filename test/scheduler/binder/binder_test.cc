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

// max_queued: Submit waits while that many tasks wait for a worker, and goes on once one is
// taken; a task that submits to its own pool does not wait (it would hold the worker that has
// to drain the queue).
TEST(ThreadPoolExecutorTest, SubmitWaitsWhileTheQueueIsFull) {
  ThreadPoolExecutor pool(1, 1, 2);
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  auto blocked = [&] {
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++ran;
  };
  pool.Submit(BindingTask{nullptr, blocked});  // taken by the worker
  while (pool.InFlight() != 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  pool.Submit(BindingTask{nullptr, [&] { ++ran; }});  // queued: 1
  pool.Submit(BindingTask{nullptr, [&] {
                            ++ran;
                            // Two wait behind this one at most; this Submit must not wait.
                            pool.Submit(BindingTask{nullptr, [&] { ++ran; }});
                          }});  // queued: 2
  std::atomic<bool> third_submitted{false};
  std::thread submitter([&] {
    pool.Submit(BindingTask{nullptr, [&] { ++ran; }});
    third_submitted = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(third_submitted.load());  // the queue is full
  release = true;
  submitter.join();
  EXPECT_TRUE(third_submitted.load());
  for (int i = 0; i < 500 && pool.InFlight() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(pool.InFlight(), 0u);
  EXPECT_EQ(ran.load(), 5);
}

}  // namespace
}  // namespace berth::binder
