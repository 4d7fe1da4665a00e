// The scheduling and binding cycles (scheduler/schedule_one.cc) end to end over in-memory seams,
// modelled on upstream's schedule_one_test.go: what a user would notice — the node chosen, the
// FailedScheduling reason and message, whether the pod is requeued, which plugins ran.

#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "test/testing/scheduler_harness.h"

namespace berth::scheduler {
namespace {

using framework::Code;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;
using testing::MakePod;
using testing::SchedulerHarness;
using Outcome = testing::RecordingSink::Outcome;

constexpr auto kPreFilter = &config::Plugins::pre_filter;
constexpr auto kFilter = &config::Plugins::filter;
constexpr auto kPostFilter = &config::Plugins::post_filter;
constexpr auto kScore = &config::Plugins::score;
constexpr auto kReserve = &config::Plugins::reserve;
constexpr auto kPermit = &config::Plugins::permit;
constexpr auto kPreBind = &config::Plugins::pre_bind;

// ---- the pod is bound ----

TEST(ScheduleOneTest, BindsThePodToTheOnlyFeasibleNode) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo& n) {
    return n.name() == "n2" ? Status() : Status::Unschedulable("Insufficient cpu");
  };
  h.Enable(kFilter, "Fit");
  h.Start();
  h.AddNodes({"n1", "n2", "n3"});
  h.Submit(MakePod("p"));

  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_EQ(h.BoundNode("default/p"), "n2");
  auto outcomes = h.sink().Outcomes();
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].kind, "Scheduled");
  EXPECT_EQ(outcomes[0].node, "n2");
  EXPECT_EQ(outcomes[0].profile, "berth-scheduler");
  EXPECT_FALSE(h.queue().Has("default/p"));
  // The cache counts the pod on its node until the informer confirms the binding.
  EXPECT_TRUE(h.sched().cache().IsAssumedPod(*MakePod("p").Node("n2").Ptr()));
  EXPECT_FALSE(h.ScheduleOne()) << "nothing left to schedule";
}

TEST(ScheduleOneTest, PodOfAnotherSchedulerIsIgnored) {
  SchedulerHarness h;
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("theirs").SchedulerName("default-scheduler"));

  EXPECT_FALSE(h.sched().Responsible(*MakePod("theirs").SchedulerName("default-scheduler").Ptr()));
  EXPECT_FALSE(h.queue().Has("default/theirs"));
  EXPECT_FALSE(h.ScheduleOne());
  EXPECT_TRUE(h.writer().Bindings().empty());
  EXPECT_TRUE(h.sink().Outcomes().empty());
}

TEST(ScheduleOneTest, EachProfileSchedulesItsOwnPods) {
  SchedulerHarness h;
  h.AddProfile("other");
  h.Plugin("OnlyN1").filter = [](const PodInfo&, const NodeInfo& n) {
    return n.name() == "n1" ? Status() : Status::Unschedulable("not n1");
  };
  h.Enable(kFilter, "OnlyN1", 0, /*profile=*/0);
  h.Start();
  h.AddNodes({"n1", "n2"});
  h.Submit(MakePod("mine"));
  h.Submit(MakePod("other").SchedulerName("other"));
  h.ScheduleOne();
  h.ScheduleOne();
  EXPECT_EQ(h.BoundNode("default/mine"), "n1");
  EXPECT_NE(h.BoundNode("default/other"), "");
  auto outcomes = h.sink().Outcomes();
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].profile, "berth-scheduler");
  EXPECT_EQ(outcomes[1].profile, "other");
}

TEST(ScheduleOneTest, DeletingPodIsSkippedWithAnEvent) {
  SchedulerHarness h;
  h.Start();
  h.AddNodes({"n1"});
  MakePod pod("p");
  pod.Mutable().metadata.deletion_timestamp = api::Time{1};
  h.Submit(pod);

  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_TRUE(h.writer().Bindings().empty());
  Outcome last = h.sink().Last();
  EXPECT_EQ(last.reason, "FailedScheduling");
  EXPECT_EQ(last.message, "skip schedule deleting pod: default/p");
  EXPECT_FALSE(h.queue().Has("default/p"));
}

