#include "plugins/coscheduling/coscheduling.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/framework/plugin.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::coscheduling {
namespace {

using framework::Code;
using framework::Duration;
using framework::Status;
using framework::TimePoint;
using std::chrono::seconds;
using testing::MakeList;
using testing::MakeNode;
using testing::MakePod;

// A PodGroup in namespace "ns".
struct MakeGroup {
  explicit MakeGroup(std::string name, int32_t min_member) {
    pg.metadata.name = std::move(name);
    pg.metadata.namespace_ = "ns";
    pg.spec.min_member = min_member;
  }
  MakeGroup& Namespace(std::string ns) {
    pg.metadata.namespace_ = std::move(ns);
    return *this;
  }
  MakeGroup& MinResources(testing::ResPairs r) {
    pg.spec.min_resources = MakeList(r);
    return *this;
  }
  MakeGroup& Timeout(int32_t s) {
    pg.spec.schedule_timeout_seconds = s;
    return *this;
  }
  MakeGroup& Created(TimePoint t) {
    pg.metadata.creation_timestamp = api::Time{t.time_since_epoch().count()};
    return *this;
  }
  std::shared_ptr<const api::PodGroup> Ptr() const { return std::make_shared<api::PodGroup>(pg); }
  api::PodGroup pg;
};

// A pod of group `group` in namespace "ns" requesting 1 cpu.
MakePod GangPod(const std::string& name, const std::string& group, const std::string& cpu = "1") {
  MakePod p(name);
  p.Namespace("ns").Req({{"cpu", cpu}});
  if (!group.empty()) p.Label(api::kPodGroupLabel, group);
  return p;
}

class CoschedulingTest : public ::testing::Test {
 protected:
  // (Re)creates the plugin with these args (nullptr = defaults).
  void Build(const api::Value* args = nullptr) {
    framework::PluginContext ctx;
    ctx.args = args;
    ctx.args_path = "args";
    ctx.handle = &handle_;
    auto p = New(ctx);
    ASSERT_TRUE(p.ok()) << p.error();
    plugin_ = *p;
    sort_ = dynamic_cast<framework::QueueSortPlugin*>(plugin_.get());
    pre_filter_ = dynamic_cast<framework::PreFilterPlugin*>(plugin_.get());
    post_filter_ = dynamic_cast<framework::PostFilterPlugin*>(plugin_.get());
    permit_ = dynamic_cast<framework::PermitPlugin*>(plugin_.get());
    reserve_ = dynamic_cast<framework::ReservePlugin*>(plugin_.get());
    events_ = dynamic_cast<framework::EnqueueExtensions*>(plugin_.get());
    ASSERT_TRUE(sort_ && pre_filter_ && post_filter_ && permit_ && reserve_ && events_);
  }
  void SetUp() override { Build(); }

  void AddGroup(const MakeGroup& g) { handle_.mutable_objects().pod_groups.Upsert(g.Ptr()); }
  // Adds pods to the object store (as the informer would) and returns their infos.
  framework::PodInfoPtr Store(const MakePod& p) {
    auto info = p.Info();
    handle_.mutable_objects().pods.Upsert(info->pod);
    return info;
  }
  // A waiting pod registered with the handle, as the runtime does after Permit returned Wait.
  std::shared_ptr<framework::WaitingPod> Wait(framework::PodInfoPtr pod,
                                              const std::string& node = "n1") {
    const TimePoint now = handle_.clock().Now();
    auto wp = std::make_shared<framework::WaitingPod>(
        std::move(pod), node, std::map<std::string, TimePoint>{{kName, now + seconds(60)}}, now);
    handle_.AddWaitingPod(wp);
    return wp;
  }

  Status PreFilter(const framework::PodInfo& pod) {
    framework::CycleState state;
    framework::PreFilterResult result;
    return pre_filter_->PreFilter(state, pod, handle_.snapshot().List(), &result);
  }
  Status PostFilter(const framework::PodInfo& pod) {
    framework::CycleState state;
    framework::NodeToStatus statuses;
    framework::PostFilterResult result;
    Status s = post_filter_->PostFilter(state, pod, statuses, &result);
    EXPECT_EQ(result.mode, framework::PostFilterResult::Mode::kNoop);
    return s;
  }
  Status Permit(const framework::PodInfo& pod, Duration* timeout,
                std::set<std::string>* activated = nullptr) {
    framework::CycleState state;
    Status s = permit_->Permit(state, pod, "n1", timeout);
    if (activated) *activated = state.pods_to_activate;
    return s;
  }
  framework::QueuedPodInfo Queued(const MakePod& p, std::optional<TimePoint> initial = {}) {
    framework::QueuedPodInfo q;
    q.pod_info = p.Info();
    q.timestamp = handle_.clock().Now();
    q.initial_attempt_timestamp = initial;
    return q;
  }
  TimePoint Now() { return handle_.clock().Now(); }

