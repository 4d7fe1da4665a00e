#include "plugins/node_name/node_name.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "test/testing/builders.h"

namespace berth::plugins::node_name {
namespace {

using testing::MakeNode;
using testing::MakePod;

// Upstream's TestNodeName cases.
TEST(NodeNameTest, Filter) {
  struct Case {
    const char* name;
    api::Pod pod;
    api::Node node;
    framework::Code want_code;
    std::string want_reason;
  };
  const std::vector<Case> cases = {
      {"no host specified", MakePod("p").Obj(), MakeNode("foo").Obj(), framework::Code::kSuccess,
       ""},
      {"host matches", MakePod("p").Node("foo").Obj(), MakeNode("foo").Obj(),
       framework::Code::kSuccess, ""},
      {"host doesn't match", MakePod("p").Node("bar").Obj(), MakeNode("foo").Obj(),
       framework::Code::kUnschedulableAndUnresolvable,
       "node(s) didn't match the requested node name"},
  };
  auto p = New(framework::PluginContext{});
  ASSERT_TRUE(p.ok());
  auto plugin = std::dynamic_pointer_cast<framework::FilterPlugin>(*p);
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(plugin->Name(), "NodeName");
  for (const auto& c : cases) {
    framework::CycleState state;
    auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    framework::NodeInfo ni(std::make_shared<api::Node>(c.node));
    auto st = plugin->Filter(state, *pod, ni);
    EXPECT_EQ(st.code(), c.want_code) << c.name;
    EXPECT_EQ(st.Message(), c.want_reason) << c.name;
  }
}

// Upstream's TestNodeName_PreFilter cases.
TEST(NodeNameTest, PreFilter) {
  auto p = New(framework::PluginContext{});
  ASSERT_TRUE(p.ok());
  auto plugin = std::dynamic_pointer_cast<framework::PreFilterPlugin>(*p);
  ASSERT_NE(plugin, nullptr);
  framework::CycleState state;
  framework::PreFilterResult assigned;
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(MakePod("p").Node("n1").Obj()));
  EXPECT_TRUE(plugin->PreFilter(state, *pod, {}, &assigned).IsSuccess());
  ASSERT_FALSE(assigned.AllNodes());
  EXPECT_EQ(*assigned.node_names, (std::set<std::string, std::less<>>{"n1"}));
  framework::PreFilterResult unassigned;
  auto pending = framework::MakePodInfo(std::make_shared<api::Pod>(MakePod("p").Obj()));
  EXPECT_TRUE(plugin->PreFilter(state, *pending, {}, &unassigned).IsSuccess());
  EXPECT_TRUE(unassigned.AllNodes());
}

TEST(NodeNameTest, Events) {
  auto p = New(framework::PluginContext{});
  ASSERT_TRUE(p.ok());
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(*p);
  ASSERT_NE(ext, nullptr);
  auto events = ext->EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.action_type, framework::action::kAdd);
  EXPECT_FALSE(events[0].hint);
}

}  // namespace
}  // namespace berth::plugins::node_name
