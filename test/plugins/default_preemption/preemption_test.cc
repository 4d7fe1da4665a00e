// Upstream's table cases for SelectVictimsOnNode (TestSelectNodesForPreemption /
// TestDryRunPreemption), pickOneNodeForPreemption and PodEligibleToPreemptOthers, on the real
// Filter plugins.

#include "plugins/default_preemption/preemption.h"

#include <limits>

#include "test/plugins/default_preemption/test_env.h"

namespace berth::plugins::default_preemption::test {
namespace {

std::vector<api::Node> Nodes(std::initializer_list<const char*> names) {
  std::vector<api::Node> out;
  for (const char* n : names) out.push_back(MakeNode(n).Capacity(BERTH_VERY_LARGE_RES).Obj());
  return out;
}

struct VictimsCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> pods;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pdbs;
  std::vector<std::string> extra_plugins;
  framework::Code want_code;
  std::string want_message;  // for failures
  std::vector<std::string> want_victims;
  int64_t want_violations = 0;
};

TEST(SelectVictimsOnNodeTest, Table) {
  const std::vector<VictimsCase> cases = {
      {"a pod that fits when the lower priority pod is preempted",
       MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("p1").Node("node1").Priority(kMidPriority).Req(BERTH_LARGE_RES).Obj()},
       {},
       {},
       framework::Code::kSuccess,
       "",
       {"p1"}},
      {"other pods running are higher priority: no preemption",
       MakePod("p").Priority(kLowPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("p1").Node("node1").Priority(kMidPriority).Req(BERTH_LARGE_RES).Obj()},
       {},
       {},
       framework::Code::kUnschedulableAndUnresolvable,
       "No preemption victims found for incoming pod",
       {}},
      {"pods of equal priority are not victims",
       MakePod("p").Priority(kMidPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("p1").Node("node1").Priority(kMidPriority).Req(BERTH_LARGE_RES).Obj()},
       {},
       {},
       framework::Code::kUnschedulableAndUnresolvable,
       "No preemption victims found for incoming pod",
       {}},
      {"the pod does not fit even without every lower priority pod",
       MakePod("p").Priority(kHighPriority).Req({{"cpu", "500m"}, {"memory", "100"}}).Obj(),
       {MakePod("p1").Node("node1").Priority(kLowPriority).Req(BERTH_SMALL_RES).Obj(),
        MakePod("p2").Node("node1").Priority(kVeryHighPriority).Req(BERTH_SMALL_RES).Obj()},
       {},
       {},
       framework::Code::kUnschedulable,
       "Insufficient cpu",
       {}},
      {"higher priority victims are reprieved first: the medium one stays, the low one goes",
       MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("p1.1").Node("node1").Priority(kLowPriority).Req(BERTH_MEDIUM_RES).Obj(),
        MakePod("p1.2").Node("node1").Priority(kMidPriority).Req(BERTH_MEDIUM_RES).Obj()},
       {},
       {},
       framework::Code::kSuccess,
       "",
       {"p1.1"}},
      {"a small lower priority pod is reprieved while a big one goes",
       MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("p1.1").Node("node1").Priority(kLowPriority).Req(BERTH_SMALL_RES).Obj(),
        MakePod("p1.2").Node("node1").Priority(kMidPriority).Req(BERTH_LARGE_RES).Obj()},
       {},
       {},
       framework::Code::kSuccess,
       "",
       {"p1.2"}},
      {"equal priority: the pod that started earlier is reprieved",
       MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
       {StartedAt(MakePod("late").Node("node1").Priority(kLowPriority).Req(BERTH_MEDIUM_RES).Obj(),
                  2),
        StartedAt(MakePod("early").Node("node1").Priority(kLowPriority).Req(BERTH_MEDIUM_RES).Obj(),
                  1)},
       {},
       {},
       framework::Code::kSuccess,
       "",
       {"late"}},
      {"a PDB-violating pod is reprieved before a non-violating one of higher priority",
       MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("guarded")
            .Node("node1")
            .Priority(kLowPriority)
            .Label("app", "db")
            .Req(BERTH_MEDIUM_RES)
            .Obj(),
        MakePod("free").Node("node1").Priority(kMidPriority).Req(BERTH_MEDIUM_RES).Obj()},
       {Pdb("db", "default", {{"app", "db"}}, 0)},
       {},
       framework::Code::kSuccess,
       "",
       {"free"},
       0},
      {"a PDB-violating victim that cannot be reprieved is counted",
       MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("guarded")
            .Node("node1")
            .Priority(kMidPriority)
            .Label("app", "db")
            .Req(BERTH_LARGE_RES)
            .Obj(),
        MakePod("free").Node("node1").Priority(kLowPriority).Req(BERTH_SMALL_RES).Obj()},
       {Pdb("db", "default", {{"app", "db"}}, 0)},
       {},
       framework::Code::kSuccess,
       "",
       {"guarded"},
       1},
      {"a PDB in another namespace does not protect the pod",
       MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("guarded")
            .Node("node1")
            .Priority(kMidPriority)
            .Label("app", "db")
            .Req(BERTH_LARGE_RES)
            .Obj()},
       {Pdb("db", "other", {{"app", "db"}}, 0)},
       {},
       framework::Code::kSuccess,
       "",
       {"guarded"},
       0},
      {"a PDB that allows one disruption: the first match is no violation",
       MakePod("p").Priority(kHighPriority).Req(BERTH_VERY_LARGE_RES).Obj(),
       {MakePod("a")
            .Node("node1")
            .Priority(kMidPriority)
            .Label("app", "db")
            .Req(BERTH_SMALL_RES)
            .Obj(),
        MakePod("b")
            .Node("node1")
            .Priority(kLowPriority)
            .Label("app", "db")
            .Req(BERTH_SMALL_RES)
            .Obj()},
       {Pdb("db", "default", {{"app", "db"}}, 1)},
       {},
       framework::Code::kSuccess,
       "",
       {"a", "b"},
       1},
      {"removing a victim updates InterPodAffinity's state (RemovePod)",
       MakePod("p")
           .Priority(kHighPriority)
           .Req(BERTH_SMALL_RES)
           .PodAntiAffinity(MakePod::AffinityTerm("app", api::SelectorOperator::kIn, {"db"},
                                                  "kubernetes.io/hostname"))
           .Obj(),
       {MakePod("db")
            .Node("node1")
            .Priority(kLowPriority)
            .Label("app", "db")
            .Req(BERTH_SMALL_RES)
            .Obj(),
        MakePod("web")
            .Node("node1")
            .Priority(kLowPriority)
            .Label("app", "web")
            .Req(BERTH_SMALL_RES)
            .Obj()},
       {},
       {"InterPodAffinity"},
       framework::Code::kSuccess,
       "",
       {"db"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Env env(Nodes({"node1"}), c.pods, c.extra_plugins);
    for (const auto& pdb : c.pdbs) env.AddPdb(pdb);
    std::vector<std::string> victims;
    int64_t violations = -1;
    auto s = env.SelectVictims(c.pod, "node1", &victims, &violations);
    EXPECT_EQ(s.code(), c.want_code) << s.Message();
    if (c.want_code == framework::Code::kSuccess) {
      EXPECT_EQ(victims, c.want_victims);
      EXPECT_EQ(violations, c.want_violations);
    } else {
      EXPECT_EQ(s.Message(), c.want_message);
    }
  }
}

