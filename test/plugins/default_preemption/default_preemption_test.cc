// DefaultPreemption's PostFilter (upstream's TestPostFilter cases), its args and candidate count,
// and the effects it has (victims deleted, lower-priority nominations cleared).

#include "plugins/default_preemption/default_preemption.h"

#include <limits>

#include "api/json/parse.h"
#include "test/plugins/default_preemption/test_env.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::default_preemption::test {
namespace {

using framework::Code;

api::Value Json(const std::string& text) {
  auto v = api::json::ParseJson(text);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? *v : api::Value();
}

TEST(ArgsTest, DefaultsAndValidation) {
  auto d = ParseArgs(nullptr, "args");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->min_candidate_nodes_percentage, 10);
  EXPECT_EQ(d->min_candidate_nodes_absolute, 100);
  auto v = Json(R"({"minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": 5})");
  auto ok = ParseArgs(&v, "args");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->min_candidate_nodes_percentage, 20);
  EXPECT_EQ(ok->min_candidate_nodes_absolute, 5);
  struct Bad {
    const char* json;
    const char* want;
  };
  for (const Bad& b : std::vector<Bad>{
           {R"({"minCandidateNodesPercentage": 101})",
            "args.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"},
           {R"({"minCandidateNodesPercentage": -1})",
            "args.minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"},
           {R"({"minCandidateNodesAbsolute": -1})",
            "args.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"},
           {R"({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0})",
            "args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time "
            "as "
            "minCandidateNodesAbsolute, args.minCandidateNodesAbsolute: Invalid value: 0: cannot "
            "be zero at the same time as minCandidateNodesPercentage"},
       }) {
    auto value = Json(b.json);
    auto r = ParseArgs(&value, "args");
    ASSERT_FALSE(r.ok()) << b.json;
    EXPECT_EQ(r.error(), b.want);
  }
  auto unknown = Json(R"({"minCandidateNodes": 1})");
  EXPECT_FALSE(ParseArgs(&unknown, "args").ok());
}

// Upstream's TestGetOffsetAndNumCandidates.
TEST(NumCandidatesTest, Table) {
  struct Case {
    int32_t nodes, percentage, absolute, want;
  };
  for (const Case& c : std::vector<Case>{{0, 0, 0, 0},
                                         {0, 10, 100, 0},
                                         {10, 100, 0, 10},
                                         {10, 10, 100, 10},
                                         {10, 50, 0, 5},
                                         {10, 0, 4, 4},
                                         {1000, 10, 100, 100},
                                         {5000, 10, 100, 500},
                                         {1000, 50, 600, 600}}) {
    EXPECT_EQ(NumCandidates(Args{c.percentage, c.absolute}, c.nodes), c.want)
        << c.nodes << " nodes, " << c.percentage << "%, " << c.absolute;
  }
}

struct PostFilterCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> pods;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pdbs;
  std::vector<api::Node> nodes;
  framework::NodeToStatus statuses;
  framework::PostFilterResult::Mode want_mode;
  std::string want_node;
  Code want_code;
  std::string want_message;
};

api::Node OnePodNode(const std::string& name) {
  return MakeNode(name).Capacity({{"pods", "1"}}).Obj();
}
api::Node SmallNode(const std::string& name) {
  return MakeNode(name).Capacity({{"cpu", "200m"}, {"memory", "400"}}).Obj();
}

constexpr auto kOverride = framework::PostFilterResult::Mode::kOverride;
constexpr auto kNoop = framework::PostFilterResult::Mode::kNoop;

