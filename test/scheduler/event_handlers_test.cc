// The informer event handlers (scheduler/event_handlers.cc), modelled on upstream's
// eventhandlers_test.go: which pods go to the queue and which to the cache, how node events move
// unschedulable pods through the plugins' queueing hints, and how a binding is confirmed.

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "test/testing/scheduler_harness.h"

namespace berth::scheduler {
namespace {

using framework::ClusterEvent;
using framework::EventResource;
using framework::NodeInfo;
using framework::PodInfo;
using framework::QueueingHint;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;
using testing::SchedulerHarness;
namespace action = framework::action;

// ---- pods: queue or cache ----

struct AddPodCase {
  std::string name;
  MakePod pod;
  bool want_queued;
  size_t want_cached;
};
void PrintTo(const AddPodCase& c, std::ostream* os) { *os << c.name; }

class AddPodTest : public ::testing::TestWithParam<AddPodCase> {};

TEST_P(AddPodTest, GoesToTheQueueOrTheCache) {
  const AddPodCase& tc = GetParam();
  SchedulerHarness h;
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(tc.pod);
  const std::string key = tc.pod.Obj().Key();
  EXPECT_EQ(h.queue().Has(key), tc.want_queued);
  EXPECT_EQ(h.sched().cache().PodCount(), tc.want_cached);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AddPodTest,
    ::testing::Values(
        AddPodCase{"PendingOurs", MakePod("p"), true, 0},
        AddPodCase{"PendingOtherScheduler", MakePod("p").SchedulerName("default-scheduler"), false,
                   0},
        AddPodCase{"BoundOurs", MakePod("p").Node("n1"), false, 1},
        // Every bound pod uses its node's resources, whoever scheduled it.
        AddPodCase{"BoundOtherScheduler",
                   MakePod("p").SchedulerName("default-scheduler").Node("n1"), false, 1},
        // Upstream's informer does not list terminal pods (status.phase field selector).
        AddPodCase{"BoundSucceeded",
                   [] {
                     MakePod p("p");
                     p.Node("n1").Mutable().status.phase = "Succeeded";
                     return p;
                   }(),
                   false, 0}),
    [](const ::testing::TestParamInfo<AddPodCase>& info) { return info.param.name; });

TEST(EventHandlersTest, UpdateOfAPendingPodReplacesTheQueuedVersion) {
  SchedulerHarness h;
  h.Start();
  auto old_pod = h.Submit(MakePod("p"));
  auto new_pod = MakePod("p").Label("app", "web").Ptr();
  h.sched().UpdatePod(*old_pod, new_pod);
  auto popped = h.queue().TryPop();
  ASSERT_NE(popped, nullptr);
  EXPECT_EQ(popped->Pod().metadata.labels.at("app"), "web");
  EXPECT_EQ(h.queue().TryPop(), nullptr) << "one entry per pod";
}

TEST(EventHandlersTest, PendingPodHandedToAnotherSchedulerLeavesTheQueue) {
  SchedulerHarness h;
  h.Start();
  auto old_pod = h.Submit(MakePod("p"));
  h.sched().UpdatePod(*old_pod, MakePod("p").SchedulerName("default-scheduler").Ptr());
  EXPECT_FALSE(h.queue().Has("default/p"));
}

TEST(EventHandlersTest, PendingPodBoundBySomeoneElseMovesToTheCache) {
  SchedulerHarness h;
  h.Start();
  h.AddNodes({"n1"});
  auto old_pod = h.Submit(MakePod("p"));
  h.sched().UpdatePod(*old_pod, MakePod("p").Node("n1").Ptr());
  EXPECT_FALSE(h.queue().Has("default/p"));
  EXPECT_EQ(h.sched().cache().PodCount(), 1u);
  EXPECT_FALSE(h.ScheduleOne());
}

TEST(EventHandlersTest, BoundPodThatTerminatesLeavesTheCache) {
  SchedulerHarness h;
  h.Start();
  h.AddNodes({"n1"});
  auto bound = h.Submit(MakePod("p").Node("n1"));
  ASSERT_EQ(h.sched().cache().PodCount(), 1u);
  MakePod done("p");
  done.Node("n1").Mutable().status.phase = "Failed";
  h.sched().UpdatePod(*bound, done.Ptr());
  EXPECT_EQ(h.sched().cache().PodCount(), 0u);
}

TEST(EventHandlersTest, DeleteRemovesFromTheQueueAndTheCache) {
  SchedulerHarness h;
  h.Start();
  h.AddNodes({"n1"});
  auto pending = h.Submit(MakePod("pending"));
  auto bound = h.Submit(MakePod("bound").Node("n1"));
  ASSERT_TRUE(h.queue().Has("default/pending"));
  ASSERT_EQ(h.sched().cache().PodCount(), 1u);

  h.sched().DeletePod(*pending);
  EXPECT_FALSE(h.queue().Has("default/pending"));
  h.sched().DeletePod(*bound);
  EXPECT_EQ(h.sched().cache().PodCount(), 0u);
  EXPECT_FALSE(h.ScheduleOne());
}

TEST(EventHandlersTest, PodDeletedInFlightIsNotRequeued) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [&h](const PodInfo& pod, const NodeInfo&) {
    h.objects().pods.Remove(pod.Pod().Key());
    h.sched().DeletePod(pod.Pod());  // the informer's delete arrives mid-cycle
    return Status::Unschedulable("Insufficient cpu");
  };
  h.Enable(&config::Plugins::filter, "Fit");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_FALSE(h.queue().Has("default/p"));
  EXPECT_EQ(h.queue().Counts().unschedulable + h.queue().Counts().backoff, 0);
}

TEST(EventHandlersTest, DeletingAWaitingPodRejectsItAndReleasesItsNode) {
  SchedulerHarness h;
  h.Plugin("Gang").permit = [](const std::string&, framework::Duration* timeout) {
    *timeout = std::chrono::minutes(1);
    return Status::Wait();
  };
  h.Enable(&config::Plugins::reserve, "Gang");
  h.Enable(&config::Plugins::permit, "Gang");
  h.Start();
  h.AddNodes({"n1"});
  auto pod = h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  ASSERT_EQ(h.sched().NumWaitingPods(), 1u);
  ASSERT_EQ(h.sched().cache().AssumedPodCount(), 1u);

  h.objects().pods.Remove(pod->Key());
  h.sched().DeletePod(*pod);
  EXPECT_EQ(h.RunBindings(), 1);
  EXPECT_TRUE(h.writer().Bindings().empty());
  EXPECT_EQ(h.log().Count("Gang.Unreserve"), 1u);
  EXPECT_EQ(h.sched().cache().AssumedPodCount(), 0u);
  EXPECT_FALSE(h.queue().Has("default/p"));
}

// ---- binding confirmation ----

TEST(EventHandlersTest, AssumedPodIsConfirmedWhenItsBoundVersionArrives) {
  SchedulerHarness h;
  h.Start();
  h.AddNodes({"n1"});
  auto pending = h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  ASSERT_EQ(h.BoundNode("default/p"), "n1");
  auto bound = MakePod("p").Node("n1").Ptr();
  EXPECT_TRUE(h.sched().cache().IsAssumedPod(*bound));

  h.objects().pods.Upsert(bound);
  h.sched().UpdatePod(*pending, bound);
  EXPECT_FALSE(h.sched().cache().IsAssumedPod(*bound));
  EXPECT_EQ(h.sched().cache().AssumedPodCount(), 0u);
  EXPECT_EQ(h.sched().cache().PodCount(), 1u);
  EXPECT_FALSE(h.queue().Has("default/p"));
}

// ---- cluster events and queueing hints ----

struct ClusterEventCase {
  std::string name;
  std::vector<framework::ClusterEventWithHint> registered;  // by the rejecting plugin
  std::function<void(SchedulerHarness&)> event;
  bool want_moved;
};
void PrintTo(const ClusterEventCase& c, std::ostream* os) { *os << c.name; }

QueueingHint QueueIfReady(const api::Pod&, const framework::EventObject&,
                          const framework::EventObject& new_obj) {
  const auto* const* node = std::get_if<const api::Node*>(&new_obj);
  if (node == nullptr || *node == nullptr) return QueueingHint::kQueue;
  auto it = (*node)->metadata.labels.find("ready");
  return it != (*node)->metadata.labels.end() && it->second == "yes" ? QueueingHint::kQueue
                                                                     : QueueingHint::kQueueSkip;
}

const ClusterEvent kNodeAdd{EventResource::kNode, action::kAdd, "NodeAdd"};
const ClusterEvent kNodeLabel{EventResource::kNode, action::kUpdateNodeLabel, "NodeUpdate"};
const ClusterEvent kNodeTaint{EventResource::kNode, action::kUpdateNodeTaint, "NodeUpdate"};
const ClusterEvent kAssignedPodAdd{EventResource::kAssignedPod, action::kAdd, "AssignedPodAdd"};
const ClusterEvent kAssignedPodDelete{EventResource::kAssignedPod, action::kDelete,
                                      "AssignedPodDelete"};
const ClusterEvent kPodAdd{EventResource::kPod, action::kAdd, "PodAdd"};
const ClusterEvent kAssignedPodScaleDown{EventResource::kAssignedPod, action::kUpdatePodScaleDown,
                                         "AssignedPodUpdate"};

void UpdateN1(SchedulerHarness& h, const std::function<void(MakeNode&)>& change) {
  MakeNode updated("n1");
  change(updated);
  h.sched().UpdateNode(MakeNode("n1").Obj(), updated.Ptr());
}

class ClusterEventTest : public ::testing::TestWithParam<ClusterEventCase> {};

TEST_P(ClusterEventTest, MovesUnschedulablePodsPerQueueingHints) {
  const ClusterEventCase& tc = GetParam();
  SchedulerHarness h;
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo& n) {
    auto it = n.node()->metadata.labels.find("ready");
    return it != n.node()->metadata.labels.end() && it->second == "yes"
               ? Status()
               : Status::Unschedulable("node(s) not ready");
  };
  h.Plugin("Fit").events = tc.registered;
  h.Enable(&config::Plugins::filter, "Fit");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  ASSERT_EQ(h.queue().Counts().unschedulable, 1);

