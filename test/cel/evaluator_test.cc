#include "cel/evaluator.h"

#include <gtest/gtest.h>

#include "cel/checker.h"
#include "cel/parser.h"

namespace berth::cel {
namespace {

struct Outcome {
  Result<Value> value = Value{};
  uint64_t cost = 0;
  bool cost_exceeded = false;
};

Outcome Evaluate(std::string_view src, uint64_t limit = 1000000) {
  ParseError err;
  ExprPtr root = Parse(src, &err);
  EXPECT_NE(root, nullptr) << err.message;
  if (!root) return {};
  auto issues = Check(*root);
  EXPECT_TRUE(issues.empty()) << src << ": " << issues[0].message;
  Value attrs =
      Value::MakeMap({{Value{std::string("d")},
                       Value::MakeMap({{Value{std::string("model")}, Value{std::string("a100")}},
                                       {Value{std::string("cores")}, Value{int64_t{108}}}})}},
                     /*missing_is_empty=*/true);
  Value device = Value::MakeMap({{Value{std::string("driver")}, Value{std::string("d")}},
                                 {Value{std::string("attributes")}, attrs},
                                 {Value{std::string("capacity")}, Value::MakeMap({}, true)},
                                 {Value{std::string("allowMultipleAllocations")}, Value{false}}});
  Evaluator ev(device, limit);
  Outcome r;
  r.value = ev.Eval(*root);
  r.cost = ev.cost();
  r.cost_exceeded = ev.cost_exceeded();
  return r;
}

TEST(EvaluatorTest, ValuesAndCosts) {
  // Costs as cel-go's runtime cost tracker reports them (checked against test/cel/celgo).
  struct Case {
    const char* expr;
    bool value;
    uint64_t cost;
  };
  for (const Case& c : std::vector<Case>{
           {R"(device.driver == "d")", true, 3},
           {R"(device.attributes["d"].model == "a100")", true, 5},
           {R"(device.attributes["d"].cores > 100 && device.attributes["d"].cores < 200)", true,
            10},
           {R"(has(device.attributes["d"].model))", true, 3},
           {R"(device.attributes["x"].size() == 0)", true, 5},
           {"[1, 2, 3].exists(x, x > 2)", true, 19},
           {"[1, 2, 3].all(x, x > 0)", true, 16},
           {"[1, 2, 3].map(x, x * 2) == [2, 4, 6]", true, 44},
           {"[1, 2, 3].filter(x, x > 1).size() == 2", true, 35},
           {"[1, 2, 3].exists_one(x, x > 2)", true, 10},
           {R"(cel.bind(a, device.attributes["d"], a.cores == 108))", true, 6},
           {R"(device.attributes["d"].?nope.orValue(2) == 2)", true, 4},
           {R"(device.driver in ["a", "d"])", true, 2},
           {"int('12') == 12", true, 1},
       }) {
    Outcome r = Evaluate(c.expr);
    ASSERT_TRUE(r.value.ok()) << c.expr << ": " << r.value.error();
    EXPECT_EQ(r.value->As<bool>(), c.value) << c.expr;
    EXPECT_EQ(r.cost, c.cost) << c.expr;
  }
}

TEST(EvaluatorTest, Errors) {
  struct Case {
    const char* expr;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {R"(device.attributes["d"].nope == 1)", "no such key: nope"},
           {R"(device.attributes["x"].model == "a")", "no such key: model"},
           {R"(device.attributes["d"].model > 1)", "no such overload"},
           {"1 / 0 == 1", "division by zero"},
           {"9223372036854775807 + 1 > 0", "integer overflow"},
           {"[1][3] == 1", "index out of bounds: 3"},
           {R"(device.attributes["d"].model.exists(x, true))",
            "got 'types.String', expected iterable type"},
       }) {
    Outcome r = Evaluate(c.expr);
    ASSERT_FALSE(r.value.ok()) << c.expr;
    EXPECT_EQ(r.value.error(), c.error) << c.expr;
  }
}

TEST(EvaluatorTest, LogicalOperatorsAbsorbErrors) {
  EXPECT_FALSE(Evaluate(R"(device.attributes["x"].y && false)").value->As<bool>());
  EXPECT_TRUE(Evaluate(R"(device.attributes["x"].y || true)").value->As<bool>());
  EXPECT_FALSE(Evaluate(R"(device.attributes["x"].y || false)").value.ok());
  // An error in an earlier iteration is forgotten once exists() finds a match.
  EXPECT_TRUE(Evaluate("[0, 1].exists(x, 1 / x > 0)").value->As<bool>());
}

TEST(EvaluatorTest, SortOfAnErrorEndsTheEvaluation) {
  // cel-go's sort() panics on an error receiver; no || absorbs the reported panic.
  Outcome r = Evaluate(R"([1, int(device.attributes["x"].y)].sort()[0] == 1 || true)");
  ASSERT_FALSE(r.value.ok());
  EXPECT_EQ(
      r.value.error(),
      "internal error: interface conversion: *types.Err is not traits.Lister: missing method Add");
}

TEST(EvaluatorTest, CostLimit) {
  Outcome r = Evaluate(
      "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(b, a + b > 0))",
      100);
  ASSERT_FALSE(r.value.ok());
  EXPECT_TRUE(r.cost_exceeded);
  EXPECT_EQ(r.value.error(), "operation cancelled: actual cost limit exceeded");
  EXPECT_GT(r.cost, 100u);
}

}  // namespace
}  // namespace berth::cel
