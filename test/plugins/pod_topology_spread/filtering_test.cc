// PodTopologySpread PreFilter / Filter / AddPod / RemovePod, with upstream's filtering_test.go
// cases (TestSingleConstraint, TestMultipleConstraints, PreFilter skips, AddPod/RemovePod).

#include <gtest/gtest.h>

#include "test/plugins/pod_topology_spread/spread_testing.h"

namespace berth::plugins::pod_topology_spread {
namespace {

using framework::Code;
using namespace spread_testing;  // NOLINT

constexpr Code kOk = Code::kSuccess;
constexpr Code kU = Code::kUnschedulable;
constexpr Code kUU = Code::kUnschedulableAndUnresolvable;

api::Pod FooPod(std::vector<Spread> spreads, api::Labels labels = {{"foo", ""}}) {
  auto p = MakePod("p");
  for (const auto& [k, v] : labels) p.Label(k, v);
  for (const auto& s : spreads) AddSpread(p, s);
  return p.Obj();
}

const api::Taint kUnschedulableTaint{"node.kubernetes.io/unschedulable", "", "NoSchedule"};

api::Node Tainted(api::Node n) {
  n.spec.taints.push_back(kUnschedulableTaint);
  return n;
}
api::Node WithLabel(api::Node n, const std::string& k, const std::string& v) {
  n.metadata.labels[k] = v;
  return n;
}

std::vector<api::Node> FourNodes() {
  return {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"), ZoneNode("node-x", "zone2"),
          ZoneNode("node-y", "zone2")};
}

std::vector<api::Pod> Foo(const std::vector<std::pair<std::string, std::string>>& name_node) {
  std::vector<api::Pod> out;
  for (const auto& [name, node] : name_node) out.push_back(PodOn(name, node, {{"foo", ""}}));
  return out;
}

struct Case {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing;
  std::map<std::string, Code> want;
};

void RunCases(const std::vector<Case>& cases) {
  const api::Value args = ListArgs();
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Env env(tc.nodes, tc.existing, &args);
    EXPECT_EQ(env.FilterCodes(tc.pod), tc.want);
  }
}

const Spread kZone1{1, "zone", "DoNotSchedule", Exists("foo")};
const Spread kNode1{1, "node", "DoNotSchedule", Exists("foo")};

// Upstream's TestSingleConstraint.
TEST(PodTopologySpreadFilterTest, SingleConstraint) {
  Spread zone_bar = kZone1;
  zone_bar.selector = Exists("bar");
  Spread zone_null = kZone1;
  zone_null.selector.reset();
  Spread rack = kZone1;
  rack.key = "rack";
  Spread node2 = kNode1;
  node2.max_skew = 2;
  auto node_b_no_zone = MakeNode("node-b").Label("zon", "zone1").Label("node", "node-b").Obj();
  Spread node_min4{2, "node", "DoNotSchedule", Exists("foo"), 4};
  Spread node_min2{2, "node", "DoNotSchedule", Exists("foo"), 2};
  Spread zone_min3{2, "zone", "DoNotSchedule", Exists("foo"), 3};
  Spread zone_min1{2, "zone", "DoNotSchedule", Exists("foo"), 1};
  auto three = [] {
    return std::vector<api::Node>{ZoneNode("node-a", ""), ZoneNode("node-b", ""),
                                  ZoneNode("node-c", "")};
  };
  auto pod_with_affinity = [](std::vector<std::string> values, api::SelectorOperator op,
                              const std::string& key) {
    auto p = MakePod("p").Label("foo", "");
    NodeAffinityIn(p, "node", std::move(values), op);
    Spread s = kNode1;
    s.key = key;
    AddSpread(p, s);
    return p.Obj();
  };
  auto foo_nodes = [](bool y_has_foo, bool y_tainted) {
    std::vector<api::Node> n = {WithLabel(ZoneNode("node-a", ""), "foo", ""),
                                WithLabel(ZoneNode("node-b", ""), "foo", ""),
                                WithLabel(ZoneNode("node-x", ""), "foo", "")};
    api::Node y = ZoneNode("node-y", "");
    if (y_has_foo) y = WithLabel(y, "foo", "");
    if (y_tainted) y = Tainted(y);
    n.push_back(y);
    return n;
  };
  const auto spread_1_1_0_1 = Foo({{"p-b1", "node-a"}, {"p-b2", "node-b"}, {"p-y1", "node-y"}});
  auto selector_pod = [](const std::string& affinity_policy) {
    auto p = MakePod("p").Label("foo", "").NodeSelector("foo", "");
    Spread s = kNode1;
    s.affinity_policy = affinity_policy;
    AddSpread(p, s);
    return p.Obj();
  };
  auto affinity_pod = [](const std::string& affinity_policy) {
    auto p = MakePod("p").Label("foo", "");
    NodeAffinityIn(p, "foo", {""});
    Spread s = kNode1;
    s.affinity_policy = affinity_policy;
    AddSpread(p, s);
    return p.Obj();
  };
  Spread node_taints_honor = kNode1;
  node_taints_honor.taints_policy = "Honor";
  auto terminating = PodOn("p-a", "node-a", {{"foo", ""}});
  terminating.metadata.deletion_timestamp = api::Time{1};

  RunCases({
      {"no existing pods",
       FooPod({kZone1}),
       FourNodes(),
       {},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"no existing pods, incoming pod doesn't match itself",
       FooPod({zone_bar}),
       FourNodes(),
       {},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"existing pods in a different namespace do not count",
       FooPod({kZone1}),
       FourNodes(),
       {PodOn("p-a1", "node-a", {{"foo", ""}}, "ns1"),
        PodOn("p-b1", "node-a", {{"foo", ""}}, "ns2"), PodOn("p-x1", "node-x", {{"foo", ""}}),
        PodOn("p-y1", "node-y", {{"foo", ""}})},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kU}, {"node-y", kU}}},
      {"existing pods do not match null selector",
       FooPod({zone_null}),
       FourNodes(),
       Foo({{"p-x1", "node-x"}, {"p-y1", "node-y"}}),
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"pods spread across zones as 3/3, all nodes fit",
       FooPod({kZone1}),
       FourNodes(),
       Foo({{"p-a1", "node-a"},
            {"p-a2", "node-a"},
            {"p-b1", "node-b"},
            {"p-y1", "node-y"},
            {"p-y2", "node-y"},
            {"p-y3", "node-y"}}),
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
       FooPod({kZone1}),
       {ZoneNode("node-a", "zone1"), node_b_no_zone, ZoneNode("node-x", "zone2"),
        ZoneNode("node-y", "zone2")},
       Foo({{"p-a1", "node-a"}, {"p-b1", "node-b"}, {"p-x1", "node-x"}, {"p-y1", "node-y"}}),
       {{"node-a", kOk}, {"node-b", kUU}, {"node-x", kU}, {"node-y", kU}}},
      {"pod cannot be scheduled as all nodes don't have label 'rack'",
       FooPod({rack}),
       {ZoneNode("node-a", "zone1"), ZoneNode("node-x", "zone2")},
       {},
       {{"node-a", kUU}, {"node-x", kUU}}},
      {"pods spread across nodes as 2/1/0/3, only node-x fits",
       FooPod({kNode1}),
       FourNodes(),
       Foo({{"p-a1", "node-a"},
            {"p-a2", "node-a"},
            {"p-b1", "node-b"},
            {"p-y1", "node-y"},
            {"p-y2", "node-y"},
            {"p-y3", "node-y"}}),
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kU}}},
      {"pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
       FooPod({node2}),
       FourNodes(),
       Foo({{"p-a1", "node-a"},
            {"p-a2", "node-a"},
            {"p-b1", "node-b"},
            {"p-y1", "node-y"},
            {"p-y2", "node-y"},
            {"p-y3", "node-y"}}),
       {{"node-a", kU}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kU}}},
      {"pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
       FooPod({kNode1}, {{"bar", ""}}),
       FourNodes(),
       Foo({{"p-a1", "node-a"},
            {"p-a2", "node-a"},
            {"p-b1", "node-b"},
            {"p-y1", "node-y"},
            {"p-y2", "node-y"},
            {"p-y3", "node-y"}}),
       {{"node-a", kU}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kU}}},
      {"incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
       pod_with_affinity({"node-a", "node-y"}, api::SelectorOperator::kIn, "node"),
       FourNodes(),
       Foo({{"p-a1", "node-a"},
            {"p-a2", "node-a"},
            {"p-b1", "node-b"},
            {"p-y1", "node-y"},
            {"p-y2", "node-y"},
            {"p-y3", "node-y"}}),
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kU}}},
      {"terminating Pods should be excluded",
       FooPod({kNode1}),
       {ZoneNode("node-a", ""), ZoneNode("node-b", "")},
       {terminating, PodOn("p-b", "node-b", {{"foo", ""}})},
       {{"node-a", kOk}, {"node-b", kU}}},
      {"incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
       pod_with_affinity({"node-b"}, api::SelectorOperator::kNotIn, "zone"),
       FourNodes(),
       Foo({{"p-b1", "node-b"}, {"p-b2", "node-b"}, {"p-y1", "node-y"}}),
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kU}, {"node-y", kU}}},
      {"pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, "
       "then the third node fits",
       FooPod({node_min4}),
       three(),
       Foo({{"p-a1", "node-a"},
            {"p-a2", "node-a"},
            {"p-b1", "node-b"},
            {"p-b2", "node-b"},
            {"p-c1", "node-c"}}),
       {{"node-a", kU}, {"node-b", kU}, {"node-c", kOk}}},
      {"pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, "
       "then the all nodes fit",
       FooPod({node_min2}),
       three(),
       Foo({{"p-a1", "node-a"},
            {"p-a2", "node-a"},
            {"p-b1", "node-b"},
            {"p-b2", "node-b"},
            {"p-c1", "node-c"}}),
       {{"node-a", kOk}, {"node-b", kOk}, {"node-c", kOk}}},
      {"pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then "
       "the third and fourth nodes fit",
       FooPod({zone_min3}),
       FourNodes(),
       Foo({{"p-b1", "node-a"}, {"p-b2", "node-b"}, {"p-y1", "node-y"}}),
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kOk}}},
      {"pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then "
       "the all nodes fit",
       FooPod({zone_min1}),
       FourNodes(),
       Foo({{"p-b1", "node-a"}, {"p-b2", "node-b"}, {"p-y1", "node-y"}}),
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"NodeAffinityPolicy honored with labelSelectors",
       selector_pod(""),
       foo_nodes(false, false),
       spread_1_1_0_1,
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kOk}}},
      {"NodeAffinityPolicy ignored with labelSelectors",
       selector_pod("Ignore"),
       foo_nodes(false, false),
       spread_1_1_0_1,
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kU}}},
      {"NodeAffinityPolicy honored with nodeAffinity",
       affinity_pod(""),
       foo_nodes(false, false),
       spread_1_1_0_1,
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kOk}}},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       affinity_pod("Ignore"),
       foo_nodes(false, false),
       spread_1_1_0_1,
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kU}}},
      {"NodeTaintsPolicy honored",
       FooPod({node_taints_honor}),
       foo_nodes(false, true),
       spread_1_1_0_1,
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kOk}}},
      {"NodeTaintsPolicy ignored",
       FooPod({kNode1}),
       foo_nodes(false, true),
       spread_1_1_0_1,
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kU}}},
  });
}

