#include "plugins/node_declared_features/node_declared_features.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/testing/builders.h"

namespace berth::plugins::node_declared_features {
namespace {

using framework::Code;
using framework::QueueingHint;
using testing::MakeNode;
using testing::MakePod;
using Features = std::vector<std::string>;

std::shared_ptr<framework::Plugin> MakePlugin() {
  auto p = New(framework::PluginContext{});
  EXPECT_TRUE(p.ok());
  return *p;
}

api::Node NodeWith(const Features& declared) {
  api::Node node = MakeNode("node-1").Obj();
  node.status.declared_features = declared;
  return node;
}

api::Pod RestartAllPod() {
  api::Pod pod = MakePod("p").Req({{"cpu", "100m"}}).Obj();
  pod.spec.containers[0].restart_policy_rule_actions = {"Restart", "RestartAllContainers"};
  return pod;
}

api::Pod HostNetworkUserNamespacePod() {
  api::Pod pod = MakePod("p").Req({{"cpu", "100m"}}).Obj();
  pod.spec.host_network = true;
  pod.spec.host_users = false;
  return pod;
}

// component-helpers' per-feature InferForScheduling cases.
TEST(NodeDeclaredFeaturesTest, RequiredFeatures) {
  EXPECT_EQ(RequiredFeatures(MakePod("p").Req({{"cpu", "100m"}}).Obj().spec), Features{});
  EXPECT_EQ(RequiredFeatures(RestartAllPod().spec),
            Features{"RestartAllContainersOnContainerExits"});
  api::Pod restart_only = MakePod("p").Req({{"cpu", "100m"}}).Obj();
  restart_only.spec.containers[0].restart_policy_rule_actions = {"Restart"};
  EXPECT_EQ(RequiredFeatures(restart_only.spec), Features{});
  api::Pod init_restart_all = MakePod("p").Req({{"cpu", "100m"}}).Obj();
  init_restart_all.spec.init_containers.push_back(api::Container{});
  init_restart_all.spec.init_containers[0].restart_policy_rule_actions = {"RestartAllContainers"};
  EXPECT_EQ(RequiredFeatures(init_restart_all.spec),
            Features{"RestartAllContainersOnContainerExits"});

  EXPECT_EQ(RequiredFeatures(HostNetworkUserNamespacePod().spec),
            Features{"UserNamespacesHostNetworkSupport"});
  api::Pod host_users_unset = HostNetworkUserNamespacePod();
  host_users_unset.spec.host_users.reset();
  EXPECT_EQ(RequiredFeatures(host_users_unset.spec), Features{});
  api::Pod no_host_network = HostNetworkUserNamespacePod();
  no_host_network.spec.host_network = false;
  EXPECT_EQ(RequiredFeatures(no_host_network.spec), Features{});

  api::Pod ephemeral_bind = MakePod("p").Req({{"cpu", "100m"}}).Obj();
  ephemeral_bind.spec.ephemeral_containers.push_back(api::Container{});
  ephemeral_bind.spec.ephemeral_containers[0].has_bind_mount_options = true;
  EXPECT_EQ(RequiredFeatures(ephemeral_bind.spec), Features{"VolumeBindMountOptions"});

  api::Pod all = HostNetworkUserNamespacePod();
  all.spec.containers[0].restart_policy_rule_actions = {"RestartAllContainers"};
  all.spec.containers[0].has_bind_mount_options = true;
  EXPECT_EQ(RequiredFeatures(all.spec),
            (Features{"RestartAllContainersOnContainerExits", "UserNamespacesHostNetworkSupport",
                      "VolumeBindMountOptions"}));
}

TEST(NodeDeclaredFeaturesTest, PreFilterSkipsPodsWithoutRequirements) {
  auto plugin = std::dynamic_pointer_cast<framework::PreFilterPlugin>(MakePlugin());
  ASSERT_NE(plugin, nullptr);
  framework::CycleState state;
  auto pod =
      framework::MakePodInfo(std::make_shared<api::Pod>(MakePod("p").Req({{"cpu", "100m"}}).Obj()));
  framework::PreFilterResult result;
  EXPECT_EQ(plugin->PreFilter(state, *pod, {}, &result).code(), Code::kSkip);
}

// Upstream's TestFilter cases, with real features in place of its mocks.
TEST(NodeDeclaredFeaturesTest, Filter) {
  const std::string kReason = kErrReasonUnsatisfiedRequirements;
  api::Pod both = HostNetworkUserNamespacePod();
  both.spec.containers[0].restart_policy_rule_actions = {"RestartAllContainers"};
  struct Case {
    const char* name;
    api::Pod pod;
    api::Node node;
    Code want_code;
    std::string want_reason;
  };
  const std::vector<Case> cases = {
      {"Node matches requirements", RestartAllPod(),
       NodeWith({"RestartAllContainersOnContainerExits", "UserNamespacesHostNetworkSupport"}),
       Code::kSuccess, ""},
      {"Node does not match requirements", RestartAllPod(),
       NodeWith({"UserNamespacesHostNetworkSupport"}), Code::kUnschedulableAndUnresolvable,
       kReason},
      {"Node with multiple features, pod requires subset", HostNetworkUserNamespacePod(),
       NodeWith({"RestartAllContainersOnContainerExits", "UserNamespacesHostNetworkSupport",
                 "VolumeBindMountOptions"}),
       Code::kSuccess, ""},
      {"Node has no declared features", RestartAllPod(), NodeWith({}),
       Code::kUnschedulableAndUnresolvable, kReason},
      {"Node with some but not all required features", both,
       NodeWith({"RestartAllContainersOnContainerExits"}), Code::kUnschedulableAndUnresolvable,
       kReason},
      {"Unknown declared features are ignored", RestartAllPod(),
       NodeWith({"SomethingElse", "RestartAllContainersOnContainerExits"}), Code::kSuccess, ""},
  };
  auto plugin = MakePlugin();
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
  ASSERT_NE(pre, nullptr);
  ASSERT_NE(filter, nullptr);
  for (const auto& c : cases) {
    framework::CycleState state;
    auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    framework::PreFilterResult result;
    ASSERT_TRUE(pre->PreFilter(state, *pod, {}, &result).IsSuccess()) << c.name;
    framework::NodeInfo ni(std::make_shared<api::Node>(c.node));
    auto st = filter->Filter(state, *pod, ni);
    EXPECT_EQ(st.code(), c.want_code) << c.name;
    EXPECT_EQ(st.Message(), c.want_reason) << c.name;
  }
}

TEST(NodeDeclaredFeaturesTest, FilterWithoutPreFilterStateIsAnError) {
  auto plugin = std::dynamic_pointer_cast<framework::FilterPlugin>(MakePlugin());
  framework::CycleState state;
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(RestartAllPod()));
  framework::NodeInfo ni(std::make_shared<api::Node>(NodeWith({})));
  auto st = plugin->Filter(state, *pod, ni);
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(),
            "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found");
}

