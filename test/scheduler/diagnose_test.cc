// The diagnosis the Scheduler keeps of a pod it could not place (scheduler/diagnose.cc): what
// `berth explain` and /debug/explain show — the FailedScheduling message, every rejected node's
// reasons, the nearest nodes with what each would need, preemption's verdict — and when it goes.

#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "test/testing/scheduler_harness.h"

namespace berth::scheduler {
namespace {

using framework::FilterNeed;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;
using testing::SchedulerHarness;

constexpr auto kPreFilter = &config::Plugins::pre_filter;
constexpr auto kFilter = &config::Plugins::filter;
constexpr auto kPostFilter = &config::Plugins::post_filter;

std::vector<std::string> NearestNodes(const diagnosis::Record& r) {
  std::vector<std::string> out;
  for (const auto& n : r.nearest) out.push_back(n.node);
  return out;
}

// Starts the harness with `nodes`, submits pod p, runs its scheduling cycle and returns p's
// diagnosis (nullopt when the store has none).
std::optional<diagnosis::Record> AttemptOnce(SchedulerHarness& h,
                                             std::initializer_list<std::string> nodes) {
  h.Start();
  h.AddNodes(nodes);
  h.Submit(MakePod("p"));
  EXPECT_TRUE(h.ScheduleOne());
  return h.diagnoses().Get("default/p");
}

// "Fit" rejects every node but `fits` with Insufficient cpu; its explainer says how short each
// node is (gap = shortfall / request, as NodeResourcesFit's).
void ShortOfCpu(SchedulerHarness& h, std::map<std::string, double> short_by,
                const std::string& fits = "") {
  auto& fit = h.Plugin("Fit");
  fit.filter = [fits](const PodInfo&, const NodeInfo& n) {
    return n.name() == fits ? Status() : Status::Unschedulable("Insufficient cpu");
  };
  fit.explain = [short_by](const NodeInfo& n, const Status&, std::vector<FilterNeed>* out) {
    const double gap = short_by.at(n.name());
    out->push_back({"Insufficient cpu", "short by " + std::to_string(int(gap * 1000)) + "m", gap});
  };
  // A new node may make the pod fit (so that it is retried when one is added).
  fit.events = {
      {framework::ClusterEvent{framework::EventResource::kNode, framework::action::kAdd, "NodeAdd"},
       nullptr}};
  h.Enable(kFilter, "Fit");
}

TEST(DiagnoseTest, UnschedulablePodKeepsItsReasonsAndTheNearestNodesFirst) {
  SchedulerHarness h;
  h.UseDiagnoses();
  ShortOfCpu(h, {{"n1", 0.8}, {"n2", 0.1}, {"n3", 0.5}});
  auto r = AttemptOnce(h, {"n1", "n2", "n3"});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, "Unschedulable");
  EXPECT_EQ(r->profile, "berth-scheduler");
  // The same text as the FailedScheduling event.
  EXPECT_EQ(r->message, h.sink().Last().message);
  EXPECT_EQ(r->message, "0/3 nodes are available: 3 Insufficient cpu.");
  ASSERT_EQ(r->filter.size(), 3u);
  EXPECT_EQ(r->filter[0].node, "n1");
  EXPECT_EQ(r->filter[0].plugin, "Fit");
  EXPECT_EQ(r->filter[0].reasons, "Insufficient cpu");
  EXPECT_EQ(NearestNodes(*r), (std::vector<std::string>{"n2", "n3", "n1"}));
  ASSERT_EQ(r->nearest[0].failed.size(), 1u);
  EXPECT_EQ(r->nearest[0].failed[0].plugin, "Fit");
  EXPECT_EQ(r->nearest[0].failed[0].reason, "Insufficient cpu");
  EXPECT_EQ(r->nearest[0].failed[0].need, "short by 100m");
  EXPECT_EQ(r->attempted_unix_micros, h.clock().Now().time_since_epoch().count());
}

TEST(DiagnoseTest, ANodeTwoPluginsRejectIsFartherThanOneRejectedOnce) {
  SchedulerHarness h;
  h.UseDiagnoses();
  ShortOfCpu(h, {{"a", 0.01}, {"b", 0.9}});
  // "Taint" runs after Fit and rejects only node a: Fit's status alone would rank a first, but
  // a lacks two things and b one.
  h.Plugin("Taint").filter = [](const PodInfo&, const NodeInfo& n) {
    return n.name() == "a" ? Status::Unresolvable("node(s) had untolerated taint(s)") : Status();
  };
  h.Enable(kFilter, "Taint");
  auto r = AttemptOnce(h, {"a", "b"});
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(NearestNodes(*r), (std::vector<std::string>{"b", "a"}));
  ASSERT_EQ(r->nearest[1].failed.size(), 2u);
  EXPECT_EQ(r->nearest[1].failed[0].plugin, "Fit");
  EXPECT_EQ(r->nearest[1].failed[1].plugin, "Taint");
  EXPECT_EQ(r->nearest[1].failed[1].reason, "node(s) had untolerated taint(s)");
  EXPECT_EQ(r->nearest[1].failed[1].need, "") << "Taint has no explainer";
}

TEST(DiagnoseTest, AtMostFiveNearestNodes) {
  SchedulerHarness h;
  h.UseDiagnoses();
  std::map<std::string, double> gaps;
  for (int i = 0; i < 12; ++i) gaps["n" + std::to_string(i)] = 1.0 - i / 20.0;
  ShortOfCpu(h, gaps);
  h.Start();
  for (const auto& [name, gap] : gaps) h.sched().AddNode(MakeNode(name).Ptr());
  h.Submit(MakePod("p"));
  ASSERT_TRUE(h.ScheduleOne());
  auto r = h.diagnoses().Get("default/p");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->filter.size(), 12u);
  EXPECT_EQ(NearestNodes(*r), (std::vector<std::string>{"n11", "n10", "n9", "n8", "n7"}));
}

