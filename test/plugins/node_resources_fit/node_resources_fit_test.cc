#include "plugins/node_resources_fit/node_resources_fit.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "plugins/node_resources_fit/args.h"
#include "plugins/node_resources_fit/scoring.h"
#include "scheduler/framework/plugin.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::node_resources_fit {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;
using testing::ResPairs;

// ---- args helpers ----

api::Value Str(std::string s) { return api::Value::String(std::move(s)); }
api::Value Int(int64_t i) { return api::Value::Int(i); }
api::Value Obj(std::vector<std::pair<std::string, api::Value>> members) {
  api::Value v = api::Value::MakeObject();
  for (auto& [k, m] : members) v.Set(k, std::move(m));
  return v;
}
api::Value Arr(std::vector<api::Value> items) {
  api::Value v = api::Value::MakeArray();
  for (auto& i : items) v.Push(std::move(i));
  return v;
}
api::Value Resources(const std::vector<std::pair<std::string, int64_t>>& specs) {
  std::vector<api::Value> items;
  for (const auto& [n, w] : specs) items.push_back(Obj({{"name", Str(n)}, {"weight", Int(w)}}));
  return Arr(std::move(items));
}
api::Value Strategy(const std::string& type,
                    const std::vector<std::pair<std::string, int64_t>>& res,
                    const std::vector<std::pair<int64_t, int64_t>>& shape = {}) {
  std::vector<std::pair<std::string, api::Value>> m;
  m.emplace_back("type", Str(type));
  if (!res.empty()) m.emplace_back("resources", Resources(res));
  if (!shape.empty()) {
    std::vector<api::Value> pts;
    for (const auto& [u, s] : shape)
      pts.push_back(Obj({{"utilization", Int(u)}, {"score", Int(s)}}));
    m.emplace_back("requestedToCapacityRatio", Obj({{"shape", Arr(std::move(pts))}}));
  }
  return Obj({{"scoringStrategy", Obj(std::move(m))}});
}

Result<std::shared_ptr<framework::Plugin>> NewWith(const api::Value* args) {
  framework::PluginContext ctx;
  ctx.args = args;
  ctx.args_path = "args";
  return New(ctx);
}

// ---- Filter: upstream's fit_test.go enoughPodsTests, node = makeAllocatableResources(10m, 20,
// pods 32, example.com/aaa 5, ephemeral 20, hugepages-2Mi 5) ----

MakeNode FilterNode(int64_t pods = 32) {
  MakeNode b("node");
  b.Capacity({{"cpu", "10m"},
              {"memory", "20"},
              {"pods", std::to_string(pods)},
              {"example.com/aaa", "5"},
              {"ephemeral-storage", "20"},
              {"hugepages-2Mi", "5"}});
  return b;
}

std::string CpuMilli(int64_t m) { return std::to_string(m) + "m"; }

framework::PodInfoPtr UsagePod(int64_t cpu_m, int64_t mem) {
  return MakePod("existing")
      .Req({{"cpu", CpuMilli(cpu_m)}, {"memory", std::to_string(mem)}})
      .Info();
}

struct FilterCase {
  std::string name;
  framework::PodInfoPtr pod;
  framework::PodInfoPtr existing;  // may be null
  Code want_code;
  std::vector<std::string> want_reasons;
  const api::Value* args = nullptr;
  int64_t node_pods = 32;
};

void RunFilter(const FilterCase& c) {
  SCOPED_TRACE(c.name);
  auto p = NewWith(c.args);
  ASSERT_TRUE(p.ok()) << p.error();
  framework::NodeInfo node =
      c.existing ? FilterNode(c.node_pods).Info({c.existing}) : FilterNode(c.node_pods).Info();
  framework::CycleState state;
  framework::PreFilterResult result;
  auto& plugin = **p;
  ASSERT_TRUE(dynamic_cast<framework::PreFilterPlugin&>(plugin)
                  .PreFilter(state, *c.pod, {&node}, &result)
                  .IsSuccess());
  auto st = dynamic_cast<framework::FilterPlugin&>(plugin).Filter(state, *c.pod, node);
  EXPECT_EQ(st.code(), c.want_code) << st.Message();
  EXPECT_EQ(st.reasons(), c.want_reasons);
}