  testing::FakeHandle handle_;
  std::shared_ptr<framework::Plugin> plugin_;
  framework::QueueSortPlugin* sort_ = nullptr;
  framework::PreFilterPlugin* pre_filter_ = nullptr;
  framework::PostFilterPlugin* post_filter_ = nullptr;
  framework::PermitPlugin* permit_ = nullptr;
  framework::ReservePlugin* reserve_ = nullptr;
  framework::EnqueueExtensions* events_ = nullptr;
};

// ---- args ----

api::Value Args(std::initializer_list<std::pair<const char*, int64_t>> fields) {
  api::Value v = api::Value::MakeObject();
  for (const auto& [k, n] : fields) v.Set(k, api::Value::Int(n));
  return v;
}

TEST(CoschedulingArgsTest, DefaultsAreUpstreams) {
  framework::PluginContext ctx;
  auto a = ParseArgs(ctx);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->permit_waiting_time_seconds, 60);
  EXPECT_EQ(a->pod_group_backoff_seconds, 0);
  EXPECT_EQ(a->pod_group_reject_percentage, 10);
}

TEST(CoschedulingArgsTest, ReadsEveryField) {
  api::Value v = Args({{"permitWaitingTimeSeconds", 10},
                       {"podGroupBackoffSeconds", 5},
                       {"podGroupRejectPercentage", 0}});
  framework::PluginContext ctx{&v, "profiles[0].pluginConfig[0].args", nullptr, ""};
  auto a = ParseArgs(ctx);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->permit_waiting_time_seconds, 10);
  EXPECT_EQ(a->pod_group_backoff_seconds, 5);
  EXPECT_EQ(a->pod_group_reject_percentage, 0);
}

TEST(CoschedulingArgsTest, InvalidValuesNameTheField) {
  struct Case {
    api::Value args;
    std::string want;
  };
  std::vector<Case> cases;
  cases.push_back({Args({{"permitWaitingTimeSeconds", -1}}),
                   "args.permitWaitingTimeSeconds: Invalid value: -1: must not be negative"});
  cases.push_back({Args({{"podGroupBackoffSeconds", -5}}),
                   "args.podGroupBackoffSeconds: Invalid value: -5: must not be negative"});
  cases.push_back({Args({{"podGroupRejectPercentage", 101}}),
                   "args.podGroupRejectPercentage: Invalid value: 101: must be between 0 and 100"});
  cases.push_back({Args({{"podGroupRejectPercentage", -1}}),
                   "args.podGroupRejectPercentage: Invalid value: -1: must be between 0 and 100"});
  for (const auto& c : cases) {
    framework::PluginContext ctx{&c.args, "args", nullptr, ""};
    auto a = ParseArgs(ctx);
    ASSERT_FALSE(a.ok()) << c.want;
    EXPECT_EQ(a.error(), c.want);
  }
}

TEST(CoschedulingArgsTest, UnknownFieldsAndWrongTypesAreRejected) {
  api::Value unknown = Args({{"deniedPGExpirationTimeSeconds", 3}});
  framework::PluginContext ctx{&unknown, "args", nullptr, ""};
  auto a = ParseArgs(ctx);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().find("deniedPGExpirationTimeSeconds"), std::string::npos) << a.error();

  api::Value wrong = api::Value::MakeObject();
  wrong.Set("permitWaitingTimeSeconds", api::Value::String("60"));
  ctx.args = &wrong;
  a = ParseArgs(ctx);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().find("args.permitWaitingTimeSeconds"), std::string::npos) << a.error();
}

TEST(CoschedulingArgsTest, FactoryNeedsAHandle) {
  framework::PluginContext ctx;
  ctx.args_path = "args";
  EXPECT_FALSE(New(ctx).ok());
}

TEST_F(CoschedulingTest, NameAndEvents) {
  EXPECT_EQ(plugin_->Name(), "Coscheduling");
  auto events = events_->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[0].event.action_type, framework::action::kAdd);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kPodGroup);
  EXPECT_EQ(events[1].event.action_type, framework::action::kAdd | framework::action::kUpdate);
  EXPECT_FALSE(events[0].hint);
  EXPECT_FALSE(events[1].hint);
}

// ---- QueueSort (upstream's TestLess, plus the failure time) ----

