#include "scheduler/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <random>
#include <string>
#include <thread>

#include "test/testing/builders.h"

namespace berth::queue {
namespace {

using framework::ClusterEvent;
using framework::EventObject;
using framework::EventResource;
using framework::FakeClock;
using framework::QueuedPodInfo;
using framework::QueueingHint;
using framework::Status;
using std::chrono::seconds;
using testing::MakeNode;
using testing::MakePod;
namespace action = framework::action;

constexpr char kFit[] = "NodeResourcesFit";
constexpr char kPendingPlugin[] = "DynamicResources";
constexpr char kGates[] = "SchedulingGates";

const ClusterEvent kNodeAdd{EventResource::kNode, action::kAdd, "NodeAdd"};
const ClusterEvent kPodDelete{EventResource::kAssignedPod, action::kDelete, "AssignedPodDelete"};

// Upstream's PrioritySort: higher priority first, then earlier timestamp.
bool PrioritySort(const QueuedPodInfo& a, const QueuedPodInfo& b) {
  int32_t pa = a.Pod().Priority();
  int32_t pb = b.Pod().Priority();
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

// SchedulingGates-like PreEnqueue.
Status Gates(const framework::PodInfo& pod) {
  if (pod.Pod().spec.scheduling_gates.empty()) return Status::Success();
  return Status::Unresolvable("waiting for scheduling gates").WithPlugin(kGates);
}

class QueueTest : public ::testing::Test {
 protected:
  // kFit queues on node adds unless the node is labelled "skip"; kPendingPlugin always queues.
  SchedulingQueue MakeQueue() {
    EventMap events;
    events[kFit].push_back(
        {kNodeAdd, [](const api::Pod&, const EventObject&, const EventObject& new_obj) {
           const auto* node = std::get_if<const api::Node*>(&new_obj);
           if (node && *node && (*node)->metadata.labels.count("skip")) {
             return QueueingHint::kQueueSkip;
           }
           return QueueingHint::kQueue;
         }});
    events[kPendingPlugin].push_back({kNodeAdd, nullptr});
    events[kGates].push_back(
        {ClusterEvent{EventResource::kPod, action::kUpdatePodSchedulingGatesEliminated, ""},
         nullptr});
    return SchedulingQueue(clock_, QueueOptions{}, PrioritySort, Gates, std::move(events));
  }

  // Pops `name` and requeues it as rejected by `plugins` (or as an error when empty).
  QueuedPodInfoPtr FailOnce(SchedulingQueue& q, std::set<std::string, std::less<>> plugins,
                            bool pending = false) {
    QueuedPodInfoPtr p = q.TryPop();
    EXPECT_NE(p, nullptr);
    if (!p) return nullptr;
    if (pending) {
      p->pending_plugins = std::move(plugins);
    } else {
      p->unschedulable_plugins = std::move(plugins);
    }
    q.AddUnschedulableIfNotPresent(p, q.SchedulingCycle());
    return p;
  }

  void NodeAdded(SchedulingQueue& q, const api::Node& node) {
    q.MoveAllToActiveOrBackoffQueue(kNodeAdd, EventObject{}, EventObject{&node});
  }

  FakeClock clock_;
};

std::string PoppedName(const QueuedPodInfoPtr& p) { return p ? p->pod_info->Name() : "<none>"; }

TEST_F(QueueTest, PopsInPriorityOrder) {
  auto q = MakeQueue();
  q.Add(MakePod("low").Priority(1).Info());
  q.Add(MakePod("high").Priority(100).Info());
  q.Add(MakePod("mid1").Priority(10).Info());
  q.Add(MakePod("mid2").Priority(10).Info());  // same priority and timestamp: arrival order
  EXPECT_EQ(q.Counts().active, 4);
  EXPECT_EQ(PoppedName(q.TryPop()), "high");
  EXPECT_EQ(PoppedName(q.TryPop()), "mid1");
  EXPECT_EQ(PoppedName(q.TryPop()), "mid2");
  auto last = q.TryPop();
  EXPECT_EQ(PoppedName(last), "low");
  EXPECT_EQ(q.TryPop(), nullptr);
  EXPECT_EQ(q.SchedulingCycle(), 4);
  EXPECT_EQ(last->attempts, 1);
  ASSERT_TRUE(last->initial_attempt_timestamp.has_value());
  EXPECT_EQ(*last->initial_attempt_timestamp, clock_.Now());
}

TEST_F(QueueTest, BackoffDoublesUpToMax) {
  auto q = MakeQueue();
  QueuedPodInfo p;
  EXPECT_EQ(q.BackoffDuration(p), framework::Duration::zero());
  const int64_t want[] = {1, 2, 4, 8, 10, 10, 10};
  for (int n = 1; n <= 7; ++n) {
    p.unschedulable_count = n;
    EXPECT_EQ(q.BackoffDuration(p), seconds(want[n - 1])) << "n=" << n;
  }
  p.unschedulable_count = 1;
  p.consecutive_errors_count = 3;  // errors take precedence when > 0
  EXPECT_EQ(q.BackoffDuration(p), seconds(4));
  p.unschedulable_count = 100;
  p.consecutive_errors_count = 0;
  EXPECT_EQ(q.BackoffDuration(p), seconds(10));
}

TEST_F(QueueTest, ErrorsBackOff) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  auto p = FailOnce(q, {});
  EXPECT_EQ(p->consecutive_errors_count, 1);
  EXPECT_EQ(p->unschedulable_count, 0);
  EXPECT_EQ(q.Counts().backoff, 1);
  ASSERT_TRUE(q.NextBackoffExpiry().has_value());
  EXPECT_EQ(*q.NextBackoffExpiry(), clock_.Now() + seconds(1));

  clock_.Advance(std::chrono::milliseconds(999));
  q.FlushBackoffCompleted();
  EXPECT_EQ(q.Counts().backoff, 1);
  clock_.Advance(std::chrono::milliseconds(1));
  q.FlushBackoffCompleted();
  EXPECT_EQ(q.Counts().active, 1);

  FailOnce(q, {});
  EXPECT_EQ(p->consecutive_errors_count, 2);
  EXPECT_EQ(*q.NextBackoffExpiry(), clock_.Now() + seconds(2));

  // A plugin rejection resets the error count.
  clock_.Advance(seconds(2));
  q.FlushBackoffCompleted();
  FailOnce(q, {kFit});
  EXPECT_EQ(p->consecutive_errors_count, 0);
  EXPECT_EQ(p->unschedulable_count, 1);
  EXPECT_EQ(q.Counts().unschedulable, 1);
}

TEST_F(QueueTest, UnschedulableMovedByMatchingEventWithQueueHint) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  FailOnce(q, {kFit});
  EXPECT_EQ(q.Counts().unschedulable, 1);
  EXPECT_EQ(q.TryPop(), nullptr);

