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

Outcome Evaluate(std::string_view src, uint64_t limit = 1000000,
                 const Interrupt* interrupt = nullptr) {
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
  Evaluator ev(device, limit, interrupt);
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

std::string Thousand() { return "\"" + std::string(1000, 'x') + "\""; }

// A replace() over the cost limit is refused from its arguments' sizes before it runs: here its
// result would be 6 TB (the old evaluator died in bad_alloc building it). The cost reported is
// cel-go's: everything before it plus the call's own ceil(size * 0.2).
TEST(EvaluatorTest, ReplaceOverTheCostLimitNeverRuns) {
  // t: 1,002,000 x's (cost 200); u: 6,012,000 x's (cost 200,400); u.replace(...) would cost
  // 1,202,400 and build 6,012,000 * 1,002,000 bytes.
  std::string expr = "cel.bind(s, " + Thousand() +
                     ", cel.bind(t, s.replace('', s), cel.bind(u, t.replace('x', 'xxxxxx'), "
                     "u.replace('x', t).size() > 0)))";
  Outcome r = Evaluate(expr);
  ASSERT_FALSE(r.value.ok());
  EXPECT_EQ(r.value.error(), "operation cancelled: actual cost limit exceeded");
  EXPECT_TRUE(r.cost_exceeded);
  EXPECT_EQ(r.cost, 200u + 200400u + 1202400u + 5u);  // + the identifiers s, s, t, u and t
}

// Calls within the cost limit whose result would still be enormous stop the evaluation (berth's
// own bound; cel-go would try to allocate it).
TEST(EvaluatorTest, ResultsOverTheSizeBoundStopTheEvaluation) {
  // A 1,002,000-character string with itself inserted between every character: 10^12 bytes.
  Outcome r = Evaluate("cel.bind(s, " + Thousand() +
                       ", cel.bind(t, s.replace('', s), t.replace('', t).size() > 0)) || true");
  ASSERT_FALSE(r.value.ok());
  EXPECT_EQ(r.value.error(),
            "operation cancelled: result of replace() too large: 1004006004000 bytes (limit "
            "67108864)");
  EXPECT_FALSE(r.cost_exceeded);
  // List concatenation costs 1 whatever the sizes: ten-fold per level reaches 10^7 elements.
  std::string lists = "cel.bind(l0, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], ";
  for (int i = 1; i <= 7; ++i) {
    std::string prev = "l" + std::to_string(i - 1);
    lists += "cel.bind(l" + std::to_string(i) + ", ";
    for (int k = 0; k < 10; ++k) lists += (k > 0 ? " + " : "") + prev;
    lists += ", ";
  }
  lists += "l7.size() > 0" + std::string(8, ')');
  r = Evaluate(lists);
  ASSERT_FALSE(r.value.ok());
  EXPECT_EQ(r.value.error(),
            "operation cancelled: result of '+' too large: 2000000 elements (limit 1048576)");
  // split('') makes one element per character: 2,004,000 of them here.
  r = Evaluate("cel.bind(s, " + Thousand() +
               ", cel.bind(t, s.replace('', s), t.replace('x', 'xx').split('').size() > 0))");
  ASSERT_FALSE(r.value.ok());
  EXPECT_EQ(r.value.error(),
            "operation cancelled: result of split() too large: 2004000 elements (limit 1048576)");
  // findAll('') matches once per character and once at the end: 2,004,001 matches, counted
  // (up to the bound) before any is built; with a limit within the bound the call runs.
  r = Evaluate("cel.bind(s, " + Thousand() +
               ", cel.bind(t, s.replace('', s).replace('x', 'xx'), t.findAll('').size() > 0))");
  ASSERT_FALSE(r.value.ok());
  EXPECT_EQ(r.value.error(),
            "operation cancelled: result of findAll() too large: 1048577 elements (limit "
            "1048576)");
  r = Evaluate("cel.bind(s, " + Thousand() +
               ", cel.bind(t, s.replace('', s).replace('x', 'xx'), t.findAll('', 5).size() == 5))");
  ASSERT_TRUE(r.value.ok()) << r.value.error();
  EXPECT_TRUE(r.value->As<bool>());
  // join() costs by the size of its result, which is known before building it: 6,000,000
  // characters would cost 1,200,000.
  r = Evaluate("cel.bind(s, " + Thousand() + ", lists.range(6000).map(i, s).join().size() > 0)");
  ASSERT_FALSE(r.value.ok());
  EXPECT_EQ(r.value.error(), "operation cancelled: actual cost limit exceeded");
}

// A long string put into many list elements or variables is shared, not copied: 50,000
// references to a 1,002,000-character string (50 GB as copies) stay within the cost limit.
TEST(EvaluatorTest, LongStringsAreShared) {
  std::string t = "cel.bind(s, " + Thousand() + ", cel.bind(t, s.replace('', s), %s))";
  for (const char* body : {"lists.range(50000).map(i, t).size() == 50000",
                           "lists.range(50000).all(i, type(t) == string)",
                           "[t, t, t, t].map(x, [x, x]).flatten().size() == 8",
                           "cel.bind(b, bytes(t), lists.range(50000).map(i, b).size() == 50000)"}) {
    std::string expr = t;
    expr.replace(expr.find("%s"), 2, body);
    Outcome r = Evaluate(expr);
    ASSERT_TRUE(r.value.ok()) << body << ": " << r.value.error();
    EXPECT_TRUE(r.value->As<bool>()) << body;
  }
}

// map() and filter() append to their accumulator in place; results and costs are those of
// copying it (cel-go's), including an accumulator that is an error.
TEST(EvaluatorTest, MapAndFilterAccumulate) {
  Outcome r = Evaluate("lists.range(1000).map(x, x * 2).filter(y, y % 3 == 0).size() == 334");
  ASSERT_TRUE(r.value.ok()) << r.value.error();
  EXPECT_TRUE(r.value->As<bool>());
  EXPECT_EQ(r.cost, 22357u);
  r = Evaluate("[[1], [2, 3]].map(l, l.map(x, x + 1)) == [[2], [3, 4]]");
  ASSERT_TRUE(r.value.ok()) << r.value.error();
  EXPECT_TRUE(r.value->As<bool>());
  EXPECT_EQ(r.cost, 72u);
  r = Evaluate("[1, 0, 2].map(x, 4 / x).size() == 3");
  ASSERT_FALSE(r.value.ok());
  EXPECT_EQ(r.value.error(), "division by zero");
  // The source list is not changed by mapping it twice.
  r = Evaluate("cel.bind(l, [1, 2], l.map(x, x) + l.map(x, x) == [1, 2, 1, 2] && l == [1, 2])");
  ASSERT_TRUE(r.value.ok()) << r.value.error();
  EXPECT_TRUE(r.value->As<bool>());
}

// A 9,000-term chain of && or || evaluates (cel-go balances the tree; so does berth's parser).
TEST(EvaluatorTest, LongLogicalChains) {
  for (const char* op : {" && ", " || "}) {
    std::string expr = "device.driver == 'd'";
    for (int i = 1; i < 9000; ++i) expr += std::string(op) + (i % 2 ? "true" : "1 == 1");
    Outcome r = Evaluate(expr);
    ASSERT_TRUE(r.value.ok()) << r.value.error();
    EXPECT_TRUE(r.value->As<bool>());
  }
}

// An Interrupt stops an evaluation inside a comprehension: a deadline already passed, or a stop
// flag (shutdown).
TEST(EvaluatorTest, InterruptStopsTheEvaluation) {
  const char* expr = "lists.range(100000).all(i, i >= 0) || true";
  Interrupt late;
  late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  Outcome r = Evaluate(expr, 1000000, &late);
  ASSERT_FALSE(r.value.ok());
  EXPECT_EQ(r.value.error(), "operation interrupted: context deadline exceeded");
  EXPECT_LT(r.cost, 100011u + 1000u);  // lists.range() and a few hundred steps
  Interrupt stop;
  stop.stop = [] { return true; };
  r = Evaluate(expr, 1000000, &stop);
  ASSERT_FALSE(r.value.ok());
  EXPECT_EQ(r.value.error(), "operation interrupted: context canceled");
  // A deadline far away changes nothing.
  Interrupt early;
  early.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  r = Evaluate(expr, 1000000, &early);
  ASSERT_TRUE(r.value.ok()) << r.value.error();
  EXPECT_EQ(r.cost, Evaluate(expr).cost);
}

}  // namespace
}  // namespace berth::cel
