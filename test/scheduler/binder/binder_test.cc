// SplitExecutor routing: tasks that may block (Permit waits, PreBind waiting for volumes) go to
// the elastic pool, ordinary bindings to the fixed one.

#include "scheduler/binder/binder.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace berth::binder