  // Still backing off (1 s): goes to backoffQ.
  auto node = MakeNode("n").Obj();
  NodeAdded(q, node);
  EXPECT_EQ(q.Counts().unschedulable, 0);
  EXPECT_EQ(q.Counts().backoff, 1);
  clock_.Advance(seconds(1));
  q.FlushBackoffCompleted();
  EXPECT_EQ(q.Counts().active, 1);

  // Backoff expired by the time the event comes: straight to activeQ.
  FailOnce(q, {kFit});
  clock_.Advance(seconds(2));
  NodeAdded(q, node);
  EXPECT_EQ(q.Counts().active, 1);
  EXPECT_EQ(PoppedName(q.TryPop()), "p");
}

TEST_F(QueueTest, SkipHintKeepsPodUnschedulable) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  FailOnce(q, {kFit});
  clock_.Advance(seconds(5));
  auto node = MakeNode("n").Label("skip", "yes").Obj();
  NodeAdded(q, node);
  EXPECT_EQ(q.Counts().unschedulable, 1);
  EXPECT_EQ(q.Counts().active, 0);
}

TEST_F(QueueTest, NonMatchingEventDoesNotMove) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  FailOnce(q, {kFit});
  clock_.Advance(seconds(5));
  auto other = MakePod("other").Node("n").Obj();
  q.MoveAllToActiveOrBackoffQueue(kPodDelete, EventObject{&other}, EventObject{});
  EXPECT_EQ(q.Counts().unschedulable, 1);
  // A plugin that did not reject the pod is not consulted either.
  q.Add(MakePod("q").Info());
  FailOnce(q, {"SomeOtherPlugin"});
  NodeAdded(q, MakeNode("n").Obj());
  EXPECT_EQ(q.Counts().unschedulable, 1) << "p moved, q stayed";
  EXPECT_TRUE(q.Has("default/q"));
}

TEST_F(QueueTest, WildcardEventMovesEveryRejectedPod) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  FailOnce(q, {"SomeOtherPlugin"});
  clock_.Advance(seconds(5));
  q.MoveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::kWildcard, action::kAll, "Retry"},
                                  EventObject{}, EventObject{});
  EXPECT_EQ(q.Counts().active, 1);
}

