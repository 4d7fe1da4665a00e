#include "plugins/priority_sort/priority_sort.h"

#include <gtest/gtest.h>

#include <chrono>

#include "test/testing/builders.h"

namespace berth::plugins::priority_sort {
namespace {

using testing::MakePod;

framework::QueuedPodInfo Queued(std::optional<int32_t> priority, int64_t ts_seconds,
                                uint64_t seq = 0) {
  MakePod b("p" + std::to_string(seq));
  if (priority) b.Priority(*priority);
  framework::QueuedPodInfo q;
  q.pod_info = b.Info();
  q.timestamp = framework::TimePoint(std::chrono::seconds(ts_seconds));
  q.seq = seq;
  return q;
}

std::shared_ptr<framework::QueueSortPlugin> MakePlugin() {
  auto p = New(framework::PluginContext{});
  EXPECT_TRUE(p.ok());
  auto sort = std::dynamic_pointer_cast<framework::QueueSortPlugin>(*p);
  EXPECT_NE(sort, nullptr);
  return sort;
}

TEST(PrioritySortTest, Name) { EXPECT_EQ(MakePlugin()->Name(), "PrioritySort"); }

// Upstream's TestLess cases.
TEST(PrioritySortTest, Less) {
  const int32_t low = 0;
  const int32_t high = 1000;
  struct Case {
    const char* name;
    framework::QueuedPodInfo a, b;
    bool want;
  };
  const std::vector<Case> cases = {
      {"p1.priority less than p2.priority", Queued(low, 100), Queued(high, 100), false},
      {"p1.priority greater than p2.priority", Queued(high, 100), Queued(low, 100), true},
      {"equal priority. p1 is added to schedulingQ earlier than p2", Queued(high, 100),
       Queued(high, 200), true},
      {"equal priority. p2 is added to schedulingQ earlier than p1", Queued(high, 200),
       Queued(high, 100), false},
      // Berth's deterministic tie-break on insertion order.
      {"equal priority and timestamp: lower seq first", Queued(high, 100, 1), Queued(high, 100, 2),
       true},
      {"equal priority and timestamp: higher seq second", Queued(high, 100, 2),
       Queued(high, 100, 1), false},
      {"no priority counts as 0", Queued(std::nullopt, 100), Queued(-1, 100), true},
      {"negative priority is lower than unset", Queued(-1, 100), Queued(std::nullopt, 200), false},
  };
  auto plugin = MakePlugin();
  for (const auto& c : cases) {
    EXPECT_EQ(plugin->Less(c.a, c.b), c.want) << c.name;
  }
}

TEST(PrioritySortTest, IrreflexiveOnIdenticalEntries) {
  auto plugin = MakePlugin();
  auto a = Queued(5, 100, 7);
  EXPECT_FALSE(plugin->Less(a, a));
}

}  // namespace
}  // namespace berth::plugins::priority_sort
