#include "plugins/node_resources_balanced_allocation/node_resources_balanced_allocation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scheduler/framework/plugin.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::node_resources_balanced_allocation {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

// upstream's makeNode(name, milliCPU, memory, scalar).
MakeNode Node(const std::string& name, int64_t milli_cpu, int64_t memory, int64_t gpu = -1) {
  MakeNode b(name);
  b.Capacity({{"cpu", std::to_string(milli_cpu) + "m"}, {"memory", std::to_string(memory)}});
  if (gpu >= 0) {
    b.Mutable().status.capacity["nvidia.com/gpu"] = api::Quantity::FromValue(gpu);
    b.Mutable().status.allocatable["nvidia.com/gpu"] = api::Quantity::FromValue(gpu);
  }
  return b;
}

// upstream's cpuOnly / cpuAndMemory / cpuAndMemoryAndGpu requests, two containers each.
framework::PodInfoPtr CpuOnly() {
  return MakePod("cpu-only").Req({{"cpu", "1000m"}}).Req({{"cpu", "2000m"}}).Info();
}
framework::PodInfoPtr CpuAndMemory() {
  return MakePod("cpu-mem")
      .Req({{"cpu", "1000m"}, {"memory", "2000"}})
      .Req({{"cpu", "2000m"}, {"memory", "3000"}})
      .Info();
}
framework::PodInfoPtr CpuAndMemoryAndGPU() {
  return MakePod("cpu-mem-gpu")
      .Req({{"cpu", "1000m"}, {"memory", "2000"}})
      .Req({{"cpu", "2000m"}, {"memory", "3000"}, {"nvidia.com/gpu", "3"}})
      .Info();
}

api::Value ResourcesArgs(const std::vector<std::pair<std::string, int64_t>>& specs) {
  api::Value list = api::Value::MakeArray();
  for (const auto& [name, weight] : specs) {
    api::Value e = api::Value::MakeObject();
    e.Set("name", api::Value::String(name));
    e.Set("weight", api::Value::Int(weight));
    list.Push(std::move(e));
  }
  api::Value args = api::Value::MakeObject();
  args.Set("resources", std::move(list));
  return args;
}

struct Case {
  Case(std::string n, framework::PodInfoPtr p, std::vector<framework::NodeInfo> ns,
       std::vector<int64_t> w, std::vector<std::pair<std::string, int64_t>> r = {},
       bool prescore = true)
      : name(std::move(n)),
        pod(std::move(p)),
        nodes(std::move(ns)),
        want(std::move(w)),
        resources(std::move(r)),
        run_prescore(prescore) {}
  std::string name;
  framework::PodInfoPtr pod;
  std::vector<framework::NodeInfo> nodes;
  std::vector<int64_t> want;
  std::vector<std::pair<std::string, int64_t>> resources;  // empty = defaults
  bool run_prescore = true;
};

void RunCase(const Case& c) {
  SCOPED_TRACE(c.name);
  api::Value args = ResourcesArgs(c.resources);
  framework::PluginContext ctx;
  ctx.args = c.resources.empty() ? nullptr : &args;
  ctx.args_path = "args";
  auto p = New(ctx);
  ASSERT_TRUE(p.ok()) << p.error();
  framework::CycleState state;
  std::vector<const framework::NodeInfo*> ptrs;
  for (const auto& n : c.nodes) ptrs.push_back(&n);
  if (c.run_prescore) {
    auto st = dynamic_cast<framework::PreScorePlugin&>(**p).PreScore(state, *c.pod, ptrs);
    ASSERT_TRUE(st.IsSuccess()) << st.Message();
  }
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    int64_t score = -1;
    auto st = dynamic_cast<framework::ScorePlugin&>(**p).Score(state, *c.pod, c.nodes[i], &score);
    EXPECT_TRUE(st.IsSuccess()) << st.Message();
    EXPECT_EQ(score, c.want[i]) << "node " << i;
  }
}