// ---- scoring ----

struct ScoreCase {
  std::string name;
  std::map<std::string, int64_t> scores;  // node -> score
  std::set<std::string> want;             // the node chosen is one of these
};
void PrintTo(const ScoreCase& c, std::ostream* os) { *os << c.name; }

class ScoreTest : public ::testing::TestWithParam<ScoreCase> {};

TEST_P(ScoreTest, HighestTotalWins) {
  const ScoreCase& tc = GetParam();
  SchedulerHarness h;
  h.Plugin("S").score = [&tc](const NodeInfo& n) { return tc.scores.at(n.name()); };
  h.Enable(kScore, "S");
  h.Start();
  h.AddNodes({"n1", "n2", "n3"});
  h.Submit(MakePod("p"));
  h.ScheduleOne();
  EXPECT_EQ(tc.want.count(h.BoundNode("default/p")), 1u) << h.BoundNode("default/p");
  // Every feasible node was scored.
  EXPECT_EQ(h.log().Sorted("S.Score"),
            (std::vector<std::string>{"S.Score:n1", "S.Score:n2", "S.Score:n3"}));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ScoreTest,
    ::testing::Values(ScoreCase{"First", {{"n1", 90}, {"n2", 10}, {"n3", 50}}, {"n1"}},
                      ScoreCase{"Middle", {{"n1", 10}, {"n2", 90}, {"n3", 50}}, {"n2"}},
                      ScoreCase{"Last", {{"n1", 0}, {"n2", 0}, {"n3", 1}}, {"n3"}},
                      ScoreCase{"Tie", {{"n1", 50}, {"n2", 10}, {"n3", 50}}, {"n1", "n3"}}),
    [](const ::testing::TestParamInfo<ScoreCase>& info) { return info.param.name; });

TEST(ScheduleOneTest, ScoreTiesAreBrokenAtRandomAmongTheBest) {
  SchedulerHarness h;
  h.Plugin("S").score = [](const NodeInfo& n) { return n.name() == "n2" ? 10 : 50; };
  h.Enable(kScore, "S");
  h.Start();
  h.AddNodes({"n1", "n2", "n3"});
  for (int i = 0; i < 16; ++i) h.Submit(MakePod("p" + std::to_string(i)));
  std::set<std::string> chosen;
  for (int i = 0; i < 16; ++i) {
    ASSERT_TRUE(h.ScheduleOne());
    chosen.insert(h.BoundNode("default/p" + std::to_string(i)));
  }
  // Both tied nodes win sometimes (upstream's selectHost); the lower-scored one never does.
  EXPECT_EQ(chosen, (std::set<std::string>{"n1", "n3"}));
}

// ---- FailedScheduling: messages and requeueing ----

TEST(ScheduleOneTest, NoNodes) {
  SchedulerHarness h;
  h.Start();
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  Outcome last = h.sink().Last();
  EXPECT_EQ(last.kind, "Failed");
  // Upstream's ErrNoNodesAvailable, as UnschedulableAndUnresolvable.
  EXPECT_EQ(last.reason, "Unschedulable");
  EXPECT_EQ(last.message, "no nodes available to schedule pods");
  // No plugin rejected it: it backs off and is retried.
  EXPECT_TRUE(h.queue().Has("default/p"));
  EXPECT_EQ(h.queue().Counts().backoff, 1);
}

struct FitCase {
  std::string name;
  std::map<std::string, std::vector<std::string>> reasons;  // node -> filter reasons
  std::string want;
};
void PrintTo(const FitCase& c, std::ostream* os) { *os << c.name; }

class FitErrorTest : public ::testing::TestWithParam<FitCase> {};

