#include "api/selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace berth::api {
namespace {

using Op = SelectorOperator;

LabelSelectorRequirement LabelReq(std::string key, Op op, std::vector<std::string> values = {}) {
  return LabelSelectorRequirement{std::move(key), op, std::move(values)};
}
NodeSelectorRequirement NodeReq(std::string key, Op op, std::vector<std::string> values = {}) {
  return NodeSelectorRequirement{std::move(key), op, std::move(values)};
}

TEST(LabelSelectorTest, Operators) {
  const Labels labels = {{"app", "web"}, {"tier", "front"}};
  struct Case {
    std::string name;
    LabelSelector selector;
    bool want;
  };
  std::vector<Case> cases = {
      {"empty selector matches everything", {}, true},
      {"matchLabels hit", {{{"app", "web"}}, {}}, true},
      {"matchLabels wrong value", {{{"app", "db"}}, {}}, false},
      {"matchLabels missing key", {{{"zone", "a"}}, {}}, false},
      {"In hit", {{}, {LabelReq("app", Op::kIn, {"db", "web"})}}, true},
      {"In miss", {{}, {LabelReq("app", Op::kIn, {"db"})}}, false},
      {"In absent key", {{}, {LabelReq("zone", Op::kIn, {"a"})}}, false},
      {"NotIn hit", {{}, {LabelReq("app", Op::kNotIn, {"db"})}}, true},
      {"NotIn miss", {{}, {LabelReq("app", Op::kNotIn, {"web"})}}, false},
      {"NotIn absent key matches", {{}, {LabelReq("zone", Op::kNotIn, {"a"})}}, true},
      {"Exists", {{}, {LabelReq("tier", Op::kExists)}}, true},
      {"Exists absent", {{}, {LabelReq("zone", Op::kExists)}}, false},
      {"DoesNotExist absent matches", {{}, {LabelReq("zone", Op::kDoesNotExist)}}, true},
      {"DoesNotExist present", {{}, {LabelReq("app", Op::kDoesNotExist)}}, false},
      {"labels AND expressions", {{{"app", "web"}}, {LabelReq("tier", Op::kIn, {"back"})}}, false},
      {"all expressions ANDed",
       {{}, {LabelReq("app", Op::kExists), LabelReq("tier", Op::kIn, {"front"})}},
       true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Matches(c.selector, labels), c.want) << c.name;
  }
}

TEST(LabelSelectorTest, MatchesMap) {
  EXPECT_TRUE(MatchesMap({}, {}));
  EXPECT_TRUE(MatchesMap({}, {{"a", "b"}}));
  EXPECT_TRUE(MatchesMap({{"a", "b"}}, {{"a", "b"}, {"c", "d"}}));
  EXPECT_FALSE(MatchesMap({{"a", "b"}}, {{"a", "c"}}));
  EXPECT_FALSE(MatchesMap({{"a", "b"}}, {}));
}

TEST(NodeSelectorTest, RequirementOperators) {
  const Labels labels = {{"zone", "a"}, {"cores", "8"}, {"gen", "x9"}, {"neg", "-3"}};
  struct Case {
    std::string name;
    NodeSelectorRequirement req;
    bool want;
  };
  std::vector<Case> cases = {
      {"In", NodeReq("zone", Op::kIn, {"a", "b"}), true},
      {"In miss", NodeReq("zone", Op::kIn, {"b"}), false},
      {"NotIn", NodeReq("zone", Op::kNotIn, {"b"}), true},
      {"NotIn absent key", NodeReq("region", Op::kNotIn, {"x"}), true},
      {"Exists", NodeReq("zone", Op::kExists), true},
      {"DoesNotExist absent", NodeReq("region", Op::kDoesNotExist), true},
      {"DoesNotExist present", NodeReq("zone", Op::kDoesNotExist), false},
      {"Gt true", NodeReq("cores", Op::kGt, {"4"}), true},
      {"Gt equal is false", NodeReq("cores", Op::kGt, {"8"}), false},
      {"Gt false", NodeReq("cores", Op::kGt, {"16"}), false},
      {"Lt true", NodeReq("cores", Op::kLt, {"16"}), true},
      {"Lt false", NodeReq("cores", Op::kLt, {"8"}), false},
      {"Lt negative", NodeReq("neg", Op::kLt, {"0"}), true},
      {"Gt plus sign", NodeReq("cores", Op::kGt, {"+7"}), true},
      {"Gt non-integer label never matches", NodeReq("gen", Op::kGt, {"1"}), false},
      {"Lt non-integer label never matches", NodeReq("gen", Op::kLt, {"1"}), false},
      {"Gt non-integer value never matches", NodeReq("cores", Op::kGt, {"x"}), false},
      {"Gt absent key", NodeReq("region", Op::kGt, {"1"}), false},
      {"Gt two values", NodeReq("cores", Op::kGt, {"1", "2"}), false},
      {"Gt no values", NodeReq("cores", Op::kGt), false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(MatchesRequirement(c.req, labels), c.want) << c.name;
  }
}

TEST(NodeSelectorTest, TermsAndFields) {
  const Labels labels = {{"zone", "a"}, {"disk", "ssd"}};
  NodeSelectorTerm zone_a{{NodeReq("zone", Op::kIn, {"a"})}, {}};
  NodeSelectorTerm zone_b{{NodeReq("zone", Op::kIn, {"b"})}, {}};
  NodeSelectorTerm zone_a_hdd{{NodeReq("zone", Op::kIn, {"a"}), NodeReq("disk", Op::kIn, {"hdd"})},
                              {}};
  NodeSelectorTerm name_n1{{}, {NodeReq("metadata.name", Op::kIn, {"n1"})}};
  NodeSelectorTerm not_n1{{}, {NodeReq("metadata.name", Op::kNotIn, {"n1"})}};
  NodeSelectorTerm other_field{{}, {NodeReq("metadata.uid", Op::kIn, {"n1"})}};
  NodeSelectorTerm field_exists{{}, {NodeReq("metadata.name", Op::kExists)}};
  NodeSelectorTerm zone_and_name{{NodeReq("zone", Op::kIn, {"a"})},
                                 {NodeReq("metadata.name", Op::kIn, {"n2"})}};

  EXPECT_TRUE(MatchesTerm(zone_a, labels, "n1"));
  EXPECT_FALSE(MatchesTerm(zone_a_hdd, labels, "n1"));
  EXPECT_FALSE(MatchesTerm(NodeSelectorTerm{}, labels, "n1")) << "empty term matches nothing";
  EXPECT_TRUE(MatchesTerm(name_n1, labels, "n1"));
  EXPECT_FALSE(MatchesTerm(name_n1, labels, "n2"));
  EXPECT_FALSE(MatchesTerm(not_n1, labels, "n1"));
  EXPECT_TRUE(MatchesTerm(not_n1, labels, "n2"));
  EXPECT_FALSE(MatchesTerm(other_field, labels, "n1"));
  EXPECT_FALSE(MatchesTerm(field_exists, labels, "n1"));
  EXPECT_FALSE(MatchesTerm(zone_and_name, labels, "n1"));
  EXPECT_TRUE(MatchesTerm(zone_and_name, labels, "n2"));

  EXPECT_FALSE(Matches(NodeSelector{}, labels, "n1")) << "zero terms match nothing";
  EXPECT_TRUE(Matches(NodeSelector{{zone_b, zone_a}}, labels, "n1")) << "terms are ORed";
  EXPECT_FALSE(Matches(NodeSelector{{zone_b, zone_a_hdd}}, labels, "n1"));
  EXPECT_TRUE(Matches(NodeSelector{{NodeSelectorTerm{}, zone_a}}, labels, "n1"));
}

TEST(TolerationTest, ToleratesTaint) {
  Taint taint{"dedicated", "gpu", "NoSchedule"};
  struct Case {
    std::string name;
    Toleration toleration;
    bool want;
  };
  std::vector<Case> cases = {
      {"Equal match", {"dedicated", "Equal", "gpu", "NoSchedule", {}}, true},
      {"empty operator means Equal", {"dedicated", "", "gpu", "NoSchedule", {}}, true},
      {"Equal wrong value", {"dedicated", "Equal", "cpu", "NoSchedule", {}}, false},
      {"Equal wrong key", {"other", "Equal", "gpu", "NoSchedule", {}}, false},
      {"Exists ignores value", {"dedicated", "Exists", "", "NoSchedule", {}}, true},
      {"Exists wrong key", {"other", "Exists", "", "", {}}, false},
      {"empty effect matches all effects", {"dedicated", "Equal", "gpu", "", {}}, true},
      {"wrong effect", {"dedicated", "Equal", "gpu", "NoExecute", {}}, false},
      {"empty key with Exists matches everything", {"", "Exists", "", "", {}}, true},
      {"empty key with Exists, effect must match", {"", "Exists", "", "NoExecute", {}}, false},
      {"unknown operator", {"dedicated", "Gt", "gpu", "", {}}, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Tolerates(c.toleration, taint), c.want) << c.name;
  }
  EXPECT_FALSE(TolerationsTolerate({}, taint));
  EXPECT_TRUE(TolerationsTolerate({cases[2].toleration, cases[0].toleration}, taint));
  EXPECT_FALSE(TolerationsTolerate({cases[2].toleration, cases[3].toleration}, taint));
}

}  // namespace
}  // namespace berth::api
