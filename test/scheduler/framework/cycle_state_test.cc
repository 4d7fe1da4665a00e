#include "scheduler/framework/cycle_state.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace berth::framework {
namespace {

struct Counter : StateData {
  explicit Counter(int v) : value(v) {}
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<Counter>(value); }
  int value;
};

TEST(StateKeyTest, SameNameInternsToSameId) {
  StateKey a("CycleStateTest/Same");
  StateKey b("CycleStateTest/Same");
  StateKey c("CycleStateTest/Other");
  EXPECT_EQ(a.id(), b.id());
  EXPECT_NE(a.id(), c.id());
  EXPECT_EQ(a.name(), "CycleStateTest/Same");
  EXPECT_EQ(c.name(), "CycleStateTest/Other");
}

TEST(StateKeyTest, ConcurrentInterningAgrees) {
  std::vector<int> ids(8, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&ids, t] { ids[t] = StateKey("CycleStateTest/Concurrent").id(); });
  }
  for (auto& th : threads) th.join();
  for (int id : ids) EXPECT_EQ(id, ids[0]);
}

TEST(CycleStateTest, ReadOfUnwrittenKeyIsNull) {
  static const StateKey kKey("CycleStateTest/Unwritten");
  CycleState state;
  EXPECT_EQ(state.ReadRaw(kKey), nullptr);
  EXPECT_EQ(state.Read<Counter>(kKey), nullptr);
}

TEST(CycleStateTest, WriteReadOverwriteDelete) {
  static const StateKey kKey("CycleStateTest/RW");
  static const StateKey kOther("CycleStateTest/RWOther");
  CycleState state;
  state.Write(kKey, std::make_unique<Counter>(1));
  ASSERT_NE(state.Read<Counter>(kKey), nullptr);
  EXPECT_EQ(state.Read<Counter>(kKey)->value, 1);
  EXPECT_EQ(state.Read<Counter>(kOther), nullptr);

  state.Write(kKey, std::make_unique<Counter>(2));
  EXPECT_EQ(state.Read<Counter>(kKey)->value, 2);

  state.Delete(kKey);
  EXPECT_EQ(state.Read<Counter>(kKey), nullptr);
  state.Delete(kOther);  // deleting an absent key is harmless
  EXPECT_EQ(state.Read<Counter>(kOther), nullptr);
}

// What only the scheduling cycle reads is dropped before the binding cycle; the rest stays for
// Reserve, PreBind, Bind and Unreserve.
TEST(CycleStateTest, DropSchedulingCycleOnlyKeepsBindingData) {
  struct FilterOnly : Counter {
    using Counter::Counter;
    bool SchedulingCycleOnly() const override { return true; }
  };
  static const StateKey kFilter("CycleStateTest/FilterOnly");
  static const StateKey kBinding("CycleStateTest/ForBinding");
  CycleState state;
  state.Write(kFilter, std::make_unique<FilterOnly>(1));
  state.Write(kBinding, std::make_unique<Counter>(2));
  state.DropSchedulingCycleOnly();
  EXPECT_EQ(state.Read<Counter>(kFilter), nullptr);
  ASSERT_NE(state.Read<Counter>(kBinding), nullptr);
  EXPECT_EQ(state.Read<Counter>(kBinding)->value, 2);
}

TEST(CycleStateTest, CloneIsDeep) {
  static const StateKey kKey("CycleStateTest/Clone");
  static const StateKey kEmpty("CycleStateTest/CloneEmpty");
  CycleState state;
  state.Write(kKey, std::make_unique<Counter>(7));
  state.Write(kEmpty, std::make_unique<Counter>(0));
  state.Delete(kEmpty);
  state.skip_filter_plugins.insert("NodePorts");
  state.skip_score_plugins.insert("ImageLocality");
  state.skip_filter_mask = 0b101;
  state.record_plugin_metrics = true;
  state.pods_to_activate.insert("ns/p");

  std::unique_ptr<CycleState> copy = state.Clone();
  ASSERT_NE(copy->Read<Counter>(kKey), nullptr);
  EXPECT_EQ(copy->Read<Counter>(kKey)->value, 7);
  EXPECT_NE(copy->Read<Counter>(kKey), state.Read<Counter>(kKey));
  EXPECT_EQ(copy->Read<Counter>(kEmpty), nullptr);
  EXPECT_EQ(copy->skip_filter_plugins, state.skip_filter_plugins);
  EXPECT_EQ(copy->skip_score_plugins, state.skip_score_plugins);
  EXPECT_EQ(copy->skip_filter_mask, 0b101u);
  EXPECT_TRUE(copy->record_plugin_metrics);
  EXPECT_EQ(copy->pods_to_activate, state.pods_to_activate);

  // Changing the copy (as preemption's dry runs do) leaves the original alone.
  copy->Read<Counter>(kKey)->value = 99;
  copy->skip_filter_plugins.insert("Other");
  EXPECT_EQ(state.Read<Counter>(kKey)->value, 7);
  EXPECT_EQ(state.skip_filter_plugins.size(), 1u);
}

TEST(CycleStateTest, ConcurrentReadsSeeTheWrittenData) {
  static const StateKey kKey("CycleStateTest/ConcurrentRead");
  CycleState state;
  state.Write(kKey, std::make_unique<Counter>(42));
  std::vector<int> seen(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) seen[t] += state.Read<Counter>(kKey)->value == 42 ? 1 : 0;
    });
  }
  for (auto& th : threads) th.join();
  for (int s : seen) EXPECT_EQ(s, 1000);
}

}  // namespace
}  // namespace berth::framework