TEST(PostFilterTest, UpstreamTable) {
  const auto U = Code::kUnschedulable;
  const auto UU = Code::kUnschedulableAndUnresolvable;
  std::vector<PostFilterCase> cases = {
      {"pod with higher priority can be made schedulable",
       MakePod("p").Priority(kHighPriority).Obj(),
       {MakePod("p1").Node("node1").Obj()},
       {},
       {OnePodNode("node1")},
       Statuses({{"node1", U}}),
       kOverride,
       "node1",
       Code::kSuccess,
       "preemption: found a potential placement for pod on node node1, preempting 1 victims"},
      {"pod with tied priority is still unschedulable",
       MakePod("p").Obj(),
       {MakePod("p1").Node("node1").Obj()},
       {},
       {OnePodNode("node1")},
       Statuses({{"node1", U}}),
       kOverride,
       "",
       U,
       "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."},
      {"preemption should respect filteredNodesStatuses",
       MakePod("p").Priority(kHighPriority).Obj(),
       {MakePod("p1").Node("node1").Obj()},
       {},
       {OnePodNode("node1")},
       Statuses({{"node1", UU}}),
       kOverride,
       "",
       U,
       "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
      {"absent node status means UnschedulableAndUnresolvable",
       MakePod("p").Priority(kHighPriority).Obj(),
       {MakePod("p1").Node("node1").Obj()},
       {},
       {OnePodNode("node1")},
       Statuses({}),
       kOverride,
       "",
       U,
       "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
      {"pod can be made schedulable on one node",
       MakePod("p").Priority(kMidPriority).Obj(),
       {MakePod("p1").Node("node1").Priority(kHighPriority).Obj(),
        MakePod("p2").Node("node2").Priority(kLowPriority).Obj()},
       {},
       {OnePodNode("node1"), OnePodNode("node2")},
       Statuses({{"node1", U}, {"node2", U}}),
       kOverride,
       "node2",
       Code::kSuccess,
       "preemption: found a potential placement for pod on node node2, preempting 1 victims"},
      {"pod can be made schedulable on minHighestPriority node",
       MakePod("p").Priority(kVeryHighPriority).Obj(),
       {MakePod("p1").Node("node1").Priority(kHighPriority).Label("pdb", "non-violating").Obj(),
        MakePod("p2").Node("node1").Priority(kLowPriority).Label("pdb", "violating").Obj(),
        MakePod("p3").Node("node2").Priority(kMidPriority).Label("pdb", "violating").Obj()},
       {Pdb("violating-pdb", "default", {{"pdb", "violating"}}, 0),
        Pdb("non-violating-pdb", "default", {{"pdb", "non-violating"}},
            std::numeric_limits<int32_t>::max())},
       {OnePodNode("node1"), OnePodNode("node2")},
       Statuses({{"node1", U}, {"node2", U}}),
       kOverride,
       "node2",
       Code::kSuccess,
       "preemption: found a potential placement for pod on node node2, preempting 1 victims"},
      {"no candidate nodes found, no enough resource after removing low priority pods",
       MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("p1").Node("node1").Obj(), MakePod("p2").Node("node2").Obj()},
       {},
       {SmallNode("node1"), SmallNode("node2")},
       Statuses({{"node1", U}, {"node2", U}}),
       kOverride,
       "",
       U,
       "preemption: 0/2 nodes are available: 2 Insufficient cpu."},
      {"no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU",
       MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("p1").Node("node1").Priority(kHighPriority).Obj(),
        MakePod("p2").Node("node2").Obj(),
        MakePod("p3").Node("node3").Priority(kHighPriority).Obj()},
       {},
       {OnePodNode("node1"), SmallNode("node2"), OnePodNode("node3")},
       Statuses({{"node1", U}, {"node2", U}, {"node3", U}}),
       kOverride,
       "",
       U,
       "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found "
       "for incoming pod."},
      {"no candidate nodes found with mixed reason, 2 UU nodes and 2 nodes without enough CPU",
       MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
       {MakePod("p1").Node("node1").Obj(), MakePod("p2").Node("node2").Obj()},
       {},
       {SmallNode("node1"), SmallNode("node2"), SmallNode("node3"), SmallNode("node4")},
       Statuses({{"node1", U}, {"node2", U}, {"node4", UU}}),
       kOverride,
       "",
       U,
       "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for "
       "scheduling."},
      {"preemptionPolicy Never",
       [] {
         api::Pod p = MakePod("p").Priority(kHighPriority).Obj();
         p.spec.preemption_policy = "Never";
         return p;
       }(),
       {MakePod("p1").Node("node1").Obj()},
       {},
       {OnePodNode("node1")},
       Statuses({{"node1", U}}),
       kNoop,
       "",
       U,
       "preemption: not eligible due to preemptionPolicy=Never."},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    Env env(c.nodes, c.pods);
    for (const auto& pdb : c.pdbs) env.AddPdb(pdb);
    framework::PostFilterResult result;
    auto s = env.PostFilter(c.pod, c.statuses, &result);
    EXPECT_EQ(s.code(), c.want_code) << s.Message();
    EXPECT_EQ(s.Message(), c.want_message);
    EXPECT_EQ(result.mode, c.want_mode);
    EXPECT_EQ(result.nominated_node_name, c.want_node);
  }
}

