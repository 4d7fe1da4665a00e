// PodTopologySpread args (upstream's ValidatePodTopologySpreadArgs cases) and queueing hints
// (upstream's plugin_test.go: Test_isSchedulableAfterNodeChange / PodChange).

#include "plugins/pod_topology_spread/pod_topology_spread.h"

#include <gtest/gtest.h>

#include "test/plugins/pod_topology_spread/spread_testing.h"

namespace berth::plugins::pod_topology_spread {
namespace {

using framework::EventObject;
using framework::QueueingHint;
using namespace spread_testing;  // NOLINT

api::Value Constraint(int64_t skew, const std::string& key, const std::string& when) {
  api::Value c = api::Value::MakeObject();
  c.Set("maxSkew", api::Value::Int(skew));
  c.Set("topologyKey", api::Value::String(key));
  c.Set("whenUnsatisfiable", api::Value::String(when));
  return c;
}

api::Value Args(std::vector<api::Value> constraints, const std::string& type) {
  api::Value v = api::Value::MakeObject();
  if (!constraints.empty()) {
    api::Value list = api::Value::MakeArray();
    for (auto& c : constraints) list.Push(std::move(c));
    v.Set("defaultConstraints", std::move(list));
  }
  if (!type.empty()) v.Set("defaultingType", api::Value::String(type));
  return v;
}

std::string ArgsError(const api::Value& args) {
  framework::PluginContext ctx;
  ctx.args = &args;
  ctx.args_path = "args";
  auto p = New(ctx);
  return p.ok() ? "" : p.error();
}

TEST(PodTopologySpreadArgsTest, Validation) {
  EXPECT_EQ(ArgsError(Args({}, "")), "");
  EXPECT_EQ(ArgsError(Args({}, "System")), "");
  EXPECT_EQ(ArgsError(Args({}, "List")), "");
  EXPECT_EQ(ArgsError(Args(
                {Constraint(1, "zone", "DoNotSchedule"), Constraint(2, "zone", "ScheduleAnyway")},
                "List")),
            "");
  EXPECT_EQ(
      ArgsError(Args({Constraint(1, "zone", "DoNotSchedule")}, "System")),
      "args.defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty");
  // Upstream defaults defaultingType to System, so constraints alone are rejected too.
  EXPECT_EQ(
      ArgsError(Args({Constraint(1, "zone", "DoNotSchedule")}, "")),
      "args.defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty");
  EXPECT_EQ(ArgsError(Args({}, "Other")),
            "args.defaultingType: Unsupported value: \"Other\": supported values: \"System\", "
            "\"List\"");
  EXPECT_EQ(ArgsError(Args(
                {Constraint(1, "zone", "DoNotSchedule"), Constraint(3, "zone", "DoNotSchedule")},
                "List")),
            "args.defaultConstraints[1]: Duplicate value: \"{zone, DoNotSchedule}\"");
  api::Value with_selector = Constraint(1, "zone", "DoNotSchedule");
  with_selector.Set("labelSelector", api::Value::MakeObject());
  EXPECT_EQ(ArgsError(Args({with_selector}, "List")),
            "args.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a "
            "selector, as they deduced for each pod");
  EXPECT_NE(ArgsError(Args({Constraint(0, "zone", "DoNotSchedule")}, "List"))
                .find("args.defaultConstraints[0].maxSkew"),
            std::string::npos);
  EXPECT_NE(ArgsError(Args({Constraint(1, "zone", "Sometimes")}, "List"))
                .find("args.defaultConstraints[0].whenUnsatisfiable"),
            std::string::npos);
  api::Value unknown = Args({}, "List");
  unknown.Set("bogus", api::Value::Int(1));
  EXPECT_NE(ArgsError(unknown).find("bogus"), std::string::npos);
}

// defaultingType List: the args' constraints apply to pods without constraints that a Service
// selects, with the Service's selector.
TEST(PodTopologySpreadArgsTest, ListDefaultsUseServiceSelector) {
  const api::Value args = Args({Constraint(1, "zone", "DoNotSchedule")}, "List");
  Env env({ZoneNode("node-a", "zone1"), ZoneNode("node-x", "zone2")},
          {PodOn("w1", "node-a", {{"app", "web"}}), PodOn("o1", "node-x", {{"app", "other"}})},
          &args);
  api::Service svc;
  svc.metadata.name = "web";
  svc.metadata.namespace_ = "default";
  svc.selector = {{"app", "web"}};
  env.handle().mutable_objects().services.Upsert(std::make_shared<api::Service>(svc));
  auto pod = MakePod("p").Label("app", "web").Label("version", "2").Obj();
  EXPECT_EQ(env.FilterCodes(pod),
            (std::map<std::string, framework::Code>{{"node-a", framework::Code::kUnschedulable},
                                                    {"node-x", framework::Code::kSuccess}}));
  // A pod with its own constraints ignores the defaults.
  auto own = MakePod("q").Label("app", "web");
  AddSpread(own, {5, "zone", "DoNotSchedule", Exists("app")});
  EXPECT_EQ(env.FilterCodes(own.Obj()),
            (std::map<std::string, framework::Code>{{"node-a", framework::Code::kSuccess},
                                                    {"node-x", framework::Code::kSuccess}}));
}

class HintTest : public ::testing::Test {
 protected:
  HintTest() : env_({}, {}, &list_) {}
  QueueingHint PodHint(const api::Pod& pod, const api::Pod* old_pod, const api::Pod* new_pod) {
    return Hint(framework::EventResource::kAssignedPod, pod, Obj(old_pod), Obj(new_pod));
  }
  QueueingHint TargetHint(const api::Pod& pod, const api::Pod* old_pod, const api::Pod* new_pod) {
    return Hint(framework::EventResource::kPod, pod, Obj(old_pod), Obj(new_pod));
  }
  QueueingHint NodeHint(const api::Pod& pod, const api::Node* old_node, const api::Node* new_node) {
    return Hint(framework::EventResource::kNode, pod, Obj(old_node), Obj(new_node));
  }

