// Upstream's filtering_test.go cases (TestRequiredAffinitySingleNode,
// TestRequiredAffinityMultipleNodes, TestPreFilterDisabled, TestPreFilterStateAddRemovePod) plus
// matchLabelKeys / mismatchLabelKeys.

#include <gtest/gtest.h>

#include "test/plugins/inter_pod_affinity/test_env.h"

namespace berth::plugins::inter_pod_affinity::test {
namespace {

struct Case {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> pods;
  std::vector<api::Node> nodes;
  bool want_skip = false;
  std::vector<std::string> want;  // per node, Describe() of Filter's status
};

void RunCase(const Case& c) {
  SCOPED_TRACE(c.name);
  Env env = SetUpEnv(c.nodes, c.pods);
  const auto& pre = env.As<framework::PreFilterPlugin>();
  const auto& filter = env.As<framework::FilterPlugin>();
  framework::CycleState state;
  framework::PreFilterResult result;
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
  framework::Status s = pre.PreFilter(state, *info, env.Nodes(), &result);
  if (c.want_skip) {
    EXPECT_TRUE(s.IsSkip()) << Describe(s);
    return;
  }
  ASSERT_TRUE(s.IsSuccess()) << Describe(s);
  EXPECT_TRUE(result.AllNodes());
  ASSERT_EQ(c.want.size(), c.nodes.size());
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    EXPECT_EQ(Describe(filter.Filter(state, *info, env.Node(c.nodes[i].metadata.name))), c.want[i])
        << "node " << c.nodes[i].metadata.name;
  }
}

const std::string kOk = "Success";
const std::string kAffinityUU = Unresolvable(kErrReasonAffinityRulesNotMatch);
const std::string kAntiU = Unschedulable(kErrReasonAntiAffinityRulesNotMatch);
const std::string kExistingU = Unschedulable(kErrReasonExistingAntiAffinityRulesNotMatch);

api::PodAffinityTerm WithNamespaceSelector(api::PodAffinityTerm t,
                                           std::optional<api::LabelSelector> sel) {
  t.namespace_selector = std::move(sel);
  return t;
}

const api::LabelSelector kTeam1{{}, {{"team", kIn, {"team1"}}}};

TEST(InterPodAffinityFilterTest, RequiredAffinitySingleNode) {
  const api::Labels pod_label{{"service", "securityscan"}};
  const api::Labels pod_label2{{"security", "S1"}};
  const api::Node node1 = NodeWith("node1", {{"region", "r1"}, {"zone", "z11"}});
  const api::Pod existing = WithLabels(MakePod("existing").Node("node1").Obj(), pod_label);
  auto pod = [](const api::Labels& l) { return WithLabels(MakePod("p").Obj(), l); };
  auto on_node1 = [](const api::Labels& l) {
    return WithLabels(MakePod("e").Node("node1").Obj(), l);
  };

  std::vector<Case> cases;
  cases.push_back(
      {"A pod that has no required pod affinity scheduling rules can schedule onto a "
       "node with no existing pods",
       MakePod("p").Obj(),
       {},
       {node1},
       true,
       {}});
  cases.push_back(
      {"satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
       "operator that matches the existing pod",
       WithLabels(MakePod("p")
                      .PodAffinity(Term("service", kIn, {"securityscan", "value2"}, "region"))
                      .Obj(),
                  pod_label2),
       {existing},
       {node1},
       false,
       {kOk}});
  cases.push_back(
      {"satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using "
       "not in operator in labelSelector that matches the existing pod",
       WithLabels(MakePod("p")
                      .PodAffinity(Term("service", kNotIn, {"securityscan3", "value3"}, "region"))
                      .Obj(),
                  pod_label2),
       {existing},
       {node1},
       false,
       {kOk}});
  {
    api::PodAffinityTerm t = Term("service", kIn, {"securityscan", "value2"}, "");
    t.namespaces = {"DiffNameSpace"};
    api::Pod e = existing;
    e.metadata.namespace_ = "ns";
    cases.push_back(
        {"Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
         WithLabels(MakePod("p").PodAffinity(t).Obj(), pod_label2),
         {e},
         {node1},
         false,
         {kAffinityUU}});
  }
  cases.push_back(
      {"Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
       WithLabels(
           MakePod("p").PodAffinity(Term("service", kIn, {"antivirusscan", "value2"}, "")).Obj(),
           pod_label),
       {existing},
       {node1},
       false,
       {kAffinityUU}});
  {
    api::PodAffinityTerm t1;
    t1.label_selector =
        api::LabelSelector{{}, {{"service", kExists, {}}, {"wrongkey", kDoesNotExist, {}}}};
    t1.topology_key = "region";
    api::PodAffinityTerm t2;
    t2.label_selector = api::LabelSelector{
        {}, {{"service", kIn, {"securityscan"}}, {"service", kNotIn, {"WrongValue"}}}};
    t2.topology_key = "region";
    cases.push_back(
        {"satisfies the PodAffinity with different label Operators in multiple "
         "RequiredDuringSchedulingIgnoredDuringExecution",
         WithLabels(MakePod("p").PodAffinity(t1).PodAffinity(t2).Obj(), pod_label2),
         {existing},
         {node1},
         false,
         {kOk}});
    t2.label_selector->match_expressions[0].values = {"securityscan2"};
    cases.push_back(
        {"The labelSelector requirements(items of matchExpressions) are ANDed, the pod "
         "cannot schedule onto the node because one of the matchExpression item don't "
         "match.",
         WithLabels(MakePod("p").PodAffinity(t1).PodAffinity(t2).Obj(), pod_label2),
         {existing},
         {node1},
         false,
         {kAffinityUU}});
  }
  const api::PodAffinityTerm aff_region =
      Term("service", kIn, {"securityscan", "value2"}, "region");
  const api::PodAffinityTerm anti_node = Term("service", kIn, {"antivirusscan", "value2"}, "node");
  const api::PodAffinityTerm anti_zone = Term("service", kIn, {"securityscan", "value2"}, "zone");
  cases.push_back({"satisfies the PodAffinity and PodAntiAffinity with the existing pod",
                   WithLabels(MakePod("p").PodAffinity(aff_region).PodAntiAffinity(anti_node).Obj(),
                              pod_label2),
                   {existing},
                   {node1},
                   false,
                   {kOk}});
  cases.push_back(
      {"satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the "
       "existing pod",
       WithLabels(MakePod("p").PodAffinity(aff_region).PodAntiAffinity(anti_node).Obj(),
                  pod_label2),
       {WithLabels(MakePod("e").Node("node1").PodAntiAffinity(anti_node).Obj(), pod_label)},
       {node1},
       false,
       {kOk}});
  cases.push_back(
      {"satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
       WithLabels(MakePod("p").PodAffinity(aff_region).PodAntiAffinity(anti_zone).Obj(),
                  pod_label2),
       {existing},
       {node1},
       false,
       {kAntiU}});
  cases.push_back(
      {"satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry "
       "with the existing pod",
       WithLabels(MakePod("p").PodAffinity(aff_region).PodAntiAffinity(anti_node).Obj(), pod_label),
       {WithLabels(MakePod("e").Node("node1").PodAntiAffinity(anti_zone).Obj(), pod_label)},
       {node1},
       false,
       {kExistingU}});
  cases.push_back(
      {"pod matches its own Label in PodAffinity and that matches the existing pod Labels",
       WithLabels(MakePod("p")
                      .PodAffinity(Term("service", kNotIn, {"securityscan", "value2"}, "region"))
                      .Obj(),
                  pod_label),
       {WithLabels(MakePod("e").Node("node2").Obj(), pod_label)},
       {node1},
       false,
       {kAffinityUU}});
  cases.push_back(
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
       "constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
       pod(pod_label),
       {WithLabels(MakePod("e").Node("node1").PodAntiAffinity(anti_zone).Obj(), pod_label)},
       {node1},
       false,
       {kExistingU}});
  cases.push_back(
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
       "constraints. satisfy PodAntiAffinity symmetry with the existing pod",
       pod(pod_label),
       {WithLabels(MakePod("e")
                       .Node("node1")
                       .PodAntiAffinity(Term("service", kNotIn, {"securityscan", "value2"}, "zone"))
                       .Obj(),
                   pod_label)},
       {node1},
       true,
       {}});
  cases.push_back(
      {"satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity "
       "symmetry with incoming pod",
       WithLabels(MakePod("p")
                      .PodAntiAffinity(Term("service", kExists, {}, "region"))
                      .PodAntiAffinity(Term("security", kExists, {}, "region"))
                      .Obj(),
                  pod_label),
       {WithLabels(
           MakePod("e").Node("node1").PodAntiAffinity(Term("security", kExists, {}, "zone")).Obj(),
           pod_label2)},
       {node1},
       false,
       {kAntiU}});
  cases.push_back(
      {"PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       WithLabels(MakePod("p")
                      .PodAntiAffinity(Term("service", kExists, {}, "zone"))
                      .PodAntiAffinity(Term("security", kExists, {}, "zone"))
                      .Obj(),
                  pod_label),
       {WithLabels(
           MakePod("e").Node("node1").PodAntiAffinity(Term("security", kExists, {}, "zone")).Obj(),
           pod_label2)},
       {node1},
       false,
       {kAntiU}});
  cases.push_back(
      {"PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       WithLabels(MakePod("p").PodAntiAffinity(Term("security", kExists, {}, "zone")).Obj(),
                  pod_label2),
       {WithLabels(MakePod("e")
                       .Node("node1")
                       .PodAntiAffinity(Term("service", kExists, {}, "zone"))
                       .PodAntiAffinity(Term("security", kExists, {}, "zone"))
                       .Obj(),
                   pod_label)},
       {node1},
       false,
       {kExistingU}});
  {
    auto both = [](MakePod b) {
      return b.PodAntiAffinity(Term("abc", kExists, {}, "zone"))
          .PodAntiAffinity(Term("def", kExists, {}, "zone"))
          .Obj();
    };
    cases.push_back(
        {"PodAntiAffinity symmetry check b1: incoming pod and existing pod partially "
         "match each other on AffinityTerms",
         WithLabels(both(MakePod("p")), {{"abc", ""}, {"xyz", ""}}),
         {WithLabels(both(MakePod("e").Node("node1")), {{"def", ""}, {"xyz", ""}})},
         {node1},
         false,
         {kAntiU}});
    cases.push_back(
        {"PodAntiAffinity symmetry check b2: incoming pod and existing pod partially "
         "match each other on AffinityTerms",
         WithLabels(both(MakePod("p")), {{"def", ""}, {"xyz", ""}}),
         {WithLabels(both(MakePod("e").Node("node1")), {{"abc", ""}, {"xyz", ""}})},
         {node1},
         false,
         {kAntiU}});
  }
  {
    api::PodAffinityTerm t = WithNamespaceSelector(aff_region, kTeam1);
    api::Pod e1 = on_node1(pod_label);
    e1.metadata.namespace_ = "subteam1.team1";
    cases.push_back({"affinity with NamespaceSelector",
                     WithLabels(MakePod("p").PodAffinity(t).Obj(), pod_label2),
                     {e1},
                     {node1},
                     false,
                     {kOk}});
    e1.metadata.namespace_ = "subteam1.team2";
    cases.push_back({"affinity with non-matching NamespaceSelector",
                     WithLabels(MakePod("p").PodAffinity(t).Obj(), pod_label2),
                     {e1},
                     {node1},
                     false,
                     {kAffinityUU}});
  }
  {
    api::PodAffinityTerm t = WithNamespaceSelector(anti_zone, kTeam1);
    api::Pod e1 = on_node1(pod_label);
    e1.metadata.namespace_ = "subteam2.team1";
    cases.push_back(
        {"anti-affinity with matching NamespaceSelector",
         WithLabels(MakePod("p").Namespace("subteam1.team1").PodAntiAffinity(t).Obj(), pod_label2),
         {e1},
         {node1},
         false,
         {kAntiU}});
    api::PodAffinityTerm all = WithNamespaceSelector(anti_zone, api::LabelSelector{});
    cases.push_back({"anti-affinity with matching all NamespaceSelector",
                     WithLabels(MakePod("p").Namespace("subteam1.team1").PodAntiAffinity(all).Obj(),
                                pod_label2),
                     {e1},
                     {node1},
                     false,
                     {kAntiU}});
    e1.metadata.namespace_ = "subteam1.team2";
    cases.push_back(
        {"anti-affinity with non-matching NamespaceSelector",
         WithLabels(MakePod("p").Namespace("subteam1.team1").PodAntiAffinity(t).Obj(), pod_label2),
         {e1},
         {node1},
         false,
         {kOk}});
  }
  for (const auto& c : cases) RunCase(c);
}