// Upstream's TestMultipleConstraints.
TEST(PodTopologySpreadFilterTest, MultipleConstraints) {
  Spread node_bar = kNode1;
  node_bar.selector = Exists("bar");
  Spread node_ignore = kNode1;
  node_ignore.affinity_policy = "Ignore";
  Spread zone_taints_honor = kZone1;
  zone_taints_honor.taints_policy = "Honor";
  auto with_foo = [](api::Node n) { return WithLabel(std::move(n), "foo", ""); };
  const auto p_1_1_0_1 = Foo({{"p-a1", "node-a"}, {"p-b1", "node-b"}, {"p-y1", "node-y"}});
  auto node_selector_pod = [](std::vector<Spread> spreads) {
    auto p = MakePod("p").Label("foo", "").NodeSelector("foo", "");
    for (const auto& s : spreads) AddSpread(p, s);
    return p.Obj();
  };
  RunCases({
      {"two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
       FooPod({kZone1, kNode1}),
       FourNodes(),
       Foo({{"p-a1", "node-a"},
            {"p-a2", "node-a"},
            {"p-b1", "node-b"},
            {"p-y1", "node-y"},
            {"p-y2", "node-y"},
            {"p-y3", "node-y"}}),
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kU}}},
      {"two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
       FooPod({kZone1, kNode1}),
       FourNodes(),
       Foo({{"p-a1", "node-a"},
            {"p-a2", "node-a"},
            {"p-b1", "node-b"},
            {"p-y1", "node-y"},
            {"p-y2", "node-y"},
            {"p-y3", "node-y"},
            {"p-y4", "node-y"}}),
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kU}, {"node-y", kU}}},
      {"Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
       FooPod({kZone1, node_bar}, {{"foo", ""}, {"bar", ""}}),
       FourNodes(),
       {PodOn("p-a1", "node-a", {{"foo", ""}}), PodOn("p-y1", "node-y", {{"bar", ""}})},
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kU}}},
      {"Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
       FooPod({kZone1, node_bar}, {{"foo", ""}, {"bar", ""}}),
       FourNodes(),
       {PodOn("p-a1", "node-a", {{"foo", ""}}), PodOn("p-x1", "node-x", {{"bar", ""}}),
        PodOn("p-y1", "node-y", {{"bar", ""}})},
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kU}, {"node-y", kU}}},
      {"Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
       FooPod({kZone1, node_bar}, {{"foo", ""}, {"bar", ""}}),
       FourNodes(),
       {PodOn("p-a1", "node-a", {{"foo", ""}}), PodOn("p-a2", "node-a", {{"foo", ""}, {"bar", ""}}),
        PodOn("p-y1", "node-y", {{"foo", ""}}), PodOn("p-y2", "node-y", {{"foo", ""}, {"bar", ""}}),
        PodOn("p-y3", "node-y", {{"foo", ""}})},
       {{"node-a", kU}, {"node-b", kOk}, {"node-x", kU}, {"node-y", kU}}},
      {"Constraints hold different labelSelectors but pod doesn't match itself on 'zone' "
       "constraint",
       FooPod({kZone1, node_bar}, {{"bar", ""}}),
       FourNodes(),
       {PodOn("p-a1", "node-a", {{"foo", ""}}), PodOn("p-x1", "node-x", {{"bar", ""}}),
        PodOn("p-y1", "node-y", {{"bar", ""}})},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kU}, {"node-y", kU}}},
      {"two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, "
       "1/0/0/1]",
       FooPod({kZone1, kNode1}),
       {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
        MakeNode("node-x").Label("zone", "zone2").Obj(), ZoneNode("node-y", "zone2")},
       Foo({{"p-a1", "node-a"}, {"p-y3", "node-y"}}),
       {{"node-a", kU}, {"node-b", kOk}, {"node-x", kUU}, {"node-y", kU}}},
      {"two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
       node_selector_pod({kZone1, node_ignore}),
       {with_foo(ZoneNode("node-a", "zone1")), with_foo(ZoneNode("node-b", "zone1")),
        with_foo(ZoneNode("node-x", "zone2")), ZoneNode("node-y", "zone2")},
       p_1_1_0_1,
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kU}}},
      {"two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
       FooPod({zone_taints_honor, kNode1}),
       {with_foo(ZoneNode("node-a", "zone1")), with_foo(ZoneNode("node-b", "zone1")),
        with_foo(ZoneNode("node-x", "zone2")), Tainted(ZoneNode("node-y", "zone2"))},
       p_1_1_0_1,
       {{"node-a", kU}, {"node-b", kU}, {"node-x", kOk}, {"node-y", kU}}},
      {"two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
       node_selector_pod({kZone1, kNode1}),
       {with_foo(ZoneNode("node-a", "zone1")), ZoneNode("node-b", "zone1"),
        with_foo(ZoneNode("node-x", "zone2")), Tainted(with_foo(ZoneNode("node-y", "zone2")))},
       p_1_1_0_1,
       {{"node-a", kU}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kU}}},
  });
}