TEST_F(CoschedulingTest, LessOrdersByPriorityThenGroupTimeThenName) {
  const TimePoint t0 = Now();
  AddGroup(MakeGroup("pg1", 1).Namespace("ns1").Created(t0 + seconds(1)));
  AddGroup(MakeGroup("pg2", 1).Namespace("ns2").Created(t0 + seconds(2)));
  auto pod = [](const char* name, const char* ns, int32_t prio, const char* group = "") {
    MakePod p(name);
    p.Namespace(ns).Priority(prio);
    if (*group) p.Label(api::kPodGroupLabel, group);
    return p;
  };
  const int32_t low = 10, high = 100;
  struct Case {
    const char* name;
    framework::QueuedPodInfo a, b;
    bool want;
  };
  std::vector<Case> cases = {
      {"lower priority second", Queued(pod("p1", "ns1", low)), Queued(pod("p2", "ns2", high)),
       false},
      {"higher priority first", Queued(pod("p1", "ns1", high)), Queued(pod("p2", "ns2", low)),
       true},
      {"equal priority, earlier attempt first", Queued(pod("p1", "ns1", high), t0 + seconds(1)),
       Queued(pod("p2", "ns2", high), t0 + seconds(2)), true},
      {"equal priority, later attempt second", Queued(pod("p1", "ns1", high), t0 + seconds(2)),
       Queued(pod("p2", "ns2", high), t0 + seconds(1)), false},
      {"group pod with lower priority second", Queued(pod("p1", "ns1", low, "pg1")),
       Queued(pod("p2", "ns2", high)), false},
      {"group pod with higher priority first", Queued(pod("p1", "ns1", high, "pg1")),
       Queued(pod("p2", "ns2", low)), true},
      {"group created before the other pod's attempt",
       Queued(pod("p1", "ns1", high, "pg1"), t0 + seconds(5)),
       Queued(pod("p2", "ns2", high), t0 + seconds(2)), true},
      {"group created after the other pod's attempt",
       Queued(pod("p1", "ns2", high, "pg2"), t0 + seconds(1)),
       Queued(pod("p2", "ns2", high), t0 + seconds(1)), false},
      {"earlier group first", Queued(pod("p1", "ns2", high, "pg2"), t0),
       Queued(pod("p2", "ns1", high, "pg1"), t0 + seconds(9)), false},
      {"same group: by namespace/name", Queued(pod("b", "ns1", high, "pg1"), t0),
       Queued(pod("c", "ns1", high, "pg1"), t0 - seconds(9)), true},
      {"same time, no group: by namespace/name", Queued(pod("p1", "ns1", high), t0),
       Queued(pod("p1", "ns2", high), t0), true},
      {"missing group object: the pod's own time",
       Queued(pod("p1", "ns1", high, "nope"), t0 + seconds(3)),
       Queued(pod("p2", "ns1", high, "pg1"), t0), false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(sort_->Less(c.a, c.b), c.want) << c.name;
  }
}

TEST_F(CoschedulingTest, LessUsesTheQueueTimestampBeforeTheFirstAttempt) {
  auto a = Queued(MakePod("a").Namespace("ns"));
  auto b = Queued(MakePod("b").Namespace("ns"));
  a.timestamp = Now() + seconds(2);
  b.timestamp = Now() + seconds(1);
  EXPECT_FALSE(sort_->Less(a, b));
  EXPECT_TRUE(sort_->Less(b, a));
}

TEST_F(CoschedulingTest, AFailedGroupSortsByItsFailureTime) {
  const TimePoint t0 = Now();
  AddGroup(MakeGroup("early", 3).Created(t0 - seconds(100)));
  AddGroup(MakeGroup("late", 3).Created(t0 - seconds(50)));
  auto early = Queued(GangPod("early-0", "early"));
  auto late = Queued(GangPod("late-0", "late"));
  EXPECT_TRUE(sort_->Less(early, late));
  // The early group fails now (PostFilter with nothing assigned): it goes behind the late one.
  Store(GangPod("early-0", "early"));
  EXPECT_EQ(PostFilter(*early.pod_info).code(), Code::kUnschedulable);
  EXPECT_FALSE(sort_->Less(early, late));
  EXPECT_TRUE(sort_->Less(late, early));
  // Siblings stay adjacent: both members of the failed group share its time.
  auto early1 = Queued(GangPod("early-1", "early"));
  EXPECT_TRUE(sort_->Less(early, early1));
  // Once the group is allowed in Permit the failure is forgotten.
  AddGroup(MakeGroup("early", 1).Created(t0 - seconds(100)));
  Duration timeout{};
  EXPECT_TRUE(Permit(*early.pod_info, &timeout).IsSuccess());
  EXPECT_TRUE(sort_->Less(early, late));
}

// ---- PreFilter ----

TEST_F(CoschedulingTest, PreFilterIgnoresPodsWithoutAGroupOrWithAMissingOne) {
  EXPECT_TRUE(PreFilter(*GangPod("p", "").Info()).IsSuccess());
  EXPECT_TRUE(PreFilter(*Store(GangPod("p", "ghost"))).IsSuccess());
}

TEST_F(CoschedulingTest, PreFilterRejectsTooFewSiblingsWithTheSeedMessage) {
  AddGroup(MakeGroup("pg", 3));
  auto p0 = Store(GangPod("pg-0", "pg"));
  Store(GangPod("pg-1", "pg"));
  Store(GangPod("other", "other-group"));
  Store(GangPod("pg-x", "pg").Namespace("elsewhere"));  // same label, other namespace
  Status s = PreFilter(*p0);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(),
            "pre-filter pod pg-0 cannot find enough sibling pods, current pods number: 2, "
            "minMember of group: 3");
  Store(GangPod("pg-2", "pg"));
  EXPECT_TRUE(PreFilter(*p0).IsSuccess());
}