TEST(InterPodAffinityFilterTest, RequiredAffinityMultipleNodes) {
  const api::Labels rg_china{{"region", "China"}};
  const api::Labels rg_china_az1{{"region", "China"}, {"az", "az1"}};
  const api::Labels rg_india{{"region", "India"}};
  auto hosts = [](const std::string& zone_a, const std::string& zone_b) {
    return std::vector<api::Node>{
        NodeWith("nodeA", {{"region", "r1"}, {"zone", zone_a}, {"hostname", "nodeA"}}),
        NodeWith("nodeB", {{"region", "r1"}, {"zone", zone_b}, {"hostname", "nodeB"}})};
  };
  auto on = [](const std::string& node, api::Labels l) {
    return WithLabels(MakePod("e-" + node + std::to_string(l.size())).Node(node).Obj(),
                      std::move(l));
  };
  std::vector<Case> cases;
  cases.push_back(
      {"A pod can be scheduled onto all the nodes that have the same topology key & label value "
       "with one of them has an existing pod that matches the affinity rules",
       MakePod("p").PodAffinity(Term("foo", kIn, {"bar"}, "region")).Obj(),
       {on("node1", {{"foo", "bar"}})},
       {NodeWith("node1", rg_china), NodeWith("node2", rg_china_az1), NodeWith("node3", rg_india)},
       false,
       {kOk, kOk, kAffinityUU}});
  {
    api::Pod p = WithLabels(MakePod("p")
                                .PodAffinity(Term("foo", kIn, {"bar"}, "zone"))
                                .PodAffinity(Term("service", kIn, {"securityscan"}, "zone"))
                                .Obj(),
                            {{"foo", "bar"}, {"service", "securityscan"}});
    cases.push_back(
        {"The affinity rule is to schedule all of the pods of this collection to the same zone. "
         "The first pod of the collection should not be blocked from being scheduled onto any "
         "node, even there's no existing pod that matches the rule anywhere.",
         p,
         {on("nodeA", {{"foo", "bar"}})},
         {NodeWith("nodeA", {{"zone", "az1"}, {"hostname", "h1"}}),
          NodeWith("nodeB", {{"zone", "az2"}, {"hostname", "h2"}})},
         false,
         {kOk, kOk}});
    cases.push_back(
        {"The first pod of the collection can only be scheduled on nodes labelled with "
         "the requested topology keys",
         p,
         {on("nodeA", {{"foo", "bar"}})},
         {NodeWith("nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}),
          NodeWith("nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}})},
         false,
         {kAffinityUU, kAffinityUU}});
  }
  cases.push_back(
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
       MakePod("p").PodAntiAffinity(Term("foo", kIn, {"abc"}, "region")).Obj(),
       {on("nodeA", {{"foo", "abc"}})},
       {NodeWith("nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}),
        NodeWith("nodeB", {{"region", "r1"}, {"hostname", "nodeB"}})},
       false,
       {kAntiU, kAntiU}});
  cases.push_back(
      {"This test ensures that anti-affinity matches a pod when any term of the "
       "anti-affinity rule matches a pod.",
       MakePod("p")
           .PodAntiAffinity(Term("foo", kIn, {"abc"}, "region"))
           .PodAntiAffinity(Term("service", kIn, {"securityscan"}, "zone"))
           .Obj(),
       {on("nodeA", {{"foo", "abc"}, {"service", "securityscan"}})},
       hosts("z1", "z2"),
       false,
       {kAntiU, kAntiU}});
  const std::vector<api::Node> three = {
      NodeWith("nodeA", rg_china), NodeWith("nodeB", rg_china_az1), NodeWith("nodeC", rg_india)};
  cases.push_back(
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB "
       "but can be scheduled onto nodeC",
       MakePod("p").PodAntiAffinity(Term("foo", kIn, {"abc"}, "region")).Obj(),
       {on("nodeA", {{"foo", "abc"}})},
       three,
       false,
       {kAntiU, kAntiU, kOk}});
  {
    api::Pod a = on("nodeA", {{"foo", "bar"}});
    a.metadata.namespace_ = "NS1";
    api::Pod c =
        MakePod("c").Node("nodeC").PodAntiAffinity(Term("foo", kIn, {"123"}, "region")).Obj();
    c.metadata.namespace_ = "NS2";
    cases.push_back(
        {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
         "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, "
         "but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod "
         "affinity rule but in different namespace)",
         WithLabels(MakePod("p")
                        .Namespace("NS1")
                        .PodAntiAffinity(Term("foo", kIn, {"bar"}, "region"))
                        .Obj(),
                    {{"foo", "123"}}),
         {a, c},
         three,
         false,
         {kAntiU, kAntiU, kOk}});
  }
  cases.push_back(
      {"Test existing pod's anti-affinity: if an existing pod has a term with invalid "
       "topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the "
       "term is also checked",
       WithLabels(MakePod("p").Obj(), {{"foo", ""}}),
       {MakePod("e")
            .Node("nodeA")
            .PodAntiAffinity(Term("foo", kExists, {}, "invalid-node-label"))
            .Obj()},
       hosts("z1", "z1"),
       true,
       {}});
  cases.push_back(
      {"Test incoming pod's anti-affinity: even if labelSelector matches, we still "
       "check if topologyKey matches",
       MakePod("p").PodAntiAffinity(Term("foo", kExists, {}, "invalid-node-label")).Obj(),
       {on("nodeA", {{"foo", ""}})},
       hosts("z1", "z1"),
       false,
       {kOk, kOk}});
  cases.push_back(
      {"Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it "
       "violates each existingPod's terms on all nodes",
       WithLabels(MakePod("p").Obj(), {{"foo", ""}, {"bar", ""}}),
       {MakePod("e1").Node("nodeA").PodAntiAffinity(Term("foo", kExists, {}, "zone")).Obj(),
        MakePod("e2").Node("nodeA").PodAntiAffinity(Term("bar", kExists, {}, "region")).Obj()},
       hosts("z1", "z2"),
       false,
       {kExistingU, kExistingU}});
  cases.push_back(
      {"Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at "
       "least violates one anti-affinity rule of existingPod",
       MakePod("p")
           .PodAntiAffinity(Term("foo", kExists, {}, "zone"))
           .PodAntiAffinity(Term("bar", kExists, {}, "region"))
           .Obj(),
       {on("nodeA", {{"foo", ""}}), on("nodeB", {{"bar", ""}})},
       hosts("z1", "z2"),
       false,
       {kAntiU, kAntiU}});
  cases.push_back(
      {"Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when one term has invalid topologyKey",
       WithLabels(MakePod("p").Obj(), {{"foo", ""}, {"bar", ""}}),
       {MakePod("e")
            .Node("nodeA")
            .PodAntiAffinity(Term("foo", kExists, {}, "invalid-node-label"))
            .PodAntiAffinity(Term("bar", kExists, {}, "zone"))
            .Obj()},
       hosts("z1", "z2"),
       false,
       {kExistingU, kOk}});
  cases.push_back(
      {"Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when one term has invalid topologyKey",
       MakePod("p")
           .PodAntiAffinity(Term("foo", kExists, {}, "invalid-node-label"))
           .PodAntiAffinity(Term("bar", kExists, {}, "zone"))
           .Obj(),
       {on("nodeA", {{"foo", ""}, {"bar", ""}})},
       hosts("z1", "z2"),
       false,
       {kAntiU, kOk}});
  cases.push_back(
      {"Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when all terms have valid topologyKey",
       WithLabels(MakePod("p").Obj(), {{"foo", ""}, {"bar", ""}}),
       {MakePod("e")
            .Node("nodeA")
            .PodAntiAffinity(Term("foo", kExists, {}, "region"))
            .PodAntiAffinity(Term("bar", kExists, {}, "zone"))
            .Obj()},
       hosts("z1", "z2"),
       false,
       {kExistingU, kExistingU}});
  cases.push_back(
      {"Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when all terms have valid topologyKey",
       MakePod("p")
           .PodAntiAffinity(Term("foo", kExists, {}, "region"))
           .PodAntiAffinity(Term("bar", kExists, {}, "zone"))
           .Obj(),
       {on("nodeA", {{"foo", ""}, {"bar", ""}})},
       hosts("z1", "z2"),
       false,
       {kAntiU, kAntiU}});
  {
    std::vector<api::Node> nodes = hosts("z1", "z2");
    nodes.push_back(NodeWith("nodeC", {{"region", "r1"}, {"zone", "z3"}, {"hostname", "nodeC"}}));
    cases.push_back(
        {"Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one "
         "anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
         WithLabels(MakePod("p").Obj(), {{"foo", ""}, {"bar", ""}}),
         {MakePod("e1")
              .Node("nodeA")
              .PodAntiAffinity(Term("foo", kExists, {}, "zone"))
              .PodAntiAffinity(Term("labelA", kExists, {}, "zone"))
              .Obj(),
          MakePod("e2")
              .Node("nodeB")
              .PodAntiAffinity(Term("bar", kExists, {}, "zone"))
              .PodAntiAffinity(Term("labelB", kExists, {}, "zone"))
              .Obj()},
         nodes,
         false,
         {kExistingU, kExistingU, kOk}});
  }
  const api::Pod two_affinity = MakePod("p")
                                    .PodAffinity(Term("foo", kExists, {}, "region"))
                                    .PodAffinity(Term("bar", kExists, {}, "zone"))
                                    .Obj();
  cases.push_back(
      {"Test incoming pod's affinity: firstly check if all affinityTerms match, and "
       "then check if all topologyKeys match",
       two_affinity,
       {on("nodeA", {{"foo", ""}, {"bar", ""}})},
       hosts("z1", "z1"),
       false,
       {kOk, kOk}});
  cases.push_back(
      {"Test incoming pod's affinity: firstly check if all affinityTerms match, and "
       "then check if all topologyKeys match, and the match logic should be "
       "satisfied on the same pod",
       two_affinity,
       {on("nodeA", {{"foo", ""}}), on("nodeB", {{"bar", ""}})},
       hosts("z1", "z2"),
       false,
       {kAffinityUU, kAffinityUU}});
  for (const auto& c : cases) RunCase(c);
}

// upstream's TestPreFilterDisabled: Filter without PreFilter state is an error.
TEST(InterPodAffinityFilterTest, FilterWithoutPreFilterState) {
  Env env = SetUpEnv({NodeWith("n1", {})}, {});
  framework::CycleState state;
  auto info = MakePod("p").Info();
  framework::Status s = env.As<framework::FilterPlugin>().Filter(state, *info, env.Node("n1"));
  EXPECT_EQ(Describe(s),
            "Error: error reading \"PreFilterInterPodAffinity\" from cycleState: not found");
}

// upstream's TestPreFilterStateAddRemovePod, observed through Filter: adding a pod changes the
// verdicts as if it had been in the snapshot, removing it restores them.
TEST(InterPodAffinityFilterTest, AddRemovePod) {
  const api::Labels foo_bar{{"foo", "bar"}};
  const api::PodAffinityTerm anti_foo_bar_region = Term("foo", kIn, {"bar"}, "region");
  const std::vector<api::Node> nodes = {NodeWith("nodeA", {{"region", "r1"}, {"zone", "z11"}}),
                                        NodeWith("nodeB", {{"region", "r1"}, {"zone", "z12"}}),
                                        NodeWith("nodeC", {{"region", "r2"}, {"zone", "z21"}})};
  struct AddCase {
    std::string name;
    api::Pod pending;
    std::vector<api::Pod> existing;
    api::Pod added;
    std::vector<std::string> before, with_added;
  };
  std::vector<AddCase> cases;
  cases.push_back(
      {"anti-affinity: the added pod's own anti-affinity rejects the pending pod in its region",
       WithLabels(MakePod("pending").PodAntiAffinity(Term("foo", kIn, {"bar"}, "zone")).Obj(),
                  foo_bar),
       {},
       MakePod("added").Node("nodeC").PodAntiAffinity(anti_foo_bar_region).Obj(),
       {kOk, kOk, kOk},
       {kOk, kOk, kExistingU}});
  cases.push_back(
      {"anti-affinity: the added pod matches the pending pod's anti-affinity",
       WithLabels(MakePod("pending").PodAntiAffinity(anti_foo_bar_region).Obj(), foo_bar),
       {MakePod("p2").Node("nodeC").Obj()},
       WithLabels(MakePod("added").Node("nodeB").Obj(), foo_bar),
       {kOk, kOk, kOk},
       {kAntiU, kAntiU, kOk}});
  cases.push_back(
      {"affinity: the added pod is the first match of the pending pod's affinity",
       WithLabels(MakePod("pending").PodAffinity(Term("foo", kIn, {"bar"}, "zone")).Obj(), {}),
       {WithLabels(MakePod("p1").Node("nodeC").Obj(), {{"foo", "baz"}})},
       WithLabels(MakePod("added").Node("nodeA").Obj(), foo_bar),
       {kAffinityUU, kAffinityUU, kAffinityUU},
       {kOk, kAffinityUU, kAffinityUU}});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Env env = SetUpEnv(nodes, c.existing);
    const auto& pre = env.As<framework::PreFilterPlugin>();
    const auto& filter = env.As<framework::FilterPlugin>();
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pending = framework::MakePodInfo(std::make_shared<api::Pod>(c.pending));
    auto added = framework::MakePodInfo(std::make_shared<api::Pod>(c.added));
    framework::Status s = pre.PreFilter(state, *pending, env.Nodes(), &result);
    ASSERT_TRUE(s.IsSuccess()) << Describe(s);
    auto check = [&](const std::vector<std::string>& want, const char* phase) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        EXPECT_EQ(Describe(filter.Filter(state, *pending, env.Node(nodes[i].metadata.name))),
                  want[i])
            << phase << " node " << nodes[i].metadata.name;
      }
    };
    check(c.before, "before");
    const auto* ext = pre.Extensions();
    ASSERT_NE(ext, nullptr);
    const auto& node = env.Node(c.added.spec.node_name);
    ASSERT_TRUE(ext->AddPod(state, *pending, *added, node).IsSuccess());
    check(c.with_added, "added");
    // A clone is independent of later updates.
    auto clone = state.Clone();
    ASSERT_TRUE(ext->RemovePod(state, *pending, *added, node).IsSuccess());
    check(c.before, "removed");
    for (size_t i = 0; i < nodes.size(); ++i) {
      EXPECT_EQ(Describe(filter.Filter(*clone, *pending, env.Node(nodes[i].metadata.name))),
                c.with_added[i])
          << "clone node " << nodes[i].metadata.name;
    }
  }
}