TEST_F(QueueTest, PendingPluginQueuesStraightToActive) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  FailOnce(q, {kPendingPlugin}, /*pending=*/true);
  EXPECT_EQ(q.Counts().unschedulable, 1);
  // Still within its backoff, but a Queue from a pending plugin skips it.
  NodeAdded(q, MakeNode("n").Obj());
  EXPECT_EQ(q.Counts().active, 1);
  EXPECT_EQ(q.Counts().backoff, 0);
}

TEST_F(QueueTest, GatedPodWaitsForItsGatesToGo) {
  auto q = MakeQueue();
  auto gated = MakePod("g").Gate("example.com/gate");
  q.Add(gated.Info());
  EXPECT_EQ(q.Counts().gated, 1);
  EXPECT_EQ(q.Counts().unschedulable, 0);
  EXPECT_EQ(q.TryPop(), nullptr);

  // Events that do not concern the gate, the leftover flush and Activate leave it alone.
  NodeAdded(q, MakeNode("n").Obj());
  clock_.Advance(std::chrono::minutes(10));
  q.FlushUnschedulableLeftover();
  q.Activate({"default/g"});
  EXPECT_EQ(q.Counts().gated, 1);
  EXPECT_FALSE(q.NextLeftoverExpiry().has_value());

  // An unrelated update keeps it gated.
  auto relabelled = MakePod("g").Gate("example.com/gate").Label("a", "b");
  q.Update(gated.Obj(), relabelled.Info());
  EXPECT_EQ(q.Counts().gated, 1);

  // The gate is removed.
  auto ungated = MakePod("g").Label("a", "b");
  q.Update(relabelled.Obj(), ungated.Info());
  EXPECT_EQ(q.Counts().gated, 0);
  EXPECT_EQ(q.Counts().active, 1);
  auto p = q.TryPop();
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->gating_plugin.empty());
}

TEST_F(QueueTest, LeftoverFlushAfterFiveMinutes) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  FailOnce(q, {kFit});
  ASSERT_TRUE(q.NextLeftoverExpiry().has_value());
  EXPECT_EQ(*q.NextLeftoverExpiry(), clock_.Now() + std::chrono::minutes(5));
  clock_.Advance(std::chrono::minutes(5) - seconds(1));
  q.FlushUnschedulableLeftover();
  EXPECT_EQ(q.Counts().unschedulable, 1);
  clock_.Advance(seconds(1));
  q.FlushUnschedulableLeftover();
  EXPECT_EQ(q.Counts().unschedulable, 0);
  EXPECT_EQ(q.Counts().active, 1);
  EXPECT_FALSE(q.NextLeftoverExpiry().has_value());
}

TEST_F(QueueTest, ActivateMovesBackoffAndUnschedulablePods) {
  auto q = MakeQueue();
  q.Add(MakePod("a").Priority(2).Info());
  q.Add(MakePod("b").Priority(1).Info());
  FailOnce(q, {kFit});  // a -> unschedulable
  FailOnce(q, {});      // b -> backoffQ
  EXPECT_EQ(q.Counts().unschedulable, 1);
  EXPECT_EQ(q.Counts().backoff, 1);
  q.Activate({"default/a", "default/b", "default/unknown"});
  EXPECT_EQ(q.Counts().active, 2);
  EXPECT_EQ(q.Counts().unschedulable, 0);
  EXPECT_EQ(q.Counts().backoff, 0);
}

TEST_F(QueueTest, DeleteRemovesQueuedAndInFlightPods) {
  auto q = MakeQueue();
  auto a = MakePod("a").Priority(3);
  auto b = MakePod("b").Priority(2);
  auto c = MakePod("c").Priority(1);
  auto d = MakePod("d").Gate("g");
  q.Add(a.Info());
  q.Add(b.Info());
  q.Add(c.Info());
  q.Add(d.Info());
  FailOnce(q, {kFit});          // a -> unschedulable
  FailOnce(q, {});              // b -> backoffQ
  auto in_flight = q.TryPop();  // c in flight
  ASSERT_EQ(PoppedName(in_flight), "c");
  EXPECT_TRUE(q.Has("default/c"));

  for (const auto* pod : {&a, &b, &c, &d}) q.Delete(pod->Obj());
  for (const char* key : {"default/a", "default/b", "default/c", "default/d"}) {
    EXPECT_FALSE(q.Has(key)) << key;
  }
  PendingCounts counts = q.Counts();
  EXPECT_EQ(counts.active + counts.backoff + counts.unschedulable + counts.gated, 0);

  // The failed attempt of the deleted in-flight pod is dropped.
  in_flight->unschedulable_plugins = {kFit};
  q.AddUnschedulableIfNotPresent(in_flight, q.SchedulingCycle());
  EXPECT_FALSE(q.Has("default/c"));
  EXPECT_EQ(q.Counts().unschedulable, 0);
}