// Upstream's FitError.Error(): "<count> <reason>" entries string-sorted (so "1 b" before "2 a").
TEST_P(FitErrorTest, FilterRejectionsAreCountedInTheMessage) {
  const FitCase& tc = GetParam();
  SchedulerHarness h;
  h.Plugin("Fit").filter = [&tc](const PodInfo&, const NodeInfo& n) {
    return Status(Code::kUnschedulable, tc.reasons.at(n.name()));
  };
  h.Enable(kFilter, "Fit");
  h.Start();
  h.AddNodes({"n1", "n2", "n3"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());

  EXPECT_TRUE(h.writer().Bindings().empty());
  Outcome last = h.sink().Last();
  EXPECT_EQ(last.kind, "Failed");
  EXPECT_EQ(last.reason, "Unschedulable");
  EXPECT_EQ(last.message, tc.want);
  // Rejected by a plugin: parked among the unschedulable pods until an event may help.
  EXPECT_EQ(h.queue().Counts().unschedulable, 1);
  EXPECT_EQ(h.sched().cache().AssumedPodCount(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, FitErrorTest,
    ::testing::Values(
        FitCase{"OneReason",
                {{"n1", {"Insufficient cpu"}},
                 {"n2", {"Insufficient cpu"}},
                 {"n3", {"Insufficient cpu"}}},
                "0/3 nodes are available: 3 Insufficient cpu."},
        FitCase{"SortedByCountThenReason",
                {{"n1", {"Insufficient cpu"}},
                 {"n2", {"Insufficient cpu"}},
                 {"n3", {"node(s) had untolerated taint(s)"}}},
                "0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                "2 Insufficient cpu."},
        FitCase{"SeveralReasonsPerNode",
                {{"n1", {"Insufficient cpu", "Insufficient memory"}},
                 {"n2", {"Insufficient memory"}},
                 {"n3", {"node(s) didn't match Pod's node affinity/selector"}}},
                "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node "
                "affinity/selector, 2 Insufficient memory."}),
    [](const ::testing::TestParamInfo<FitCase>& info) { return info.param.name; });

struct PreFilterCase {
  std::string name;
  Status status;
  std::string want_reason;
  std::string want_message;
  bool want_unschedulable_pool;  // else backoffQ
};
void PrintTo(const PreFilterCase& c, std::ostream* os) { *os << c.name; }

class PreFilterTest : public ::testing::TestWithParam<PreFilterCase> {};

TEST_P(PreFilterTest, RejectionStopsTheCycleBeforeFilter) {
  const PreFilterCase& tc = GetParam();
  SchedulerHarness h;
  h.Plugin("Pre").pre_filter = [&tc](const PodInfo&) { return tc.status; };
  h.Enable(kPreFilter, "Pre");
  h.Plugin("Fit");
  h.Enable(kFilter, "Fit");
  h.Start();
  h.AddNodes({"n1", "n2"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());

  Outcome last = h.sink().Last();
  EXPECT_EQ(last.reason, tc.want_reason);
  EXPECT_EQ(last.message, tc.want_message);
  EXPECT_TRUE(h.log().Sorted("Fit.Filter").empty()) << "Filter must not run";
  EXPECT_TRUE(h.queue().Has("default/p"));
  if (tc.want_unschedulable_pool) {
    EXPECT_EQ(h.queue().Counts().unschedulable, 1);
  } else {
    EXPECT_EQ(h.queue().Counts().backoff, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PreFilterTest,
    ::testing::Values(
        PreFilterCase{"Unschedulable", Status::Unschedulable("pod's claims are not bound"),
                      "Unschedulable", "0/2 nodes are available: pod's claims are not bound.",
                      true},
        PreFilterCase{"UnschedulableAndUnresolvable",
                      Status::Unresolvable("pod has unbound immediate PersistentVolumeClaims"),
                      "Unschedulable",
                      "0/2 nodes are available: pod has unbound immediate "
                      "PersistentVolumeClaims.",
                      true},
        PreFilterCase{"Error", Status::Error("boom"), "SchedulerError",
                      "running PreFilter plugin \"Pre\": boom", false}),
    [](const ::testing::TestParamInfo<PreFilterCase>& info) { return info.param.name; });

TEST(ScheduleOneTest, NodesLeftOutByPreFilterCountInTheMessage) {
  SchedulerHarness h;
  h.Plugin("Pre").pre_filter_nodes = std::set<std::string, std::less<>>{"n1", "gone"};
  h.Enable(kPreFilter, "Pre");
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo&) {
    return Status::Unschedulable("Insufficient cpu");
  };
  h.Enable(kFilter, "Fit");
  h.Start();
  h.AddNodes({"n1", "n2", "n3"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());

  // Only the node PreFilter kept is filtered (a name that is not a node is dropped); the others
  // carry upstream's "didn't satisfy plugin(s)" status.
  EXPECT_EQ(h.log().Sorted("Fit.Filter"), (std::vector<std::string>{"Fit.Filter:n1"}));
  EXPECT_EQ(h.sink().Last().message,
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
            "[Pre].");
  EXPECT_EQ(h.queue().Counts().unschedulable, 1);
}

TEST(ScheduleOneTest, FilterErrorIsASchedulerError) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo&) { return Status::Error("boom"); };
  h.Enable(kFilter, "Fit");
  h.Start();
  h.AddNodes({"n1", "n2", "n3"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());

  Outcome last = h.sink().Last();
  EXPECT_EQ(last.reason, "SchedulerError");
  EXPECT_EQ(last.message, "running \"Fit\" filter plugin: boom");
  EXPECT_TRUE(h.writer().Bindings().empty());
  EXPECT_EQ(h.queue().Counts().backoff, 1);
}

TEST(ScheduleOneTest, PostFilterMessageIsAppendedAndItsNominationKept) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo&) {
    return Status::Unschedulable("Insufficient cpu");
  };
  h.Enable(kFilter, "Fit");
  h.Plugin("Preempt").post_filter = [](const framework::NodeToStatus& statuses,
                                       framework::PostFilterResult* result) {
    EXPECT_EQ(statuses.Size(), 2u);  // PostFilter sees every node's status
    result->mode = framework::PostFilterResult::Mode::kOverride;
    result->nominated_node_name = "n2";
    return Status::Unschedulable("preemption: victims chosen on n2.");
  };
  h.Enable(kPostFilter, "Preempt");
  h.Start();
  h.AddNodes({"n1", "n2"});
  auto pod = h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());

  EXPECT_EQ(h.sink().Last().message,
            "0/2 nodes are available: 2 Insufficient cpu. preemption: victims chosen on n2.");
  EXPECT_EQ(h.sched().nominator().NominatedNodeOf(pod->metadata.uid), "n2");
}

TEST(ScheduleOneTest, LongMessagesReachTheSinkWhole) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo& n) {
    return Status::Unschedulable(n.name() + std::string(2000, 'x'));
  };
  h.Enable(kFilter, "Fit");
  h.Start();
  h.AddNodes({"n1", "n2"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  // Upstream truncates only the event's note (the sink's job); the condition keeps it all.
  const std::string msg = h.sink().Last().message;
  EXPECT_GT(msg.size(), 4000u);
  EXPECT_EQ(msg.substr(0, 30), "0/2 nodes are available: 1 n1x");
}

TEST(ScheduleOneTest, NominatedNodeIsEvaluatedFirst) {
  SchedulerHarness h;
  h.Plugin("Fit");
  h.Enable(kFilter, "Fit");
  h.Plugin("S").score = [](const NodeInfo& n) { return n.name() == "n1" ? 100 : 0; };
  h.Enable(kScore, "S");
  h.Start();
  h.AddNodes({"n1", "n2", "n3"});
  MakePod pod("p");
  pod.Mutable().status.nominated_node_name = "n3";
  h.Submit(pod);
  ASSERT_TRUE(h.ScheduleOne());

  // n3 passes the filters, so it is taken without looking at (or scoring) the others.
  EXPECT_EQ(h.BoundNode("default/p"), "n3");
  EXPECT_EQ(h.log().Sorted("Fit.Filter"), (std::vector<std::string>{"Fit.Filter:n3"}));
  EXPECT_TRUE(h.log().Sorted("S.Score").empty());
}

TEST(ScheduleOneTest, RejectedNominatedNodeFallsBackToTheFullSearch) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo& n) {
    return n.name() == "n3" ? Status::Unschedulable("Insufficient cpu") : Status();
  };
  h.Enable(kFilter, "Fit");
  h.Plugin("S").score = [](const NodeInfo& n) { return n.name() == "n1" ? 100 : 0; };
  h.Enable(kScore, "S");
  h.Start();
  h.AddNodes({"n1", "n2", "n3"});
  MakePod pod("p");
  pod.Mutable().status.nominated_node_name = "n3";
  h.Submit(pod);
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_EQ(h.BoundNode("default/p"), "n1");
}

// ---- Reserve, Permit, Bind ----

TEST(ScheduleOneTest, ReserveRejectionUnreservesAndRequeues) {
  SchedulerHarness h;
  h.Plugin("R1");
  h.Plugin("R2").reserve = [](const std::string&) { return Status::Unschedulable("no room"); };
  h.Enable(kReserve, "R1");
  h.Enable(kReserve, "R2");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());

  // Every Reserve plugin is unreserved, in reverse order, as upstream.
  EXPECT_EQ(h.log().Calls(),
            (std::vector<std::string>{"R1.Reserve", "R2.Reserve", "R2.Unreserve", "R1.Unreserve"}));
  EXPECT_TRUE(h.writer().Bindings().empty());
  Outcome last = h.sink().Last();
  EXPECT_EQ(last.reason, "Unschedulable");
  EXPECT_EQ(last.message, "0/1 nodes are available: 1 no room.");
  EXPECT_EQ(h.sched().cache().AssumedPodCount(), 0u) << "the assumed pod is forgotten";
  EXPECT_EQ(h.queue().Counts().unschedulable, 1);
}