TEST(NodeResourcesFitFilter, EnoughRequests) {
  const auto U = Code::kUnschedulable;
  const auto UU = Code::kUnschedulableAndUnresolvable;
  const auto OK = Code::kSuccess;
  api::Value ignore_b = Obj({{"ignoredResources", Arr({Str("example.com/bbb")})}});
  api::Value ignore_group = Obj({{"ignoredResourceGroups", Arr({Str("example.com")})}});
  std::vector<FilterCase> cases = {
      {"no resources requested always fits", MakePod("p").Info(), UsagePod(10, 20), OK, {}},
      {"too many resources fails",
       MakePod("p").Req({{"cpu", "1m"}, {"memory", "1"}}).Info(),
       UsagePod(10, 20),
       U,
       {"Insufficient cpu", "Insufficient memory"}},
      {"too many resources fails due to init container cpu",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .InitReq({{"cpu", "3m"}, {"memory", "1"}})
           .Info(),
       UsagePod(8, 19),
       U,
       {"Insufficient cpu"}},
      {"too many resources fails due to highest init container cpu",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .InitReq({{"cpu", "3m"}, {"memory", "1"}})
           .InitReq({{"cpu", "2m"}, {"memory", "1"}})
           .Info(),
       UsagePod(8, 19),
       U,
       {"Insufficient cpu"}},
      {"too many resources fails due to init container memory",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .InitReq({{"cpu", "1m"}, {"memory", "3"}})
           .Info(),
       UsagePod(9, 19),
       U,
       {"Insufficient memory"}},
      {"init container fits because it's the max, not sum, of containers and init containers",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .InitReq({{"cpu", "1m"}, {"memory", "1"}})
           .Info(),
       UsagePod(9, 19),
       OK,
       {}},
      {"both resources fit",
       MakePod("p").Req({{"cpu", "1m"}, {"memory", "1"}}).Info(),
       UsagePod(5, 5),
       OK,
       {}},
      {"one resource memory fits",
       MakePod("p").Req({{"cpu", "2m"}, {"memory", "1"}}).Info(),
       UsagePod(9, 5),
       U,
       {"Insufficient cpu"}},
      {"one resource cpu fits",
       MakePod("p").Req({{"cpu", "1m"}, {"memory", "2"}}).Info(),
       UsagePod(5, 19),
       U,
       {"Insufficient memory"}},
      {"equal edge case",
       MakePod("p").Req({{"cpu", "5m"}, {"memory", "1"}}).Info(),
       UsagePod(5, 19),
       OK,
       {}},
      {"equal edge case for init container",
       MakePod("p")
           .Req({{"cpu", "4m"}, {"memory", "1"}})
           .InitReq({{"cpu", "5m"}, {"memory", "1"}})
           .Info(),
       UsagePod(5, 19),
       OK,
       {}},
      {"extended resource fits",
       MakePod("p").Req({{"example.com/aaa", "1"}}).Info(),
       MakePod("e").Req({{"example.com/aaa", "0"}}).Info(),
       OK,
       {}},
      {"extended resource capacity enforced",
       MakePod("p").Req({{"example.com/aaa", "10"}}).Info(),
       MakePod("e").Req({{"example.com/aaa", "0"}}).Info(),
       UU,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable enforced",
       MakePod("p").Req({{"example.com/aaa", "1"}}).Info(),
       MakePod("e").Req({{"example.com/aaa", "5"}}).Info(),
       U,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable enforced for multiple containers",
       MakePod("p").Req({{"example.com/aaa", "3"}}).Req({{"example.com/aaa", "3"}}).Info(),
       MakePod("e").Req({{"example.com/aaa", "2"}}).Info(),
       UU,
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable admits multiple init containers",
       MakePod("p").InitReq({{"example.com/aaa", "3"}}).InitReq({{"example.com/aaa", "3"}}).Info(),
       MakePod("e").Req({{"example.com/aaa", "2"}}).Info(),
       OK,
       {}},
      {"extended resource allocatable enforced for multiple init containers",
       MakePod("p").InitReq({{"example.com/aaa", "6"}}).InitReq({{"example.com/aaa", "3"}}).Info(),
       MakePod("e").Req({{"example.com/aaa", "2"}}).Info(),
       UU,
       {"Insufficient example.com/aaa"}},
      {"extended resource unknown",
       MakePod("p").Req({{"example.com/bbb", "1"}}).Info(),
       nullptr,
       UU,
       {"Insufficient example.com/bbb"}},
      {"kubernetes.io resource capacity enforced",
       MakePod("p").Req({{"kubernetes.io/something", "10"}}).Info(),
       nullptr,
       UU,
       {"Insufficient kubernetes.io/something"}},
      {"hugepages resource capacity enforced",
       MakePod("p").Req({{"hugepages-2Mi", "10"}}).Info(),
       nullptr,
       UU,
       {"Insufficient hugepages-2Mi"}},
      {"hugepages resource allocatable enforced for multiple containers",
       MakePod("p").Req({{"hugepages-2Mi", "3"}}).Req({{"hugepages-2Mi", "3"}}).Info(),
       MakePod("e").Req({{"hugepages-2Mi", "2"}}).Info(),
       UU,
       {"Insufficient hugepages-2Mi"}},
      {"skip checking ignored extended resource",
       MakePod("p").Req({{"cpu", "1m"}, {"memory", "1"}, {"example.com/bbb", "2"}}).Info(),
       UsagePod(0, 0),
       OK,
       {},
       &ignore_b},
      {"skip checking ignored extended resource via resource groups",
       MakePod("p").Req({{"cpu", "1m"}, {"memory", "1"}, {"example.com/bbb", "2"}}).Info(),
       UsagePod(0, 0),
       OK,
       {},
       &ignore_group},
      {"ignored resources never cover kubernetes.io resources",
       MakePod("p").Req({{"kubernetes.io/something", "1"}}).Info(),
       nullptr,
       UU,
       {"Insufficient kubernetes.io/something"},
       &ignore_group},
      {"resources + pod overhead fits",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .Overhead({{"cpu", "3m"}, {"memory", "13"}})
           .Info(),
       UsagePod(5, 5),
       OK,
       {}},
      {"requests + overhead does not fit for memory",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .Overhead({{"cpu", "1m"}, {"memory", "15"}})
           .Info(),
       UsagePod(5, 5),
       U,
       {"Insufficient memory"}},
      {"ephemeral storage insufficient",
       MakePod("p").Req({{"ephemeral-storage", "25"}}).Info(),
       nullptr,
       UU,
       {"Insufficient ephemeral-storage"}},
      {"ephemeral storage fits",
       MakePod("p").Req({{"ephemeral-storage", "10"}}).Info(),
       nullptr,
       OK,
       {}},
      {"request exceeding allocatable outright is unresolvable",
       MakePod("p").Req({{"cpu", "11m"}, {"memory", "1"}}).Info(),
       UsagePod(1, 1),
       UU,
       {"Insufficient cpu"}},
      {"one unresolvable resource makes the whole status unresolvable",
       MakePod("p").Req({{"cpu", "2m"}, {"memory", "21"}}).Info(),
       UsagePod(9, 1),
       UU,
       {"Insufficient cpu", "Insufficient memory"}},
      // Upstream's notEnoughPodsTests: allowed pod number 1 with one pod already there.
      {"even without specified resources, predicate fails when there's no space for additional pod",
       MakePod("p").Info(),
       UsagePod(10, 20),
       U,
       {"Too many pods"},
       nullptr,
       1},
      {"even if both resources fit, predicate fails when there's no space for additional pod",
       MakePod("p").Req({{"cpu", "1m"}, {"memory", "1"}}).Info(),
       UsagePod(5, 5),
       U,
       {"Too many pods"},
       nullptr,
       1},
      {"even for equal edge case, predicate fails when there's no space for additional pod",
       MakePod("p").Req({{"cpu", "5m"}, {"memory", "1"}}).Info(),
       UsagePod(5, 19),
       U,
       {"Too many pods"},
       nullptr,
       1},
      {"too many pods and insufficient cpu keep both reasons",
       MakePod("p").Req({{"cpu", "6m"}, {"memory", "1"}}).Info(),
       UsagePod(5, 19),
       U,
       {"Too many pods", "Insufficient cpu"},
       nullptr,
       1},
  };
  for (const auto& c : cases) RunFilter(c);
}