TEST_F(CoschedulingTest, PreFilterChecksMinResourcesAgainstFreeCapacity) {
  auto busy = MakePod("busy").Namespace("other").Node("n1").Req({{"cpu", "2"}}).Info();
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "4"}, {"memory", "4Gi"}}).Info({busy}),
                    MakeNode("n2").Capacity({{"cpu", "1"}, {"memory", "1Gi"}}).Info()});
  AddGroup(MakeGroup("pg", 2).MinResources({{"cpu", "4"}, {"memory", "6Gi"}}));
  auto p0 = Store(GangPod("pg-0", "pg"));
  Store(GangPod("pg-1", "pg"));
  // Free: cpu 2 + 1 = 3, memory 4Gi + 1Gi = 5Gi, pods plenty.
  Status s = PreFilter(*p0);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "resource gap: map[cpu:1 memory:1Gi]");
}

TEST_F(CoschedulingTest, PreFilterCountsPodSlotsAsMinMember) {
  auto busy = MakePod("busy").Namespace("other").Node("n1").Info();
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "8"}, {"pods", "2"}}).Info({busy})});
  AddGroup(MakeGroup("pg", 3).MinResources({{"cpu", "3"}}));
  auto p0 = Store(GangPod("pg-0", "pg"));
  Store(GangPod("pg-1", "pg"));
  Store(GangPod("pg-2", "pg"));
  EXPECT_EQ(PreFilter(*p0).Message(), "resource gap: map[pods:2]");
}

TEST_F(CoschedulingTest, PreFilterCountsWhatTheGroupHoldsAsAvailable) {
  // The group's own pod holds 2 of the node's 4 cpu; another pod holds 1.
  auto mine = GangPod("pg-0", "pg", "2").Node("n1").Info();
  auto theirs = MakePod("x").Namespace("ns").Node("n1").Req({{"cpu", "1"}}).Info();
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "4"}}).Info({mine, theirs})});
  AddGroup(MakeGroup("pg", 2).MinResources({{"cpu", "3"}}));
  handle_.mutable_objects().pods.Upsert(mine->pod);
  auto p1 = Store(GangPod("pg-1", "pg"));
  EXPECT_TRUE(PreFilter(*p1).IsSuccess());
  AddGroup(MakeGroup("pg", 2).MinResources({{"cpu", "3500m"}}));
  Build();  // a fresh plugin: nothing cached
  EXPECT_EQ(PreFilter(*p1).Message(), "resource gap: map[cpu:500m]");
}

TEST_F(CoschedulingTest, PreFilterCachesAPassForThePermitWaitingTime) {
  api::Value args = Args({{"permitWaitingTimeSeconds", 20}});
  Build(&args);
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "4"}}).Info()});
  AddGroup(MakeGroup("pg", 1).MinResources({{"cpu", "4"}}));
  auto p0 = Store(GangPod("pg-0", "pg"));
  EXPECT_TRUE(PreFilter(*p0).IsSuccess());
  // The cluster fills up, but the group passed recently: the check is skipped.
  auto busy = MakePod("busy").Namespace("other").Node("n1").Req({{"cpu", "3"}}).Info();
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "4"}}).Info({busy})});
  EXPECT_TRUE(PreFilter(*p0).IsSuccess());
  handle_.fake_clock().Advance(seconds(19));
  EXPECT_TRUE(PreFilter(*p0).IsSuccess());
  handle_.fake_clock().Advance(seconds(1));
  EXPECT_EQ(PreFilter(*p0).Message(), "resource gap: map[cpu:3]");
}

TEST_F(CoschedulingTest, PostFilterAndUnreserveClearThePermittedMark) {
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "4"}}).Info()});
  AddGroup(MakeGroup("pg", 2).MinResources({{"cpu", "4"}}));
  auto p0 = Store(GangPod("pg-0", "pg"));
  Store(GangPod("pg-1", "pg"));
  EXPECT_TRUE(PreFilter(*p0).IsSuccess());
  auto busy = MakePod("busy").Namespace("other").Node("n1").Req({{"cpu", "1"}}).Info();
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "4"}}).Info({busy})});
  EXPECT_TRUE(PreFilter(*p0).IsSuccess());  // cached
  EXPECT_EQ(PostFilter(*p0).code(), Code::kUnschedulable);
  EXPECT_EQ(PreFilter(*p0).Message(), "resource gap: map[cpu:1]");

  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "4"}}).Info()});
  EXPECT_TRUE(PreFilter(*p0).IsSuccess());
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "4"}}).Info({busy})});
  framework::CycleState state;
  reserve_->Unreserve(state, *p0, "n1");
  EXPECT_EQ(PreFilter(*p0).Message(), "resource gap: map[cpu:1]");
}

