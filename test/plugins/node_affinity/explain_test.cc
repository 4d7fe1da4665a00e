// NodeAffinity's explanations: the pure texts of explain.h and the plugin's FilterExplainer.

#include "plugins/node_affinity/explain.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "api/value.h"
#include "plugins/node_affinity/node_affinity.h"
#include "scheduler/framework/explain.h"
#include "test/testing/builders.h"

namespace berth::plugins::node_affinity {
namespace {

using api::SelectorOperator;
using framework::ExplainDetail;
using framework::FilterNeed;
using testing::MakePod;

api::NodeSelectorRequirement R(std::string key, SelectorOperator op,
                               std::vector<std::string> values = {}) {
  return api::NodeSelectorRequirement{std::move(key), op, std::move(values)};
}

api::NodeSelectorTerm Exprs(std::vector<api::NodeSelectorRequirement> exprs) {
  return api::NodeSelectorTerm{std::move(exprs), {}};
}

api::Node NodeWith(std::string name, api::Labels labels) {
  api::Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels = std::move(labels);
  return n;
}

api::Pod PodWith(api::Labels selector, std::vector<api::NodeSelectorTerm> terms = {}) {
  api::Pod p = MakePod("p").Obj();
  p.spec.node_selector = std::move(selector);
  if (!terms.empty()) {
    p.spec.affinity.emplace();
    p.spec.affinity->node_affinity.emplace();
    p.spec.affinity->node_affinity->required = api::NodeSelector{std::move(terms)};
  }
  return p;
}

TEST(NodeAffinityExplainTest, NodeSelector) {
  const api::Node node = NodeWith("n1", {{"zone", "eu-1b"}, {"arch", "amd64"}});
  EXPECT_EQ(ExplainNodeSelector({{"zone", "eu-1a"}}, node),
            "needs label zone=eu-1a (node has zone=eu-1b)");
  EXPECT_EQ(ExplainNodeSelector({{"disktype", "ssd"}}, node),
            "needs label disktype=ssd (node has none)");
  EXPECT_EQ(ExplainNodeSelector({{"arch", "amd64"}, {"disktype", "ssd"}, {"zone", "eu-1a"}}, node),
            "needs label disktype=ssd (node has none); needs label zone=eu-1a (node has "
            "zone=eu-1b)");
  EXPECT_EQ(ExplainNodeSelector({{"arch", "amd64"}}, node), "");
}

TEST(NodeAffinityExplainTest, Term) {
  const api::Node node = NodeWith("n2", {{"zone", "eu-1c"}, {"cores", "2"}, {"spot", "true"}});
  struct Case {
    api::NodeSelectorTerm term;
    std::string want;
  };
  const std::vector<Case> cases = {
      {Exprs({R("zone", SelectorOperator::kIn, {"eu-1a", "eu-1b"})}),
       "zone In [eu-1a, eu-1b]; node has zone=eu-1c"},
      {Exprs({R("zone", SelectorOperator::kNotIn, {"eu-1c"})}),
       "zone NotIn [eu-1c]; node has zone=eu-1c"},
      {Exprs({R("gpu", SelectorOperator::kExists)}), "gpu Exists; node has no label gpu"},
      {Exprs({R("spot", SelectorOperator::kDoesNotExist)}),
       "spot DoesNotExist; node has spot=true"},
      {Exprs({R("cores", SelectorOperator::kGt, {"4"})}), "cores Gt 4; node has cores=2"},
      {Exprs({R("mem", SelectorOperator::kLt, {"4"})}), "mem Lt 4; node has no label mem"},
      // The first unmatched requirement is named.
      {Exprs({R("zone", SelectorOperator::kExists), R("cores", SelectorOperator::kGt, {"4"}),
              R("gpu", SelectorOperator::kExists)}),
       "cores Gt 4; node has cores=2"},
      {api::NodeSelectorTerm{{}, {R("metadata.name", SelectorOperator::kIn, {"n1"})}},
       "metadata.name In [n1]; node is n2"},
      {api::NodeSelectorTerm{{}, {R("metadata.name", SelectorOperator::kNotIn, {"n2"})}},
       "metadata.name NotIn [n2]; node is n2"},
      {Exprs({R("zone", SelectorOperator::kIn, {"eu-1c"})}), ""},
  };
  for (const auto& c : cases) EXPECT_EQ(ExplainTerm(c.term, node), c.want);
}

TEST(NodeAffinityExplainTest, RequiredTerms) {
  const api::Node node = NodeWith("n1", {{"zone", "eu-1c"}});
  const api::NodeSelector one{{Exprs({R("zone", SelectorOperator::kIn, {"eu-1a", "eu-1b"})})}};
  EXPECT_EQ(ExplainRequiredTerms(RequiredTerms(one, ""), node),
            "zone In [eu-1a, eu-1b]; node has zone=eu-1c");
  const api::NodeSelector two{{Exprs({R("zone", SelectorOperator::kIn, {"eu-1a"})}),
                               Exprs({R("disktype", SelectorOperator::kExists)})}};
  EXPECT_EQ(ExplainRequiredTerms(RequiredTerms(two, ""), node),
            "(zone In [eu-1a]; node has zone=eu-1c) or (disktype Exists; node has no label "
            "disktype)");
  // An empty term is dropped; a term that does not parse never matches.
  const api::NodeSelector bad{
      {api::NodeSelectorTerm{}, Exprs({R("n", SelectorOperator::kGt, {"x"})})}};
  EXPECT_EQ(ExplainRequiredTerms(RequiredTerms(bad, ""), node),
            "nodeSelectorTerms[1] does not parse");
  const api::NodeSelector matching{{Exprs({R("zone", SelectorOperator::kIn, {"eu-1a"})}),
                                    Exprs({R("zone", SelectorOperator::kExists)})}};
  EXPECT_EQ(ExplainRequiredTerms(RequiredTerms(matching, ""), node), "");
}

struct Explained {
  framework::Status status;
  std::vector<FilterNeed> full;
  std::vector<FilterNeed> gap_only;
};

Explained Explain(const api::Pod& pod, const api::Node& node, const api::Value* args = nullptr,
                  bool run_prefilter = true) {
  framework::PluginContext ctx;
  ctx.args = args;
  ctx.args_path = "args";
  auto p = New(ctx);
  EXPECT_TRUE(p.ok()) << p.error();
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
  framework::NodeInfo ni(std::make_shared<api::Node>(node));
  framework::CycleState state;
  if (run_prefilter) {
    framework::PreFilterResult result;
    EXPECT_TRUE(dynamic_cast<framework::PreFilterPlugin&>(**p)
                    .PreFilter(state, *info, {&ni}, &result)
                    .IsSuccess());
  }
  Explained e;
  e.status = dynamic_cast<framework::FilterPlugin&>(**p).Filter(state, *info, ni);
  EXPECT_TRUE(e.status.IsRejected());
  const auto* explainer = dynamic_cast<const framework::FilterExplainer*>(p->get());
  EXPECT_NE(explainer, nullptr);
  if (explainer == nullptr) return e;
  explainer->ExplainFilter(state, *info, ni, e.status, ExplainDetail::kFull, &e.full);
  explainer->ExplainFilter(state, *info, ni, e.status, ExplainDetail::kGapOnly, &e.gap_only);
  EXPECT_EQ(e.gap_only.size(), e.full.size());
  for (size_t i = 0; i < e.gap_only.size() && i < e.full.size(); ++i) {
    EXPECT_EQ(e.gap_only[i].reason, "") << "kGapOnly copies no string";
    EXPECT_EQ(e.gap_only[i].need, "");
    EXPECT_DOUBLE_EQ(e.gap_only[i].gap, 0.5);
    EXPECT_DOUBLE_EQ(e.full[i].gap, 0.5);
  }
  return e;
}

TEST(NodeAffinityExplainTest, FilterExplainerNamesTheSelectorAndTheTerm) {
  const api::Node node = NodeWith("n1", {{"zone", "eu-1b"}});
  Explained e = Explain(PodWith({{"zone", "eu-1a"}}), node);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].reason, kErrReasonPod);
  EXPECT_EQ(e.full[0].need, "needs label zone=eu-1a (node has zone=eu-1b)");