TEST(PostFilterTest, DeletesVictimsAndClearsLowerPriorityNominations) {
  Env env({MakeNode("node1").Capacity(BERTH_VERY_LARGE_RES).Obj()},
          {MakePod("v1").Node("node1").Priority(kLowPriority).Req(BERTH_MEDIUM_RES).Obj(),
           MakePod("v2").Node("node1").Priority(kLowPriority).Req(BERTH_MEDIUM_RES).Obj(),
           MakePod("keep").Node("node1").Priority(kHighPriority).Req(BERTH_SMALL_RES).Obj()});
  // Pending pods nominated to node1 earlier: the lower-priority one loses its nomination.
  env.Nominate(MakePod("nominated-low").Priority(kMidPriority).Obj(), "node1");
  env.Nominate(MakePod("nominated-high").Priority(kVeryHighPriority).Obj(), "node1");
  framework::PostFilterResult result;
  auto s = env.PostFilter(MakePod("p").Priority(kHighPriority).Req(BERTH_MEDIUM_RES).Obj(),
                          Statuses({{"node1", Code::kUnschedulable}}), &result);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(result.nominated_node_name, "node1");
  // 500m: keep (100m) + nominated-high (0) + p (200m) leaves room for one 200m victim only.
  ASSERT_EQ(env.writer().deleted.size(), 1u);
  EXPECT_TRUE(env.writer().deleted[0] == "default/v1" || env.writer().deleted[0] == "default/v2");
  EXPECT_EQ(env.writer().events,
            std::vector<std::string>{env.writer().deleted[0] + " by default/p on node1"});
  EXPECT_EQ(env.writer().nominations,
            (std::vector<std::pair<std::string, std::string>>{{"default/nominated-low", ""}}));
}

TEST(PostFilterTest, NominatedPodsOfHigherPriorityKeepTheirRoom) {
  // node1 has room only if both low pods go, because a higher-priority pod is nominated there
  // and counts as if it were running (RunFilterPluginsWithNominatedPods).
  Env env({MakeNode("node1").Capacity(BERTH_VERY_LARGE_RES).Obj(),
           MakeNode("node2").Capacity(BERTH_VERY_LARGE_RES).Obj()},
          {MakePod("a").Node("node1").Priority(kLowPriority).Req(BERTH_MEDIUM_RES).Obj(),
           MakePod("b").Node("node2").Priority(kLowPriority).Req(BERTH_MEDIUM_RES).Obj(),
           MakePod("c").Node("node2").Priority(kLowPriority).Req(BERTH_MEDIUM_RES).Obj()});
  env.Nominate(MakePod("big").Priority(kVeryHighPriority).Req(BERTH_VERY_LARGE_RES).Obj(), "node1");
  framework::PostFilterResult result;
  auto s = env.PostFilter(
      MakePod("p").Priority(kHighPriority).Req(BERTH_LARGE_RES).Obj(),
      Statuses({{"node1", Code::kUnschedulable}, {"node2", Code::kUnschedulable}}), &result);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(result.nominated_node_name, "node2");
  EXPECT_EQ(env.writer().deleted.size(), 1u);
}

TEST(PostFilterTest, InvalidArgsAreAStartUpError) {
  auto args = Json(R"({"minCandidateNodesPercentage": 200})");
  framework::PluginContext ctx;
  ctx.args = &args;
  ctx.args_path = "profiles[0].pluginConfig[0].args";
  testing::FakeHandle handle;
  ctx.handle = &handle;
  auto p = New(ctx);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error(),
            "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 200: "
            "not in valid range [0, 100]");
}

}  // namespace
}  // namespace berth::plugins::default_preemption::test