TEST(ScheduleOneTest, ReserveErrorIsASchedulerError) {
  SchedulerHarness h;
  h.Plugin("R").reserve = [](const std::string&) { return Status::Error("boom"); };
  h.Enable(kReserve, "R");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_EQ(h.log().Count("R.Unreserve"), 1u);
  EXPECT_EQ(h.sink().Last().reason, "SchedulerError");
  EXPECT_EQ(h.sink().Last().message, "running Reserve plugin \"R\": boom");
  EXPECT_EQ(h.sched().cache().AssumedPodCount(), 0u);
  EXPECT_EQ(h.queue().Counts().backoff, 1);
}

TEST(ScheduleOneTest, PermitRejectionUnreservesAndRequeues) {
  SchedulerHarness h;
  h.Plugin("P").permit = [](const std::string&, framework::Duration*) {
    return Status::Unschedulable("not now");
  };
  h.Enable(kReserve, "P");
  h.Enable(kPermit, "P");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_EQ(h.log().Count("P.Unreserve"), 1u);
  EXPECT_EQ(h.sink().Last().message, "0/1 nodes are available: 1 not now.");
  EXPECT_EQ(h.queue().Counts().unschedulable, 1);
  EXPECT_TRUE(h.writer().Bindings().empty());
}

class PermitWaitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    h_.Plugin("Gang").permit = [](const std::string&, framework::Duration* timeout) {
      *timeout = std::chrono::seconds(30);
      return Status::Wait();
    };
    h_.Enable(kReserve, "Gang");
    h_.Enable(kPermit, "Gang");
    h_.Start();
    h_.AddNodes({"n1"});
    pod_ = h_.Submit(MakePod("p"));
    ASSERT_TRUE(h_.ScheduleOne());
    // The pod holds its node while it waits; nothing is bound or reported yet.
    ASSERT_NE(h_.WaitingPod(pod_->metadata.uid), nullptr);
    EXPECT_EQ(h_.sched().NumWaitingPods(), 1u);
    EXPECT_TRUE(h_.writer().Bindings().empty());
    EXPECT_TRUE(h_.sink().Outcomes().empty());
    EXPECT_EQ(h_.sched().cache().AssumedPodCount(), 1u);
  }
  SchedulerHarness h_;
  std::shared_ptr<const api::Pod> pod_;
};

