#include "plugins/node_affinity/node_affinity.h"

#include <gtest/gtest.h>

#include <optional>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::node_affinity {
namespace {

using api::SelectorOperator;
using framework::Code;
using framework::QueueingHint;
using testing::MakeNode;
using testing::MakePod;

// ---- builders ----

api::NodeSelectorRequirement R(std::string key, SelectorOperator op,
                               std::vector<std::string> values = {}) {
  return api::NodeSelectorRequirement{std::move(key), op, std::move(values)};
}

api::NodeSelectorTerm Exprs(std::vector<api::NodeSelectorRequirement> exprs) {
  return api::NodeSelectorTerm{std::move(exprs), {}};
}

api::NodeSelectorTerm Fields(std::vector<api::NodeSelectorRequirement> fields) {
  return api::NodeSelectorTerm{{}, std::move(fields)};
}

api::NodeSelectorRequirement NameIn(std::string node) {
  return R("metadata.name", SelectorOperator::kIn, {std::move(node)});
}

api::Pod PodWithRequired(std::vector<api::NodeSelectorTerm> terms, api::Labels selector = {}) {
  api::Pod p = MakePod("p").Obj();
  p.spec.node_selector = std::move(selector);
  p.spec.affinity.emplace();
  p.spec.affinity->node_affinity.emplace();
  p.spec.affinity->node_affinity->required = api::NodeSelector{std::move(terms)};
  return p;
}

api::Pod PodWithSelector(api::Labels selector) {
  api::Pod p = MakePod("p").Obj();
  p.spec.node_selector = std::move(selector);
  return p;
}

api::Pod PodWithPreferred(std::vector<api::PreferredSchedulingTerm> terms) {
  api::Pod p = MakePod("p").Obj();
  p.spec.affinity.emplace();
  p.spec.affinity->node_affinity.emplace();
  p.spec.affinity->node_affinity->preferred = std::move(terms);
  return p;
}

api::Node NodeWith(std::string name, api::Labels labels) {
  api::Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels = std::move(labels);
  return n;
}

// ---- args as api::Value ----

api::Value Str(std::string s) { return api::Value::String(std::move(s)); }

api::Value StrList(std::vector<std::string> v) {
  api::Value a = api::Value::MakeArray();
  for (auto& s : v) a.Push(Str(std::move(s)));
  return a;
}

api::Value Requirement(std::string key, std::string op, std::vector<std::string> values) {
  api::Value r = api::Value::MakeObject();
  r.Set("key", Str(std::move(key)));
  r.Set("operator", Str(std::move(op)));
  if (!values.empty()) r.Set("values", StrList(std::move(values)));
  return r;
}

api::Value TermValue(std::string list, std::vector<api::Value> reqs) {
  api::Value arr = api::Value::MakeArray();
  for (auto& r : reqs) arr.Push(std::move(r));
  api::Value t = api::Value::MakeObject();
  t.Set(std::move(list), std::move(arr));
  return t;
}

api::Value RequiredValue(std::vector<api::Value> terms) {
  api::Value arr = api::Value::MakeArray();
  for (auto& t : terms) arr.Push(std::move(t));
  api::Value sel = api::Value::MakeObject();
  sel.Set("nodeSelectorTerms", std::move(arr));
  return sel;
}

api::Value PreferredValue(std::vector<std::pair<int, api::Value>> terms) {
  api::Value arr = api::Value::MakeArray();
  for (auto& [w, t] : terms) {
    api::Value p = api::Value::MakeObject();
    p.Set("weight", api::Value::Int(w));
    p.Set("preference", std::move(t));
    arr.Push(std::move(p));
  }
  return arr;
}

api::Value Args(std::optional<api::Value> required, std::optional<api::Value> preferred) {
  api::Value added = api::Value::MakeObject();
  if (required) added.Set("requiredDuringSchedulingIgnoredDuringExecution", std::move(*required));
  if (preferred) {
    added.Set("preferredDuringSchedulingIgnoredDuringExecution", std::move(*preferred));
  }
  api::Value args = api::Value::MakeObject();
  args.Set("addedAffinity", std::move(added));
  return args;
}

std::shared_ptr<framework::Plugin> MakePlugin(const api::Value* args = nullptr) {
  framework::PluginContext ctx;
  ctx.args = args;
  ctx.args_path = "profiles[0].pluginConfig[0].args";
  auto p = New(ctx);
  EXPECT_TRUE(p.ok()) << p.error();
  return p.ok() ? *p : nullptr;
}

// ---- Filter / PreFilter: upstream's TestNodeAffinity ----

struct FilterCase {
  std::string name;
  api::Pod pod;
  api::Labels labels;
  std::string node_name;
  std::optional<api::Value> args;
  Code want_prefilter = Code::kSuccess;
  std::string want_prefilter_msg;
  std::optional<std::set<std::string, std::less<>>> want_result;
  Code want_filter = Code::kSuccess;
  std::string want_filter_msg;
  bool run_prefilter = true;
};

std::vector<FilterCase> FilterCases() {
  const std::string kPod = kErrReasonPod;
  const auto UU = Code::kUnschedulableAndUnresolvable;
  std::vector<FilterCase> cases;
  auto add = [&](FilterCase c) { cases.push_back(std::move(c)); };
  add({.name = "missing labels",
       .pod = PodWithSelector({{"foo", "bar"}}),
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "same labels",
       .pod = PodWithSelector({{"foo", "bar"}}),
       .labels = {{"foo", "bar"}}});
  add({.name = "node labels are superset",
       .pod = PodWithSelector({{"foo", "bar"}}),
       .labels = {{"foo", "bar"}, {"baz", "blah"}}});
  add({.name = "node labels are subset",
       .pod = PodWithSelector({{"foo", "bar"}, {"baz", "blah"}}),
       .labels = {{"foo", "bar"}},
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Pod with matchExpressions using In operator that matches the existing node",
       .pod = PodWithRequired({Exprs({R("foo", SelectorOperator::kIn, {"bar", "value2"})})}),
       .labels = {{"foo", "bar"}}});
  add({.name = "Pod with matchExpressions using Gt operator that matches the existing node",
       .pod = PodWithRequired({Exprs({R("kernel-version", SelectorOperator::kGt, {"0204"})})}),
       .labels = {{"kernel-version", "0206"}}});
  add({.name = "Pod with matchExpressions using NotIn operator that matches the existing node",
       .pod = PodWithRequired({Exprs({R("mem-type", SelectorOperator::kNotIn, {"DDR", "DDR2"})})}),
       .labels = {{"mem-type", "DDR3"}}});
  add({.name = "Pod with matchExpressions using Exists operator that matches the existing node",
       .pod = PodWithRequired({Exprs({R("GPU", SelectorOperator::kExists)})}),
       .labels = {{"GPU", "NVIDIA-GRID-K1"}}});
  add({.name = "Pod with affinity that don't match node's labels won't schedule onto the node",
       .pod = PodWithRequired({Exprs({R("foo", SelectorOperator::kIn, {"value1", "value2"})})}),
       .labels = {{"foo", "bar"}},
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Pod with empty MatchExpressions is not a valid value will match no objects and "
               "won't schedule onto the node",
       .pod = PodWithRequired({Exprs({})}),
       .labels = {{"foo", "bar"}},
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Pod with no Affinity will schedule onto a node",
       .pod = MakePod("p").Obj(),
       .labels = {{"foo", "bar"}},
       .want_prefilter = Code::kSkip});
  {
    api::Pod p = MakePod("p").Obj();
    p.spec.affinity.emplace();
    p.spec.affinity->node_affinity.emplace();
    add({.name = "Pod with Affinity but nil NodeSelector will schedule onto a node",
         .pod = p,
         .labels = {{"foo", "bar"}},
         .want_prefilter = Code::kSkip});
  }
  add({.name = "Pod with multiple matchExpressions ANDed that matches the existing node",
       .pod = PodWithRequired({Exprs({R("GPU", SelectorOperator::kExists),
                                      R("GPU", SelectorOperator::kNotIn, {"AMD", "INTER"})})}),
       .labels = {{"GPU", "NVIDIA-GRID-K1"}}});
  add({.name = "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
       .pod = PodWithRequired({Exprs({R("GPU", SelectorOperator::kExists),
                                      R("GPU", SelectorOperator::kIn, {"AMD", "INTER"})})}),
       .labels = {{"GPU", "NVIDIA-GRID-K1"}},
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels "
               "and will schedule onto the node",
       .pod = PodWithRequired({Exprs({R("foo", SelectorOperator::kIn, {"bar", "value2"})}),
                               Exprs({R("diffkey", SelectorOperator::kIn, {"wrong", "value2"})})}),
       .labels = {{"foo", "bar"}}});
  add({.name = "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are "
               "deprecating) both are satisfied, will schedule onto the node",
       .pod = PodWithRequired({Exprs({R("foo", SelectorOperator::kExists)})}, {{"foo", "bar"}}),
       .labels = {{"foo", "bar"}}});
  add({.name = "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old "
               "thing that we are deprecating) is not satisfied, won't schedule onto the node",
       .pod = PodWithRequired({Exprs({R("foo", SelectorOperator::kExists)})}, {{"foo", "bar"}}),
       .labels = {{"foo", "barrrrrr"}},
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Pod with an invalid value in Affinity term won't be scheduled onto the node",
       .pod = PodWithRequired(
           {Exprs({R("foo", SelectorOperator::kNotIn, {"invalid value: ___@#$%^"})})}),
       .labels = {{"foo", "bar"}},
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Pod with matchFields using In operator that matches the existing node",
       .pod = PodWithRequired({Fields({NameIn("node1")})}),
       .node_name = "node1",
       .want_result = std::set<std::string, std::less<>>{"node1"}});
  add({.name = "Pod with matchFields using In operator that does not match the existing node",
       .pod = PodWithRequired({Fields({NameIn("node1")})}),
       .node_name = "node2",
       .want_result = std::set<std::string, std::less<>>{"node1"},
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Pod with two terms: matchFields does not match, but matchExpressions matches",
       .pod = PodWithRequired(
           {Fields({NameIn("node1")}), Exprs({R("foo", SelectorOperator::kIn, {"bar"})})}),
       .labels = {{"foo", "bar"}},
       .node_name = "node2"});
  {
    api::NodeSelectorTerm both{{R("foo", SelectorOperator::kIn, {"bar"})}, {NameIn("node1")}};
    add({.name = "Pod with one term: matchFields does not match, but matchExpressions matches",
         .pod = PodWithRequired({both}),
         .labels = {{"foo", "bar"}},
         .node_name = "node2",
         .want_result = std::set<std::string, std::less<>>{"node1"},
         .want_filter = UU,
         .want_filter_msg = kPod});
    add({.name = "Pod with one term: both matchFields and matchExpressions match",
         .pod = PodWithRequired({both}),
         .labels = {{"foo", "bar"}},
         .node_name = "node1",
         .want_result = std::set<std::string, std::less<>>{"node1"}});
  }
  add({.name = "Pod with two terms: both matchFields and matchExpressions do not match",
       .pod = PodWithRequired({Fields({NameIn("node1")}),
                               Exprs({R("foo", SelectorOperator::kIn, {"not-match-to-bar"})})}),
       .labels = {{"foo", "bar"}},
       .node_name = "node2",
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Pod with two terms of node.Name affinity",
       .pod = PodWithRequired({Fields({NameIn("node1")}), Fields({NameIn("node2")})}),
       .node_name = "node2",
       .want_result = std::set<std::string, std::less<>>{"node1", "node2"}});
  add({.name = "Pod with two conflicting mach field requirements",
       .pod = PodWithRequired({Fields({NameIn("node1"), NameIn("node2")})}),
       .labels = {{"foo", "bar"}},
       .node_name = "node2",
       .want_prefilter = UU,
       .want_prefilter_msg = kErrReasonConflict,
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Matches added affinity and Pod's node affinity",
       .pod = PodWithRequired({Exprs({R("zone", SelectorOperator::kIn, {"foo"})})}),
       .labels = {{"zone", "foo"}},
       .node_name = "node2",
       .args = Args(RequiredValue({TermValue("matchFields",
                                             {Requirement("metadata.name", "In", {"node2"})})}),
                    std::nullopt)});
  add({.name = "Matches added affinity but not Pod's node affinity",
       .pod = PodWithRequired({Exprs({R("zone", SelectorOperator::kIn, {"bar"})})}),
       .labels = {{"zone", "foo"}},
       .node_name = "node2",
       .args = Args(RequiredValue({TermValue("matchFields",
                                             {Requirement("metadata.name", "In", {"node2"})})}),
                    std::nullopt),
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Doesn't match added affinity",
       .pod = MakePod("p").Obj(),
       .labels = {{"zone", "foo"}},
       .node_name = "node2",
       .args = Args(
           RequiredValue({TermValue("matchExpressions", {Requirement("zone", "In", {"bar"})})}),
           std::nullopt),
       .want_filter = UU,
       .want_filter_msg = kErrReasonEnforced});
  add({.name = "Matches node selector correctly even if PreFilter is not called",
       .pod = PodWithSelector({{"foo", "bar"}}),
       .labels = {{"foo", "bar"}, {"baz", "blah"}},
       .run_prefilter = false});
  add({.name = "Matches node affinity correctly even if PreFilter is not called",
       .pod = PodWithRequired({Exprs({R("GPU", SelectorOperator::kExists),
                                      R("GPU", SelectorOperator::kNotIn, {"AMD", "INTER"})})}),
       .labels = {{"GPU", "NVIDIA-GRID-K1"}},
       .run_prefilter = false});
  // Berth additions.
  add({.name = "matchFields In with two values does not parse: term never matches",
       .pod = PodWithRequired(
           {Fields({R("metadata.name", SelectorOperator::kIn, {"node1", "node2"})})}),
       .node_name = "node1",
       .want_result = std::set<std::string, std::less<>>{"node1", "node2"},
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "matchFields NotIn excludes the named node",
       .pod = PodWithRequired({Fields({R("metadata.name", SelectorOperator::kNotIn, {"node1"})})}),
       .node_name = "node1",
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "a broken term does not stop a valid one from matching",
       .pod = PodWithRequired({Exprs({R("bad key!", SelectorOperator::kExists)}),
                               Exprs({R("foo", SelectorOperator::kExists)})}),
       .labels = {{"foo", "x"}}});
  add({.name = "required with no terms matches nothing",
       .pod = PodWithRequired({}),
       .labels = {{"foo", "bar"}},
       .want_filter = UU,
       .want_filter_msg = kPod});
  add({.name = "Lt with a non-integer label does not match",
       .pod = PodWithRequired({Exprs({R("n", SelectorOperator::kLt, {"10"})})}),
       .labels = {{"n", "abc"}},
       .want_filter = UU,
       .want_filter_msg = kPod});
  return cases;
}

TEST(NodeAffinityTest, PreFilterAndFilter) {
  for (const auto& c : FilterCases()) {
    SCOPED_TRACE(c.name);
    auto plugin = MakePlugin(c.args ? &*c.args : nullptr);
    ASSERT_NE(plugin, nullptr);
    auto* pre = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
    auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
    ASSERT_NE(pre, nullptr);
    ASSERT_NE(filter, nullptr);
    auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    framework::NodeInfo ni(std::make_shared<api::Node>(NodeWith(c.node_name, c.labels)));
    framework::CycleState state;
    if (c.run_prefilter) {
      framework::PreFilterResult result;
      auto st = pre->PreFilter(state, *pod, {&ni}, &result);
      EXPECT_EQ(st.code(), c.want_prefilter);
      EXPECT_EQ(st.Message(), c.want_prefilter_msg);
      EXPECT_EQ(result.node_names, c.want_result);
      if (st.IsSkip()) continue;  // the runtime would not call Filter
    }
    auto st = filter->Filter(state, *pod, ni);
    EXPECT_EQ(st.code(), c.want_filter);
    EXPECT_EQ(st.Message(), c.want_filter_msg);
  }
}

// ---- Score: upstream's TestNodeAffinityPriority ----

api::PreferredSchedulingTerm Pref(int32_t w, api::NodeSelectorTerm t) {
  return api::PreferredSchedulingTerm{w, std::move(t)};
}

TEST(NodeAffinityTest, Score) {
  const api::Labels label1 = {{"foo", "bar"}};
  const api::Labels label2 = {{"key", "value"}};
  const api::Labels label3 = {{"az", "az1"}};
  const api::Labels label4 = {{"abc", "az11"}, {"def", "az22"}};
  const api::Labels label5 = {{"foo", "bar"}, {"key", "value"}, {"az", "az1"}};
  const std::vector<api::PreferredSchedulingTerm> affinity1 = {
      Pref(2, Exprs({R("foo", SelectorOperator::kIn, {"bar"})}))};
  const std::vector<api::PreferredSchedulingTerm> affinity2 = {
      Pref(2, Exprs({R("foo", SelectorOperator::kIn, {"bar"})})),
      Pref(4, Exprs({R("key", SelectorOperator::kIn, {"value"})})),
      Pref(5, Exprs({R("foo", SelectorOperator::kIn, {"bar"}),
                     R("key", SelectorOperator::kIn, {"value"}),
                     R("az", SelectorOperator::kIn, {"az1"})})),
  };
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Node> nodes;
    std::vector<int64_t> want;
    std::optional<api::Value> args;
    bool run_prescore = true;
    Code want_prescore = Code::kSuccess;
    std::string want_prescore_msg;
  };
  const std::vector<Case> cases = {
      {.name = "all nodes are same priority as NodeAffinity is nil",
       .pod = MakePod("p").Obj(),
       .nodes = {NodeWith("node1", label1), NodeWith("node2", label2), NodeWith("node3", label3)},
       .want = {0, 0, 0},
       .run_prescore = false},
      {.name = "Skip is returned in PreScore when NodeAffinity is nil",
       .pod = MakePod("p").Obj(),
       .nodes = {NodeWith("node1", label1)},
       .want_prescore = Code::kSkip},
      {.name = "PreScore returns error when an incoming Pod has a broken affinity",
       .pod =
           PodWithPreferred({Pref(2, Exprs({R("invalid key", SelectorOperator::kIn, {"bar"})}))}),
       .nodes = {NodeWith("node1", label1)},
       .want_prescore = Code::kError,
       .want_prescore_msg =
           "[0].matchExpressions[0].key: Invalid value: \"invalid key\": name part must consist "
           "of alphanumeric characters, '-', '_' or '.', and must start and end with an "
           "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
           "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
      {.name = "no node matches preferred scheduling requirements in NodeAffinity of pod so all "
               "nodes' priority is zero",
       .pod = PodWithPreferred(affinity1),
       .nodes = {NodeWith("node1", label4), NodeWith("node2", label2), NodeWith("node3", label3)},
       .want = {0, 0, 0}},
      {.name = "only node1 matches the preferred scheduling requirements of pod",
       .pod = PodWithPreferred(affinity1),
       .nodes = {NodeWith("node1", label1), NodeWith("node2", label2), NodeWith("node3", label3)},
       .want = {100, 0, 0}},
      {.name = "all nodes matches the preferred scheduling requirements of pod but with different "
               "priorities ",
       .pod = PodWithPreferred(affinity2),
       .nodes = {NodeWith("node1", label1), NodeWith("node5", label5), NodeWith("node2", label2)},
       .want = {18, 100, 36}},
      {.name = "added affinity",
       .pod = MakePod("p").Obj(),
       .nodes = {NodeWith("node1", label1), NodeWith("node2", label2)},
       .want = {100, 0},
       .args = Args(std::nullopt,
                    PreferredValue({{2, TermValue("matchExpressions",
                                                  {Requirement("foo", "In", {"bar"})})}}))},
      {.name = "added affinity and pod has default affinity",
       .pod = PodWithPreferred(affinity1),
       .nodes = {NodeWith("node1", label1), NodeWith("node2", label2), NodeWith("node3", label5)},
       .want = {40, 60, 100},
       .args = Args(std::nullopt,
                    PreferredValue({{3, TermValue("matchExpressions",
                                                  {Requirement("key", "In", {"value"})})}}))},
      {.name = "calculate the priorities correctly even if PreScore is not called",
       .pod = PodWithPreferred(affinity2),
       .nodes = {NodeWith("node1", label1), NodeWith("node5", label5), NodeWith("node2", label2)},
       .want = {18, 100, 36},
       .run_prescore = false},
      // Berth additions.
      {.name = "zero-weight and empty preferred terms are ignored",
       .pod = PodWithPreferred({Pref(0, Exprs({R("foo", SelectorOperator::kIn, {"bar"})})),
                                Pref(7, Exprs({})),
                                Pref(1, Exprs({R("az", SelectorOperator::kExists)}))}),
       .nodes = {NodeWith("node1", label1), NodeWith("node3", label3)},
       .want = {0, 100}},
      {.name = "preferred matchFields",
       .pod = PodWithPreferred({Pref(3, Fields({NameIn("node2")}))}),
       .nodes = {NodeWith("node1", label1), NodeWith("node2", label2)},
       .want = {0, 100}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<framework::NodeInfo> infos;
    for (const auto& n : c.nodes) infos.emplace_back(std::make_shared<api::Node>(n));
    testing::FakeHandle handle(std::move(infos));
    auto plugin = MakePlugin(c.args ? &*c.args : nullptr);
    ASSERT_NE(plugin, nullptr);
    auto* pre = dynamic_cast<framework::PreScorePlugin*>(plugin.get());
    auto* score = dynamic_cast<framework::ScorePlugin*>(plugin.get());
    ASSERT_NE(pre, nullptr);
    ASSERT_NE(score, nullptr);
    auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    framework::CycleState state;
    const auto& nodes = handle.snapshot().List();
    if (c.run_prescore) {
      auto st = pre->PreScore(state, *pod, nodes);
      EXPECT_EQ(st.code(), c.want_prescore);
      EXPECT_EQ(st.Message(), c.want_prescore_msg);
      if (!st.IsSuccess()) continue;
    }
    framework::NodeScoreList list;
    for (const auto* ni : nodes) {
      int64_t s = -1;
      ASSERT_TRUE(score->Score(state, *pod, *ni, &s).IsSuccess());
      list.push_back({&ni->name(), s});
    }
    ASSERT_TRUE(score->HasNormalizeScore());
    ASSERT_TRUE(score->NormalizeScore(state, *pod, list).IsSuccess());
    ASSERT_EQ(list.size(), c.want.size());
    for (size_t i = 0; i < list.size(); ++i) {
      EXPECT_EQ(*list[i].name, c.nodes[i].metadata.name);
      EXPECT_EQ(list[i].score, c.want[i]) << *list[i].name;
    }
  }
}

// ---- queueing hint: upstream's Test_isSchedulableAfterNodeChange ----

TEST(NodeAffinityTest, NodeChangeHint) {
  api::Pod pod = PodWithRequired({Exprs({R("foo", SelectorOperator::kIn, {"bar"})})});
  api::Node plain = MakeNode("n").Obj();
  api::Node plain_with_capacity = MakeNode("n").Capacity({{"cpu", "1"}}).Obj();
  api::Node foo_bar = MakeNode("n").Label("foo", "bar").Obj();
  api::Node k_v = MakeNode("n").Label("k", "v").Obj();
  api::Pod not_a_node = MakePod("x").Obj();
  const api::Value enforced =
      Args(RequiredValue({TermValue("matchExpressions", {Requirement("foo", "In", {"bar"})})}),
           std::nullopt);
  struct Case {
    std::string name;
    const api::Value* args;
    framework::EventObject old_obj, new_obj;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"backoff-wrong-new-object", nullptr, {}, &not_a_node, QueueingHint::kQueue},
      {"backoff-wrong-old-object", nullptr, &not_a_node, &plain, QueueingHint::kQueue},
      {"skip-queue-on-add", nullptr, {}, &plain, QueueingHint::kQueueSkip},
      {"queue-on-add", nullptr, {}, &foo_bar, QueueingHint::kQueue},
      {"skip-unrelated-changes", nullptr, &plain, &plain_with_capacity, QueueingHint::kQueueSkip},
      {"skip-unrelated-changes-on-labels", nullptr, &plain, &k_v, QueueingHint::kQueueSkip},
      {"skip-labels-changes-on-node-from-suitable-to-unsuitable", nullptr, &foo_bar, &k_v,
       QueueingHint::kQueueSkip},
      {"queue-on-labels-change-makes-pod-schedulable", nullptr, &plain, &foo_bar,
       QueueingHint::kQueue},
      {"skip-queue-on-add-scheduler-enforced-node-affinity",
       &enforced,
       {},
       &plain,
       QueueingHint::kQueueSkip},
      {"queue-on-add-scheduler-enforced-node-affinity",
       &enforced,
       {},
       &foo_bar,
       QueueingHint::kQueue},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto plugin = MakePlugin(c.args);
    auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(plugin);
    ASSERT_NE(ext, nullptr);
    auto events = ext->EventsToRegister();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
    EXPECT_EQ(events[0].event.action_type,
              framework::action::kAdd | framework::action::kUpdateNodeLabel);
    EXPECT_EQ(events[0].hint(pod, c.old_obj, c.new_obj), c.want);
  }
}

// ---- args ----

TEST(NodeAffinityTest, ArgsValidation) {
  struct Case {
    std::string name;
    api::Value args;
    std::string want_error;  // empty: valid
    bool prefix_only = false;
  };
  const std::string kPath = "profiles[0].pluginConfig[0].args.addedAffinity.";
  std::vector<Case> cases;
  cases.push_back(
      {"valid required and preferred",
       Args(RequiredValue({TermValue("matchExpressions", {Requirement("zone", "In", {"a"})})}),
            PreferredValue(
                {{5, TermValue("matchExpressions", {Requirement("zone", "Exists", {})})}})),
       ""});
  cases.push_back(
      {"bad key in required",
       Args(RequiredValue({TermValue("matchExpressions", {Requirement("a b", "In", {"x"})})}),
            std::nullopt),
       kPath +
           "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]"
           ".key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', "
           "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
           "'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"});
  // The decoder rejects what the API server would (its message); the path still names the field.
  cases.push_back(
      {"matchFields needs one value",
       Args(RequiredValue(
                {TermValue("matchFields", {Requirement("metadata.name", "In", {"a", "b"})})}),
            std::nullopt),
       kPath + "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0]"
               ".values: ",
       /*prefix_only=*/true});
  cases.push_back(
      {"Gt needs an integer",
       Args(std::nullopt,
            PreferredValue({{1, TermValue("matchExpressions", {Requirement("n", "Gt", {"x"})})}})),
       kPath + "preferredDuringSchedulingIgnoredDuringExecution[0]", /*prefix_only=*/true});
  cases.push_back(
      {"two errors are aggregated",
       Args(RequiredValue({TermValue("matchExpressions", {Requirement("a b", "Exists", {})})}),
            PreferredValue(
                {{1, TermValue("matchExpressions", {Requirement("c/d/e", "In", {"x"})})}})),
       "[" + kPath +
           "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]"
           ".key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', "
           "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
           "'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), " +
           kPath +
           "preferredDuringSchedulingIgnoredDuringExecution[0].matchExpressions[0].key: Invalid "
           "value: \"c/d/e\": a qualified name must consist of alphanumeric characters, '-', '_' "
           "or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
           "'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
           "'/' (e.g. 'example.com/MyName')]"});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    framework::PluginContext ctx;
    ctx.args = &c.args;
    ctx.args_path = "profiles[0].pluginConfig[0].args";
    auto p = New(ctx);
    if (c.want_error.empty()) {
      EXPECT_TRUE(p.ok()) << p.error();
    } else {
      ASSERT_FALSE(p.ok());
      if (c.prefix_only) {
        EXPECT_EQ(p.error().rfind(c.want_error, 0), 0u) << p.error();
      } else {
        EXPECT_EQ(p.error(), c.want_error);
      }
    }
  }
}

TEST(NodeAffinityTest, ArgsUnknownFieldRejected) {
  api::Value args = api::Value::MakeObject();
  args.Set("addedAfinity", api::Value::MakeObject());
  framework::PluginContext ctx;
  ctx.args = &args;
  ctx.args_path = "profiles[0].pluginConfig[0].args";
  auto p = New(ctx);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("addedAfinity"), std::string::npos) << p.error();
}

}  // namespace
}  // namespace berth::plugins::node_affinity