// Upstream v1.37.2's enoughPodsTests with pod-level resources (PodLevelResources is on): the
// pod-level requests replace the container sums for cpu, memory and hugepages.
TEST(NodeResourcesFitFilter, PodLevelResources) {
  const auto U = Code::kUnschedulable;
  const auto UU = Code::kUnschedulableAndUnresolvable;
  const auto OK = Code::kSuccess;
  std::vector<FilterCase> cases = {
      {"both pod-level and container-level resources fit",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .PodReq({{"cpu", "1m"}, {"memory", "2"}})
           .Info(),
       UsagePod(5, 5),
       OK,
       {}},
      {"pod-level cpu resource not fit",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .PodReq({{"cpu", "7m"}, {"memory", "2"}})
           .Info(),
       UsagePod(5, 5),
       U,
       {"Insufficient cpu"}},
      {"pod-level memory resource not fit",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .PodReq({{"cpu", "3m"}, {"memory", "2"}})
           .Info(),
       UsagePod(5, 19),
       U,
       {"Insufficient memory"}},
      {"pod-level hugepages resource fit",
       MakePod("p").PodReq({{"cpu", "3m"}, {"memory", "2"}, {"hugepages-2Mi", "5"}}).Info(),
       nullptr,
       OK,
       {}},
      {"both pod-level and container-level hugepages resource fit",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}, {"hugepages-2Mi", "3"}})
           .PodReq({{"cpu", "3m"}, {"memory", "2"}, {"hugepages-2Mi", "5"}})
           .Info(),
       nullptr,
       OK,
       {}},
      {"pod-level hugepages resource not fit",
       MakePod("p").PodReq({{"cpu", "3m"}, {"memory", "2"}, {"hugepages-2Mi", "10"}}).Info(),
       nullptr,
       UU,
       {"Insufficient hugepages-2Mi"}},
      {"one pod-level cpu resource fits and all init and non-init containers resources fit",
       MakePod("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .InitReq({{"cpu", "1m"}, {"memory", "1"}})
           .PodReq({{"cpu", "3m"}, {"memory", "2"}})
           .Info(),
       UsagePod(5, 19),
       U,
       {"Insufficient memory"}},
  };
  for (const auto& c : cases) RunFilter(c);
}

// A running pod being resized in place holds max(spec, allocated, actual) on its node (the
// cache's PodInfo.CalculateResource), so a pending pod sees less room.
TEST(NodeResourcesFitFilter, RunningPodsCountTheirInPlaceResize) {
  api::Pod resized = MakePod("resized").Req({{"cpu", "1m"}, {"memory", "1"}}).Obj();
  api::ContainerStatus status;
  status.name = "c0";
  status.allocated_resources = testing::MakeList({{"cpu", "9m"}});
  resized.status.container_statuses.push_back(status);
  RunFilter({"allocated 9m of 10m",
             MakePod("p").Req({{"cpu", "2m"}}).Info(),
             framework::MakePodInfo(std::make_shared<const api::Pod>(resized)),
             Code::kUnschedulable,
             {"Insufficient cpu"}});
}

TEST(NodeResourcesFitFilter, MissingPreFilterStateIsError) {
  auto p = NewWith(nullptr);
  ASSERT_TRUE(p.ok());
  auto node = FilterNode().Info();
  auto pod = MakePod("p").Info();
  framework::CycleState state;
  auto st = dynamic_cast<framework::FilterPlugin&>(**p).Filter(state, *pod, node);
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(), "error reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
}

// ---- Score ----

MakeNode ScoreNode(const std::string& name, ResPairs capacity) {
  MakeNode b(name);
  b.Capacity(capacity);
  return b;
}

struct ScoreCase {
  std::string name;
  framework::PodInfoPtr pod;
  std::vector<framework::NodeInfo> nodes;
  std::vector<int64_t> want;
};

