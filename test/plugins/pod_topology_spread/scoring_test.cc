// PodTopologySpread PreScore / Score / NormalizeScore, with upstream's scoring_test.go cases
// (TestPodTopologySpreadScore, TestPreScoreSkip).

#include <gtest/gtest.h>

#include "test/plugins/pod_topology_spread/spread_testing.h"

namespace berth::plugins::pod_topology_spread {
namespace {

using namespace spread_testing;  // NOLINT

constexpr char kHost[] = "kubernetes.io/hostname";

Spread Soft(int32_t skew, std::string key, std::optional<api::LabelSelector> sel,
            std::vector<std::string> match_label_keys = {}) {
  Spread s;
  s.max_skew = skew;
  s.key = std::move(key);
  s.when = "ScheduleAnyway";
  s.selector = std::move(sel);
  s.match_label_keys = std::move(match_label_keys);
  return s;
}

api::Pod PodWith(api::Labels labels, std::vector<Spread> spreads) {
  auto p = MakePod("p");
  for (const auto& [k, v] : labels) p.Label(k, v);
  for (const auto& s : spreads) AddSpread(p, s);
  return p.Obj();
}

// Pods named p-<node letter><i> on node-<letter>, with labels.
std::vector<api::Pod> PodsOn(const std::vector<std::pair<std::string, int>>& per_node,
                             api::Labels labels = {{"foo", ""}}) {
  std::vector<api::Pod> out;
  for (const auto& [node, n] : per_node) {
    for (int i = 1; i <= n; ++i) {
      out.push_back(PodOn("p-" + node + std::to_string(i), "node-" + node, labels));
    }
  }
  return out;
}

api::Node Host(const std::string& name) { return MakeNode(name).Obj(); }
api::Node HostZone(const std::string& name, const std::string& zone) {
  return MakeNode(name).Label("zone", zone).Obj();
}
api::Node NodeLabel(const std::string& name) { return MakeNode(name).Label("node", name).Obj(); }

struct Case {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> existing;
  std::vector<api::Node> nodes;   // candidates
  std::vector<api::Node> failed;  // in the snapshot, not candidates
  std::map<std::string, int64_t> want;
  std::vector<api::Service> services = {};
};

void RunCases(const std::vector<Case>& cases) {
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<api::Node> all = tc.nodes;
    all.insert(all.end(), tc.failed.begin(), tc.failed.end());
    Env env(all, tc.existing);  // upstream runs these with SystemDefaulting
    for (const auto& svc : tc.services) {
      env.handle().mutable_objects().services.Upsert(std::make_shared<api::Service>(svc));
    }
    std::vector<std::string> names;
    for (const auto& n : tc.nodes) names.push_back(n.metadata.name);
    EXPECT_EQ(env.Scores(tc.pod, names), tc.want);
  }
}

// Upstream's TestPodTopologySpreadScore.
TEST(PodTopologySpreadScoreTest, Score) {
  const auto foo = Exists("foo");
  const auto bar = Exists("bar");
  const api::Labels kFoo = {{"foo", ""}};
  const api::Labels kFooBar = {{"foo", ""}, {"bar", ""}};
  auto abcd = [] {
    return std::vector<api::Node>{Host("node-a"), Host("node-b"), Host("node-c"), Host("node-d")};
  };
  auto zones4 = [] {
    return std::vector<api::Node>{HostZone("node-a", "zone1"), HostZone("node-b", "zone1"),
                                  HostZone("node-x", "zone2"), HostZone("node-y", "zone2")};
  };
  const auto mixed = std::vector<api::Pod>{
      PodOn("p-a1", "node-a", {{"foo", ""}}), PodOn("p-b1", "node-b", {{"foo", ""}, {"bar", ""}}),
      PodOn("p-y1", "node-y", {{"foo", ""}}), PodOn("p-y2", "node-y", {{"bar", ""}})};
  auto terminating = PodOn("p-a", "node-a", kFoo);
  terminating.metadata.deletion_timestamp = api::Time{1};
  api::Service svc;
  svc.metadata.name = "svc";
  svc.metadata.namespace_ = "default";
  svc.selector = {{"foo", ""}};
  auto node_b_no_host = MakeNode("node-b").Label("n", "node-b").Obj();
  node_b_no_host.metadata.labels.erase(kHost);
  Spread min_domains = Soft(2, "node", foo);
  min_domains.min_domains = 10;
  auto policy_pod = [&](bool selector, const std::string& affinity, const std::string& taints) {
    auto p = MakePod("p").Label("foo", "");
    if (selector) {
      p.NodeSelector("foo", "");
    } else {
      NodeAffinityIn(p, "foo", {""});
    }
    Spread s = Soft(1, "node", Exists("foo"));
    s.affinity_policy = affinity;
    s.taints_policy = taints;
    AddSpread(p, s);
    return p.Obj();
  };
  auto foo_nodes = [] {
    return std::vector<api::Node>{MakeNode("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                                  MakeNode("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                                  NodeLabel("node-c")};
  };
  auto tainted_c = [] {
    auto c = NodeLabel("node-c");
    c.spec.taints.push_back({"node.kubernetes.io/unschedulable", "", "NoSchedule"});
    return std::vector<api::Node>{NodeLabel("node-a"), NodeLabel("node-b"), c};
  };
  const auto policy_pods = PodsOn({{"a", 2}, {"b", 1}, {"c", 1}});
  auto zones_cd = [] {
    return std::vector<api::Node>{HostZone("node-a", "zone1"), HostZone("node-b", "zone1"),
                                  HostZone("node-c", "zone2"), HostZone("node-d", "zone2")};
  };
  const std::vector<api::Pod> mlk_pods = {
      PodOn("p-a1", "node-a", {{"foo", ""}}), PodOn("p-b1", "node-b", {{"foo", ""}, {"bar", ""}}),
      PodOn("p-y1", "node-c", {{"foo", ""}}), PodOn("p-y2", "node-c", {{"bar", ""}})};
  const std::vector<api::Pod> mlk_pods2 = {
      PodOn("p-a1", "node-a", {{"foo", ""}}),
      PodOn("p-b1", "node-b", {{"foo", ""}, {"bar", ""}, {"baz", ""}}),
      PodOn("p-c1", "node-c", {{"foo", ""}}), PodOn("p-c2", "node-c", {{"bar", ""}}),
      PodOn("p-d3", "node-c", {{"bar", ""}, {"baz", ""}})};

  RunCases({
      {"one constraint on node, no existing pods",
       PodWith(kFoo, {Soft(1, kHost, foo)}),
       {},
       {Host("node-a"), Host("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 100}}},
      {"one constraint on node, only one node is candidate",
       PodWith(kFoo, {Soft(1, kHost, foo)}),
       PodsOn({{"a", 2}, {"b", 1}}),
       {Host("node-a")},
       {Host("node-b")},
       {{"node-a", 100}}},
      {"one constraint on node, all nodes have the same number of matching pods",
       PodWith(kFoo, {Soft(1, kHost, foo)}),
       PodsOn({{"a", 1}, {"b", 1}}),
       {Host("node-a"), Host("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 100}}},
      {"one constraint on node, all 4 nodes are candidates",
       PodWith(kFoo, {Soft(1, kHost, foo)}),
       PodsOn({{"a", 2}, {"b", 1}, {"d", 3}}),
       abcd(),
       {},
       {{"node-a", 20}, {"node-b", 60}, {"node-c", 100}, {"node-d", 0}}},
      {"one constraint on node, null selector",
       PodWith(kFoo, {Soft(1, kHost, std::nullopt)}),
       PodsOn({{"a", 2}, {"b", 1}, {"d", 3}}),
       abcd(),
       {},
       {{"node-a", 100}, {"node-b", 100}, {"node-c", 100}, {"node-d", 100}}},
      {"one constraint on node, all 4 nodes are candidates, maxSkew=2",
       PodWith(kFoo, {Soft(2, kHost, foo)}),
       PodsOn({{"a", 2}, {"b", 1}, {"d", 3}}),
       abcd(),
       {},
       {{"node-a", 33}, {"node-b", 66}, {"node-c", 100}, {"node-d", 16}}},
      {"one constraint on node, all 4 nodes are candidates, maxSkew=3",
       PodWith(kFoo, {Soft(3, kHost, foo)}),
       PodsOn({{"a", 4}, {"b", 3}, {"c", 2}, {"d", 1}}),
       abcd(),
       {},
       {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}}},
      {"system defaulting, nodes don't have zone, pods match service",
       PodWith(kFoo, {}),
       PodsOn({{"a", 4}, {"b", 3}, {"c", 2}, {"d", 1}}),
       abcd(),
       {},
       {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}},
       {svc}},
      {"one constraint on node, 3 out of 4 nodes are candidates",
       PodWith(kFoo, {Soft(1, kHost, foo)}),
       PodsOn({{"a", 4}, {"b", 2}, {"x", 1}, {"y", 3}}),
       {Host("node-a"), Host("node-b"), Host("node-x")},
       {Host("node-y")},
       {{"node-a", 33}, {"node-b", 83}, {"node-x", 100}}},
      {"one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology "
       "key",
       PodWith(kFoo, {Soft(1, kHost, foo)}),
       PodsOn({{"a", 4}, {"b", 2}, {"x", 1}, {"y", 3}}),
       {Host("node-a"), node_b_no_host, Host("node-x")},
       {Host("node-y")},
       {{"node-a", 16}, {"node-b", 0}, {"node-x", 100}}},
      {"one constraint on zone, 3 out of 4 nodes are candidates",
       PodWith(kFoo, {Soft(1, "zone", foo)}),
       PodsOn({{"a", 4}, {"b", 2}, {"x", 1}, {"y", 3}}),
       {HostZone("node-a", "zone1"), HostZone("node-b", "zone1"), HostZone("node-x", "zone2")},
       {HostZone("node-y", "zone2")},
       {{"node-a", 75}, {"node-b", 75}, {"node-x", 100}}},
      {"two Constraints on zone and node, 2 out of 4 nodes are candidates",
       PodWith(kFoo, {Soft(1, "zone", foo), Soft(1, kHost, foo)}),
       PodsOn({{"a", 2}, {"b", 1}, {"x", 2}, {"y", 4}}),
       {HostZone("node-a", "zone1"), HostZone("node-x", "zone2")},
       {HostZone("node-b", "zone1"), HostZone("node-y", "zone2")},
       {{"node-a", 100}, {"node-x", 63}}},
      {"two Constraints on zone and node, with different labelSelectors",
       PodWith(kFooBar, {Soft(1, "zone", foo), Soft(1, kHost, bar)}),
       mixed,
       zones4(),
       {},
       {{"node-a", 60}, {"node-b", 20}, {"node-x", 100}, {"node-y", 60}}},
      {"two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
       PodWith(kFooBar, {Soft(1, "zone", foo), Soft(1, kHost, bar)}),
       {PodOn("p-b1", "node-b", {{"bar", ""}}), PodOn("p-x1", "node-x", {{"foo", ""}}),
        PodOn("p-y1", "node-y", {{"foo", ""}, {"bar", ""}})},
       zones4(),
       {},
       {{"node-a", 100}, {"node-b", 60}, {"node-x", 40}, {"node-y", 0}}},
      {"two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are "
       "candidates",
       PodWith(kFooBar, {Soft(1, "zone", foo), Soft(1, kHost, bar)}),
       mixed,
       {HostZone("node-a", "zone1"), HostZone("node-b", "zone1"), HostZone("node-x", "zone2")},
       {HostZone("node-y", "zone2")},
       {{"node-a", 50}, {"node-b", 25}, {"node-x", 100}}},
      {"existing pods in a different namespace do not count",
       PodWith(kFoo, {Soft(1, kHost, foo)}),
       {PodOn("p-a1", "node-a", kFoo, "ns1"), PodOn("p-a2", "node-a", kFoo),
        PodOn("p-b1", "node-b", kFoo), PodOn("p-b2", "node-b", kFoo)},
       {Host("node-a"), Host("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 33}}},
      {"terminating Pods should be excluded",
       PodWith(kFoo, {Soft(1, kHost, foo)}),
       {terminating, PodOn("p-b", "node-b", kFoo)},
       {Host("node-a"), Host("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 0}}},
      {"minDomains has no effect when ScheduleAnyway",
       PodWith(kFoo, {min_domains}),
       PodsOn({{"a", 2}, {"b", 2}, {"c", 1}}),
       {NodeLabel("node-a"), NodeLabel("node-b"), NodeLabel("node-c")},
       {},
       {{"node-a", 75}, {"node-b", 75}, {"node-c", 100}}},
      {"NodeAffinityPolicy honoed with labelSelectors",
       policy_pod(true, "", ""),
       policy_pods,
       foo_nodes(),
       {},
       {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {"NodeAffinityPolicy ignored with labelSelectors",
       policy_pod(true, "Ignore", ""),
       policy_pods,
       foo_nodes(),
       {},
       {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {"NodeAffinityPolicy honoed with nodeAffinity",
       policy_pod(false, "", ""),
       policy_pods,
       foo_nodes(),
       {},
       {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       policy_pod(false, "Ignore", ""),
       policy_pods,
       foo_nodes(),
       {},
       {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {"NodeTaintsPolicy honored",
       PodWith(kFoo, {[] {
                 Spread s = Soft(1, "node", Exists("foo"));
                 s.taints_policy = "Honor";
                 return s;
               }()}),
       policy_pods,
       tainted_c(),
       {},
       {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {"NodeTaintsPolicy ignored",
       PodWith(kFoo, {Soft(1, "node", foo)}),
       policy_pods,
       tainted_c(),
       {},
       {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {"matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
       PodWith(kFooBar, {Soft(1, "zone", api::LabelSelector{}, {"foo"}),
                         Soft(1, kHost, api::LabelSelector{}, {"bar"})}),
       mlk_pods,
       zones_cd(),
       {},
       {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}},
      {"matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
       PodWith({{"foo", ""}, {"bar", ""}, {"baz", ""}},
               {Soft(1, "zone", foo), Soft(1, kHost, bar, {"baz"})}),
       mlk_pods2,
       zones_cd(),
       {},
       {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}},
  });
}

// Upstream's TestPreScoreSkip, plus the system-default cases berth can express.
TEST(PodTopologySpreadScoreTest, PreScoreSkip) {
  const api::Value list = ListArgs();
  Env env({Host("node-a"), Host("node-b")}, {}, &list);
  framework::CycleState state;
  std::vector<const framework::NodeInfo*> nodes = {&env.Node("node-a"), &env.Node("node-b")};
  // No soft constraints and List defaulting without defaults.
  EXPECT_TRUE(env.pre_score().PreScore(state, *MakePod("p").Info(), nodes).IsSkip());
  // Hard constraints only.
  auto hard = MakePod("p").Label("foo", "");
  AddSpread(hard, {1, "zone", "DoNotSchedule", Exists("foo")});
  EXPECT_TRUE(env.pre_score().PreScore(state, *hard.Info(), nodes).IsSkip());

  // System defaults: a pod no Service selects and without a controller gets no constraints.
  Env sys({Host("node-a"), Host("node-b")}, {});
  auto lonely = MakePod("p").Label("foo", "bar");
  EXPECT_TRUE(sys.pre_score().PreScore(state, *lonely.Info(), nodes).IsSkip());
  // A Service in another namespace or with another selector does not select it.
  api::Service other;
  other.metadata.name = "svc";
  other.metadata.namespace_ = "other";
  other.selector = {{"foo", "bar"}};
  sys.handle().mutable_objects().services.Upsert(std::make_shared<api::Service>(other));
  EXPECT_TRUE(sys.pre_score().PreScore(state, *lonely.Info(), nodes).IsSkip());
  // Upstream's DefaultSelector: a controller counts only when it is a ReplicationController,
  // ReplicaSet or StatefulSet that exists. A missing ReplicaSet, a Job or a DaemonSet: nothing.
  auto owned = MakePod("p").Label("foo", "bar");
  Controller(owned, "ReplicaSet", "rs1", "rs-uid");
  framework::CycleState state2;
  EXPECT_TRUE(sys.pre_score().PreScore(state2, *owned.Info(), nodes).IsSkip());
  const std::vector<std::pair<std::string, std::string>> others = {{"batch/v1", "Job"},
                                                                   {"apps/v1", "DaemonSet"}};
  for (const auto& [version, kind] : others) {
    SCOPED_TRACE(kind);
    auto p = MakePod("p").Label("foo", "bar");
    p.Mutable().metadata.owner_references.push_back({version, kind, "rs1", "uid", true});
    framework::CycleState s;
    EXPECT_TRUE(sys.pre_score().PreScore(s, *p.Info(), nodes).IsSkip());
  }
  // Once the ReplicaSet exists, its selector is the default selector.
  AddReplicaSet(sys.handle(), "rs1", {{"foo", "bar"}});
  framework::CycleState state3;
  EXPECT_TRUE(sys.pre_score().PreScore(state3, *owned.Info(), nodes).IsSuccess());
  // An ownerReference that is not the controller does not count.
  auto not_controller = MakePod("p").Label("foo", "bar");
  not_controller.Mutable().metadata.owner_references.push_back(
      {"apps/v1", "ReplicaSet", "rs1", "rs-uid", false});
  framework::CycleState state4;
  EXPECT_TRUE(sys.pre_score().PreScore(state4, *not_controller.Info(), nodes).IsSkip());
}

// System defaulting with a ReplicaSet: the pods its selector matches spread over hostnames, by
// labels (as upstream; the owner of the existing pods does not matter).
TEST(PodTopologySpreadScoreTest, SystemDefaultsUseTheReplicaSetSelector) {
  auto pod_on = [](const std::string& name, const std::string& node, const std::string& rs) {
    auto p = MakePod(name).Node(node).Label("app", "web").Label("rs", rs);
    Controller(p, "ReplicaSet", "rs-" + rs, "uid-" + rs);
    return p.Obj();
  };
  Env env(
      {Host("node-a"), Host("node-b")},
      {pod_on("s1", "node-a", "one"), pod_on("s2", "node-a", "one"), pod_on("o1", "node-b", "two"),
       pod_on("o2", "node-b", "two"), pod_on("o3", "node-b", "two")});
  AddReplicaSet(env.handle(), "rs-one", {{"app", "web"}, {"rs", "one"}});
  auto pod = MakePod("p").Label("app", "web").Label("rs", "one");
  Controller(pod, "ReplicaSet", "rs-one", "uid-one");
  auto scores = env.Scores(pod.Obj(), {"node-a", "node-b"});
  // hostname: weight log(4), counts 2/0, maxSkew 3 -> raw 5/2; zone: no zone labels, both in
  // the "" zone with 2 pods, but Score skips a missing label. 100*(5+2-5)/5 = 40.
  EXPECT_EQ(scores, (std::map<std::string, int64_t>{{"node-a", 40}, {"node-b", 100}}));
}

TEST(PodTopologySpreadScoreTest, ScoreWithoutPreScoreStateIsError) {
  Env env({Host("node-a")}, {});
  framework::CycleState state;
  int64_t score = 0;
  auto s = env.score().Score(state, *MakePod("p").Info(), env.Node("node-a"), &score);
  EXPECT_EQ(s.code(), framework::Code::kError);
}

}  // namespace
}  // namespace berth::plugins::pod_topology_spread