  e = Explain(PodWith({}, {Exprs({R("zone", SelectorOperator::kIn, {"eu-1a", "eu-1c"})})}), node);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].need, "zone In [eu-1a, eu-1c]; node has zone=eu-1b");

  // Both fail: both are named. Without PreFilter (disabled) the same text.
  const api::Pod both =
      PodWith({{"disktype", "ssd"}}, {Exprs({R("zone", SelectorOperator::kIn, {"eu-1a"})})});
  e = Explain(both, node);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].need,
            "needs label disktype=ssd (node has none); zone In [eu-1a]; node has zone=eu-1b");
  e = Explain(both, node, nullptr, /*run_prefilter=*/false);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].need,
            "needs label disktype=ssd (node has none); zone In [eu-1a]; node has zone=eu-1b");
}

TEST(NodeAffinityExplainTest, FilterExplainerNamesTheAddedAffinity) {
  // addedAffinity: zone In [eu-1a].
  api::Value req = api::Value::MakeObject();
  req.Set("key", api::Value::String("zone"));
  req.Set("operator", api::Value::String("In"));
  api::Value values = api::Value::MakeArray();
  values.Push(api::Value::String("eu-1a"));
  req.Set("values", std::move(values));
  api::Value exprs = api::Value::MakeArray();
  exprs.Push(std::move(req));
  api::Value term = api::Value::MakeObject();
  term.Set("matchExpressions", std::move(exprs));
  api::Value terms = api::Value::MakeArray();
  terms.Push(std::move(term));
  api::Value selector = api::Value::MakeObject();
  selector.Set("nodeSelectorTerms", std::move(terms));
  api::Value added = api::Value::MakeObject();
  added.Set("requiredDuringSchedulingIgnoredDuringExecution", std::move(selector));
  api::Value args = api::Value::MakeObject();
  args.Set("addedAffinity", std::move(added));

  const Explained e = Explain(PodWith({}), NodeWith("n1", {{"zone", "eu-1b"}}), &args);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].reason, kErrReasonEnforced);
  EXPECT_EQ(e.full[0].need, "zone In [eu-1a]; node has zone=eu-1b");
}

}  // namespace
}  // namespace berth::plugins::node_affinity