// Upstream v1.37.2's TestNodeResourcesBalancedAllocation (the cases without DRA): the score is
// 50 + (50 + balance with the pod - balance without it) / 2.
TEST(BalancedAllocation, UpstreamTable) {
  std::vector<Case> cases;
  // node1 cpu 0 -> .75, mem 0 -> .5: 100 -> 87 = 68; node2 .5/.5: 100 -> 100 = 75.
  cases.push_back({"nothing scheduled, resources requested, differently sized nodes",
                   CpuAndMemory(),
                   {Node("node1", 4000, 10000).Info(), Node("node2", 6000, 10000).Info()},
                   {68, 75}});
  // node1 cpu .3 -> .6, mem 0 -> .25: 85 -> 82 = 73; node2 .3/.25 -> .6/.5: 97 -> 95 = 74.
  cases.push_back({"resources requested, pods scheduled with resources",
                   CpuAndMemory(),
                   {Node("node1", 10000, 20000).Info({CpuOnly()}),
                    Node("node2", 10000, 20000).Info({CpuAndMemory()})},
                   {73, 74}});
  // node2 memory .1 -> .2: 90 -> 80 = 70.
  cases.push_back({"resources requested, pods scheduled with resources, differently sized nodes",
                   CpuAndMemory(),
                   {Node("node1", 10000, 20000).Info({CpuOnly()}),
                    Node("node2", 10000, 50000).Info({CpuAndMemory()})},
                   {73, 70}});
  // node1 cpu 1, mem 0 -> 1: 50 -> 100 = 100; node2 cpu 0, mem 0 -> 1: 100 -> 50 = 50.
  cases.push_back(
      {"resources requested, pods scheduled with resources, nodes to reach min/max score",
       MakePod("mem").Req({{"memory", "2000"}}).Req({{"memory", "3000"}}).Info(),
       {Node("node1", 3000, 5000).Info({CpuOnly()}), Node("node2", 3000, 5000).Info()},
       {100, 50}});
  // node1 cpu .5 -> 1, mem 0: 75 -> 50 = 62; node2 cpu .5 -> 1, mem .5: 100 -> 75 = 62.
  cases.push_back({"requested resources at node capacity",
                   CpuOnly(),
                   {Node("node1", 6000, 10000).Info({CpuOnly()}),
                    Node("node2", 6000, 10000).Info({CpuAndMemory()})},
                   {62, 62}});
  // Three resources: node1 gpu 3/8 -> 4/8: 69 -> 70 = 75; node2 gpu 0 -> 1/8: 62 -> 65 = 76.
  cases.push_back(
      {"scalar resource is included in the score computation if pod requests the scalar resource",
       MakePod("gpu").Req({{"cpu", "0"}, {"memory", "0"}, {"nvidia.com/gpu", "1"}}).Info(),
       {Node("node1", 3500, 40000, 8).Info({CpuAndMemoryAndGPU()}),
        Node("node2", 3500, 40000, 8).Info({CpuAndMemory()})},
       {75, 76},
       {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 1}}});
  // The gpu (not requested) is left out: cpu 0 -> .857, mem 0 -> .125: 100 -> 63 = 56.
  cases.push_back(
      {"scalar resource is not included in the score computation if pod doesn't "
       "request the scalar resource",
       CpuAndMemory(),
       {Node("node1", 3500, 40000, 8).Info(), Node("node2", 3500, 40000).Info()},
       {56, 56},
       {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 1}}});
  cases.push_back({"resources requested, pods scheduled with resources if PreScore not called",
                   CpuAndMemory(),
                   {Node("node1", 10000, 20000).Info({CpuOnly()}),
                    Node("node2", 10000, 20000).Info({CpuAndMemory()})},
                   {73, 74},
                   {},
                   false});
  for (const auto& c : cases) RunCase(c);
}