TEST_F(PermitWaitTest, AllowBinds) {
  h_.WaitingPod(pod_->metadata.uid)->Allow("Gang");
  EXPECT_EQ(h_.RunBindings(), 1);
  EXPECT_EQ(h_.BoundNode("default/p"), "n1");
  EXPECT_EQ(h_.sink().Last().kind, "Scheduled");
  EXPECT_EQ(h_.log().Count("Gang.Unreserve"), 0u);
  EXPECT_EQ(h_.sched().NumWaitingPods(), 0u);
}

TEST_F(PermitWaitTest, RejectUnreservesAndRequeues) {
  h_.WaitingPod(pod_->metadata.uid)->Reject("Gang", "gang is incomplete");
  EXPECT_EQ(h_.RunBindings(), 1);
  EXPECT_TRUE(h_.writer().Bindings().empty());
  EXPECT_EQ(h_.log().Count("Gang.Unreserve"), 1u);
  Outcome last = h_.sink().Last();
  EXPECT_EQ(last.reason, "Unschedulable");
  EXPECT_EQ(last.message, "0/1 nodes are available: 1 gang is incomplete.");
  EXPECT_EQ(h_.sched().cache().AssumedPodCount(), 0u);
  EXPECT_EQ(h_.queue().Counts().unschedulable, 1);
}