TEST(DiagnoseTest, PreFilterRejectionIsTheVerdictForEveryNode) {
  SchedulerHarness h;
  h.UseDiagnoses();
  h.Plugin("Claims").pre_filter = [](const PodInfo&) {
    return Status::Unresolvable("persistentvolumeclaim \"data\" not found");
  };
  h.Enable(kPreFilter, "Claims");
  auto r = AttemptOnce(h, {"n1", "n2"});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->pre_filter, "persistentvolumeclaim \"data\" not found");
  EXPECT_EQ(r->pre_filter_plugin, "Claims");
  ASSERT_EQ(r->filter.size(), 2u);
  EXPECT_EQ(r->filter[1].reasons, "persistentvolumeclaim \"data\" not found");
  EXPECT_TRUE(r->nearest.empty());
  // The metric's label keeps no object name.
  auto counts = h.diagnoses().ReasonCounts();
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(std::get<2>(counts.begin()->first), "persistentvolumeclaim \"<name>\" not found");
  EXPECT_EQ(counts.begin()->second, 1);
}

TEST(DiagnoseTest, PreemptionsNodeComesFirstWithTheVictims) {
  SchedulerHarness h;
  h.UseDiagnoses();
  ShortOfCpu(h, {{"n1", 0.1}, {"n2", 0.6}});
  h.Plugin("Preempt").post_filter = [](const framework::NodeToStatus&,
                                       framework::PostFilterResult* result) {
    result->mode = framework::PostFilterResult::Mode::kOverride;
    result->nominated_node_name = "n2";
    result->victims = {{"shop/batch-1", 100}, {"shop/batch-2", 50}};
    return Status(framework::Code::kSuccess, "preempting 2 victims");
  };
  h.Enable(kPostFilter, "Preempt");
  auto r = AttemptOnce(h, {"n1", "n2"});
  ASSERT_TRUE(r.has_value());
  ASSERT_TRUE(r->preemption.has_value());
  EXPECT_EQ(r->preemption->node, "n2");
  ASSERT_EQ(r->preemption->victims.size(), 2u);
  EXPECT_EQ(r->preemption->victims[0].pod, "shop/batch-1");
  EXPECT_EQ(r->nominated_node, "n2");
  ASSERT_EQ(NearestNodes(*r), (std::vector<std::string>{"n2", "n1"}));
  EXPECT_EQ(r->nearest[0].preemption,
            "would fit if 2 pods of priority ≤ 100 were preempted (shop/batch-1, shop/batch-2)");
  EXPECT_EQ(r->nearest[0].failed.size(), 1u) << "what it lacks until the victims are gone";
}

TEST(DiagnoseTest, TheDiagnosisGoesWhenThePodIsBoundOrDeleted) {
  SchedulerHarness h;
  h.UseDiagnoses();
  ShortOfCpu(h, {{"n1", 0.5}, {"n2", 0.5}}, /*fits=*/"n2");
  h.Start();
  h.AddNodes({"n1"});
  auto p = h.Submit(MakePod("p"));
  auto q = h.Submit(MakePod("q"));
  ASSERT_TRUE(h.ScheduleOne());
  ASSERT_TRUE(h.ScheduleOne());
  ASSERT_TRUE(h.diagnoses().Get("default/p").has_value());
  ASSERT_TRUE(h.diagnoses().Get("default/q").has_value());
  EXPECT_EQ(h.diagnoses().NumUnschedulable(), 2u);

  h.sched().DeletePod(*q);
  EXPECT_FALSE(h.diagnoses().Get("default/q").has_value());

  h.AddNodes({"n2"});  // the node that fits: p moves to the active queue
  h.clock().Set(h.clock().Now() + std::chrono::seconds(30));
  h.sched().queue().FlushBackoffCompleted();
  ASSERT_TRUE(h.ScheduleOne());
  EXPECT_EQ(h.BoundNode("default/p"), "n2");
  EXPECT_FALSE(h.diagnoses().Get("default/p").has_value());
  EXPECT_TRUE(h.diagnoses().ReasonCounts().empty());
}

TEST(DiagnoseTest, PlacementsAreKeptWhenAskedFor) {
  SchedulerHarness h;
  h.UseDiagnoses(diagnosis::StoreOptions{1});
  ShortOfCpu(h, {{"n1", 0.5}, {"n2", 0.5}}, /*fits=*/"n2");
  h.Start();
  h.AddNodes({"n1", "n2"});
  h.Submit(MakePod("a"));
  h.Submit(MakePod("b"));
  ASSERT_TRUE(h.ScheduleOne());
  ASSERT_TRUE(h.ScheduleOne());
  // Only the last placement is kept (placed = 1).
  auto b = h.diagnoses().Get("default/b");
  auto a = h.diagnoses().Get("default/a");
  ASSERT_NE(a.has_value(), b.has_value());
  const diagnosis::Record& r = a ? *a : *b;
  EXPECT_EQ(r.status, "Scheduled");
  EXPECT_EQ(r.node, "n2");
  ASSERT_EQ(r.filter.size(), 1u);
  EXPECT_EQ(r.filter[0].node, "n1");
}

}  // namespace
}  // namespace berth::scheduler