// berth's own cases: plain requests, pod-level resources and in-place resize.
TEST(BalancedAllocation, RequestsAsUpstreamCountsThem) {
  std::vector<Case> cases;
  // Plain requests, not the non-zero defaults: cpu 0 -> .25, memory stays 0: 100 -> 87 = 68.
  cases.push_back({"requested values are plain, not non-zero defaulted",
                   MakePod("c").Req({{"cpu", "1000m"}}).Info(),
                   {Node("node1", 4000, 10000).Info({MakePod("empty").Req({}).Info()})},
                   {68}});
  // Pod-level requests (3000m / 5000) replace the container sum: as the first upstream case.
  cases.push_back({"pod-level requests replace the containers'",
                   MakePod("plr")
                       .PodReq({{"cpu", "3000m"}, {"memory", "5000"}})
                       .Req({{"cpu", "100m"}})
                       .Req({})
                       .Info(),
                   {Node("node1", 4000, 10000).Info(), Node("node2", 6000, 10000).Info()},
                   {68, 75}});
  // A running pod being resized holds max(spec, allocated, actual): cpu 3 (allocated), not 1.
  api::Pod resized = MakePod("resized").Req({{"cpu", "1"}}).Obj();
  api::ContainerStatus status;
  status.name = "c0";
  status.allocated_resources = testing::MakeList({{"cpu", "3"}});
  resized.status.container_statuses.push_back(status);
  cases.push_back({"a running pod counts its in-place resize",
                   CpuAndMemory(),
                   {Node("node1", 10000, 20000)
                        .Info({framework::MakePodInfo(std::make_shared<const api::Pod>(resized))})},
                   {73}});
  for (const auto& c : cases) RunCase(c);
}

// Upstream's cases for pods that request nothing: PreScore skips them (best-effort), and Score
// without PreScore gives 0.
TEST(BalancedAllocation, BestEffortPodIsSkipped) {
  struct SkipCase {
    std::string name;
    framework::PodInfoPtr pod;
    std::vector<std::pair<std::string, int64_t>> resources;
  } cases[] = {
      {"nothing scheduled, nothing requested", MakePod("p").Info(), {}},
      {"no resources requested, pods with container scheduled", MakePod("p").Req({}).Info(), {}},
      {"node without the scalar resource",
       MakePod("p").Info(),
       {{"cpu", 1}, {"nvidia.com/gpu", 1}}},
  };
  auto node = Node("node1", 10000, 20000).Info({CpuOnly()});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::Value args = ResourcesArgs(c.resources);
    framework::PluginContext ctx;
    ctx.args = c.resources.empty() ? nullptr : &args;
    auto p = New(ctx);
    ASSERT_TRUE(p.ok()) << p.error();
    framework::CycleState state;
    auto st = dynamic_cast<framework::PreScorePlugin&>(**p).PreScore(state, *c.pod, {&node});
    EXPECT_EQ(st.code(), Code::kSkip);
    int64_t score = -1;
    EXPECT_TRUE(
        dynamic_cast<framework::ScorePlugin&>(**p).Score(state, *c.pod, node, &score).IsSuccess());
    EXPECT_EQ(score, 0);
  }
}

// No resource takes part (allocatable 0): both balances are 100, the score is 75.
TEST(BalancedAllocation, ZeroNodeResources) {
  RunCase({"zero node resources",
           CpuOnly(),
           {MakeNode("node1").Info({CpuOnly()}), MakeNode("node2").Info({CpuAndMemory()})},
           {75, 75}});
}

// Upstream's ValidateNodeResourcesBalancedAllocationArgs.
TEST(BalancedAllocationArgs, Validation) {
  struct ArgCase {
    std::string name;
    std::vector<std::pair<std::string, int64_t>> resources;
    std::string want_err;
  } cases[] = {
      {"valid", {{"cpu", 1}, {"memory", 1}}, ""},
      {"weight 0 defaults to 1", {{"cpu", 0}}, ""},
      {"weight must be 1", {{"cpu", 2}}, "args.resources[0].weight: Invalid value: 2: must be 1"},
      {"duplicate", {{"cpu", 1}, {"cpu", 1}}, "args.resources[1].name: Duplicate value: \"cpu\""},
      {"both",
       {{"cpu", 1}, {"cpu", 3}},
       "[args.resources[1].name: Duplicate value: \"cpu\", args.resources[1].weight: Invalid "
       "value: 3: must be 1]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::Value args = ResourcesArgs(c.resources);
    framework::PluginContext ctx;
    ctx.args = &args;
    ctx.args_path = "args";
    auto p = New(ctx);
    if (c.want_err.empty()) {
      EXPECT_TRUE(p.ok()) << p.error();
    } else {
      ASSERT_FALSE(p.ok());
      EXPECT_EQ(p.error(), c.want_err);
    }
  }
}

}  // namespace
}  // namespace berth::plugins::node_resources_balanced_allocation
