#include "plugins/node_label/node_label.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "scheduler/framework/plugin.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::node_label {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

using ArgMap = std::map<std::string, std::vector<std::string>>;

api::Value MakeArgs(const ArgMap& fields) {
  api::Value v = api::Value::MakeObject();
  for (const auto& [k, list] : fields) {
    api::Value a = api::Value::MakeArray();
    for (const auto& s : list) a.Push(api::Value::String(s));
    v.Set(k, std::move(a));
  }
  return v;
}

std::shared_ptr<framework::Plugin> MustNew(const ArgMap& fields) {
  api::Value args = MakeArgs(fields);
  framework::PluginContext ctx;
  ctx.args = &args;
  ctx.args_path = "args";
  auto p = New(ctx);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error());
  return p.ok() ? *p : nullptr;
}

// Upstream's TestValidateNodeLabelArgs.
TEST(NodeLabelArgs, Validation) {
  struct Case {
    std::string name;
    ArgMap args;
    std::string want_err;  // empty = ok
  } cases[] = {
      {"happy case",
       {{"presentLabels", {"foo", "bar"}},
        {"absentLabels", {"baz"}},
        {"presentLabelsPreference", {"foo", "bar"}},
        {"absentLabelsPreference", {"baz"}}},
       ""},
      {"label presence conflict",
       {{"presentLabels", {"foo", "bar"}},
        {"absentLabels", {"bar", "baz"}},
        {"presentLabelsPreference", {"foo", "bar"}},
        {"absentLabelsPreference", {"baz"}}},
       "args.presentLabels[1]: Invalid value: \"bar\": conflict with args.absentLabels[0]"},
      {"label preference conflict",
       {{"presentLabels", {"foo", "bar"}},
        {"absentLabels", {"baz"}},
        {"presentLabelsPreference", {"foo", "bar"}},
        {"absentLabelsPreference", {"bar", "baz"}}},
       "args.presentLabelsPreference[1]: Invalid value: \"bar\": conflict with "
       "args.absentLabelsPreference[0]"},
      {"both label presence and preference conflict",
       {{"presentLabels", {"foo", "bar"}},
        {"absentLabels", {"bar", "baz"}},
        {"presentLabelsPreference", {"foo", "bar"}},
        {"absentLabelsPreference", {"bar", "baz"}}},
       "[args.presentLabels[1]: Invalid value: \"bar\": conflict with args.absentLabels[0], "
       "args.presentLabelsPreference[1]: Invalid value: \"bar\": conflict with "
       "args.absentLabelsPreference[0]]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::Value args = MakeArgs(c.args);
    framework::PluginContext ctx;
    ctx.args = &args;
    ctx.args_path = "args";
    auto p = New(ctx);
    if (c.want_err.empty()) {
      EXPECT_TRUE(p.ok()) << p.error();
    } else {
      ASSERT_FALSE(p.ok());
      EXPECT_EQ(p.error(), c.want_err);
    }
  }
}

TEST(NodeLabelArgs, NullArgsAndStrictFields) {
  framework::PluginContext ctx;
  ctx.args_path = "args";
  auto p = New(ctx);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), "NodeLabel");

  api::Value bad = api::Value::MakeObject();
  bad.Set("presentLabel", api::Value::MakeArray());
  ctx.args = &bad;
  auto q = New(ctx);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.error().find("args.presentLabel"), std::string::npos) << q.error();

  api::Value wrong = api::Value::MakeObject();
  wrong.Set("presentLabels", api::Value::String("foo"));
  ctx.args = &wrong;
  auto r = New(ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("args.presentLabels"), std::string::npos) << r.error();
}

// Upstream's TestNodeLabelFilter: node labels foo and bar.
TEST(NodeLabelFilter, Table) {
  struct Case {
    std::string name;
    ArgMap args;
    Code want;
  } cases[] = {
      {"present label does not match",
       {{"presentLabels", {"baz"}}},
       Code::kUnschedulableAndUnresolvable},
      {"absent label does not match", {{"absentLabels", {"baz"}}}, Code::kSuccess},
      {"one of two present labels matches",
       {{"presentLabels", {"foo", "baz"}}},
       Code::kUnschedulableAndUnresolvable},
      {"one of two absent labels matches",
       {{"absentLabels", {"foo", "baz"}}},
       Code::kUnschedulableAndUnresolvable},
      {"all present labels match", {{"presentLabels", {"foo", "bar"}}}, Code::kSuccess},
      {"all absent labels match",
       {{"absentLabels", {"foo", "bar"}}},
       Code::kUnschedulableAndUnresolvable},
      {"both present and absent label matches",
       {{"presentLabels", {"foo"}}, {"absentLabels", {"bar"}}},
       Code::kUnschedulableAndUnresolvable},
      {"neither present nor absent label matches",
       {{"presentLabels", {"foz"}}, {"absentLabels", {"baz"}}},
       Code::kUnschedulableAndUnresolvable},
      {"present label matches and absent label doesn't match",
       {{"presentLabels", {"foo"}}, {"absentLabels", {"baz"}}},
       Code::kSuccess},
      {"present label doesn't match and absent label matches",
       {{"presentLabels", {"foz"}}, {"absentLabels", {"bar"}}},
       Code::kUnschedulableAndUnresolvable},
      {"no args", {}, Code::kSuccess},
  };
  auto node = MakeNode("n1").Label("foo", "any value").Label("bar", "any value").Info();
  auto pod = MakePod("p").Info();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = MustNew(c.args);
    ASSERT_NE(p, nullptr);
    framework::CycleState state;
    auto st = dynamic_cast<framework::FilterPlugin&>(*p).Filter(state, *pod, node);
    EXPECT_EQ(st.code(), c.want);
    if (c.want != Code::kSuccess) {
      ASSERT_EQ(st.reasons().size(), 1u);
      EXPECT_EQ(st.reasons()[0], kErrReasonPresenceViolated);
    }
  }
}