// PreFilter remembers each node's matches across cycles for pods of the same signature: the
// verdicts follow a node whose pods changed, and a pod with other labels is matched afresh.
TEST(InterPodAffinityFilterTest, RememberedMatchesFollowTheCluster) {
  const api::Labels green{{"color", "green"}};
  const std::vector<api::Node> nodes = {NodeWith("n1", {{"kubernetes.io/hostname", "n1"}}),
                                        NodeWith("n2", {{"kubernetes.io/hostname", "n2"}}),
                                        NodeWith("n3", {{"kubernetes.io/hostname", "n3"}})};
  Env env = SetUpEnv(nodes, {WithLabels(MakePod("p1").Node("n1").Obj(), green)});
  const auto& pre = env.As<framework::PreFilterPlugin>();
  const auto& filter = env.As<framework::FilterPlugin>();
  auto pending = [&](const std::string& name, const api::Labels& labels) {
    return framework::MakePodInfo(std::make_shared<api::Pod>(
        WithLabels(MakePod(name)
                       .PodAntiAffinity(Term("color", kIn, {"green"}, "kubernetes.io/hostname"))
                       .Obj(),
                   labels)));
  };
  auto verdicts = [&](const framework::PodInfo& pod) {
    framework::CycleState state;
    framework::PreFilterResult result;
    EXPECT_TRUE(pre.PreFilter(state, pod, env.Nodes(), &result).IsSuccess());
    std::vector<std::string> out;
    for (const auto& n : nodes) {
      out.push_back(Describe(filter.Filter(state, pod, env.Node(n.metadata.name))));
    }
    return out;
  };
  EXPECT_EQ(verdicts(*pending("a", green)), (std::vector<std::string>{kAntiU, kOk, kOk}));
  // The scheduler places a green pod on n2: the cache gives the node a new generation.
  auto& n2 = const_cast<framework::NodeInfo&>(env.Node("n2"));
  n2.AddPod(framework::MakePodInfo(
      std::make_shared<api::Pod>(WithLabels(MakePod("p2").Node("n2").Obj(), green))));
  n2.set_generation(n2.generation() + 100);
  EXPECT_EQ(verdicts(*pending("b", green)), (std::vector<std::string>{kAntiU, kAntiU, kOk}));
  // A pod with other labels: its own term still matches the green pods.
  EXPECT_EQ(verdicts(*pending("c", {{"color", "blue"}})),
            (std::vector<std::string>{kAntiU, kAntiU, kOk}));
  EXPECT_EQ(verdicts(*pending("d", green)), (std::vector<std::string>{kAntiU, kAntiU, kOk}));
}