TEST(FilterPodsWithPDBViolationTest, EmptyOrAbsentSelectorMatchesNothing) {
  auto pod = MakePod("a").Label("app", "db").Info();
  auto empty = Pdb("empty", "default", {}, 0);
  auto absent = std::make_shared<api::PodDisruptionBudget>(*empty);
  absent->selector.reset();
  std::vector<framework::PodInfoPtr> violating, non_violating;
  FilterPodsWithPDBViolation({pod}, {empty, absent}, &violating, &non_violating);
  EXPECT_TRUE(violating.empty());
  EXPECT_EQ(non_violating.size(), 1u);
}

TEST(FilterPodsWithPDBViolationTest, AlreadyDisruptedPodsAreNotCountedAgain) {
  auto pod = MakePod("a").Label("app", "db").Info();
  auto pdb = std::make_shared<api::PodDisruptionBudget>(*Pdb("db", "default", {{"app", "db"}}, 0));
  pdb->disrupted_pods = {"a"};
  std::vector<framework::PodInfoPtr> violating, non_violating;
  FilterPodsWithPDBViolation({pod}, {pdb}, &violating, &non_violating);
  EXPECT_TRUE(violating.empty());
  EXPECT_EQ(non_violating.size(), 1u);
}

// ---- pickOneNodeForPreemption ----

Candidate Cand(const std::string& node, std::vector<std::pair<int32_t, int64_t>> victims,
               int64_t violations = 0) {
  Candidate c;
  c.node = node;
  int i = 0;
  for (const auto& [priority, start] : victims) {
    c.victims.push_back(framework::MakePodInfo(std::make_shared<api::Pod>(StartedAt(
        MakePod(node + "-v" + std::to_string(i++)).Node(node).Priority(priority).Obj(), start))));
  }
  c.num_pdb_violations = violations;
  return c;
}