void RunScore(const api::Value& args, const ScoreCase& c, bool run_prescore = true) {
  SCOPED_TRACE(c.name);
  auto p = NewWith(&args);
  ASSERT_TRUE(p.ok()) << p.error();
  framework::CycleState state;
  std::vector<const framework::NodeInfo*> ptrs;
  for (const auto& n : c.nodes) ptrs.push_back(&n);
  if (run_prescore) {
    ASSERT_TRUE(
        dynamic_cast<framework::PreScorePlugin&>(**p).PreScore(state, *c.pod, ptrs).IsSuccess());
  }
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    int64_t score = -1;
    auto st = dynamic_cast<framework::ScorePlugin&>(**p).Score(state, *c.pod, c.nodes[i], &score);
    EXPECT_TRUE(st.IsSuccess()) << st.Message();
    EXPECT_EQ(score, c.want[i]) << "node " << i;
  }
}

framework::PodInfoPtr Pod3000x5000() {
  return MakePod("p")
      .Req({{"cpu", "1000"}, {"memory", "2000"}})
      .Req({{"cpu", "2000"}, {"memory", "3000"}})
      .Info();
}
framework::PodInfoPtr OnNode(ResPairs req) { return MakePod("e").Req(req).Info(); }

// Upstream's least_allocated_test.go (st.MakeNode capacities: cpu in cores, memory in bytes).
TEST(NodeResourcesFitScore, LeastAllocated) {
  const std::vector<std::pair<std::string, int64_t>> def = {{"cpu", 1}, {"memory", 1}};
  const std::vector<std::pair<std::string, int64_t>> ext = {
      {"cpu", 1}, {"memory", 1}, {"abc.com/xyz", 1}};
  std::vector<std::pair<std::vector<std::pair<std::string, int64_t>>, ScoreCase>> cases = {
      {def,
       {"nothing scheduled, nothing requested",
        MakePod("p").Info(),
        {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}}).Info(),
         ScoreNode("node2", {{"cpu", "4000"}, {"memory", "10000"}}).Info()},
        {100, 100}}},
      {def,
       {"nothing scheduled, resources requested, differently sized nodes",
        Pod3000x5000(),
        {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}}).Info(),
         ScoreNode("node2", {{"cpu", "6000"}, {"memory", "10000"}}).Info()},
        {37, 50}}},
      {def,
       {"no resources requested, pods scheduled",
        MakePod("p").Info(),
        {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}})
             .Info({MakePod("a").Info(), MakePod("b").Info()}),
         ScoreNode("node2", {{"cpu", "4000"}, {"memory", "10000"}})
             .Info({MakePod("c").Info(), MakePod("d").Info()})},
        {100, 100}}},
      {def,
       {"no resources requested, pods scheduled with resources",
        MakePod("p").Info(),
        {ScoreNode("node1", {{"cpu", "10000"}, {"memory", "20000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "0"}}),
                    OnNode({{"cpu", "3000"}, {"memory", "0"}})}),
         ScoreNode("node2", {{"cpu", "10000"}, {"memory", "20000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "0"}}),
                    OnNode({{"cpu", "3000"}, {"memory", "5000"}})})},
        {70, 57}}},
      {def,
       {"resources requested, pods scheduled with resources",
        Pod3000x5000(),
        {ScoreNode("node1", {{"cpu", "10000"}, {"memory", "20000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "0"}})}),
         ScoreNode("node2", {{"cpu", "10000"}, {"memory", "20000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "5000"}})})},
        {57, 45}}},
      {def,
       {"resources requested, pods scheduled with resources, differently sized nodes",
        Pod3000x5000(),
        {ScoreNode("node1", {{"cpu", "10000"}, {"memory", "20000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "0"}})}),
         ScoreNode("node2", {{"cpu", "10000"}, {"memory", "50000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "5000"}})})},
        {57, 60}}},
      {def,
       {"requested resources exceed node capacity",
        MakePod("p").Req({{"cpu", "3000"}, {"memory", "0"}}).Info(),
        {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "0"}})}),
         ScoreNode("node2", {{"cpu", "4000"}, {"memory", "10000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "5000"}})})},
        {50, 25}}},
      {def,
       {"zero node resources, pods scheduled with resources",
        MakePod("p").Info(),
        {MakeNode("node1").Info({OnNode({{"cpu", "3000"}, {"memory", "0"}})}),
         MakeNode("node2").Info({OnNode({{"cpu", "3000"}, {"memory", "5000"}})})},
        {0, 0}}},
      {{{"memory", 2}, {"cpu", 1}},
       {"nothing scheduled, resources requested with different weight on CPU and memory",
        Pod3000x5000(),
        {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}}).Info(),
         ScoreNode("node2", {{"cpu", "6000"}, {"memory", "10000"}}).Info()},
        {41, 50}}},
      {ext,
       {"bypass extended resource if the pod does not request",
        Pod3000x5000(),
        {ScoreNode("node1", {{"cpu", "6000"}, {"memory", "10000"}}).Info(),
         ScoreNode("node2", {{"cpu", "6000"}, {"memory", "10000"}, {"abc.com/xyz", "4"}}).Info()},
        {50, 50}}},
      {ext,
       {"honor extended resource if the pod requests",
        MakePod("p").Req({{"cpu", "3000"}, {"memory", "5000"}, {"abc.com/xyz", "2"}}).Info(),
        {ScoreNode("node1", {{"cpu", "6000"}, {"memory", "10000"}, {"abc.com/xyz", "4"}}).Info(),
         ScoreNode("node2", {{"cpu", "6000"}, {"memory", "10000"}, {"abc.com/xyz", "10"}}).Info()},
        {50, 60}}},
      {{{"abc.com/xyz", 2}, {"cpu", 1}, {"memory", 1}},
       {"if the node doesn't have a resource",
        MakePod("p").Req({{"cpu", "3000"}, {"memory", "4000"}}).Info(),
        {ScoreNode("node1", {{"cpu", "6000"}, {"memory", "10000"}}).Info(),
         ScoreNode("node2", {{"cpu", "6000"}, {"memory", "10000"}, {"abc.com/xyz", "4"}}).Info()},
        {55, 55}}},
  };
  for (const auto& [res, c] : cases) {
    RunScore(Strategy("LeastAllocated", res), c);
    RunScore(Strategy("LeastAllocated", res), c, /*run_prescore=*/false);
  }
}

// Upstream's most_allocated_test.go core cases.
TEST(NodeResourcesFitScore, MostAllocated) {
  const std::vector<std::pair<std::string, int64_t>> def = {{"cpu", 1}, {"memory", 1}};
  std::vector<std::pair<std::vector<std::pair<std::string, int64_t>>, ScoreCase>> cases = {
      {def,
       {"nothing scheduled, nothing requested",
        MakePod("p").Info(),
        {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}}).Info(),
         ScoreNode("node2", {{"cpu", "4000"}, {"memory", "10000"}}).Info()},
        {0, 0}}},
      {def,
       {"nothing scheduled, resources requested, differently sized nodes",
        Pod3000x5000(),
        {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}}).Info(),
         ScoreNode("node2", {{"cpu", "6000"}, {"memory", "10000"}}).Info()},
        {62, 50}}},
      {def,
       {"no resources requested, pods scheduled with resources",
        MakePod("p").Info(),
        {ScoreNode("node1", {{"cpu", "10000"}, {"memory", "20000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "0"}}),
                    OnNode({{"cpu", "3000"}, {"memory", "0"}})}),
         ScoreNode("node2", {{"cpu", "10000"}, {"memory", "20000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "0"}}),
                    OnNode({{"cpu", "3000"}, {"memory", "5000"}})})},
        {30, 42}}},
      {def,
       {"resources requested, pods scheduled with resources",
        MakePod("p")
            .Req({{"cpu", "1000"}, {"memory", "2000"}})
            .Req({{"cpu", "2000"}, {"memory", "3000"}})
            .Info(),
        {ScoreNode("node1", {{"cpu", "10000"}, {"memory", "20000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "0"}})}),
         ScoreNode("node2", {{"cpu", "10000"}, {"memory", "20000"}})
             .Info({OnNode({{"cpu", "3000"}, {"memory", "5000"}})})},
        {42, 55}}},
      {{{"memory", 2}, {"cpu", 1}},
       {"resources requested with more weight on memory",
        Pod3000x5000(),
        {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}}).Info(),
         ScoreNode("node2", {{"cpu", "6000"}, {"memory", "10000"}}).Info()},
        {58, 50}}},
      // Non-zero defaults can push requested past allocatable: capped at 100.
      {def,
       {"requested resources exceed node capacity are capped",
        MakePod("p").Req({}).Info(),
        {ScoreNode("node1", {{"cpu", "50m"}, {"memory", "100Mi"}}).Info()},
        {100}}},
      {def, {"zero node resources", MakePod("p").Info(), {MakeNode("node1").Info()}, {0}}},
  };
  for (const auto& [res, c] : cases) RunScore(Strategy("MostAllocated", res), c);
}

// Non-zero semantics: a container without requests counts as 100m / 200Mi when scoring.
TEST(NodeResourcesFitScore, NonZeroDefaultsForCpuAndMemory) {
  // cpu: (1000m - 100m - 100m) * 100 / 1000m = 80; memory: (1000Mi - 200Mi - 200Mi) / 1000Mi = 60.
  ScoreCase c{"pod and existing pod without requests",
              MakePod("p").Req({}).Info(),
              {ScoreNode("node1", {{"cpu", "1000m"}, {"memory", "1000Mi"}})
                   .Info({MakePod("e").Req({}).Info()})},
              {70}};
  RunScore(Strategy("LeastAllocated", {}), c);
  api::Value none;  // null args: defaults
  RunScore(none, c);
}

// Upstream's requested_to_capacity_ratio_test.go.
TEST(NodeResourcesFitScore, RequestedToCapacityRatio) {
  const std::vector<std::pair<std::string, int64_t>> def = {{"cpu", 1}, {"memory", 1}};
  const std::vector<std::pair<int64_t, int64_t>> shape = {{0, 10}, {100, 0}};
  std::vector<ScoreCase> cases = {
      {"nothing scheduled, nothing requested (default - least requested nodes have priority)",
       MakePod("p").Info(),
       {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}})
            .Info({MakePod("a").Info(), MakePod("b").Info()}),
        ScoreNode("node2", {{"cpu", "4000"}, {"memory", "10000"}}).Info()},
       {100, 100}},
      {"nothing scheduled, resources requested, differently sized nodes",
       Pod3000x5000(),
       {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}})
            .Info({MakePod("a").Info(), MakePod("b").Info()}),
        ScoreNode("node2", {{"cpu", "6000"}, {"memory", "10000"}}).Info()},
       {38, 50}},
      {"no resources requested, pods scheduled with resources",
       MakePod("p").Info(),
       {ScoreNode("node1", {{"cpu", "4000"}, {"memory", "10000"}})
            .Info({OnNode({{"cpu", "3000"}, {"memory", "5000"}})}),
        ScoreNode("node2", {{"cpu", "6000"}, {"memory", "10000"}})
            .Info({OnNode({{"cpu", "3000"}, {"memory", "5000"}})})},
       {38, 50}},
  };
  for (const auto& c : cases) RunScore(Strategy("RequestedToCapacityRatio", def, shape), c);
}