// Upstream's TestPodGroupBackoffTime: Permit waits and activates the siblings, PostFilter of a
// sibling backs the group off, and PreFilter of the third then says it failed recently.
TEST_F(CoschedulingTest, BackoffBlocksAFailedGroupForPodGroupBackoffSeconds) {
  api::Value args = Args({{"podGroupBackoffSeconds", 10}});
  Build(&args);
  AddGroup(MakeGroup("pg1", 3));
  auto p1 = Store(GangPod("pod1", "pg1"));
  auto p2 = Store(GangPod("pod2", "pg1"));
  auto p3 = Store(GangPod("pod3", "pg1"));
  Duration timeout{};
  std::set<std::string> activated;
  EXPECT_TRUE(Permit(*p1, &timeout, &activated).IsWait());
  EXPECT_EQ(activated, (std::set<std::string>{"ns/pod2", "ns/pod3"}));

  EXPECT_EQ(PostFilter(*p2).code(), Code::kUnschedulable);
  Status s = PreFilter(*p3);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "podGroup ns/pg1 failed recently");
  // A pod retrying into the backoff does not extend it.
  handle_.fake_clock().Advance(seconds(5));
  EXPECT_EQ(PostFilter(*p3).code(), Code::kUnschedulable);
  handle_.fake_clock().Advance(seconds(5));
  EXPECT_TRUE(PreFilter(*p3).IsSuccess());
}

TEST_F(CoschedulingTest, NoBackoffByDefaultOrWithoutAllMembers) {
  AddGroup(MakeGroup("pg", 2));
  auto p0 = Store(GangPod("pg-0", "pg"));
  auto p1 = Store(GangPod("pg-1", "pg"));
  EXPECT_EQ(PostFilter(*p0).code(), Code::kUnschedulable);
  EXPECT_TRUE(PreFilter(*p1).IsSuccess());  // podGroupBackoffSeconds = 0

  api::Value args = Args({{"podGroupBackoffSeconds", 10}});
  Build(&args);
  AddGroup(MakeGroup("pg", 3));  // only two of three pods exist
  EXPECT_EQ(PostFilter(*p0).code(), Code::kUnschedulable);
  EXPECT_NE(PreFilter(*p1).Message().find("cannot find enough sibling pods"), std::string::npos);
}

TEST_F(CoschedulingTest, UnreserveBacksOffWhenConfigured) {
  api::Value args = Args({{"podGroupBackoffSeconds", 3}});
  Build(&args);
  AddGroup(MakeGroup("pg", 2));
  auto p0 = Store(GangPod("pg-0", "pg"));
  auto p1 = Store(GangPod("pg-1", "pg"));
  framework::CycleState state;
  reserve_->Unreserve(state, *p0, "n1");
  EXPECT_EQ(PreFilter(*p1).Message(), "podGroup ns/pg failed recently");
  handle_.fake_clock().Advance(seconds(3));
  EXPECT_TRUE(PreFilter(*p1).IsSuccess());
}

// ---- Permit ----

TEST_F(CoschedulingTest, PermitPassesPodsWithoutAGroupAndRejectsAMissingGroup) {
  Duration timeout{};
  EXPECT_TRUE(Permit(*GangPod("p", "").Info(), &timeout).IsSuccess());
  Status s = Permit(*Store(GangPod("p", "ghost")), &timeout);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "PodGroup not found");
}

TEST_F(CoschedulingTest, PermitWaitTimeComesFromTheGroupThenTheArgsThenSixtySeconds) {
  struct Case {
    std::optional<int32_t> group_timeout;
    std::optional<int64_t> permit_waiting_time;
    Duration want;
  };
  std::vector<Case> cases = {
      {10, 30, seconds(10)},          {std::nullopt, 30, seconds(30)},
      {0, 30, seconds(30)},           {std::nullopt, std::nullopt, seconds(60)},
      {std::nullopt, 0, seconds(60)}, {0, 0, seconds(60)},
  };
  for (const auto& c : cases) {
    api::Value args = api::Value::MakeObject();
    if (c.permit_waiting_time) {
      args.Set("permitWaitingTimeSeconds", api::Value::Int(*c.permit_waiting_time));
    }
    Build(&args);
    MakeGroup g("pg", 2);
    if (c.group_timeout) g.Timeout(*c.group_timeout);
    AddGroup(g);
    auto p0 = Store(GangPod("pg-0", "pg"));
    Store(GangPod("pg-1", "pg"));
    Duration timeout{};
    EXPECT_TRUE(Permit(*p0, &timeout).IsWait());
    EXPECT_EQ(timeout, c.want) << (c.group_timeout ? *c.group_timeout : -1) << " "
                               << (c.permit_waiting_time ? *c.permit_waiting_time : -1);
  }
}

