#include "plugins/taint_toleration/taint_toleration.h"

#include <gtest/gtest.h>

#include "scheduler/framework/explain.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::taint_toleration {
namespace {

using framework::QueueingHint;
using testing::MakeNode;
using testing::MakePod;

std::shared_ptr<framework::Plugin> MakePlugin() {
  auto p = New(framework::PluginContext{});
  EXPECT_TRUE(p.ok());
  return *p;
}

api::Node NodeWithTaints(const std::string& name, std::vector<api::Taint> taints) {
  api::Node n = MakeNode(name).Obj();
  n.spec.taints = std::move(taints);
  return n;
}

api::Pod PodWithTolerations(std::vector<api::Toleration> tolerations) {
  api::Pod p = MakePod("pod1").Obj();
  p.spec.tolerations = std::move(tolerations);
  return p;
}

api::Toleration Tol(std::string key, std::string op, std::string value, std::string effect) {
  return api::Toleration{std::move(key), std::move(op), std::move(value), std::move(effect), {}};
}

// Upstream's TestTaintTolerationScore cases.
TEST(TaintTolerationTest, Score) {
  struct Case {
    const char* name;
    api::Pod pod;
    std::vector<api::Node> nodes;
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {
      {"node with taints tolerated by the pod, gets a higher score than those node with "
       "intolerable taints",
       PodWithTolerations({Tol("foo", "Equal", "bar", "PreferNoSchedule")}),
       {NodeWithTaints("nodeA", {{"foo", "bar", "PreferNoSchedule"}}),
        NodeWithTaints("nodeB", {{"foo", "blah", "PreferNoSchedule"}})},
       {100, 0}},
      {"the nodes that all of their taints are tolerated by the pod, get the same score, no "
       "matter how many tolerable taints a node has",
       PodWithTolerations({Tol("cpu-type", "Equal", "arm64", "PreferNoSchedule"),
                           Tol("disk-type", "Equal", "ssd", "PreferNoSchedule")}),
       {NodeWithTaints("nodeA", {}),
        NodeWithTaints("nodeB", {{"cpu-type", "arm64", "PreferNoSchedule"}}),
        NodeWithTaints("nodeC", {{"cpu-type", "arm64", "PreferNoSchedule"},
                                 {"disk-type", "ssd", "PreferNoSchedule"}})},
       {100, 100, 100}},
      {"the more intolerable taints a node has, the lower score it gets.",
       PodWithTolerations({Tol("foo", "Equal", "bar", "PreferNoSchedule")}),
       {NodeWithTaints("nodeA", {}),
        NodeWithTaints("nodeB", {{"cpu-type", "arm64", "PreferNoSchedule"}}),
        NodeWithTaints("nodeC", {{"cpu-type", "arm64", "PreferNoSchedule"},
                                 {"disk-type", "ssd", "PreferNoSchedule"}})},
       {100, 50, 0}},
      {"only taints and tolerations that have effect PreferNoSchedule are checked by "
       "taints-tolerations priority function",
       PodWithTolerations({Tol("cpu-type", "Equal", "arm64", "NoSchedule"),
                           Tol("disk-type", "Equal", "ssd", "NoSchedule")}),
       {NodeWithTaints("nodeA", {}), NodeWithTaints("nodeB", {{"cpu-type", "arm64", "NoSchedule"}}),
        NodeWithTaints("nodeC", {{"cpu-type", "arm64", "PreferNoSchedule"},
                                 {"disk-type", "ssd", "PreferNoSchedule"}})},
       {100, 100, 0}},
      {"Default behaviour No taints and tolerations, lands on node with no taints",
       PodWithTolerations({}),
       {NodeWithTaints("nodeA", {}),
        NodeWithTaints("nodeB", {{"cpu-type", "arm64", "PreferNoSchedule"}})},
       {100, 0}},
      // Berth additions: an empty-effect toleration counts; all zero counts reverse to 100.
      {"toleration with empty effect tolerates PreferNoSchedule taints",
       PodWithTolerations({Tol("foo", "Exists", "", "")}),
       {NodeWithTaints("nodeA", {{"foo", "x", "PreferNoSchedule"}}),
        NodeWithTaints("nodeB", {{"bar", "x", "PreferNoSchedule"}})},
       {100, 0}},
      {"no node has intolerable taints",
       PodWithTolerations({}),
       {NodeWithTaints("nodeA", {}), NodeWithTaints("nodeB", {})},
       {100, 100}},
  };
  for (const auto& c : cases) {
    std::vector<framework::NodeInfo> infos;
    for (const auto& n : c.nodes) infos.emplace_back(std::make_shared<api::Node>(n));
    testing::FakeHandle handle(std::move(infos));
    auto plugin = MakePlugin();
    auto* pre = dynamic_cast<framework::PreScorePlugin*>(plugin.get());
    auto* score = dynamic_cast<framework::ScorePlugin*>(plugin.get());
    ASSERT_NE(pre, nullptr);
    ASSERT_NE(score, nullptr);
    ASSERT_TRUE(score->HasNormalizeScore());
    auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    framework::CycleState state;
    const auto& nodes = handle.snapshot().List();
    ASSERT_TRUE(pre->PreScore(state, *pod, nodes).IsSuccess()) << c.name;
    framework::NodeScoreList list;
    for (const auto* ni : nodes) {
      int64_t s = -1;
      ASSERT_TRUE(score->Score(state, *pod, *ni, &s).IsSuccess()) << c.name;
      list.push_back({&ni->name(), s});
    }
    ASSERT_TRUE(score->NormalizeScore(state, *pod, list).IsSuccess());
    ASSERT_EQ(list.size(), c.want.size()) << c.name;
    for (size_t i = 0; i < list.size(); ++i) {
      EXPECT_EQ(*list[i].name, c.nodes[i].metadata.name) << c.name;
      EXPECT_EQ(list[i].score, c.want[i]) << c.name << " node " << *list[i].name;
    }
  }
}

TEST(TaintTolerationTest, ScoreWithoutPreScoreIsError) {
  auto plugin = MakePlugin();
  auto* score = dynamic_cast<framework::ScorePlugin*>(plugin.get());
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  framework::NodeInfo ni(MakeNode("n").Ptr());
  int64_t s = 0;
  EXPECT_TRUE(score->Score(state, *pod, ni, &s).IsError());
}

// Upstream's TestTaintTolerationFilter cases.
TEST(TaintTolerationTest, Filter) {
  const auto kUU = framework::Code::kUnschedulableAndUnresolvable;
  const auto kOK = framework::Code::kSuccess;
  const std::string kReason = kErrReasonUntoleratedTaints;
  struct Case {
    const char* name;
    api::Pod pod;
    api::Node node;
    framework::Code want_code;
    std::string want_reason;
  };
  const std::vector<Case> cases = {
      {"A pod having no tolerations can't be scheduled onto a node with nonempty taints",
       PodWithTolerations({}), NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}), kUU,
       kReason},
      {"A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
       PodWithTolerations({Tol("dedicated", "Equal", "user1", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}), kOK, ""},
      {"A pod which can't be scheduled on a dedicated node assigned to user2 with effect "
       "NoSchedule",
       PodWithTolerations({Tol("dedicated", "Equal", "user2", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}), kUU, kReason},
      {"A pod can be scheduled onto the node, with a toleration uses operator Exists that "
       "tolerates the taints on the node",
       PodWithTolerations({Tol("foo", "Exists", "", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"foo", "bar", "NoSchedule"}}), kOK, ""},
      {"A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, "
       "pod can be scheduled onto the node",
       PodWithTolerations({Tol("dedicated", "Equal", "user2", "NoSchedule"),
                           Tol("foo", "Exists", "", "NoSchedule")}),
       NodeWithTaints("nodeA",
                      {{"dedicated", "user2", "NoSchedule"}, {"foo", "bar", "NoSchedule"}}),
       kOK, ""},
      {"A pod has a toleration that keys and values match the taint on the node, but (non-empty) "
       "effect doesn't match, can't be scheduled onto the node",
       PodWithTolerations({Tol("foo", "Equal", "bar", "PreferNoSchedule")}),
       NodeWithTaints("nodeA", {{"foo", "bar", "NoSchedule"}}), kUU, kReason},
      {"The pod has a toleration that keys and values match the taint on the node, the effect of "
       "toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the "
       "node",
       PodWithTolerations({Tol("foo", "Equal", "bar", "")}),
       NodeWithTaints("nodeA", {{"foo", "bar", "NoSchedule"}}), kOK, ""},
      {"The pod has a toleration that key and value don't match the taint on the node, but the "
       "effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
       PodWithTolerations({Tol("dedicated", "Equal", "user2", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "PreferNoSchedule"}}), kOK, ""},
      {"The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be "
       "scheduled onto the node",
       PodWithTolerations({}),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "PreferNoSchedule"}}), kOK, ""},
      // Berth additions: the empty-value form, NoExecute, several untolerated taints.
      {"control-plane taint with an empty value", PodWithTolerations({}),
       NodeWithTaints("nodeA", {{"node-role.kubernetes.io/control-plane", "", "NoSchedule"}}), kUU,
       kReason},
      {"NoExecute taints are checked too", PodWithTolerations({}),
       NodeWithTaints("nodeA", {{"k", "v", "NoExecute"}}), kUU, kReason},
      {"several untolerated taints read the same", PodWithTolerations({Tol("a", "Exists", "", "")}),
       NodeWithTaints("nodeA", {{"a", "1", "NoSchedule"},
                                {"b", "2", "PreferNoSchedule"},
                                {"c", "3", "NoExecute"},
                                {"d", "4", "NoSchedule"}}),
       kUU, kReason},
  };
  auto plugin = std::dynamic_pointer_cast<framework::FilterPlugin>(MakePlugin());
  ASSERT_NE(plugin, nullptr);
  for (const auto& c : cases) {
    framework::CycleState state;
    auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    framework::NodeInfo ni(std::make_shared<api::Node>(c.node));
    auto st = plugin->Filter(state, *pod, ni);
    EXPECT_EQ(st.code(), c.want_code) << c.name;
    EXPECT_EQ(st.Message(), c.want_reason) << c.name;
  }
}