MakeNode ExtNode(const std::string& name, std::vector<std::pair<std::string, int64_t>> ext) {
  MakeNode b(name);
  b.Capacity({{"cpu", "4000m"}, {"memory", std::to_string(10000LL * 1024 * 1024)}});
  for (const auto& [n, v] : ext) {
    b.Mutable().status.capacity[n] = api::Quantity::FromValue(v);
    b.Mutable().status.allocatable[n] = api::Quantity::FromValue(v);
  }
  return b;
}

// Upstream's TestResourceBinPackingSingleExtended / MultipleExtended.
TEST(NodeResourcesFitScore, BinPackingExtended) {
  const std::vector<std::pair<int64_t, int64_t>> shape = {{0, 0}, {100, 1}};
  const std::vector<std::pair<std::string, int64_t>> single = {{"intel.com/foo", 1}};
  std::vector<ScoreCase> singles = {
      {"nothing scheduled, nothing requested",
       MakePod("p").Info(),
       {ExtNode("node1", {{"intel.com/foo", 8}}).Info(),
        ExtNode("node2", {{"intel.com/foo", 4}}).Info()},
       {0, 0}},
      {"resources requested, pods scheduled with less resources",
       MakePod("p").Req({{"intel.com/foo", "2"}}).Info(),
       {ExtNode("node1", {{"intel.com/foo", 8}}).Info({MakePod("e").Info()}),
        ExtNode("node2", {{"intel.com/foo", 4}}).Info()},
       {2, 5}},
      {"resources requested, pods scheduled with resources, on node with existing pod running",
       MakePod("p").Req({{"intel.com/foo", "2"}}).Info(),
       {ExtNode("node1", {{"intel.com/foo", 8}}).Info(),
        ExtNode("node2", {{"intel.com/foo", 4}})
            .Info({MakePod("e").Req({{"intel.com/foo", "2"}}).Info()})},
       {2, 10}},
      {"resources requested, pods scheduled with more resources",
       MakePod("p").Req({{"intel.com/foo", "4"}}).Info(),
       {ExtNode("node1", {{"intel.com/foo", 8}}).Info(),
        ExtNode("node2", {{"intel.com/foo", 4}}).Info()},
       {5, 10}},
  };
  for (const auto& c : singles) RunScore(Strategy("RequestedToCapacityRatio", single, shape), c);

  const std::vector<std::pair<std::string, int64_t>> multi = {{"intel.com/foo", 3},
                                                              {"intel.com/bar", 5}};
  std::vector<ScoreCase> multis = {
      {"nothing scheduled, nothing requested",
       MakePod("p").Info(),
       {ExtNode("node1", {{"intel.com/foo", 8}, {"intel.com/bar", 4}}).Info(),
        ExtNode("node2", {{"intel.com/foo", 4}, {"intel.com/bar", 8}}).Info()},
       {0, 0}},
      {"resources requested, pods scheduled with less resources",
       MakePod("p").Req({{"intel.com/foo", "2"}, {"intel.com/bar", "2"}}).Info(),
       {ExtNode("node1", {{"intel.com/foo", 8}, {"intel.com/bar", 4}}).Info(),
        ExtNode("node2", {{"intel.com/foo", 4}, {"intel.com/bar", 8}}).Info()},
       {4, 3}},
  };
  for (const auto& c : multis) RunScore(Strategy("RequestedToCapacityRatio", multi, shape), c);
}