TEST_F(PermitWaitTest, TimeoutRejects) {
  h_.clock().Advance(std::chrono::seconds(31));
  h_.sched().ExpireWaitingPods();
  EXPECT_EQ(h_.RunBindings(), 1);
  EXPECT_TRUE(h_.writer().Bindings().empty());
  EXPECT_EQ(h_.sink().Last().message,
            "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin "
            "Gang.");
}

TEST_F(PermitWaitTest, PodUpdatedWhileAssumedIsNotScheduledAgain) {
  // An update requeues the pending pod (upstream: "an assumed pod can be added again to the
  // scheduling queue"); its next pop is skipped because the cache holds it as assumed.
  h_.sched().UpdatePod(*pod_, MakePod("p").Label("app", "web").Ptr());
  ASSERT_TRUE(h_.queue().Has("default/p"));
  ASSERT_TRUE(h_.ScheduleOne());
  EXPECT_EQ(h_.log().Count("Gang.Reserve"), 1u) << "no second scheduling cycle";
  EXPECT_TRUE(h_.sink().Outcomes().empty());
  EXPECT_FALSE(h_.queue().Has("default/p"));
  h_.WaitingPod(pod_->metadata.uid)->Allow("Gang");
  EXPECT_EQ(h_.RunBindings(), 1);
  EXPECT_EQ(h_.BoundNode("default/p"), "n1");
}

TEST(ScheduleOneTest, PreBindFailureUnreservesAndRequeues) {
  SchedulerHarness h;
  h.Plugin("Vol").pre_bind = [](const std::string&) {
    return Status::Error("provisioning failed");
  };
  h.Enable(kReserve, "Vol");
  h.Enable(kPreBind, "Vol");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());

  EXPECT_TRUE(h.writer().Bindings().empty()) << "Bind must not run after a PreBind failure";
  EXPECT_EQ(h.log().Count("Vol.Unreserve"), 1u);
  EXPECT_EQ(h.sink().Last().reason, "SchedulerError");
  EXPECT_EQ(h.sink().Last().message, "running PreBind plugin \"Vol\": provisioning failed");
  EXPECT_EQ(h.sched().cache().AssumedPodCount(), 0u);
  EXPECT_EQ(h.queue().Counts().backoff, 1);
}