TEST(NodeLabelFilter, WithoutNodeIsError) {
  auto p = MustNew({});
  framework::NodeInfo empty;
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  auto st = dynamic_cast<framework::FilterPlugin&>(*p).Filter(state, *pod, empty);
  EXPECT_EQ(st.code(), Code::kError);
}

// Upstream's TestNodeLabelScore: node labels foo and bar (empty values).
TEST(NodeLabelScore, Table) {
  struct Case {
    std::string name;
    ArgMap args;
    int64_t want;
  } cases[] = {
      {"one present label match", {{"presentLabelsPreference", {"foo"}}}, 100},
      {"one present label mismatch", {{"presentLabelsPreference", {"somelabel"}}}, 0},
      {"two present labels match", {{"presentLabelsPreference", {"foo", "bar"}}}, 100},
      {"two present labels mismatch",
       {{"presentLabelsPreference", {"somelabel1", "somelabel2"}}},
       0},
      {"two present labels only one matches",
       {{"presentLabelsPreference", {"foo", "somelabel"}}},
       50},
      {"one absent label match", {{"absentLabelsPreference", {"foo"}}}, 0},
      {"one absent label mismatch", {{"absentLabelsPreference", {"somelabel"}}}, 100},
      {"two absent labels match", {{"absentLabelsPreference", {"foo", "bar"}}}, 0},
      {"two absent labels mismatch",
       {{"absentLabelsPreference", {"somelabel1", "somelabel2"}}},
       100},
      {"two absent labels only one matches",
       {{"absentLabelsPreference", {"foo", "somelabel"}}},
       50},
      {"two present labels match, two absent labels mismatch",
       {{"presentLabelsPreference", {"foo", "bar"}},
        {"absentLabelsPreference", {"somelabel1", "somelabel2"}}},
       100},
      {"two present labels both mismatch, two absent labels both match",
       {{"absentLabelsPreference", {"foo", "bar"}},
        {"presentLabelsPreference", {"somelabel1", "somelabel2"}}},
       0},
      {"two present labels one matches, two absent labels mismatch",
       {{"presentLabelsPreference", {"foo", "somelabel"}},
        {"absentLabelsPreference", {"somelabel1", "somelabel2"}}},
       75},
      {"no preferences score 0", {}, 0},
  };
  auto node = MakeNode("machine1").Label("foo", "").Label("bar", "").Info();
  auto pod = MakePod("p").Info();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = MustNew(c.args);
    ASSERT_NE(p, nullptr);
    framework::CycleState state;
    int64_t score = -1;
    auto st = dynamic_cast<framework::ScorePlugin&>(*p).Score(state, *pod, node, &score);
    EXPECT_TRUE(st.IsSuccess()) << st.Message();
    EXPECT_EQ(score, c.want);
  }
}

// The design seed's worked example: prefs [a,b,c] and [d], node {a,b} -> 100*(2+1)/(3+1) = 75.
TEST(NodeLabelScore, SeedWorkedExample) {
  auto p =
      MustNew({{"presentLabelsPreference", {"a", "b", "c"}}, {"absentLabelsPreference", {"d"}}});
  auto node = MakeNode("n").Label("a", "1").Label("b", "2").Info();
  auto pod = MakePod("p").Info();
  framework::CycleState state;
  int64_t score = -1;
  ASSERT_TRUE(
      dynamic_cast<framework::ScorePlugin&>(*p).Score(state, *pod, node, &score).IsSuccess());
  EXPECT_EQ(score, 75);
}

TEST(NodeLabel, Events) {
  auto p = MustNew({});
  auto events = dynamic_cast<framework::EnqueueExtensions&>(*p).EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.action_type,
            framework::action::kAdd | framework::action::kUpdateNodeLabel);
}

}  // namespace
}  // namespace berth::plugins::node_label