// Upstream's TestBrokenLinearFunction.
TEST(NodeResourcesFitScore, BrokenLinearFunction) {
  struct Case {
    std::vector<UtilizationShapePoint> points;
    std::vector<std::pair<int64_t, int64_t>> assertions;
  } cases[] = {
      {{{10, 1}, {90, 9}},
       {{-10, 1},
        {0, 1},
        {9, 1},
        {10, 1},
        {15, 1},
        {19, 1},
        {20, 2},
        {89, 8},
        {90, 9},
        {99, 9},
        {100, 9},
        {110, 9}}},
      {{{0, 2}, {40, 10}, {100, 0}},
       {{-10, 2}, {0, 2}, {20, 6}, {30, 8}, {40, 10}, {70, 5}, {100, 0}, {110, 0}}},
      {{{0, 2}, {40, 2}, {100, 2}},
       {{-10, 2}, {0, 2}, {20, 2}, {30, 2}, {40, 2}, {70, 2}, {100, 2}, {110, 2}}},
  };
  for (const auto& c : cases) {
    for (const auto& [p, want] : c.assertions) {
      EXPECT_EQ(ResourceScorer::BrokenLinear(c.points, p), want) << "p=" << p;
    }
  }
}

// ---- args ----

TEST(NodeResourcesFitArgs, DefaultsAndValidation) {
  auto d = ParseFitArgs(nullptr, "args");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->strategy, ScoringStrategyType::kLeastAllocated);
  ASSERT_EQ(d->resources.size(), 2u);
  EXPECT_EQ(d->resources[0].name, "cpu");
  EXPECT_EQ(d->resources[1].name, "memory");

  api::Value zero = Strategy("MostAllocated", {{"memory", 1}, {"cpu", 0}});
  auto z = ParseFitArgs(&zero, "args");
  ASSERT_TRUE(z.ok()) << z.error();
  EXPECT_EQ(z->resources[1].weight, 1);  // v1 defaulting: 0 means 1

  struct Case {
    std::string name;
    api::Value args;
    std::string want;
  };
  std::vector<Case> cases;
  cases.push_back(
      {"resource with negative weight", Strategy("LeastAllocated", {{"memory", -1}, {"cpu", 1}}),
       "args.scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory "
       "not in valid range (0, 100]"});
  cases.push_back(
      {"resource weight larger than MaxNodeScore",
       Strategy("LeastAllocated", {{"memory", 1}, {"cpu", 101}}),
       "args.scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not "
       "in valid range (0, 100]"});
  cases.push_back({"unsupported type", Strategy("Foo", {}),
                   "args.scoringStrategy.type: Unsupported value: \"Foo\": supported values: "
                   "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""});
  cases.push_back(
      {"resource group with slash", Obj({{"ignoredResourceGroups", Arr({Str("example.com/aa")})}}),
       "args.ignoredResourceGroups[0]: Invalid value: \"example.com/aa\": resource group name "
       "can't contain '/'"});
  cases.push_back(
      {"bad ignored resource name", Obj({{"ignoredResources", Arr({Str("-bad")})}}),
       "args.ignoredResources[0]: Invalid value: \"-bad\": name part must consist of "
       "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
       "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"});
  cases.push_back(
      {"unsorted shape", Strategy("RequestedToCapacityRatio", {}, {{10, 1}, {5, 2}}),
       "args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 5: "
       "values must be sorted in increasing order"});
  cases.push_back(
      {"shape score out of range", Strategy("RequestedToCapacityRatio", {}, {{10, 11}}),
       "args.scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in "
       "valid range [0, 10]"});
  cases.push_back(
      {"shape utilization out of range",
       Strategy("RequestedToCapacityRatio", {}, {{0, 1}, {101, 2}}),
       "args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 101: "
       "not in valid range [0, 100]"});
  cases.push_back(
      {"RequestedToCapacityRatio needs a shape", Strategy("RequestedToCapacityRatio", {}),
       "args.scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point "
       "must be specified"});
  cases.push_back({"unknown field", Obj({{"scoringStrategy", Obj({{"typo", Str("x")}})}}),
                   "strict decoding error: unknown field \"args.scoringStrategy.typo\""});
  cases.push_back({"wrong type", Obj({{"ignoredResources", Str("x")}}),
                   "args.ignoredResources: expected array of strings, got string"});
  cases.push_back(
      {"several errors aggregate",
       Obj({{"ignoredResourceGroups", Arr({Str("a/b")})},
            {"scoringStrategy", Obj({{"type", Str("Foo")}})}}),
       "[args.ignoredResourceGroups[0]: Invalid value: \"a/b\": resource group name can't contain "
       "'/', args.scoringStrategy.type: Unsupported value: \"Foo\": supported values: "
       "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"]"});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = ParseFitArgs(&c.args, "args");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), c.want);
    EXPECT_FALSE(NewWith(&c.args).ok());
  }
}

// ---- events and hints ----

TEST(NodeResourcesFit, EventsAndHints) {
  auto p = NewWith(nullptr);
  ASSERT_TRUE(p.ok());
  auto events = dynamic_cast<framework::EnqueueExtensions&>(**p).EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[0].event.action_type,
            framework::action::kDelete | framework::action::kUpdatePodScaleDown);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[1].event.action_type,
            framework::action::kAdd | framework::action::kUpdateNodeAllocatable);

  const api::Pod pod = MakePod("target").Req({{"cpu", "2"}}).Obj();
  using framework::QueueingHint;
  // Pod deletion: only an assigned (or nominated) pod frees resources.
  const api::Pod unassigned = MakePod("other").Req({{"cpu", "1"}}).Obj();
  const api::Pod assigned = MakePod("other").Req({{"cpu", "1"}}).Node("n1").Obj();
  const auto& pod_hint = events[0].hint;
  EXPECT_EQ(pod_hint(pod, &unassigned, std::monostate{}), QueueingHint::kQueueSkip);
  EXPECT_EQ(pod_hint(pod, &assigned, std::monostate{}), QueueingHint::kQueue);
  // Scale down of an assigned pod's cpu (which the target requests) queues; memory does not.
  const api::Pod smaller = MakePod("other").Req({{"cpu", "500m"}}).Node("n1").Obj();
  EXPECT_EQ(pod_hint(pod, &assigned, &smaller), QueueingHint::kQueue);
  const api::Pod big_mem = MakePod("other").Req({{"cpu", "1"}, {"memory", "2Gi"}}).Node("n1").Obj();
  const api::Pod small_mem =
      MakePod("other").Req({{"cpu", "1"}, {"memory", "1Gi"}}).Node("n1").Obj();
  EXPECT_EQ(pod_hint(pod, &big_mem, &small_mem), QueueingHint::kQueueSkip);

  // Node events.
  const auto& node_hint = events[1].hint;
  const api::Node small = MakeNode("n").Capacity({{"cpu", "1"}}).Obj();
  const api::Node large = MakeNode("n").Capacity({{"cpu", "4"}}).Obj();
  EXPECT_EQ(node_hint(pod, std::monostate{}, &small), QueueingHint::kQueueSkip);
  EXPECT_EQ(node_hint(pod, std::monostate{}, &large), QueueingHint::kQueue);
  EXPECT_EQ(node_hint(pod, &small, &large), QueueingHint::kQueue);
  EXPECT_EQ(node_hint(pod, &large, &large), QueueingHint::kQueueSkip);
}