TEST(ScheduleOneTest, BindFailureForgetsAndRequeues) {
  SchedulerHarness h;
  h.Plugin("R");
  h.Enable(kReserve, "R");
  h.Start();
  h.AddNodes({"n1"});
  h.writer().on_bind = [](const api::Pod&, const std::string&) {
    return Status::Error("binding failed (HTTP 500): etcd is sad");
  };
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());

  EXPECT_EQ(h.writer().Bindings().size(), 1u) << "the binding was attempted";
  EXPECT_EQ(h.log().Count("R.Unreserve"), 1u);
  Outcome last = h.sink().Last();
  EXPECT_EQ(last.kind, "Failed");
  EXPECT_EQ(last.reason, "SchedulerError");
  EXPECT_EQ(last.message,
            "running Bind plugin \"DefaultBinder\": binding failed (HTTP 500): etcd is sad");
  EXPECT_EQ(h.sched().cache().AssumedPodCount(), 0u);
  EXPECT_FALSE(h.sched().cache().IsAssumedPod(*MakePod("p").Node("n1").Ptr()));
  EXPECT_TRUE(h.queue().Has("default/p"));
  EXPECT_EQ(h.queue().Counts().backoff, 1);

  // The retry, once the backoff is over, binds.
  h.writer().on_bind = nullptr;
  h.clock().Advance(std::chrono::seconds(2));
  h.queue().FlushBackoffCompleted();
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_EQ(h.sink().Last().kind, "Scheduled");
}

// The writer found the pod deleted or bound by someone else (Status::PodGone, HTTP 404/409):
// the assumption is dropped and the pod not requeued, but upstream's handleSchedulingFailure still
// records FailedScheduling with the binder's error.
TEST(ScheduleOneTest, BindFindingThePodGoneReportsItWithoutRequeueing) {
  SchedulerHarness h;
  h.Plugin("R");
  h.Enable(kReserve, "R");
  h.Start();
  h.AddNodes({"n1"});
  h.writer().on_bind = [](const api::Pod&, const std::string&) {
    return Status::PodGone("pods \"p\" not found");
  };
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());

  EXPECT_EQ(h.writer().Bindings().size(), 1u) << "the binding was attempted";
  EXPECT_EQ(h.log().Count("R.Unreserve"), 1u);
  Outcome last = h.sink().Last();
  EXPECT_EQ(last.kind, "Failed");
  EXPECT_EQ(last.reason, "SchedulerError");
  EXPECT_EQ(last.message, "running Bind plugin \"DefaultBinder\": pods \"p\" not found");
  EXPECT_EQ(h.sched().cache().AssumedPodCount(), 0u);
  EXPECT_FALSE(h.queue().Has("default/p"));
}

TEST(ScheduleOneTest, PodDeletedFromTheInformerIsNotRequeuedButReported) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [&h](const PodInfo& pod, const NodeInfo&) {
    h.objects().pods.Remove(pod.Pod().Key());  // deleted while being scheduled
    return Status::Unschedulable("Insufficient cpu");
  };
  h.Enable(kFilter, "Fit");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_FALSE(h.queue().Has("default/p"));
  // Upstream records the event whether or not the informer still has the pod.
  EXPECT_EQ(h.sink().Last().kind, "Failed");
  EXPECT_EQ(h.sink().Last().message, "0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(ScheduleOneTest, PodBoundElsewhereMeanwhileIsReportedNotRequeued) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [&h](const PodInfo& pod, const NodeInfo&) {
    h.objects().pods.Upsert(MakePod("p").Uid(pod.Uid()).Node("n9").Ptr());
    return Status::Unschedulable("Insufficient cpu");
  };
  h.Enable(kFilter, "Fit");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_FALSE(h.queue().Has("default/p"));
  EXPECT_EQ(h.sink().Last().kind, "Failed");
}

