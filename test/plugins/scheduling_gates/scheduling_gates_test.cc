#include "plugins/scheduling_gates/scheduling_gates.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"

namespace berth::plugins::scheduling_gates {
namespace {

using testing::MakePod;

std::shared_ptr<framework::Plugin> MakePlugin() {
  auto p = New(framework::PluginContext{});
  EXPECT_TRUE(p.ok());
  return *p;
}

// Upstream's TestPreEnqueue cases.
TEST(SchedulingGatesTest, PreEnqueue) {
  struct Case {
    const char* name;
    api::Pod pod;
    framework::Code want_code;
    std::string want_message;
  };
  const std::vector<Case> cases = {
      {"pod does not carry scheduling gates", MakePod("p").Obj(), framework::Code::kSuccess, ""},
      {"pod carries scheduling gates", MakePod("p").Gate("foo").Gate("bar").Obj(),
       framework::Code::kUnschedulableAndUnresolvable, "waiting for scheduling gates: [foo bar]"},
      {"one gate", MakePod("p").Gate("example.com/gate").Obj(),
       framework::Code::kUnschedulableAndUnresolvable,
       "waiting for scheduling gates: [example.com/gate]"},
  };
  auto plugin = std::dynamic_pointer_cast<framework::PreEnqueuePlugin>(MakePlugin());
  ASSERT_NE(plugin, nullptr);
  for (const auto& c : cases) {
    auto info = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    auto st = plugin->PreEnqueue(*info);
    EXPECT_EQ(st.code(), c.want_code) << c.name;
    EXPECT_EQ(st.Message(), c.want_message) << c.name;
  }
}

TEST(SchedulingGatesTest, EventsAndHint) {
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin());
  ASSERT_NE(ext, nullptr);
  auto events = ext->EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[0].event.action_type, framework::action::kUpdatePodSchedulingGatesEliminated);
  ASSERT_TRUE(events[0].hint);

  api::Pod target = MakePod("p").Uid("uid0").Obj();
  api::Pod same_old = MakePod("p").Uid("uid0").Gate("foo").Obj();
  api::Pod same_new = MakePod("p").Uid("uid0").Obj();
  api::Pod other = MakePod("q").Uid("uid1").Obj();
  const auto& hint = events[0].hint;
  EXPECT_EQ(hint(target, &same_old, &same_new), framework::QueueingHint::kQueue);
  EXPECT_EQ(hint(target, &other, &other), framework::QueueingHint::kQueueSkip);
  const api::Node* not_a_pod = nullptr;
  EXPECT_EQ(hint(target, framework::EventObject{}, not_a_pod), framework::QueueingHint::kQueue);
}

TEST(SchedulingGatesTest, RejectsUnknownArgs) {
  api::Value args = api::Value::MakeObject();
  args.Set("bogus", api::Value::Int(1));
  framework::PluginContext ctx;
  ctx.args = &args;
  ctx.args_path = "profiles[0].pluginConfig[0].args";
  auto p = New(ctx);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("bogus"), std::string::npos) << p.error();
}

}  // namespace
}  // namespace berth::plugins::scheduling_gates