 private:
  template <typename T>
  static EventObject Obj(const T* p) {
    return p == nullptr ? EventObject{} : EventObject{p};
  }
  QueueingHint Hint(framework::EventResource r, const api::Pod& pod, const EventObject& o,
                    const EventObject& n) {
    for (const auto& e : env_.events().EventsToRegister()) {
      if (e.event.resource == r && e.hint) return e.hint(pod, o, n);
    }
    ADD_FAILURE() << "no hint registered";
    return QueueingHint::kQueue;
  }
  api::Value list_ = ListArgs();
  Env env_;
};

api::Pod SpreadPod(const std::string& key = "zone", const std::string& taints = "") {
  auto p = MakePod("p").Uid("p").Label("foo", "");
  Spread s{1, key, "DoNotSchedule", Exists("foo")};
  s.taints_policy = taints;
  AddSpread(p, s);
  return p.Obj();
}

// Upstream's Test_isSchedulableAfterAssignedPodChange and
// Test_isSchedulableAfterTargetPodChange (v1.37).
TEST_F(HintTest, PodChange) {
  const api::Pod pod = SpreadPod();
  auto assigned = [](api::Labels labels, const std::string& ns = "default") {
    return PodOn("other", "node-a", std::move(labels), ns);
  };
  const api::Pod foo = assigned({{"foo", ""}});
  const api::Pod bar = assigned({{"bar", ""}});
  const api::Pod foo_other_ns = assigned({{"foo", ""}}, "ns2");
  api::Pod unassigned = foo;
  unassigned.spec.node_name.clear();
  const api::Pod foo_bar = assigned({{"foo", ""}, {"bar", ""}});
  const api::Pod foo_v2 = assigned({{"foo", "v2"}});

  EXPECT_EQ(PodHint(pod, nullptr, &foo), QueueingHint::kQueue);  // add matching
  EXPECT_EQ(PodHint(pod, nullptr, &bar), QueueingHint::kQueueSkip);
  EXPECT_EQ(PodHint(pod, nullptr, &foo_other_ns), QueueingHint::kQueueSkip);
  EXPECT_EQ(PodHint(pod, nullptr, &unassigned), QueueingHint::kQueueSkip);
  EXPECT_EQ(PodHint(pod, &foo, nullptr), QueueingHint::kQueue);  // delete matching
  EXPECT_EQ(PodHint(pod, &bar, nullptr), QueueingHint::kQueueSkip);
  EXPECT_EQ(PodHint(pod, &bar, &foo), QueueingHint::kQueue);          // label now matches
  EXPECT_EQ(PodHint(pod, &foo, &bar), QueueingHint::kQueue);          // label no longer matches
  EXPECT_EQ(PodHint(pod, &foo, &foo_bar), QueueingHint::kQueueSkip);  // still matches
  EXPECT_EQ(PodHint(pod, &foo, &foo_v2), QueueingHint::kQueueSkip);
  EXPECT_EQ(PodHint(pod, &foo, &foo), QueueingHint::kQueueSkip);  // labels unchanged
  // A nominated (not yet bound) pod counts as placed.
  api::Pod nominated = unassigned;
  nominated.status.nominated_node_name = "node-a";
  EXPECT_EQ(PodHint(pod, nullptr, &nominated), QueueingHint::kQueue);

  // The pod's own new toleration helps only under nodeTaintsPolicy Honor.
  api::Pod self = pod;
  self.spec.node_name.clear();
  api::Pod tolerating = self;
  tolerating.spec.tolerations.push_back({"k", "Exists", "", "NoSchedule", {}});
  EXPECT_EQ(TargetHint(pod, &self, &tolerating), QueueingHint::kQueueSkip);
  const api::Pod honor = SpreadPod("zone", "Honor");
  api::Pod honor_self = honor;
  api::Pod honor_tolerating = honor;
  honor_tolerating.spec.tolerations.push_back({"k", "Exists", "", "NoSchedule", {}});
  EXPECT_EQ(TargetHint(honor, &honor_self, &honor_tolerating), QueueingHint::kQueue);
  // Its own label change matters when it flips a constraint's selector.
  api::Pod relabelled = self;
  relabelled.metadata.labels = {{"bar", ""}};
  EXPECT_EQ(TargetHint(pod, &self, &relabelled), QueueingHint::kQueue);
  api::Pod extra_label = self;
  extra_label.metadata.labels["bar"] = "";
  EXPECT_EQ(TargetHint(pod, &self, &extra_label), QueueingHint::kQueueSkip);
  // Another pod's update is not the target's.
  EXPECT_EQ(TargetHint(pod, &bar, &foo), QueueingHint::kQueueSkip);
}

// Upstream's Test_isSchedulableAfterNodeChange.
TEST_F(HintTest, NodeChange) {
  const api::Pod pod = SpreadPod();
  const api::Node with_zone = MakeNode("n").Label("zone", "zone1").Obj();
  const api::Node other_zone = MakeNode("n").Label("zone", "zone2").Obj();
  const api::Node without = MakeNode("n").Obj();
  api::Node tainted = with_zone;
  tainted.spec.taints.push_back({"k", "v", "NoSchedule"});
  api::Node relabelled = with_zone;
  relabelled.metadata.labels["other"] = "x";

  EXPECT_EQ(NodeHint(pod, nullptr, &with_zone), QueueingHint::kQueue);  // add with key
  EXPECT_EQ(NodeHint(pod, nullptr, &without), QueueingHint::kQueueSkip);
  EXPECT_EQ(NodeHint(pod, &with_zone, nullptr), QueueingHint::kQueue);  // delete with key
  EXPECT_EQ(NodeHint(pod, &without, nullptr), QueueingHint::kQueueSkip);
  EXPECT_EQ(NodeHint(pod, &without, &with_zone), QueueingHint::kQueue);  // gains the key
  EXPECT_EQ(NodeHint(pod, &with_zone, &without), QueueingHint::kQueue);  // loses the key
  EXPECT_EQ(NodeHint(pod, &with_zone, &other_zone), QueueingHint::kQueue);
  EXPECT_EQ(NodeHint(pod, &with_zone, &relabelled), QueueingHint::kQueueSkip);
  EXPECT_EQ(NodeHint(pod, &with_zone, &tainted), QueueingHint::kQueue);
  EXPECT_EQ(NodeHint(pod, &without, &without), QueueingHint::kQueueSkip);
}

TEST(PodTopologySpreadTest, NameAndEvents) {
  framework::PluginContext ctx;
  auto p = New(ctx);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), "PodTopologySpread");
  const auto* ext = dynamic_cast<const framework::EnqueueExtensions*>(p->get());
  ASSERT_NE(ext, nullptr);
  EXPECT_EQ(ext->EventsToRegister().size(), 3u);
}

}  // namespace
}  // namespace berth::plugins::pod_topology_spread