// Upstream's TestPreFilterSkip / PreFilter with no hard constraints.
TEST(PodTopologySpreadFilterTest, PreFilterSkipsWithoutHardConstraints) {
  const api::Value list = ListArgs();
  Env env(FourNodes(), {}, &list);
  framework::CycleState state;
  auto plain = MakePod("p").Label("foo", "").Info();
  EXPECT_TRUE(env.PreFilter(state, *plain).IsSkip());
  Spread soft = kZone1;
  soft.when = "ScheduleAnyway";
  auto soft_pod = MakePod("p").Label("foo", "");
  AddSpread(soft_pod, soft);
  EXPECT_TRUE(env.PreFilter(state, *soft_pod.Info()).IsSkip());
  // System defaults are all ScheduleAnyway: nothing to filter even for a selected pod.
  Env sys(FourNodes(), {});
  AddReplicaSet(sys.handle(), "rs1", {{"foo", ""}});
  auto owned = MakePod("p").Label("foo", "");
  Controller(owned, "ReplicaSet", "rs1", "rs-uid");
  EXPECT_TRUE(sys.PreFilter(state, *owned.Info()).IsSkip());
}

TEST(PodTopologySpreadFilterTest, FilterWithoutPreFilterStateIsError) {
  const api::Value list = ListArgs();
  Env env(FourNodes(), {}, &list);
  framework::CycleState state;
  auto pod = FooPod({kZone1});
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
  auto s = env.filter().Filter(state, *info, env.Node("node-a"));
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "reading \"PreFilterPodTopologySpread\" from cycleState: not found");
}