TEST_F(CoschedulingTest, PermitAllowsTheWholeGroupWhenAssignedReachMinMember) {
  AddGroup(MakeGroup("pg", 3));
  AddGroup(MakeGroup("other", 2));
  auto p0 = Store(GangPod("pg-0", "pg").Node("n1"));
  auto p1 = Store(GangPod("pg-1", "pg").Node("n1"));
  auto p2 = Store(GangPod("pg-2", "pg"));
  auto o0 = Store(GangPod("other-0", "other").Node("n1"));
  // pg-0 and pg-1 are assumed on n1 and waiting; other-0 waits for its own group.
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "8"}}).Info({p0, p1, o0})});
  auto w0 = Wait(p0), w1 = Wait(p1), wo = Wait(o0);
  Duration timeout{};
  std::set<std::string> activated;
  EXPECT_TRUE(Permit(*p2, &timeout, &activated).IsSuccess());
  EXPECT_TRUE(activated.empty());
  ASSERT_TRUE(w0->TryResult() && w1->TryResult());
  EXPECT_TRUE(w0->TryResult()->IsSuccess());
  EXPECT_TRUE(w1->TryResult()->IsSuccess());
  EXPECT_FALSE(wo->TryResult());
}

TEST_F(CoschedulingTest, PermitCountsWaitingPodsButNotRejectedOnes) {
  AddGroup(MakeGroup("pg", 3));
  auto p0 = Store(GangPod("pg-0", "pg").Node("n1"));
  auto p1 = Store(GangPod("pg-1", "pg").Node("n1"));
  auto p2 = Store(GangPod("pg-2", "pg"));
  // Not in the snapshot (assumed after it was taken), but waiting.
  auto w0 = Wait(p0);
  auto w1 = Wait(p1);
  w1->Reject(kName, "gone");
  Duration timeout{};
  std::set<std::string> activated;
  EXPECT_TRUE(Permit(*p2, &timeout, &activated).IsWait());  // 1 waiting + this = 2 < 3
  EXPECT_TRUE(activated.empty());                           // not the first member
  auto w1b = Wait(p1);                                      // pg-1 waits again
  EXPECT_TRUE(Permit(*p2, &timeout).IsSuccess());
  EXPECT_TRUE(w0->TryResult()->IsSuccess());
  EXPECT_TRUE(w1b->TryResult()->IsSuccess());
}

TEST_F(CoschedulingTest, PermitAllowsAtOnceWhenMinMemberIsOne) {
  AddGroup(MakeGroup("pg", 1));
  Duration timeout{};
  EXPECT_TRUE(Permit(*Store(GangPod("pg-0", "pg")), &timeout).IsSuccess());
}

TEST_F(CoschedulingTest, OnlyTheFirstMemberActivatesSiblings) {
  AddGroup(MakeGroup("pg", 3));
  auto p0 = Store(GangPod("pg-0", "pg"));
  auto p1 = Store(GangPod("pg-1", "pg"));
  Store(GangPod("pg-2", "pg"));
  Store(GangPod("pg-2", "pg").Namespace("elsewhere"));
  Duration timeout{};
  std::set<std::string> activated;
  EXPECT_TRUE(Permit(*p0, &timeout, &activated).IsWait());
  EXPECT_EQ(activated, (std::set<std::string>{"ns/pg-1", "ns/pg-2"}));
  Wait(p0);
  EXPECT_TRUE(Permit(*p1, &timeout, &activated).IsWait());
  EXPECT_TRUE(activated.empty());
}

TEST_F(CoschedulingTest, AGroupThatJustReleasedMembersDoesNotReactivateItsSiblings) {
  AddGroup(MakeGroup("pg", 3));
  auto p0 = Store(GangPod("pg-0", "pg"));
  auto p1 = Store(GangPod("pg-1", "pg"));
  auto p2 = Store(GangPod("pg-2", "pg"));
  auto w2 = Wait(p2);
  // pg-1 fits nowhere: PostFilter releases the waiting pg-2.
  EXPECT_EQ(PostFilter(*p1).code(), Code::kUnschedulable);
  ASSERT_TRUE(w2->TryResult());
  Duration timeout{};
  std::set<std::string> activated;
  EXPECT_TRUE(Permit(*p0, &timeout, &activated).IsWait());
  EXPECT_TRUE(activated.empty());
  handle_.fake_clock().Advance(kSiblingActivationQuietPeriod);
  EXPECT_TRUE(Permit(*p0, &timeout, &activated).IsWait());
  EXPECT_EQ(activated, (std::set<std::string>{"ns/pg-1", "ns/pg-2"}));

  // Unreserve releases too (the unreserved pod held a node).
  framework::CycleState state;
  reserve_->Unreserve(state, *p2, "n1");
  EXPECT_TRUE(Permit(*p0, &timeout, &activated).IsWait());
  EXPECT_TRUE(activated.empty());
}