// matchLabelKeys / mismatchLabelKeys are merged from the term owner's labels (KEP-3633).
TEST(InterPodAffinityFilterTest, MatchLabelKeys) {
  const std::vector<api::Node> nodes = {NodeWith("nodeA", {{"zone", "z1"}}),
                                        NodeWith("nodeB", {{"zone", "z2"}})};
  auto app = [](const std::string& name, const std::string& node, const std::string& hash) {
    return WithLabels(MakePod(name).Node(node).Obj(), {{"app", "web"}, {"hash", hash}});
  };
  // Anti-affinity to the same app of the same revision only.
  api::PodAffinityTerm anti = Term("app", kIn, {"web"}, "zone");
  anti.match_label_keys = {"hash"};
  Case same_revision{
      "matchLabelKeys: only pods of the same revision repel",
      WithLabels(MakePod("p").PodAntiAffinity(anti).Obj(), {{"app", "web"}, {"hash", "v2"}}),
      {app("old", "nodeA", "v1"), app("new", "nodeB", "v2")},
      nodes,
      false,
      {kOk, kAntiU}};
  RunCase(same_revision);
  // Affinity to the app but to another revision.
  api::PodAffinityTerm aff = Term("app", kIn, {"web"}, "zone");
  aff.mismatch_label_keys = {"hash"};
  Case other_revision{
      "mismatchLabelKeys: only pods of another revision attract",
      WithLabels(MakePod("p").PodAffinity(aff).Obj(), {{"app", "web"}, {"hash", "v2"}}),
      {app("old", "nodeA", "v1"), app("new", "nodeB", "v2")},
      nodes,
      false,
      {kOk, kAffinityUU}};
  RunCase(other_revision);
  // An existing pod's matchLabelKeys use the existing pod's labels.
  api::Pod existing = app("old", "nodeA", "v1");
  existing.spec.affinity.emplace().pod_anti_affinity.emplace().required.push_back(anti);
  RunCase({"existing pod's matchLabelKeys: a pod of another revision is not repelled",
           WithLabels(MakePod("p").Obj(), {{"app", "web"}, {"hash", "v2"}}),
           {existing},
           nodes,
           true,
           {}});
  RunCase({"existing pod's matchLabelKeys: a pod of the same revision is repelled",
           WithLabels(MakePod("p").Obj(), {{"app", "web"}, {"hash", "v1"}}),
           {existing},
           nodes,
           false,
           {kExistingU, kOk}});
}

}  // namespace
}  // namespace berth::plugins::inter_pod_affinity::test