TEST(TaintTolerationTest, ReasonNamesNoTaint) {
  EXPECT_STREQ(kErrReasonUntoleratedTaints, "node(s) had untolerated taint(s)");
}

// The FilterExplainer: which tolerations the pod lacks, as `kubectl taint` writes taints.
TEST(TaintTolerationTest, ExplainFilter) {
  struct Case {
    const char* name;
    api::Pod pod;
    api::Node node;
    std::string want_need;
  };
  const std::vector<Case> cases = {
      {"one taint with a value", PodWithTolerations({}),
       NodeWithTaints("nodeA", {{"dedicated", "gpu", "NoSchedule"}}),
       "add a toleration for dedicated=gpu:NoSchedule"},
      {"a taint without a value", PodWithTolerations({}),
       NodeWithTaints("nodeA", {{"node-role.kubernetes.io/control-plane", "", "NoSchedule"}}),
       "add a toleration for node-role.kubernetes.io/control-plane:NoSchedule"},
      {"every untolerated taint, not PreferNoSchedule nor tolerated ones",
       PodWithTolerations({Tol("a", "Exists", "", "")}),
       NodeWithTaints("nodeA", {{"a", "1", "NoSchedule"},
                                {"b", "2", "PreferNoSchedule"},
                                {"c", "3", "NoExecute"},
                                {"d", "", "NoSchedule"}}),
       "add tolerations for c=3:NoExecute, d:NoSchedule"},
  };
  auto plugin = MakePlugin();
  const auto& filter = dynamic_cast<const framework::FilterPlugin&>(*plugin);
  const auto* explainer = dynamic_cast<const framework::FilterExplainer*>(plugin.get());
  ASSERT_NE(explainer, nullptr);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    framework::CycleState state;
    auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    framework::NodeInfo ni(std::make_shared<api::Node>(c.node));
    const framework::Status st = filter.Filter(state, *pod, ni);
    ASSERT_TRUE(st.IsRejected());
    std::vector<framework::FilterNeed> full, gap_only;
    explainer->ExplainFilter(state, *pod, ni, st, framework::ExplainDetail::kFull, &full);
    explainer->ExplainFilter(state, *pod, ni, st, framework::ExplainDetail::kGapOnly, &gap_only);
    ASSERT_EQ(full.size(), 1u);
    EXPECT_EQ(full[0].reason, kErrReasonUntoleratedTaints);
    EXPECT_EQ(full[0].need, c.want_need);
    EXPECT_DOUBLE_EQ(full[0].gap, 0.5);
    ASSERT_EQ(gap_only.size(), 1u);
    EXPECT_EQ(gap_only[0].reason, "") << "kGapOnly copies no string";
    EXPECT_EQ(gap_only[0].need, "");
    EXPECT_DOUBLE_EQ(gap_only[0].gap, 0.5);
  }
  // A reason that is not its own is left to the runtime.
  framework::CycleState state;
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(PodWithTolerations({})));
  framework::NodeInfo ni(std::make_shared<api::Node>(NodeWithTaints("nodeA", {})));
  std::vector<framework::FilterNeed> out;
  explainer->ExplainFilter(state, *pod, ni, framework::Status::Unresolvable("other"),
                           framework::ExplainDetail::kFull, &out);
  EXPECT_TRUE(out.empty());
}

