// Queueing hints are kept per profile (upstream's QueueingHintMapPerProfile): two profiles that
// configure the same plugin with different args requeue their pods by their own hints.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config/load.h"
#include "plugins/registry.h"
#include "scheduler/binder/binder.h"
#include "scheduler/scheduler.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::scheduler {
namespace {

using testing::MakeNode;
using testing::MakePod;

// Two profiles that differ only in NodeAffinity's addedAffinity: zone-a pods need a node of
// zone a, zone-b pods one of zone b.
constexpr char kConfig[] = R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
profiles:
- schedulerName: zone-a
  pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - {key: zone, operator: In, values: [a]}
- schedulerName: zone-b
  pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - {key: zone, operator: In, values: [b]}
)";

class Outcomes final : public framework::OutcomeSink {
 public:
  void Scheduled(const framework::PodInfo& pod, const std::string& node,
                 const std::string&) override {
    std::lock_guard lock(mu_);
    scheduled[pod.Name()] = node;
  }
  void Failed(const framework::PodInfo& pod, const std::string& reason, const std::string&,
              const std::string&) override {
    std::lock_guard lock(mu_);
    failed[pod.Name()] = reason;
  }
  std::map<std::string, std::string> scheduled;  // pod -> node
  std::map<std::string, std::string> failed;     // pod -> reason

 private:
  std::mutex mu_;
};

class ProfileHintsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_ = plugins::NewInTreeRegistry();
    auto cfg = config::ParseConfig(kConfig, "test.yaml", registry_.Names());
    ASSERT_TRUE(cfg.ok()) << cfg.error();
    SchedulerDeps deps{&clock_, &objects_, &writer_, &executor_, &outcomes_};
    auto s = Scheduler::Create(*cfg, registry_, deps, {});
    ASSERT_TRUE(s.ok()) << s.error();
    sched_ = std::move(*s);
  }

  void AddNode(const std::string& name, const std::string& zone) {
    auto node = MakeNode(name).Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Label("zone", zone);
    sched_->AddNode(node.Ptr());
  }
  void AddPod(const std::string& name, const std::string& profile) {
    auto pod = MakePod(name).SchedulerName(profile).Ptr();
    objects_.pods.Upsert(pod);
    sched_->AddPod(pod);
  }
  // Pops and schedules every active pod, runs their binding cycles.
  void ScheduleAll() {
    while (sched_->ScheduleOne(/*block=*/false)) {
    }
    executor_.RunReady();
  }
  // Past every backoff, so that pods a hint moved are active again.
  void WaitOutBackoff() {
    clock_.Advance(std::chrono::seconds(20));
    sched_->queue().FlushBackoffCompleted();
  }

  framework::Registry registry_;
  framework::FakeClock clock_{framework::TimePoint{}};
  api::ClusterObjects objects_;
  testing::RecordingWriter writer_;
  binder::DeferredExecutor executor_;
  Outcomes outcomes_;
  std::unique_ptr<Scheduler> sched_;
};

TEST_F(ProfileHintsTest, EachProfileRequeuesItsPodsByItsOwnHints) {
  AddNode("c1", "c");
  AddPod("pa", "zone-a");
  AddPod("pb", "zone-b");
  ScheduleAll();
  ASSERT_EQ(outcomes_.failed.count("pa"), 1u);
  ASSERT_EQ(outcomes_.failed.count("pb"), 1u);
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 2);

  // A zone-a node: only zone-a's NodeAffinity hint says Queue.
  AddNode("a1", "a");
  auto counts = sched_->queue().Counts();
  EXPECT_EQ(counts.unschedulable, 1) << "zone-b's hint must skip a zone-a node";
  EXPECT_EQ(counts.active + counts.backoff, 1);
  WaitOutBackoff();
  ScheduleAll();
  EXPECT_EQ(outcomes_.scheduled["pa"], "a1");
  EXPECT_EQ(outcomes_.scheduled.count("pb"), 0u);
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 1);

  // A zone-b node: now zone-b's hint says Queue.
  AddNode("b1", "b");
  counts = sched_->queue().Counts();
  EXPECT_EQ(counts.unschedulable, 0);
  WaitOutBackoff();
  ScheduleAll();
  EXPECT_EQ(outcomes_.scheduled["pb"], "b1");
}

// The queue alone: the same plugin name with a different hint and PreEnqueue per profile.
TEST(QueueProfileHooksTest, HintsAndPreEnqueueAreLookedUpByTheSchedulerName) {
  using framework::ClusterEvent;
  using framework::EventObject;
  using framework::QueueingHint;
  const ClusterEvent node_add{framework::EventResource::kNode, framework::action::kAdd, "NodeAdd"};
  auto hint = [](QueueingHint h) {
    return [h](const api::Pod&, const EventObject&, const EventObject&) { return h; };
  };
  queue::ProfileHooksMap profiles;
  profiles["queues"].events["Fit"].push_back({node_add, hint(QueueingHint::kQueue)});
  profiles["skips"].events["Fit"].push_back({node_add, hint(QueueingHint::kQueueSkip)});
  profiles["gates"].pre_enqueue = [](const framework::PodInfo&) {
    return framework::Status::Unresolvable("closed").WithPlugin("Gate");
  };
  framework::FakeClock clock;
  queue::SchedulingQueue q(clock, queue::QueueOptions{}, nullptr, std::move(profiles));

  q.Add(MakePod("gated").SchedulerName("gates").Info());
  EXPECT_EQ(q.Counts().gated, 1) << "only the gates profile runs the Gate plugin";
  q.Add(MakePod("a").SchedulerName("queues").Info());
  q.Add(MakePod("b").SchedulerName("skips").Info());
  EXPECT_EQ(q.Counts().active, 2);
  for (int i = 0; i < 2; ++i) {
    auto p = q.TryPop();
    ASSERT_NE(p, nullptr);
    p->unschedulable_plugins = {"Fit"};
    q.AddUnschedulableIfNotPresent(p, q.SchedulingCycle());
  }
  EXPECT_EQ(q.Counts().unschedulable, 2);
  auto node = MakeNode("n").Obj();
  q.MoveAllToActiveOrBackoffQueue(node_add, EventObject{}, EventObject{&node});
  EXPECT_EQ(q.Counts().unschedulable, 1) << "the skips profile's hint keeps its pod";
  EXPECT_TRUE(q.Has("default/a"));
  clock.Advance(std::chrono::seconds(20));
  q.FlushBackoffCompleted();
  auto moved = q.TryPop();
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(moved->Pod().metadata.name, "a");
}

}  // namespace
}  // namespace berth::scheduler