// ---- DRA-backed extended resources (fit_test.go's DRA rows): a resource a DeviceClass serves
// is left to DynamicResources on a node that does not advertise it ----

TEST(NodeResourcesFitFilter, DRABackedExtendedResources) {
  testing::FakeHandle handle;
  auto cls = std::make_shared<api::DeviceClass>();
  cls->metadata.name = "gpu.example.com";
  cls->spec.extended_resource_name = "example.com/gpu";
  handle.mutable_objects().device_classes.Upsert(cls);
  framework::PluginContext ctx;
  ctx.handle = &handle;
  auto p = New(ctx);
  ASSERT_TRUE(p.ok()) << p.error();
  framework::PluginContext no_handle;
  auto without = New(no_handle);
  ASSERT_TRUE(without.ok());

  auto run = [](framework::Plugin& plugin, const framework::PodInfo& pod,
                const framework::NodeInfo& node) {
    framework::CycleState state;
    framework::PreFilterResult result;
    EXPECT_TRUE(dynamic_cast<framework::PreFilterPlugin&>(plugin)
                    .PreFilter(state, pod, {&node}, &result)
                    .IsSuccess());
    return dynamic_cast<framework::FilterPlugin&>(plugin).Filter(state, pod, node);
  };
  const framework::NodeInfo plain = MakeNode("n").Capacity({{"cpu", "4"}, {"pods", "10"}}).Info();
  const framework::NodeInfo plugin_node =
      MakeNode("d").Capacity({{"cpu", "4"}, {"pods", "10"}, {"example.com/gpu", "1"}}).Info();
  auto one = MakePod("p").Req({{"example.com/gpu", "1"}}).Info();
  auto two = MakePod("p").Req({{"example.com/gpu", "2"}}).Info();
  auto implicit =
      MakePod("p").Req({{"deviceclass.resource.kubernetes.io/gpu.example.com", "3"}}).Info();
  auto unserved = MakePod("p").Req({{"example.com/other", "1"}}).Info();

  // Not advertised, served by the class: DynamicResources decides.
  EXPECT_TRUE(run(**p, *one, plain).IsSuccess());
  EXPECT_TRUE(run(**p, *two, plain).IsSuccess());
  EXPECT_TRUE(run(**p, *implicit, plain).IsSuccess());
  // Advertised (device plugin): counted here as any extended resource.
  EXPECT_TRUE(run(**p, *one, plugin_node).IsSuccess());
  auto st = run(**p, *two, plugin_node);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.reasons(), (std::vector<std::string>{"Insufficient example.com/gpu"}));
  // Advertised with allocatable 0 (a device plugin that went away): DynamicResources decides.
  const framework::NodeInfo zero =
      MakeNode("z").Capacity({{"cpu", "4"}, {"pods", "10"}, {"example.com/gpu", "0"}}).Info();
  EXPECT_TRUE(run(**p, *one, zero).IsSuccess());
  // No class serves it.
  st = run(**p, *unserved, plain);
  EXPECT_EQ(st.reasons(), (std::vector<std::string>{"Insufficient example.com/other"}));
  // Without a framework handle (no DRA manager) nothing is delegated.
  st = run(**without, *one, plain);
  EXPECT_EQ(st.reasons(), (std::vector<std::string>{"Insufficient example.com/gpu"}));
}

