// Upstream's scoring_test.go cases (TestPreferredAffinity,
// TestPreferredAffinityWithHardPodAffinitySymmetricWeight).

#include <gtest/gtest.h>

#include "test/plugins/inter_pod_affinity/test_env.h"

namespace berth::plugins::inter_pod_affinity::test {
namespace {

struct Case {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> pods;
  std::vector<api::Node> nodes;
  std::vector<int64_t> want;  // normalised, per node; empty = PreScore returns Skip
};

void RunCase(const Case& c, const api::Value* args) {
  SCOPED_TRACE(c.name);
  Env env = SetUpEnv(c.nodes, c.pods, args);
  const auto& pre = env.As<framework::PreScorePlugin>();
  const auto& score = env.As<framework::ScorePlugin>();
  framework::CycleState state;
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
  framework::Status s = pre.PreScore(state, *info, env.Nodes());
  if (c.want.empty()) {
    EXPECT_TRUE(s.IsSkip()) << Describe(s);
    return;
  }
  ASSERT_TRUE(s.IsSuccess()) << Describe(s);
  framework::NodeScoreList list;
  for (const auto& n : c.nodes) {
    const framework::NodeInfo& ni = env.Node(n.metadata.name);
    int64_t v = 0;
    framework::Status ss = score.Score(state, *info, ni, &v);
    ASSERT_TRUE(ss.IsSuccess()) << Describe(ss);
    list.push_back({&ni.name(), v});
  }
  ASSERT_TRUE(score.NormalizeScore(state, *info, list).IsSuccess());
  std::vector<int64_t> got;
  for (const auto& ns : list) got.push_back(ns.score);
  EXPECT_EQ(got, c.want);
}

api::Value Args(int64_t hard_weight, bool ignore_preferred) {
  api::Value v = api::Value::MakeObject();
  v.Set("hardPodAffinityWeight", api::Value::Int(hard_weight));
  v.Set("ignorePreferredTermsOfExistingPods", api::Value::Bool(ignore_preferred));
  return v;
}

api::PodAffinityTerm Exprs(std::vector<api::LabelSelectorRequirement> reqs, std::string key) {
  api::PodAffinityTerm t;
  t.label_selector = api::LabelSelector{{}, std::move(reqs)};
  t.topology_key = std::move(key);
  return t;
}

const api::Labels kChina{{"region", "China"}};
const api::Labels kIndia{{"region", "India"}};
const api::Labels kAz1{{"az", "az1"}};
const api::Labels kAz2{{"az", "az2"}};
const api::Labels kChinaAz1{{"region", "China"}, {"az", "az1"}};
const api::Labels kS1{{"security", "S1"}};
const api::Labels kS2{{"security", "S2"}};

// The incoming pod (or an existing one on `node`) with `labels`, built on `b`.
api::Pod P(MakePod b, const api::Labels& labels, const std::string& node = "") {
  if (!node.empty()) b.Node(node);
  return WithLabels(b.Obj(), labels);
}

std::vector<api::Node> Nodes(std::vector<api::Labels> labels) {
  std::vector<api::Node> out;
  for (size_t i = 0; i < labels.size(); ++i) {
    out.push_back(NodeWith("node" + std::to_string(i + 1), labels[i]));
  }
  return out;
}

TEST(InterPodAffinityScoreTest, PreferredAffinity) {
  int seq = 0;
  // Builders with upstream's affinities.
  auto pod = [&]() { return MakePod("p" + std::to_string(seq++)); };
  auto stay_s1_region = [&]() {
    return pod().PodAffinity(Term("security", kIn, {"S1"}, "region"), 5);
  };
  auto stay_s2_region = [&]() {
    return pod().PodAffinity(Term("security", kIn, {"S2"}, "region"), 6);
  };
  auto affinity3 = [&]() {
    return pod()
        .PodAffinity(Exprs({{"security", kNotIn, {"S1"}}, {"security", kIn, {"S2"}}}, "region"), 8)
        .PodAffinity(Exprs({{"security", kExists, {}}, {"wrongkey", kDoesNotExist, {}}}, "region"),
                     2);
  };
  auto hard_affinity = [&]() {
    return pod()
        .PodAffinity(Term("security", kIn, {"S1", "value2"}, "region"))
        .PodAffinity(Exprs({{"security", kExists, {}}, {"wrongkey", kDoesNotExist, {}}}, "region"));
  };
  auto away_s1_az = [&]() { return pod().PodAntiAffinity(Term("security", kIn, {"S1"}, "az"), 5); };
  auto away_s2_az = [&]() { return pod().PodAntiAffinity(Term("security", kIn, {"S2"}, "az"), 5); };
  auto stay_s1_away_s2 = [&]() {
    return pod()
        .PodAffinity(Term("security", kIn, {"S1"}, "region"), 8)
        .PodAntiAffinity(Term("security", kIn, {"S2"}, "az"), 5);
  };
  api::PodAffinityTerm ns_term = Term("security", kIn, {"S1"}, "region");
  ns_term.namespaces = {"subteam2.team2"};
  ns_term.namespace_selector = api::LabelSelector{{}, {{"team", kIn, {"team1"}}}};
  auto affinity_ns = [&]() { return pod().PodAffinity(ns_term, 5); };
  auto anti_affinity_ns = [&]() { return pod().PodAntiAffinity(ns_term, 5); };
  auto in_ns = [](MakePod b, const std::string& ns) { return b.Namespace(ns); };

  std::vector<Case> cases = {
      {"all nodes are same priority as Affinity is nil",
       P(pod(), kS1),
       {},
       Nodes({kChina, kIndia, kAz1}),
       {}},
      {"Affinity: pod that matches topology key & pods in nodes will get high score comparing to "
       "others which doesn't match either pods in nodes or in topology key",
       P(stay_s1_region(), kS1),
       {P(pod(), kS1, "node1"), P(pod(), kS2, "node2"), P(pod(), kS1, "node3")},
       Nodes({kChina, kIndia, kAz1}),
       {100, 0, 0}},
      {"All the nodes that have the same topology key & label value with one of them has an "
       "existing pod that match the affinity rules, have the same score",
       P(stay_s1_region(), {}),
       {P(pod(), kS1, "node1")},
       Nodes({kChina, kChinaAz1, kIndia}),
       {100, 100, 0}},
      {"Affinity: nodes in one region has more matching pods comparing to other region, so the "
       "region which has more matches will get high score",
       P(stay_s2_region(), kS1),
       {P(pod(), kS2, "node1"), P(pod(), kS2, "node1"), P(pod(), kS2, "node2"),
        P(pod(), kS2, "node3"), P(pod(), kS2, "node4"), P(pod(), kS2, "node5")},
       Nodes({kChina, kIndia, kChina, kChina, kIndia}),
       {100, 0, 100, 100, 0}},
      {"Affinity: different Label operators and values for pod affinity scheduling preference, "
       "including some match failures",
       P(affinity3(), kS1),
       {P(pod(), kS1, "node1"), P(pod(), kS2, "node2"), P(pod(), kS1, "node3")},
       Nodes({kChina, kIndia, kAz1}),
       {20, 100, 0}},
      {"Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in "
       "pod affinity symmetry",
       P(pod(), kS2),
       {P(stay_s1_region(), kS1, "node1"), P(stay_s2_region(), kS2, "node2")},
       Nodes({kChina, kIndia, kAz1}),
       {0, 100, 0}},
      {"Affinity symmetry with namespace selector",
       P(in_ns(pod(), "subteam1.team1"), kS1),
       {P(affinity_ns(), kS1, "node1"), P(stay_s2_region(), kS2, "node2")},
       Nodes({kChina, kIndia, kAz1}),
       {100, 0, 0}},
      {"AntiAffinity symmetry with namespace selector",
       P(in_ns(pod(), "subteam1.team1"), kS1),
       {P(anti_affinity_ns(), kS1, "node1"), P(stay_s2_region(), kS2, "node2")},
       Nodes({kChina, kIndia, kAz1}),
       {0, 100, 100}},
      {"Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod "
       "affinity symmetry",
       P(pod(), kS1),
       {P(hard_affinity(), kS1, "node1"), P(hard_affinity(), kS2, "node2")},
       Nodes({kChina, kIndia, kAz1}),
       {100, 100, 0}},
      {"Anti Affinity: pod that does not match existing pods in node will get high score",
       P(away_s1_az(), kS1),
       {P(pod(), kS1, "node1"), P(pod(), kS2, "node2")},
       Nodes({kAz1, kChina}),
       {0, 100}},
      {"Anti Affinity: pod that does not match topology key & match the pods in nodes will get "
       "higher score comparing to others",
       P(away_s1_az(), kS1),
       {P(pod(), kS1, "node1"), P(pod(), kS1, "node2")},
       Nodes({kAz1, kChina}),
       {0, 100}},
      {"Anti Affinity: one node has more matching pods comparing to other node, so the node which "
       "has more unmatches will get high score",
       P(away_s1_az(), kS1),
       {P(pod(), kS1, "node1"), P(pod(), kS1, "node1"), P(pod(), kS2, "node2")},
       Nodes({kAz1, kIndia}),
       {0, 100}},
      {"Anti Affinity symmetry: the existing pods in node which has anti affinity match will get "
       "high score",
       P(pod(), kS2),
       {P(away_s2_az(), kS1, "node1"), P(away_s1_az(), kS2, "node2")},
       Nodes({kAz1, kAz2}),
       {0, 100}},
      {"Affinity and Anti Affinity: considered only "
       "preferredDuringSchedulingIgnoredDuringExecution "
       "in both pod affinity & anti affinity",
       P(stay_s1_away_s2(), kS1),
       {P(pod(), kS1, "node1"), P(pod(), kS1, "node2")},
       Nodes({kChina, kAz1}),
       {100, 0}},
      {"Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to "
       "schedule and existing pods have the same labels",
       P(stay_s1_away_s2(), kS1),
       {P(pod(), kS1, "node1"), P(pod(), kS1, "node1"), P(pod(), kS1, "node2"),
        P(pod(), kS1, "node3"), P(pod(), kS1, "node3"), P(pod(), kS1, "node4"),
        P(pod(), kS1, "node5")},
       Nodes({kChinaAz1, kIndia, kChina, kChina, kIndia}),
       {100, 0, 100, 100, 0}},
      {"Affinity and Anti Affinity and symmetry: considered only preferredDuringScheduling"
       "IgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
       P(stay_s1_away_s2(), kS1),
       {P(pod(), kS1, "node1"), P(pod(), kS2, "node2"), P(stay_s1_away_s2(), {}, "node3"),
        P(away_s1_az(), {}, "node4")},
       Nodes({kChina, kAz1, kIndia, kAz2}),
       {100, 0, 100, 0}},
      {"Avoid panic when partial nodes in a topology don't have pods with affinity",
       P(pod(), kS1),
       {P(pod(), kS1, "node1"), P(stay_s1_away_s2(), {}, "node2")},
       Nodes({kChina, kChina}),
       {0, 0}},
      {"Affinity with pods matching NamespaceSelector",
       P(in_ns(affinity_ns(), "subteam1.team1"), kS1),
       {P(in_ns(pod(), "subteam1.team1"), kS1, "node1"),
        P(in_ns(pod(), "subteam1.team1"), kS1, "node1"),
        P(in_ns(pod(), "subteam1.team2"), kS1, "node1"),
        P(in_ns(pod(), "subteam2.team1"), kS1, "node2")},
       Nodes({kChina, kIndia}),
       {100, 0}},
      {"Affinity with pods matching both NamespaceSelector and Namespaces fields",
       P(in_ns(affinity_ns(), "subteam1.team1"), kS1),
       {P(in_ns(pod(), "subteam1.team1"), kS1, "node1"),
        P(in_ns(pod(), "subteam1.team1"), kS1, "node1"),
        P(in_ns(pod(), "subteam2.team2"), kS1, "node1"),
        P(in_ns(pod(), "subteam2.team1"), kS1, "node2")},
       Nodes({kChina, kIndia}),
       {100, 0}},
      {"Anti-affinity with pods matching NamespaceSelector",
       P(in_ns(anti_affinity_ns(), "subteam1.team1"), kS1),
       {P(in_ns(pod(), "subteam1.team1"), kS1, "node1"),
        P(in_ns(pod(), "subteam1.team1"), kS1, "node1"),
        P(in_ns(pod(), "subteam1.team2"), kS1, "node1"),
        P(in_ns(pod(), "subteam2.team1"), kS1, "node2")},
       Nodes({kChina, kIndia}),
       {0, 100}},
      {"Anti-affinity with pods matching both NamespaceSelector and Namespaces fields",
       P(in_ns(anti_affinity_ns(), "subteam1.team1"), kS1),
       {P(in_ns(pod(), "subteam1.team1"), kS1, "node1"),
        P(in_ns(pod(), "subteam1.team1"), kS1, "node1"),
        P(in_ns(pod(), "subteam2.team2"), kS1, "node1"),
        P(in_ns(pod(), "subteam2.team1"), kS1, "node2")},
       Nodes({kChina, kIndia}),
       {0, 100}},
      {"Do not ignore preferred terms of existing pods",
       P(pod(), kS2),
       {P(stay_s1_away_s2(), kS1, "node1"), P(stay_s2_region(), kS2, "node2")},
       Nodes({kChina, kIndia}),
       {0, 100}},
      {"No nodes to score", P(pod(), kS2), {}, {}, {}},
  };
  const api::Value args = Args(1, false);
  for (const auto& c : cases) RunCase(c, &args);

  const api::Value ignore = Args(1, true);
  RunCase({"Ignore preferred terms of existing pods",
           P(pod(), kS2),
           {P(stay_s1_away_s2(), kS1, "node1"), P(stay_s2_region(), kS2, "node2")},
           Nodes({kChina, kIndia}),
           {}},
          &ignore);
  // With preferred terms of its own the incoming pod is still scored.
  RunCase({"Ignore preferred terms of existing pods, incoming pod with preferences",
           P(stay_s2_region(), kS1),
           {P(pod(), kS2, "node2")},
           Nodes({kChina, kIndia}),
           {0, 100}},
          &ignore);
}

TEST(InterPodAffinityScoreTest, HardPodAffinitySymmetricWeight) {
  api::PodAffinityTerm hard = Term("service", kIn, {"S1"}, "region");
  hard.namespaces = {"", "subteam2.team2"};
  hard.namespace_selector = api::LabelSelector{{}, {{"team", kIn, {"team1"}}}};
  const api::Labels service_s1{{"service", "S1"}};
  const std::vector<api::Pod> pods = {MakePod("e1").Node("node1").PodAffinity(hard).Obj(),
                                      MakePod("e2").Node("node2").PodAffinity(hard).Obj()};
  const auto nodes = Nodes({kChina, kIndia, kAz1});
  auto incoming = [&](const std::string& ns) {
    return WithLabels(MakePod("p").Namespace(ns).Obj(), service_s1);
  };
  const api::Value weight1 = Args(1, false);
  const api::Value weight0 = Args(0, false);
  RunCase({"with default weight", incoming(""), pods, nodes, {100, 100, 0}}, &weight1);
  RunCase({"with zero weight", incoming(""), pods, nodes, {}}, &weight0);
  RunCase({"with no matching namespace", incoming("subteam1.team2"), pods, nodes, {}}, &weight1);
  RunCase(
      {"with matching NamespaceSelector", incoming("subteam1.team1"), pods, nodes, {100, 100, 0}},
      &weight1);
  RunCase({"with matching Namespaces", incoming("subteam2.team2"), pods, nodes, {100, 100, 0}},
          &weight1);
}

// Negative raw scores (anti-affinity) are shifted so the least preferred node gets 0.
TEST(InterPodAffinityScoreTest, NormalizeScoreMinMax) {
  api::Pod incoming = MakePod("p")
                          .PodAntiAffinity(Term("app", kIn, {"db"}, "zone"), 10)
                          .PodAffinity(Term("app", kIn, {"web"}, "zone"), 3)
                          .Obj();
  const std::vector<api::Pod> pods = {
      WithLabels(MakePod("db").Node("node1").Obj(), {{"app", "db"}}),
      WithLabels(MakePod("web").Node("node2").Obj(), {{"app", "web"}})};
  // Raw scores: node1 -10, node2 +3, node3 0 -> (x + 10) * 100 / 13.
  RunCase({"min-max",
           incoming,
           pods,
           Nodes({{{"zone", "a"}}, {{"zone", "b"}}, {{"zone", "c"}}}),
           {0, 100, 76}},
          nullptr);
}

}  // namespace
}  // namespace berth::plugins::inter_pod_affinity::test