TEST(ScheduleOneTest, PodRecreatedMeanwhileGetsNothing) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [&h](const PodInfo&, const NodeInfo&) {
    h.objects().pods.Upsert(MakePod("p").Uid("another-uid").Ptr());
    return Status::Unschedulable("Insufficient cpu");
  };
  h.Enable(kFilter, "Fit");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  for (const Outcome& o : h.sink().Outcomes()) {
    EXPECT_NE(o.kind, "Failed") << "a recreated pod is left alone: " << o.message;
  }
}

// Upstream's schedulingAlgorithm: a PostFilter Error is logged and its message appended; the pod
// stays Unschedulable and keeps its nomination (a nil PostFilterResult).
TEST(ScheduleOneTest, PostFilterErrorLeavesThePodUnschedulableAndItsNomination) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo&) {
    return Status::Unschedulable("Insufficient cpu");
  };
  h.Enable(kFilter, "Fit");
  h.Plugin("Preempt").post_filter = [](const framework::NodeToStatus&,
                                       framework::PostFilterResult*) {
    return Status::Error("preemption: listing pods: boom");
  };
  h.Enable(kPostFilter, "Preempt");
  h.Start();
  h.AddNodes({"n1", "n2"});
  MakePod nominated("p");
  nominated.Mutable().status.nominated_node_name = "n2";
  auto pod = h.Submit(nominated);
  ASSERT_TRUE(h.ScheduleOne());

  Outcome last = h.sink().Last();
  EXPECT_EQ(last.reason, "Unschedulable");
  EXPECT_EQ(last.message,
            "0/2 nodes are available: 2 Insufficient cpu. preemption: listing pods: boom");
  EXPECT_EQ(h.sched().nominator().NominatedNodeOf(pod->metadata.uid), "n2");
  EXPECT_TRUE(h.writer().Nominations().empty());
  EXPECT_EQ(h.queue().Counts().unschedulable, 1);
}

// Without PostFilter plugins (and on scheduler errors) upstream passes clearNominatedNode: a
// nominated pod loses its nomination, in memory and in status.nominatedNodeName.
TEST(ScheduleOneTest, FailureWithoutPostFilterClearsTheNomination) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo&) {
    return Status::Unschedulable("Insufficient cpu");
  };
  h.Enable(kFilter, "Fit");
  h.Start();
  h.AddNodes({"n1"});
  MakePod nominated("p");
  nominated.Mutable().status.nominated_node_name = "n1";
  auto pod = h.Submit(nominated);
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_EQ(h.sched().nominator().NominatedNodeOf(pod->metadata.uid), "");
  ASSERT_EQ(h.writer().Nominations().size(), 1u);
  EXPECT_EQ(h.writer().Nominations()[0], std::make_pair(std::string("default/p"), std::string()));
}

TEST(ScheduleOneTest, PreemptionNominationIsPatchedOnce) {
  SchedulerHarness h;
  h.Plugin("Fit").filter = [](const PodInfo&, const NodeInfo&) {
    return Status::Unschedulable("Insufficient cpu");
  };
  h.Enable(kFilter, "Fit");
  h.Plugin("Preempt").post_filter = [](const framework::NodeToStatus&,
                                       framework::PostFilterResult* result) {
    result->mode = framework::PostFilterResult::Mode::kOverride;
    result->nominated_node_name = "n1";
    return Status(Code::kSuccess,
                  "preemption: found a potential placement for pod on node n1, preempting 1 "
                  "victims");
  };
  h.Enable(kPostFilter, "Preempt");
  h.Start();
  h.AddNodes({"n1"});
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_EQ(h.sink().Last().reason, "Unschedulable");
  EXPECT_EQ(h.sink().Last().message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement "
            "for pod on node n1, preempting 1 victims");
  ASSERT_EQ(h.writer().Nominations().size(), 1u);
  EXPECT_EQ(h.writer().Nominations()[0].second, "n1");
}

}  // namespace
}  // namespace berth::scheduler