// Upstream's TestEnqueueExtensionsNodeUpdate and TestIsSchedulableAfterTargetPodUpdate cases.
TEST(NodeDeclaredFeaturesTest, QueueingHints) {
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin());
  ASSERT_NE(ext, nullptr);
  auto events = ext->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.action_type,
            framework::action::kAdd | framework::action::kUpdateNodeDeclaredFeature);
  const api::Pod pending = RestartAllPod();
  const api::Node none = NodeWith({});
  const api::Node with_a = NodeWith({"FeatureA"});
  const api::Node with_a_again = NodeWith({"FeatureA"});
  auto& node_hint = events[0].hint;
  EXPECT_EQ(node_hint(pending, std::monostate{}, &with_a), QueueingHint::kQueue) << "add";
  EXPECT_EQ(node_hint(pending, &none, &with_a), QueueingHint::kQueue) << "features added";
  EXPECT_EQ(node_hint(pending, &with_a, &with_a_again), QueueingHint::kQueueSkip) << "unchanged";

  auto& pod_hint = events[1].hint;
  const api::Pod plain = MakePod("p").Req({{"cpu", "100m"}}).Obj();
  const api::Pod restart_all = RestartAllPod();
  EXPECT_EQ(pod_hint(plain, &plain, &restart_all), QueueingHint::kQueue) << "adds requirement";
  EXPECT_EQ(pod_hint(plain, &restart_all, &plain), QueueingHint::kQueue) << "removes it";
  EXPECT_EQ(pod_hint(plain, &plain, &plain), QueueingHint::kQueueSkip) << "no change";
  api::Pod other = RestartAllPod();
  other.metadata.uid = "other-uid";
  EXPECT_EQ(pod_hint(plain, &plain, &other), QueueingHint::kQueueSkip) << "another pod";
}

}  // namespace
}  // namespace berth::plugins::node_declared_features