TEST(PickOneNodeForPreemptionTest, Table) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  struct Case {
    std::string name;
    std::vector<Candidate> candidates;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"fewest PDB violations wins over everything else",
       {Cand("node1", {{kLowPriority, 1}}, 1), Cand("node2", {{kHighPriority, 1}}, 0)},
       "node2"},
      {"lowest priority of the most important victim",
       {Cand("node1", {{kMidPriority, 1}}), Cand("node2", {{kLowPriority, 1}, {kLowPriority, 1}}),
        Cand("node3", {{kHighPriority, 1}})},
       "node2"},
      {"smallest sum of priorities",
       {Cand("node1", {{kMidPriority, 1}, {kMidPriority, 1}}),
        Cand("node2", {{kMidPriority, 1}, {kLowPriority, 1}})},
       "node2"},
      {"negative priorities: the MaxInt32+1 offset favours fewer victims",
       {Cand("node1", {{kNegPriority, 1}, {kNegPriority, 1}}), Cand("node2", {{kNegPriority, 1}})},
       "node2"},
      {"fewest victims when the sums tie",
       {Cand("node1", {{kLowPriority, 1}, {kMin, 1}, {kMin, 1}}),
        Cand("node2", {{kLowPriority, 1}})},
       "node2"},
      {"latest start time of the highest priority victims",
       {Cand("node1", {{kMidPriority, 5}, {kLowPriority, 9}}),
        Cand("node2", {{kMidPriority, 7}, {kLowPriority, 1}}),
        Cand("node3", {{kMidPriority, 6}, {kLowPriority, 9}})},
       "node2"},
      {"all equal: the first candidate",
       {Cand("node3", {{kLowPriority, 1}}), Cand("node1", {{kLowPriority, 1}})},
       "node3"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const int i = PickOneNodeForPreemption(c.candidates, api::Time{100});
    ASSERT_GE(i, 0);
    EXPECT_EQ(c.candidates[static_cast<size_t>(i)].node, c.want);
  }
  EXPECT_EQ(PickOneNodeForPreemption({}, api::Time{100}), -1);
}

// ---- PodEligibleToPreemptOthers ----

TEST(PodEligibleToPreemptOthersTest, Table) {
  api::Pod terminating_low = MakePod("t").Node("node1").Priority(kLowPriority).Obj();
  terminating_low.metadata.deletion_timestamp = api::Time{1};
  api::Pod terminating_high = MakePod("th").Node("node2").Priority(kHighPriority + 1).Obj();
  terminating_high.metadata.deletion_timestamp = api::Time{1};
  Env env({MakeNode("node1").Capacity(BERTH_VERY_LARGE_RES).Obj(),
           MakeNode("node2").Capacity(BERTH_VERY_LARGE_RES).Obj()},
          {terminating_low, terminating_high});
  auto nominated = [](const std::string& node, const char* policy = "") {
    api::Pod p = MakePod("p").Priority(kHighPriority).Obj();
    p.status.nominated_node_name = node;
    p.spec.preemption_policy = policy;
    return p;
  };
  const framework::Status unschedulable(framework::Code::kUnschedulable, "x");
  const framework::Status unresolvable(framework::Code::kUnschedulableAndUnresolvable, "x");
  struct Case {
    std::string name;
    api::Pod pod;
    const framework::Status* nominated_status;
    bool want;
    std::string want_msg;
  };
  const std::vector<Case> cases = {
      {"pod without a nomination", MakePod("p").Priority(kHighPriority).Obj(), nullptr, true, ""},
      {"preemptionPolicy Never", nominated("", "Never"), nullptr, false,
       "not eligible due to preemptionPolicy=Never."},
      {"terminating lower priority pod on the nominated node", nominated("node1"), &unschedulable,
       false, "not eligible due to a terminating pod on the nominated node."},
      {"nominated node is now unresolvable: preempt again", nominated("node1"), &unresolvable, true,
       ""},
      {"terminating pod of higher priority does not count", nominated("node2"), &unschedulable,
       true, ""},
      {"nominated node that no longer exists", nominated("gone"), &unschedulable, true, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string msg;
    EXPECT_EQ(PodEligibleToPreemptOthers(env.snapshot(), c.pod, c.nominated_status, &msg), c.want);
    EXPECT_EQ(msg, c.want_msg);
  }
}

}  // namespace
}  // namespace berth::plugins::default_preemption::test