TEST(NodeResourcesFit, DRAExtendedResourceEventsAndHints) {
  testing::FakeHandle handle;
  auto cls = std::make_shared<api::DeviceClass>();
  cls->metadata.name = "gpu.example.com";
  cls->spec.extended_resource_name = "example.com/gpu";
  handle.mutable_objects().device_classes.Upsert(cls);
  framework::PluginContext ctx;
  ctx.handle = &handle;
  auto p = New(ctx);
  ASSERT_TRUE(p.ok());
  auto events = dynamic_cast<framework::EnqueueExtensions&>(**p).EventsToRegister();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::kDeviceClass);
  EXPECT_EQ(events[2].event.action_type, framework::action::kAdd | framework::action::kUpdate);
  using framework::QueueingHint;
  const api::Pod pod = MakePod("p").Req({{"example.com/gpu", "1"}}).Obj();
  const api::Pod implicit_pod =
      MakePod("p").Req({{"deviceclass.resource.kubernetes.io/other", "1"}}).Obj();

  // Node events: a node without the resource fits (DynamicResources decides), so adding one
  // queues the pod.
  const auto& node_hint = events[1].hint;
  const api::Node plain = MakeNode("n").Capacity({{"cpu", "1"}, {"pods", "10"}}).Obj();
  EXPECT_EQ(node_hint(pod, std::monostate{}, &plain), QueueingHint::kQueue);
  EXPECT_EQ(node_hint(pod, &plain, &plain), QueueingHint::kQueue);

  // DeviceClass events (upstream's isSchedulableAfterDeviceClassEvent).
  const auto& class_hint = events[2].hint;
  api::DeviceClass added;
  added.metadata.name = "x";
  added.spec.extended_resource_name = "example.com/gpu";
  EXPECT_EQ(class_hint(pod, std::monostate{}, &added), QueueingHint::kQueue);
  api::DeviceClass unrelated;
  unrelated.metadata.name = "other";
  EXPECT_EQ(class_hint(pod, std::monostate{}, &unrelated), QueueingHint::kQueueSkip);
  EXPECT_EQ(class_hint(implicit_pod, std::monostate{}, &unrelated), QueueingHint::kQueue);
  // An update that keeps the name changes nothing; one that sets it to the pod's resource queues.
  EXPECT_EQ(class_hint(pod, &added, &added), QueueingHint::kQueueSkip);
  EXPECT_EQ(class_hint(pod, &unrelated, &added), QueueingHint::kQueue);
  EXPECT_EQ(class_hint(implicit_pod, &unrelated, &unrelated), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace berth::plugins::node_resources_fit