  tc.event(h);
  auto counts = h.queue().Counts();
  if (tc.want_moved) {
    EXPECT_EQ(counts.unschedulable, 0);
    EXPECT_EQ(counts.active + counts.backoff, 1);
  } else {
    EXPECT_EQ(counts.unschedulable, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ClusterEventTest,
    ::testing::Values(
        ClusterEventCase{"NodeAddHintQueue",
                         {{kNodeAdd, QueueIfReady}},
                         [](SchedulerHarness& h) {
                           h.sched().AddNode(MakeNode("n2").Label("ready", "yes").Ptr());
                         },
                         true},
        ClusterEventCase{"NodeAddHintSkip",
                         {{kNodeAdd, QueueIfReady}},
                         [](SchedulerHarness& h) { h.sched().AddNode(MakeNode("n2").Ptr()); },
                         false},
        ClusterEventCase{"NodeAddNotRegistered",
                         {},
                         [](SchedulerHarness& h) {
                           h.sched().AddNode(MakeNode("n2").Label("ready", "yes").Ptr());
                         },
                         false},
        ClusterEventCase{
            "NodeLabelUpdate",
            {{kNodeLabel, QueueIfReady}},
            [](SchedulerHarness& h) { UpdateN1(h, [](MakeNode& n) { n.Label("ready", "yes"); }); },
            true},
        ClusterEventCase{"NodeAnnotationUpdateNotRegistered",
                         {{kNodeLabel, nullptr}},
                         [](SchedulerHarness& h) {
                           UpdateN1(h, [](MakeNode& n) {
                             n.Mutable().metadata.annotations["note"] = "x";
                           });
                         },
                         false},
        ClusterEventCase{
            "NodeDeclaredFeaturesUpdate",
            {{ClusterEvent{EventResource::kNode, action::kUpdateNodeDeclaredFeature, "NodeUpdate"},
              nullptr}},
            [](SchedulerHarness& h) {
              UpdateN1(h, [](MakeNode& n) { n.Mutable().status.declared_features = {"F"}; });
            },
            true},
        ClusterEventCase{"NodeTaintUpdate",
                         {{kNodeTaint, nullptr}},
                         [](SchedulerHarness& h) {
                           UpdateN1(h, [](MakeNode& n) { n.Taint("k", "v", "NoSchedule"); });
                         },
                         true},
        ClusterEventCase{
            "NodeUpdateWithoutSchedulingChange",
            {{ClusterEvent{EventResource::kNode, action::kUpdate, "NodeUpdate"}, nullptr}},
            [](SchedulerHarness& h) { UpdateN1(h, [](MakeNode&) {}); },
            false},
        ClusterEventCase{"AssignedPodAdd",
                         {{kAssignedPodAdd, nullptr}},
                         [](SchedulerHarness& h) { h.Submit(MakePod("other").Node("n1")); },
                         true},
        // A plugin that registered Pod hears about assigned pods too (upstream's Match).
        ClusterEventCase{"PodAddMatchesAssignedPod",
                         {{kPodAdd, nullptr}},
                         [](SchedulerHarness& h) { h.Submit(MakePod("other").Node("n1")); },
                         true},
        ClusterEventCase{"PendingPodAddIsNotAssignedPodAdd",
                         {{kAssignedPodAdd, nullptr}},
                         [](SchedulerHarness& h) { h.Submit(MakePod("other")); },
                         false},
        ClusterEventCase{"AssignedPodDelete",
                         {{kAssignedPodDelete, nullptr}},
                         [](SchedulerHarness& h) {
                           auto other = h.Submit(MakePod("other").Node("n1"));
                           ASSERT_EQ(h.queue().Counts().unschedulable, 1) << "Add not registered";
                           h.sched().DeletePod(*other);
                         },
                         true},
        // An assigned pod whose requests shrink frees room (upstream's UpdatePodScaleDown).
        ClusterEventCase{"AssignedPodScaleDown",
                         {{kAssignedPodScaleDown, nullptr}},
                         [](SchedulerHarness& h) {
                           auto other = h.Submit(MakePod("other").Node("n1").Req({{"cpu", "2"}}));
                           ASSERT_EQ(h.queue().Counts().unschedulable, 1) << "Add not registered";
                           auto smaller = MakePod("other").Node("n1").Req({{"cpu", "1"}}).Ptr();
                           h.sched().UpdatePod(*other, smaller);
                         },
                         true},
        ClusterEventCase{
            "AssignedPodUpdateWithoutScaleDown",
            {{kAssignedPodScaleDown, nullptr}},
            [](SchedulerHarness& h) {
              auto other = h.Submit(MakePod("other").Node("n1").Req({{"cpu", "2"}}));
              auto relabelled =
                  MakePod("other").Node("n1").Req({{"cpu", "2"}}).Label("a", "b").Ptr();
              h.sched().UpdatePod(*other, relabelled);
            },
            false}),
    [](const ::testing::TestParamInfo<ClusterEventCase>& info) { return info.param.name; });

TEST(EventHandlersTest, PodMovedByANodeEventIsScheduledAfterItsBackoff) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo& n) {
    return n.name() == "n2" ? Status() : Status::Unschedulable("node(s) not ready");
  };
  h.Plugin("Fit").events = {{kNodeAdd, nullptr}};
  h.Enable(&config::Plugins::filter, "Fit");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  h.sched().AddNode(MakeNode("n2").Ptr());
  h.clock().Advance(std::chrono::seconds(2));
  h.queue().FlushBackoffCompleted();
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_EQ(h.BoundNode("default/p"), "n2");
}

}  // namespace
}  // namespace berth::scheduler