// A group that failed without releasing anything (too few siblings: nobody was placed) still
// pulls its siblings forward when its last member arrives.
TEST_F(CoschedulingTest, AFailureThatReleasedNothingDoesNotBlockActivation) {
  AddGroup(MakeGroup("pg", 3));
  auto p0 = Store(GangPod("pg-0", "pg"));
  Store(GangPod("pg-1", "pg"));
  framework::CycleState state;
  framework::PreFilterResult pre;
  EXPECT_FALSE(pre_filter_->PreFilter(state, *p0, handle_.snapshot().List(), &pre).IsSuccess());
  framework::NodeToStatus statuses;
  framework::PostFilterResult post;
  EXPECT_EQ(post_filter_->PostFilter(state, *p0, statuses, &post).code(), Code::kUnschedulable);
  auto p2 = Store(GangPod("pg-2", "pg"));  // the third member is created
  Duration timeout{};
  std::set<std::string> activated;
  EXPECT_TRUE(Permit(*p2, &timeout, &activated).IsWait());
  EXPECT_EQ(activated, (std::set<std::string>{"ns/pg-0", "ns/pg-1"}));
}

// ---- PostFilter ----

TEST_F(CoschedulingTest, PostFilterWithoutAGroup) {
  Status s = PostFilter(*GangPod("p", "").Info());
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "");
  s = PostFilter(*Store(GangPod("p", "ghost")));
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "can not find pod group");
}

TEST_F(CoschedulingTest, PostFilterRejectsTheWaitingSiblings) {
  AddGroup(MakeGroup("pg", 3));
  AddGroup(MakeGroup("other", 2));
  auto p0 = Store(GangPod("pg-0", "pg").Node("n1"));
  auto p1 = Store(GangPod("pg-1", "pg"));
  auto o0 = Store(GangPod("other-0", "other").Node("n1"));
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "8"}}).Info({p0, o0})});
  auto w0 = Wait(p0), wo = Wait(o0);
  Status s = PostFilter(*p1);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(),
            "PodGroup ns/pg gets rejected due to Pod pg-1 is unschedulable even after PostFilter");
  ASSERT_TRUE(w0->TryResult());
  EXPECT_EQ(w0->TryResult()->code(), Code::kUnschedulable);
  EXPECT_EQ(w0->TryResult()->Message(), "optimistic rejection in PostFilter");
  EXPECT_EQ(w0->TryResult()->plugin(), "Coscheduling");
  EXPECT_FALSE(wo->TryResult());
}

TEST_F(CoschedulingTest, AfterItsOwnPreFilterRejectionPostFilterAddsNoMessage) {
  AddGroup(MakeGroup("pg", 3));
  auto p0 = Store(GangPod("pg-0", "pg").Node("n1"));
  auto p1 = Store(GangPod("pg-1", "pg"));
  auto w0 = Wait(p0);
  handle_.mutable_objects().pods.Remove("ns/pg-0");  // a member is deleted while p0 waits
  framework::CycleState state;
  framework::PreFilterResult pre;
  Status s = pre_filter_->PreFilter(state, *p1, handle_.snapshot().List(), &pre);
  EXPECT_NE(s.Message().find("cannot find enough sibling pods, current pods number: 1"),
            std::string::npos)
      << s.Message();
  framework::NodeToStatus statuses;
  framework::PostFilterResult post;
  s = post_filter_->PostFilter(state, *p1, statuses, &post);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "");
  // The group is still rejected as a whole.
  ASSERT_TRUE(w0->TryResult());
  EXPECT_EQ(w0->TryResult()->Message(), "optimistic rejection in PostFilter");
}

TEST_F(CoschedulingTest, PostFilterLeavesAGroupThatHasEnoughMembers) {
  AddGroup(MakeGroup("pg", 2));
  auto p0 = Store(GangPod("pg-0", "pg").Node("n1"));
  auto p1 = Store(GangPod("pg-1", "pg").Node("n1"));
  auto p2 = Store(GangPod("pg-2", "pg"));
  handle_.SetNodes({MakeNode("n1").Capacity({{"cpu", "8"}}).Info({p0, p1})});
  auto w0 = Wait(p0);
  Status s = PostFilter(*p2);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "");
  EXPECT_FALSE(w0->TryResult());
}