TEST_F(QueueTest, DoneEndsFlight) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  auto p = q.TryPop();
  EXPECT_TRUE(q.Has("default/p"));
  q.Done(p->pod_info->Uid());
  EXPECT_FALSE(q.Has("default/p"));
}

TEST_F(QueueTest, UpdateInPlace) {
  auto q = MakeQueue();
  auto low = MakePod("low").Priority(1);
  q.Add(low.Info());
  q.Add(MakePod("high").Priority(10).Info());
  q.Update(low.Obj(), MakePod("low").Priority(100).Info());
  EXPECT_EQ(q.Counts().active, 2);
  auto first = q.TryPop();
  EXPECT_EQ(PoppedName(first), "low");
  EXPECT_EQ(first->Pod().Priority(), 100);

  // In backoffQ: updated in place, stays there.
  auto high = MakePod("high").Priority(10);
  FailOnce(q, {});
  q.Update(high.Obj(), MakePod("high").Priority(10).Label("x", "y").Info());
  EXPECT_EQ(q.Counts().backoff, 1);
  EXPECT_EQ(q.Counts().active, 0);
}

TEST_F(QueueTest, UpdateOfUnschedulablePod) {
  auto q = MakeQueue();
  auto pod = MakePod("p");
  pod.Mutable().metadata.resource_version = "1";
  q.Add(pod.Info());
  FailOnce(q, {kFit});

  // Status and resourceVersion only: stays.
  auto status_only = pod;
  status_only.Mutable().metadata.resource_version = "2";
  status_only.Mutable().status.conditions.push_back({"PodScheduled", "False", "Unschedulable", ""});
  q.Update(pod.Obj(), status_only.Info());
  EXPECT_EQ(q.Counts().unschedulable, 1);

  // A label change moves it (to backoffQ: it is still backing off).
  auto relabelled = status_only;
  relabelled.Label("tier", "web");
  q.Update(status_only.Obj(), relabelled.Info());
  EXPECT_EQ(q.Counts().unschedulable, 0);
  EXPECT_EQ(q.Counts().backoff, 1);
}

TEST_F(QueueTest, MoveRequestDuringFlightSendsPodToBackoff) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  auto p = q.TryPop();
  int64_t cycle = q.SchedulingCycle();
  NodeAdded(q, MakeNode("n").Obj());  // arrives while p is being scheduled
  p->unschedulable_plugins = {kFit};
  q.AddUnschedulableIfNotPresent(p, cycle);
  EXPECT_EQ(q.Counts().unschedulable, 0);
  EXPECT_EQ(q.Counts().backoff, 1);
  EXPECT_EQ(p->unschedulable_count, 1);
}

TEST_F(QueueTest, MoveRequestBeforePopDoesNotCount) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  NodeAdded(q, MakeNode("n").Obj());
  FailOnce(q, {kFit});
  EXPECT_EQ(q.Counts().unschedulable, 1);
}

TEST_F(QueueTest, EventOfNoInterestIsNotAMoveRequest) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  auto p = q.TryPop();
  int64_t cycle = q.SchedulingCycle();
  auto other = MakePod("other").Node("n").Obj();
  q.MoveAllToActiveOrBackoffQueue(kPodDelete, EventObject{&other}, EventObject{});
  p->unschedulable_plugins = {kFit};
  q.AddUnschedulableIfNotPresent(p, cycle);
  EXPECT_EQ(q.Counts().unschedulable, 1);
}

TEST_F(QueueTest, AddUnschedulableIgnoresQueuedPod) {
  auto q = MakeQueue();
  auto pod = MakePod("p");
  q.Add(pod.Info());
  auto p = q.TryPop();
  // Updated while in flight: the new version is queued, the failed attempt is dropped.
  q.Update(pod.Obj(), MakePod("p").Label("a", "b").Info());
  p->unschedulable_plugins = {kFit};
  q.AddUnschedulableIfNotPresent(p, q.SchedulingCycle());
  EXPECT_EQ(q.Counts().active, 1);
  EXPECT_EQ(q.Counts().unschedulable, 0);
}