TEST(PodTopologySpreadFilterTest, Reasons) {
  const api::Value list = ListArgs();
  Env env({ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone2"), MakeNode("node-c").Obj()},
          Foo({{"p-a1", "node-a"}}), &list);
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(FooPod({kZone1})));
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *info).IsSuccess());
  auto a = env.filter().Filter(state, *info, env.Node("node-a"));
  EXPECT_EQ(a.code(), kU);
  EXPECT_EQ(a.Message(), "node(s) didn't match pod topology spread constraints");
  auto c = env.filter().Filter(state, *info, env.Node("node-c"));
  EXPECT_EQ(c.code(), kUU);
  EXPECT_EQ(c.Message(),
            "node(s) didn't match pod topology spread constraints (missing required label)");
  EXPECT_TRUE(env.filter().Filter(state, *info, env.Node("node-b")).IsSuccess());
}

// Upstream's TestPreFilterStateAddPod / RemovePod, observed through Filter: counts and the
// global minimum follow the added / removed pods exactly.
TEST(PodTopologySpreadFilterTest, AddAndRemovePod) {
  const api::Value list = ListArgs();
  // zone1: 1 matching pod, zone2: 0.
  Env env({ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"), ZoneNode("node-x", "zone2")},
          Foo({{"p-a1", "node-a"}}), &list);
  auto incoming = MakePod("p").Label("foo", "");
  AddSpread(incoming, kZone1);
  auto info = incoming.Info();
  framework::CycleState state;
  ASSERT_TRUE(env.PreFilter(state, *info).IsSuccess());
  const auto* ext = env.pre_filter().Extensions();
  ASSERT_NE(ext, nullptr);
  auto filter = [&](const std::string& node) {
    return env.filter().Filter(state, *info, env.Node(node)).code();
  };
  EXPECT_EQ(filter("node-a"), kU);
  EXPECT_EQ(filter("node-x"), kOk);

  // A matching pod added in zone2 makes both zones 1/1: everything fits.
  auto added = MakePod("p-x1").Node("node-x").Label("foo", "").Info();
  ASSERT_TRUE(ext->AddPod(state, *info, *added, env.Node("node-x")).IsSuccess());
  EXPECT_EQ(filter("node-a"), kOk);
  EXPECT_EQ(filter("node-x"), kOk);

  // Other namespaces and non-matching pods change nothing.
  auto other_ns = MakePod("q").Namespace("ns1").Node("node-x").Label("foo", "").Info();
  auto other_labels = MakePod("r").Node("node-x").Label("bar", "").Info();
  ASSERT_TRUE(ext->AddPod(state, *info, *other_ns, env.Node("node-x")).IsSuccess());
  ASSERT_TRUE(ext->AddPod(state, *info, *other_labels, env.Node("node-x")).IsSuccess());
  EXPECT_EQ(filter("node-a"), kOk);

  // A clone is independent of the original.
  auto clone = state.Clone();
  auto removed = MakePod("p-a1").Node("node-a").Label("foo", "").Info();
  ASSERT_TRUE(ext->RemovePod(state, *info, *removed, env.Node("node-a")).IsSuccess());
  EXPECT_EQ(filter("node-a"), kOk);
  EXPECT_EQ(filter("node-x"), kU);  // zone1 0, zone2 1
  EXPECT_EQ(env.filter().Filter(*clone, *info, env.Node("node-x")).code(), kOk);

  framework::CycleState empty;
  EXPECT_EQ(ext->AddPod(empty, *info, *added, env.Node("node-x")).code(), Code::kError);
}

// The plugin's cross-cycle memo must follow snapshot changes: a node replaced by a new copy
// (new cache generation) with other pods, and a node whose labels changed.
TEST(PodTopologySpreadFilterTest, MemoFollowsSnapshotChanges) {
  const api::Value list = ListArgs();
  Env env({ZoneNode("node-a", "zone1"), ZoneNode("node-x", "zone2")}, Foo({{"p-a1", "node-a"}}),
          &list);
  const api::Pod pod = FooPod({kZone1});
  using Codes = std::map<std::string, Code>;
  EXPECT_EQ(env.FilterCodes(pod), (Codes{{"node-a", kU}, {"node-x", kOk}}));

  auto info = [](const api::Node& n, std::vector<api::Pod> pods, int64_t generation) {
    framework::NodeInfo ni(std::make_shared<api::Node>(n));
    for (auto& p : pods) ni.AddPod(framework::MakePodInfo(std::make_shared<api::Pod>(p)));
    ni.set_generation(generation);
    return ni;
  };
  std::vector<framework::NodeInfo> next;
  next.push_back(info(ZoneNode("node-a", "zone1"), Foo({{"p-a1", "node-a"}}), 1));
  next.push_back(
      info(ZoneNode("node-x", "zone2"), Foo({{"p-x1", "node-x"}, {"p-x2", "node-x"}}), 2));
  env.handle().SetNodes(std::move(next));
  EXPECT_EQ(env.FilterCodes(pod), (Codes{{"node-a", kOk}, {"node-x", kU}}));

  // node-a moves to zone2: zone1 disappears, zone2 holds all three pods.
  std::vector<framework::NodeInfo> moved;
  moved.push_back(info(ZoneNode("node-a", "zone2"), Foo({{"p-a1", "node-a"}}), 3));
  moved.push_back(
      info(ZoneNode("node-x", "zone2"), Foo({{"p-x1", "node-x"}, {"p-x2", "node-x"}}), 4));
  env.handle().SetNodes(std::move(moved));
  EXPECT_EQ(env.FilterCodes(pod), (Codes{{"node-a", kOk}, {"node-x", kOk}}));
}

}  // namespace
}  // namespace berth::plugins::pod_topology_spread