TEST_F(CoschedulingTest, PostFilterToleratesAGapWithinTheRejectPercentage) {
  // minMember 10 with 9 assigned: a 10% gap, within the default 10%.
  AddGroup(MakeGroup("pg", 10));
  std::vector<framework::PodInfoPtr> placed;
  for (int i = 0; i < 9; ++i) {
    placed.push_back(Store(GangPod("pg-" + std::to_string(i), "pg").Node("n1")));
  }
  auto last = Store(GangPod("pg-9", "pg"));
  framework::NodeInfo n1 = MakeNode("n1").Capacity({{"cpu", "16"}}).Info();
  for (const auto& p : placed) n1.AddPod(p);
  handle_.SetNodes({});
  std::vector<framework::NodeInfo> nodes;
  nodes.push_back(std::move(n1));
  handle_.SetNodes(std::move(nodes));
  auto w0 = Wait(placed[0]);
  Status s = PostFilter(*last);
  EXPECT_EQ(s.Message(), "");
  EXPECT_FALSE(w0->TryResult());

  // With podGroupRejectPercentage 0 the same gap rejects the group.
  api::Value args = Args({{"podGroupRejectPercentage", 0}});
  Build(&args);
  s = PostFilter(*last);
  EXPECT_EQ(s.Message(),
            "PodGroup ns/pg gets rejected due to Pod pg-9 is unschedulable even after PostFilter");
  EXPECT_EQ(w0->TryResult()->Message(), "optimistic rejection in PostFilter");
}

TEST_F(CoschedulingTest, PostFilterRejectsWhenTheGapExceedsThePercentage) {
  // minMember 10 with 8 assigned: 20% > 10%.
  AddGroup(MakeGroup("pg", 10));
  framework::NodeInfo n1 = MakeNode("n1").Capacity({{"cpu", "16"}}).Info();
  std::vector<std::shared_ptr<framework::WaitingPod>> waiting;
  for (int i = 0; i < 8; ++i) {
    auto p = Store(GangPod("pg-" + std::to_string(i), "pg").Node("n1"));
    n1.AddPod(p);
    waiting.push_back(Wait(p));
  }
  std::vector<framework::NodeInfo> nodes;
  nodes.push_back(std::move(n1));
  handle_.SetNodes(std::move(nodes));
  auto p8 = Store(GangPod("pg-8", "pg"));
  EXPECT_NE(PostFilter(*p8).Message(), "");
  for (const auto& w : waiting) EXPECT_TRUE(w->TryResult() && !w->TryResult()->IsSuccess());
}

// ---- Reserve / Unreserve ----

TEST_F(CoschedulingTest, ReserveIsANoOp) {
  framework::CycleState state;
  EXPECT_TRUE(reserve_->Reserve(state, *GangPod("p", "pg").Info(), "n1").IsSuccess());
}

TEST_F(CoschedulingTest, UnreserveRejectsTheWaitingSiblingsAndMarksTheGroupFailed) {
  const TimePoint t0 = Now();
  AddGroup(MakeGroup("pg", 3).Created(t0 - seconds(100)));
  AddGroup(MakeGroup("other", 2).Created(t0 - seconds(50)));
  auto p0 = Store(GangPod("pg-0", "pg"));
  auto p1 = Store(GangPod("pg-1", "pg"));
  auto p2 = Store(GangPod("pg-2", "pg"));
  auto o0 = Store(GangPod("other-0", "other"));
  auto w1 = Wait(p1), w2 = Wait(p2), wo = Wait(o0);
  EXPECT_TRUE(sort_->Less(Queued(GangPod("pg-0", "pg")), Queued(GangPod("other-0", "other"))));

  framework::CycleState state;
  reserve_->Unreserve(state, *p0, "n1");
  for (const auto& w : {w1, w2}) {
    ASSERT_TRUE(w->TryResult());
    EXPECT_EQ(w->TryResult()->code(), Code::kUnschedulable);
    EXPECT_EQ(w->TryResult()->Message(), "rejection in Unreserve");
    EXPECT_EQ(w->TryResult()->plugin(), "Coscheduling");
  }
  EXPECT_FALSE(wo->TryResult());
  // Marked failed now: it sorts after the group created 50 s ago.
  EXPECT_FALSE(sort_->Less(Queued(GangPod("pg-0", "pg")), Queued(GangPod("other-0", "other"))));
  // Idempotent, and harmless for pods outside any group.
  reserve_->Unreserve(state, *p0, "n1");
  reserve_->Unreserve(state, *GangPod("lonely", "").Info(), "n1");
  reserve_->Unreserve(state, *Store(GangPod("ghost-0", "ghost")), "n1");
}

// Less runs under the queue lock on other threads while binding workers unreserve.
TEST_F(CoschedulingTest, LessAndUnreserveMayRunConcurrently) {
  AddGroup(MakeGroup("pg", 3).Created(Now()));
  auto p0 = Store(GangPod("pg-0", "pg"));
  auto a = Queued(GangPod("pg-0", "pg"));
  auto b = Queued(GangPod("pg-1", "pg"));
  std::thread unreserve([&] {
    framework::CycleState state;
    for (int i = 0; i < 2000; ++i) {
      reserve_->Unreserve(state, *p0, "n1");
      handle_.fake_clock().Advance(seconds(1));
    }
  });
  for (int i = 0; i < 2000; ++i) {
    EXPECT_TRUE(sort_->Less(a, b));
    EXPECT_FALSE(sort_->Less(b, a));
  }
  unreserve.join();
}

}  // namespace
}  // namespace berth::plugins::coscheduling