// v1.37 added a PreFilter; without a deferred resize it always succeeds (Filter still runs).
TEST(TaintTolerationTest, PreFilterSucceeds) {
  auto plugin = std::dynamic_pointer_cast<framework::PreFilterPlugin>(MakePlugin());
  ASSERT_NE(plugin, nullptr);
  framework::CycleState state;
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(PodWithTolerations({})));
  framework::PreFilterResult result;
  EXPECT_EQ(plugin->PreFilter(state, *pod, {}, &result).code(), framework::Code::kSuccess);
  EXPECT_TRUE(result.AllNodes());
}

// Upstream's TestIsSchedulableAfterNodeChange cases.
TEST(TaintTolerationTest, NodeChangeHint) {
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin());
  auto events = ext->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.action_type,
            framework::action::kAdd | framework::action::kUpdateNodeTaint);
  const auto& hint = events[0].hint;
  api::Pod pod = PodWithTolerations({Tol("dedicated", "Equal", "user2", "NoSchedule")});
  api::Pod not_a_node = MakePod("x").Obj();
  api::Node user1 = NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}});
  api::Node user2 = NodeWithTaints("nodeA", {{"dedicated", "user2", "NoSchedule"}});
  api::Node user1and3 = NodeWithTaints(
      "nodeA", {{"dedicated", "user1", "NoSchedule"}, {"dedicated", "user3", "NoSchedule"}});
  struct Case {
    const char* name;
    framework::EventObject old_obj, new_obj;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"backoff-wrong-new-object", {}, &not_a_node, QueueingHint::kQueue},
      {"backoff-wrong-old-object", &not_a_node, &user1, QueueingHint::kQueue},
      {"skip-queue-on-untoleratedtaint-node-added", {}, &user1, QueueingHint::kQueueSkip},
      {"queue-on-toleratedtaint-node-added", {}, &user2, QueueingHint::kQueue},
      {"skip-unrelated-change", &user1, &user1and3, QueueingHint::kQueueSkip},
      {"queue-on-taint-change", &user1, &user2, QueueingHint::kQueue},
  };
  for (const auto& c : cases) EXPECT_EQ(hint(pod, c.old_obj, c.new_obj), c.want) << c.name;
}

// Upstream's Test_isSchedulableAfterPodChange cases.
TEST(TaintTolerationTest, PodTolerationHint) {
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin());
  auto events = ext->EventsToRegister();
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[1].event.action_type, framework::action::kUpdatePodToleration);
  const auto& hint = events[1].hint;
  api::Pod pod = MakePod("pod-1").Namespace("ns-1").Uid("uid0").Obj();
  api::Pod other = MakePod("pod-2").Namespace("ns-1").Uid("uid1").Obj();
  api::Pod updated = MakePod("pod-1").Namespace("ns-1").Uid("uid0").Obj();
  updated.spec.tolerations.push_back(Tol("foo", "Equal", "bar", "NoSchedule"));
  const api::Node* not_a_pod = nullptr;
  EXPECT_EQ(hint(pod, framework::EventObject{}, not_a_pod), QueueingHint::kQueue);
  EXPECT_EQ(hint(pod, &other, &other), QueueingHint::kQueueSkip);
  EXPECT_EQ(hint(pod, &pod, &updated), QueueingHint::kQueue);
}

}  // namespace
}  // namespace berth::plugins::taint_toleration
