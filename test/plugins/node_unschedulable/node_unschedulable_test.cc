#include "plugins/node_unschedulable/node_unschedulable.h"

#include <gtest/gtest.h>

#include "scheduler/framework/explain.h"
#include "test/testing/builders.h"

namespace berth::plugins::node_unschedulable {
namespace {

using framework::QueueingHint;
using testing::MakeNode;
using testing::MakePod;

std::shared_ptr<framework::Plugin> MakePlugin() {
  auto p = New(framework::PluginContext{});
  EXPECT_TRUE(p.ok());
  return *p;
}

// Upstream's TestNodeUnschedulable cases.
TEST(NodeUnschedulableTest, Filter) {
  struct Case {
    const char* name;
    api::Pod pod;
    api::Node node;
    framework::Code want_code;
    std::string want_reason;
  };
  const std::vector<Case> cases = {
      {"Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
       MakePod("p").Obj(), MakeNode("n").Unschedulable().Obj(),
       framework::Code::kUnschedulableAndUnresolvable, "node(s) were unschedulable"},
      {"Schedule pod to normal node", MakePod("p").Obj(), MakeNode("n").Obj(),
       framework::Code::kSuccess, ""},
      {"Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
       MakePod("p").Toleration("node.kubernetes.io/unschedulable", "Equal", "", "NoSchedule").Obj(),
       MakeNode("n").Unschedulable().Obj(), framework::Code::kSuccess, ""},
      {"Exists toleration with empty key tolerates the unschedulable taint",
       MakePod("p").Toleration("", "Exists", "", "").Obj(), MakeNode("n").Unschedulable().Obj(),
       framework::Code::kSuccess, ""},
      {"NoExecute toleration does not tolerate the NoSchedule unschedulable taint",
       MakePod("p").Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoExecute").Obj(),
       MakeNode("n").Unschedulable().Obj(), framework::Code::kUnschedulableAndUnresolvable,
       "node(s) were unschedulable"},
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

// The FilterExplainer: a cordoned node and the two ways out.
TEST(NodeUnschedulableTest, ExplainFilter) {
  auto plugin = MakePlugin();
  const auto& filter = dynamic_cast<const framework::FilterPlugin&>(*plugin);
  const auto* explainer = dynamic_cast<const framework::FilterExplainer*>(plugin.get());
  ASSERT_NE(explainer, nullptr);
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  const framework::NodeInfo cordoned = MakeNode("n").Unschedulable().Info();
  const framework::Status st = filter.Filter(state, *pod, cordoned);
  ASSERT_TRUE(st.IsRejected());
  std::vector<framework::FilterNeed> full, gap_only;
  explainer->ExplainFilter(state, *pod, cordoned, st, framework::ExplainDetail::kFull, &full);
  explainer->ExplainFilter(state, *pod, cordoned, st, framework::ExplainDetail::kGapOnly,
                           &gap_only);
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(full[0].reason, "node(s) were unschedulable");
  EXPECT_EQ(full[0].need,
            "node is cordoned (spec.unschedulable): uncordon it, or tolerate "
            "node.kubernetes.io/unschedulable:NoSchedule");
  EXPECT_DOUBLE_EQ(full[0].gap, 0.5);
  ASSERT_EQ(gap_only.size(), 1u);
  EXPECT_EQ(gap_only[0].reason, "") << "kGapOnly copies no string";
  EXPECT_EQ(gap_only[0].need, "");
  EXPECT_DOUBLE_EQ(gap_only[0].gap, 0.5);

  // A NodeInfo without its node: nothing to say, the runtime reports the reason.
  const framework::NodeInfo gone;
  const framework::Status unknown = filter.Filter(state, *pod, gone);
  std::vector<framework::FilterNeed> none;
  explainer->ExplainFilter(state, *pod, gone, unknown, framework::ExplainDetail::kFull, &none);
  EXPECT_TRUE(none.empty());
}

// v1.37 added a PreFilter; without a deferred resize it always succeeds (Filter still runs).
TEST(NodeUnschedulableTest, PreFilterSucceeds) {
  auto plugin = std::dynamic_pointer_cast<framework::PreFilterPlugin>(MakePlugin());
  ASSERT_NE(plugin, nullptr);
  framework::CycleState state;
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(MakePod("p").Obj()));
  framework::PreFilterResult result;
  EXPECT_EQ(plugin->PreFilter(state, *pod, {}, &result).code(), framework::Code::kSuccess);
  EXPECT_TRUE(result.AllNodes());
}

TEST(NodeUnschedulableTest, FilterWithoutNode) {
  auto plugin = std::dynamic_pointer_cast<framework::FilterPlugin>(MakePlugin());
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  framework::NodeInfo empty;
  auto st = plugin->Filter(state, *pod, empty);
  EXPECT_EQ(st.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), kErrReasonUnknownCondition);
}

TEST(NodeUnschedulableTest, Events) {
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin());
  auto events = ext->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.action_type,
            framework::action::kAdd | framework::action::kUpdateNodeTaint);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[1].event.action_type, framework::action::kUpdatePodToleration);
}

// Upstream's TestIsSchedulableAfterNodeChange cases.
TEST(NodeUnschedulableTest, NodeChangeHint) {
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin());
  auto hint = ext->EventsToRegister()[0].hint;
  api::Pod pod = MakePod("p").Obj();
  api::Node schedulable = MakeNode("n").Obj();
  api::Node unschedulable = MakeNode("n").Unschedulable().Obj();
  api::Node tainted = MakeNode("n").Taint("k", "v", "NoSchedule").Obj();
  const api::Node* none = nullptr;
  api::Pod not_a_node = MakePod("x").Obj();
  struct Case {
    const char* name;
    framework::EventObject old_obj, new_obj;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"backoff-wrong-new-object", {}, &not_a_node, QueueingHint::kQueue},
      {"backoff-wrong-old-object", &not_a_node, &unschedulable, QueueingHint::kQueue},
      {"skip-queue-on-unschedulable-node-added", {}, &unschedulable, QueueingHint::kQueueSkip},
      {"queue-on-schedulable-node-added", {}, &schedulable, QueueingHint::kQueue},
      {"queue-on-schedulable-node-added (null old)", none, &schedulable, QueueingHint::kQueue},
      {"skip-unrelated-change", &schedulable, &tainted, QueueingHint::kQueueSkip},
      {"queue-on-unschedulable-field-change", &unschedulable, &schedulable, QueueingHint::kQueue},
  };
  for (const auto& c : cases) EXPECT_EQ(hint(pod, c.old_obj, c.new_obj), c.want) << c.name;
}

// Upstream's TestIsSchedulableAfterPodTolerationChange cases.
TEST(NodeUnschedulableTest, PodTolerationHint) {
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin());
  auto hint = ext->EventsToRegister()[1].hint;
  api::Pod pod = MakePod("p").Uid("uid0").Obj();
  api::Pod other = MakePod("q").Uid("uid1").Obj();
  api::Pod tolerating =
      MakePod("p")
          .Uid("uid0")
          .Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule")
          .Obj();
  api::Pod unrelated = MakePod("p").Uid("uid0").Toleration("foo", "Exists", "", "NoSchedule").Obj();
  EXPECT_EQ(hint(pod, &other, &other), QueueingHint::kQueueSkip);
  EXPECT_EQ(hint(pod, &pod, &tolerating), QueueingHint::kQueue);
  EXPECT_EQ(hint(pod, &pod, &unrelated), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace berth::plugins::node_unschedulable
