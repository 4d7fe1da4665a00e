// Args, factory and queueing hints (upstream's plugin_test.go).

#include <gtest/gtest.h>

#include "test/plugins/inter_pod_affinity/test_env.h"

namespace berth::plugins::inter_pod_affinity::test {
namespace {

using framework::QueueingHint;

std::string NewError(const api::Value& args) {
  testing::FakeHandle handle;
  framework::PluginContext ctx;
  ctx.args = &args;
  ctx.args_path = "profiles[0].pluginConfig[0].args";
  ctx.handle = &handle;
  auto p = New(ctx);
  return p.ok() ? "" : p.error();
}

TEST(InterPodAffinityPluginTest, Args) {
  api::Value ok = api::Value::MakeObject();
  ok.Set("hardPodAffinityWeight", api::Value::Int(100));
  ok.Set("ignorePreferredTermsOfExistingPods", api::Value::Bool(true));
  EXPECT_EQ(NewError(ok), "");

  api::Value too_big = api::Value::MakeObject();
  too_big.Set("hardPodAffinityWeight", api::Value::Int(101));
  EXPECT_EQ(NewError(too_big),
            "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in "
            "valid range [0-100]");
  api::Value negative = api::Value::MakeObject();
  negative.Set("hardPodAffinityWeight", api::Value::Int(-1));
  EXPECT_NE(NewError(negative).find("Invalid value: -1"), std::string::npos);

  api::Value unknown = api::Value::MakeObject();
  unknown.Set("hardPodAffinityWeigth", api::Value::Int(1));
  EXPECT_NE(NewError(unknown).find("hardPodAffinityWeigth"), std::string::npos);

  api::Value wrong_type = api::Value::MakeObject();
  wrong_type.Set("ignorePreferredTermsOfExistingPods", api::Value::String("yes"));
  EXPECT_NE(NewError(wrong_type), "");

  EXPECT_FALSE(New(framework::PluginContext{}).ok()) << "a handle is required";
}

TEST(InterPodAffinityPluginTest, NameAndExtensionPoints) {
  Env env = SetUpEnv({}, {});
  EXPECT_EQ(env.plugin->Name(), "InterPodAffinity");
  EXPECT_NE(dynamic_cast<const framework::PreFilterPlugin*>(env.plugin.get()), nullptr);
  EXPECT_NE(dynamic_cast<const framework::FilterPlugin*>(env.plugin.get()), nullptr);
  EXPECT_NE(dynamic_cast<const framework::PreScorePlugin*>(env.plugin.get()), nullptr);
  const auto* score = dynamic_cast<const framework::ScorePlugin*>(env.plugin.get());
  ASSERT_NE(score, nullptr);
  EXPECT_TRUE(score->HasNormalizeScore());
  EXPECT_NE(dynamic_cast<const framework::PreFilterPlugin*>(env.plugin.get())->Extensions(),
            nullptr);
}

// A pod without affinity costs nothing: PreFilter and PreScore skip.
TEST(InterPodAffinityPluginTest, PlainPodSkips) {
  Env env = SetUpEnv({NodeWith("n1", {{"zone", "a"}})}, {MakePod("e").Node("n1").Obj()});
  framework::CycleState state;
  framework::PreFilterResult result;
  auto info = MakePod("p").Info();
  EXPECT_TRUE(
      env.As<framework::PreFilterPlugin>().PreFilter(state, *info, env.Nodes(), &result).IsSkip());
  EXPECT_TRUE(env.As<framework::PreScorePlugin>().PreScore(state, *info, env.Nodes()).IsSkip());
}

struct HintCase {
  std::string name;
  api::Pod pod;
  framework::EventObject old_obj;
  framework::EventObject new_obj;
  QueueingHint want;
};

const framework::ClusterEventWithHint& EventFor(
    const std::vector<framework::ClusterEventWithHint>& events, framework::EventResource r) {
  for (const auto& e : events) {
    if (e.event.resource == r) return e;
  }
  ADD_FAILURE() << "no event registered";
  return events.front();
}

// upstream's Test_isSchedulableAfterAssignedPodChange (v1.37).
TEST(InterPodAffinityPluginTest, PodChangeHint) {
  Env env = SetUpEnv({}, {});
  const auto events = env.As<framework::EnqueueExtensions>().EventsToRegister();
  ASSERT_EQ(events.size(), 3u);
  const auto& pod_event = EventFor(events, framework::EventResource::kAssignedPod);
  EXPECT_EQ(pod_event.event.action_type, framework::action::kAdd |
                                             framework::action::kUpdatePodLabel |
                                             framework::action::kDelete);

  const api::Pod with_affinity =
      MakePod("p").PodAffinity(Term("service", kIn, {"securityscan"}, "region")).Obj();
  const api::Pod with_anti =
      MakePod("p").PodAntiAffinity(Term("service", kIn, {"securityscan"}, "region")).Obj();
  const api::Pod scheduled_match =
      WithLabels(MakePod("s").Node("n1").Obj(), {{"service", "securityscan"}});
  const api::Pod scheduled_other = WithLabels(MakePod("s").Node("n1").Obj(), {{"aaa", "a"}});
  const api::Pod unscheduled_match = WithLabels(MakePod("u").Obj(), {{"service", "securityscan"}});
  const api::Pod pending_match = WithLabels(MakePod("p").Obj(), {{"service", "securityscan"}});
  const api::Pod pending_other = WithLabels(MakePod("p").Obj(), {{"service", "foo"}});
  const api::Pod scheduled_anti =
      MakePod("s")
          .Node("n1")
          .PodAntiAffinity(Term("service", kIn, {"securityscan", "value2"}, "region"))
          .Obj();
  api::Pod nominated_other = WithLabels(MakePod("s").Obj(), {{"aaa", "a"}});
  nominated_other.status.nominated_node_name = "n1";
  api::Pod nominated_match = WithLabels(MakePod("s").Obj(), {{"service", "securityscan"}});
  nominated_match.status.nominated_node_name = "n1";
  const api::Pod with_two_anti =
      MakePod("p")
          .PodAntiAffinity(Term("service", kIn, {"securityscan"}, "region"))
          .PodAntiAffinity(Term("app", kIn, {"web"}, "region"))
          .Obj();
  const api::Pod scheduled_security_bar =
      WithLabels(MakePod("s").Node("n1").Obj(), {{"service", "securityscan"}, {"app", "bar"}});
  const api::Pod scheduled_foo_bar =
      WithLabels(MakePod("s").Node("n1").Obj(), {{"service", "foo"}, {"app", "bar"}});
  const api::Pod scheduled_foo_web =
      WithLabels(MakePod("s").Node("n1").Obj(), {{"service", "foo"}, {"app", "web"}});
  std::vector<HintCase> cases = {
      {"add a pod which matches the pod affinity", with_affinity, std::monostate{},
       &scheduled_match, QueueingHint::kQueue},
      {"add an unscheduled pod", with_affinity, std::monostate{}, &unscheduled_match,
       QueueingHint::kQueueSkip},
      {"add a pod which doesn't match the pod affinity", with_affinity, std::monostate{},
       &scheduled_other, QueueingHint::kQueueSkip},
      {"update a pod from non-match to match pod affinity", with_affinity, &scheduled_other,
       &scheduled_match, QueueingHint::kQueue},
      {"the updating pod matches target pod's affinity both before and after label changes",
       with_affinity, &scheduled_match, &scheduled_match, QueueingHint::kQueueSkip},
      {"update a pod from match to non-match the pod anti-affinity", with_anti, &scheduled_match,
       &scheduled_other, QueueingHint::kQueue},
      {"update a pod from non-match to match the pod anti-affinity", with_anti, &scheduled_other,
       &scheduled_match, QueueingHint::kQueueSkip},
      {"delete a pod which doesn't match pod's anti-affinity", with_anti, &scheduled_other,
       std::monostate{}, QueueingHint::kQueueSkip},
      {"delete a pod which matches pod's anti-affinity", with_anti, &scheduled_match,
       std::monostate{}, QueueingHint::kQueue},
      {"delete a pod with anti-affinity that matches pending pod", pending_match, &scheduled_anti,
       std::monostate{}, QueueingHint::kQueue},
      {"delete a pod with anti-affinity that doesn't match pending pod", pending_other,
       &scheduled_anti, std::monostate{}, QueueingHint::kQueueSkip},
      {"delete a nominated pod which doesn't match pod's anti-affinity", with_anti,
       &nominated_other, std::monostate{}, QueueingHint::kQueueSkip},
      {"delete a nominated pod which matches pod's anti-affinity", with_anti, &nominated_match,
       std::monostate{}, QueueingHint::kQueue},
      {"modify pod label to change it from matching only one of target pod's anti-affinity "
       "terms to matching none",
       with_two_anti, &scheduled_security_bar, &scheduled_foo_bar, QueueingHint::kQueue},
      {"modify pod label but it still matches one of target pod's anti-affinity terms",
       with_two_anti, &scheduled_security_bar, &scheduled_foo_web, QueueingHint::kQueueSkip},
      {"delete a pod which matches only one of target pod's anti-affinity terms", with_two_anti,
       &scheduled_match, std::monostate{}, QueueingHint::kQueue},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(pod_event.hint(c.pod, c.old_obj, c.new_obj), c.want) << c.name;
  }
  // The pod's own label update (upstream's TargetPod/UpdatePodLabel) always requeues it.
  const auto& target_event = EventFor(events, framework::EventResource::kPod);
  EXPECT_EQ(target_event.event.action_type, framework::action::kUpdatePodLabel);
  const api::Pod relabelled = WithLabels(with_anti, {{"x", "y"}});
  EXPECT_EQ(target_event.hint(with_anti, &with_anti, &relabelled), QueueingHint::kQueue);
  EXPECT_EQ(target_event.hint(with_anti, &scheduled_other, &scheduled_match),
            QueueingHint::kQueueSkip);
}

// upstream's Test_isSchedulableAfterNodeChange.
TEST(InterPodAffinityPluginTest, NodeChangeHint) {
  Env env = SetUpEnv({}, {});
  const auto events = env.As<framework::EnqueueExtensions>().EventsToRegister();
  const auto& node_event = EventFor(events, framework::EventResource::kNode);
  EXPECT_EQ(node_event.event.action_type,
            framework::action::kAdd | framework::action::kUpdateNodeLabel);
  const api::Pod with_affinity =
      MakePod("p").PodAffinity(Term("service", kIn, {"securityscan"}, "zone")).Obj();
  const api::Pod with_anti =
      MakePod("p").PodAntiAffinity(Term("service", kIn, {"securityscan"}, "zone")).Obj();
  const api::Node zone1 = NodeWith("n", {{"zone", "zone1"}});
  const api::Node zone2 = NodeWith("n", {{"zone", "zone2"}});
  const api::Node other = NodeWith("n", {{"aaa", "a"}});
  std::vector<HintCase> cases = {
      {"add a node with the affinity topology key", with_affinity, std::monostate{}, &zone1,
       QueueingHint::kQueue},
      {"add a node without the affinity topology key", with_affinity, std::monostate{}, &other,
       QueueingHint::kQueueSkip},
      {"update a node: affinity topology key added", with_affinity, &other, &zone1,
       QueueingHint::kQueue},
      {"update a node: affinity topology value changed", with_affinity, &zone1, &zone2,
       QueueingHint::kQueue},
      {"update a node: affinity topology key unchanged", with_affinity, &zone1, &zone1,
       QueueingHint::kQueueSkip},
      {"add a node: always for anti-affinity", with_anti, std::monostate{}, &other,
       QueueingHint::kQueue},
      {"update a node: anti-affinity topology key removed", with_anti, &zone1, &other,
       QueueingHint::kQueue},
      {"update a node: anti-affinity topology value changed", with_anti, &zone1, &zone2,
       QueueingHint::kQueue},
      {"update a node: anti-affinity topology key added", with_anti, &other, &zone1,
       QueueingHint::kQueueSkip},
      {"a pod without pod affinity", MakePod("p").Obj(), std::monostate{}, &zone1,
       QueueingHint::kQueueSkip},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(node_event.hint(c.pod, c.old_obj, c.new_obj), c.want) << c.name;
  }
}

}  // namespace
}  // namespace berth::plugins::inter_pod_affinity::test