TEST_F(QueueTest, ExcludedPodIsNotMoved) {
  auto q = MakeQueue();
  q.Add(MakePod("p").Info());
  FailOnce(q, {kFit});
  clock_.Advance(seconds(5));
  auto node = MakeNode("n").Obj();
  q.MoveAllToActiveOrBackoffQueue(kNodeAdd, EventObject{}, EventObject{&node}, "uid-p");
  EXPECT_EQ(q.Counts().unschedulable, 1);
}

TEST_F(QueueTest, PopBlocksUntilAddOrClose) {
  auto q = MakeQueue();
  auto popped = std::async(std::launch::async, [&q] { return q.Pop(); });
  EXPECT_EQ(popped.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  q.Add(MakePod("p").Info());
  ASSERT_EQ(popped.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(PoppedName(popped.get()), "p");

  auto waiting = std::async(std::launch::async, [&q] { return q.Pop(); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  q.Close();
  ASSERT_EQ(waiting.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(waiting.get(), nullptr);
  EXPECT_EQ(q.Pop(), nullptr) << "stays closed";
}

TEST_F(QueueTest, CountsBySubQueue) {
  auto q = MakeQueue();
  q.Add(MakePod("a").Priority(4).Info());
  q.Add(MakePod("b").Priority(3).Info());
  q.Add(MakePod("c").Priority(2).Info());
  q.Add(MakePod("d").Gate("g").Info());
  FailOnce(q, {kFit});
  FailOnce(q, {});
  PendingCounts c = q.Counts();
  EXPECT_EQ(c.active, 1);
  EXPECT_EQ(c.backoff, 1);
  EXPECT_EQ(c.unschedulable, 1);
  EXPECT_EQ(c.gated, 1);
}

TEST_F(QueueTest, GatingPluginRecheckedOnItsEvents) {
  bool quota_free = false;
  EventMap events;
  events["Quota"].push_back({kNodeAdd, nullptr});
  SchedulingQueue q(
      clock_, QueueOptions{}, PrioritySort,
      [&quota_free](const framework::PodInfo&) {
        return quota_free ? Status::Success()
                          : Status::Unresolvable("no quota").WithPlugin("Quota");
      },
      std::move(events));
  q.Add(MakePod("p").Info());
  EXPECT_EQ(q.Counts().gated, 1);
  auto node = MakeNode("n").Obj();
  NodeAdded(q, node);
  EXPECT_EQ(q.Counts().gated, 1) << "PreEnqueue still fails";
  quota_free = true;
  q.MoveAllToActiveOrBackoffQueue(kPodDelete, EventObject{}, EventObject{});
  EXPECT_EQ(q.Counts().gated, 1) << "not an event the gating plugin registered";
  NodeAdded(q, node);
  EXPECT_EQ(q.Counts().gated, 0);
  EXPECT_EQ(q.Counts().active, 1);
}

// Heap bookkeeping under random adds, updates and deletes: pops come out in QueueSort order.
TEST_F(QueueTest, RandomizedHeapOrder) {
  auto q = MakeQueue();
  std::mt19937 rng(7);
  std::map<std::string, int32_t> alive;
  for (int i = 0; i < 300; ++i) {
    std::string name = "p" + std::to_string(i);
    int32_t prio = static_cast<int32_t>(rng() % 50);
    q.Add(MakePod(name).Priority(prio).Info());
    alive[name] = prio;
  }
  for (int i = 0; i < 300; i += 7) {
    std::string name = "p" + std::to_string(i);
    q.Delete(MakePod(name).Obj());
    alive.erase(name);
  }
  for (int i = 1; i < 300; i += 5) {
    std::string name = "p" + std::to_string(i);
    if (!alive.count(name)) continue;
    int32_t prio = static_cast<int32_t>(rng() % 50);
    q.Update(MakePod(name).Priority(alive[name]).Obj(), MakePod(name).Priority(prio).Info());
    alive[name] = prio;
  }
  EXPECT_EQ(q.Counts().active, static_cast<int>(alive.size()));
  int32_t last = 1 << 30;
  size_t popped = 0;
  while (auto p = q.TryPop()) {
    int32_t prio = p->Pod().Priority();
    EXPECT_LE(prio, last);
    EXPECT_EQ(alive.at(p->pod_info->Name()), prio);
    last = prio;
    ++popped;
  }
  EXPECT_EQ(popped, alive.size());
}

}  // namespace
}  // namespace berth::queue
