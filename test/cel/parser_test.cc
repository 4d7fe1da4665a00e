#include "cel/parser.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>

namespace berth::cel {
namespace {

// A compact rendering of the expanded tree: calls as fn(args), comprehensions as
// fold(iter, range, accu, init, cond, step, result).
std::string Render(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kConst:
      if (e.constant.Is<int64_t>()) return std::to_string(e.constant.As<int64_t>());
      if (e.constant.Is<bool>()) return e.constant.As<bool>() ? "true" : "false";
      if (e.constant.Is<std::string>()) return "\"" + e.constant.As<std::string>() + "\"";
      return "const";
    case Expr::Kind::kIdent:
      return e.name;
    case Expr::Kind::kSelect:
      return (e.test_only ? "has(" : "") + Render(*e.args[0]) + "." + e.name +
             (e.test_only ? ")" : "");
    case Expr::Kind::kList:
    case Expr::Kind::kMap:
    case Expr::Kind::kCall: {
      std::string out =
          e.kind == Expr::Kind::kCall ? e.name + "(" : (e.kind == Expr::Kind::kList ? "[" : "{");
      for (size_t i = 0; i < e.args.size(); ++i) out += (i ? ", " : "") + Render(*e.args[i]);
      return out + (e.kind == Expr::Kind::kCall ? ")" : (e.kind == Expr::Kind::kList ? "]" : "}"));
    }
    case Expr::Kind::kComprehension: {
      std::string out = "fold(" + e.iter_var;
      out += ", " + Render(*e.args[0]) + ", " + e.accu_var;
      for (size_t i = 1; i < e.args.size(); ++i) out += ", " + Render(*e.args[i]);
      return out + ")";
    }
  }
  return "?";
}

std::string MustParse(std::string_view src) {
  ParseError err;
  ExprPtr e = Parse(src, &err);
  EXPECT_NE(e, nullptr) << src << ": " << err.message;
  return e ? Render(*e) : "";
}

TEST(ParserTest, Precedence) {
  EXPECT_EQ(MustParse("1 + 2 * 3 == 7 && !a || b"),
            "_||_(_&&_(_==_(_+_(1, _*_(2, 3)), 7), !_(a)), b)");
  EXPECT_EQ(MustParse("a ? b : c ? d : e"), "_?_:_(a, b, _?_:_(c, d, e))");
  EXPECT_EQ(MustParse("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(MustParse("!!a"), "a");
  EXPECT_EQ(MustParse("x in [1, 2]"), "@in(x, [1, 2])");
}

TEST(ParserTest, MembersAndIndexes) {
  EXPECT_EQ(MustParse(R"(device.attributes["d"].model.startsWith("a"))"),
            R"(startsWith(_[_](device.attributes, "d").model, "a"))");
  EXPECT_EQ(MustParse(R"(m.?f.orValue(1))"), R"(orValue(_?._(m, "f"), 1))");
  EXPECT_EQ(MustParse(R"(m[?"k"])"), R"(_[?_](m, "k"))");
}

TEST(ParserTest, Macros) {
  EXPECT_EQ(MustParse("has(a.b)"), "has(a.b)");
  EXPECT_EQ(MustParse("l.all(x, x > 0)"),
            "fold(x, l, @result, true, @not_strictly_false(@result), _&&_(@result, _>_(x, 0)), "
            "@result)");
  EXPECT_EQ(
      MustParse("l.exists(x, p)"),
      "fold(x, l, @result, false, @not_strictly_false(!_(@result)), _||_(@result, p), @result)");
  EXPECT_EQ(MustParse("l.map(x, x)"), "fold(x, l, @result, [], true, _+_(@result, [x]), @result)");
  EXPECT_EQ(MustParse("l.filter(x, p)"),
            "fold(x, l, @result, [], true, _?_:_(p, _+_(@result, [x]), @result), @result)");
  EXPECT_EQ(MustParse("cel.bind(v, 1, v)"), "fold(#unused, [], v, 1, false, v, v)");
}

TEST(ParserTest, SyntaxErrorsReadLikeAntlr) {
  struct Case {
    const char* src;
    const char* message;
    int32_t offset;
  };
  const std::string start =
      "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
      "STRING, BYTES, IDENTIFIER}";
  for (const Case& c : std::vector<Case>{
           {"1 +", "mismatched input '<EOF>' expecting ", 3},
           {"1 + )", "mismatched input ')' expecting ", 4},
           {"1 == == 2", "extraneous input '==' expecting ", 5},
           {"!", "extraneous input '<EOF>' expecting ", 1},
           {"(1 + 2", "missing ')' at '<EOF>'", 6},
           {"[1, 2", "mismatched input '<EOF>' expecting {']', ','}", 5},
           {"1 2", "extraneous input '2' expecting <EOF>", 2},
           {"device.", "no viable alternative at input '.'", 7},
           {"a ? b", "mismatched input '<EOF>' expecting ':'", 5},
       }) {
    ParseError err;
    EXPECT_EQ(Parse(c.src, &err), nullptr) << c.src;
    std::string want = std::string("Syntax error: ") + c.message;
    if (want.back() == ' ') want += start;
    EXPECT_EQ(err.message, want) << c.src;
    EXPECT_EQ(err.offset, c.offset) << c.src;
  }
}

TEST(ParserTest, RecursionAndSizeLimits) {
  ParseError err;
  EXPECT_NE(Parse(std::string(249, '(') + "1" + std::string(249, ')'), &err), nullptr);
  EXPECT_EQ(Parse(std::string(250, '(') + "1" + std::string(250, ')'), &err), nullptr);
  EXPECT_EQ(err.message, "expression recursion limit exceeded: 250");
  EXPECT_EQ(err.offset, -1);

  std::string sum = "1";
  for (int i = 0; i < 250; ++i) sum += " + 1";
  EXPECT_NE(Parse(sum, &err), nullptr);  // 250 additions
  EXPECT_EQ(Parse(sum + " + 1", &err), nullptr);
  EXPECT_EQ(err.message, "max recursion depth exceeded");

  EXPECT_EQ(Parse("'" + std::string(100000, 'x') + "'", &err), nullptr);
  EXPECT_EQ(err.message, "expression code point size exceeds limit: size: 100002, limit 100000");
}

int TreeDepth(const Expr& e) {
  int deepest = 0;
  for (const auto& a : e.args) deepest = std::max(deepest, TreeDepth(*a));
  return deepest + 1;
}

// Chains of one logical operator become balanced trees, as cel-go's logicManager builds them:
// a 9,000-term chain is 14 levels deep, not 9,000.
TEST(ParserTest, LogicalChainsAreBalanced) {
  EXPECT_EQ(MustParse("a && b && c"), "_&&_(_&&_(a, b), c)");
  EXPECT_EQ(MustParse("a || b || c || d"), "_||_(_||_(a, b), _||_(c, d))");
  EXPECT_EQ(MustParse("a || b && c && d || e"), "_||_(_||_(a, _&&_(_&&_(b, c), d)), e)");
  for (const char* op : {" && ", " || "}) {
    std::string chain = "a";
    for (int i = 1; i < 9000; ++i) chain += op + std::string("a");
    ParseError err;
    ExprPtr e = Parse(chain, &err);
    ASSERT_NE(e, nullptr) << err.message;
    EXPECT_EQ(TreeDepth(*e), 15);
  }
}

// Runs fn on a thread with a 256 KiB stack (a recursion as deep as the input overflows it).
void OnSmallStack(void (*fn)()) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t t;
  ASSERT_EQ(pthread_create(
                &t, &attr,
                [](void* f) -> void* {
                  reinterpret_cast<void (*)()>(f)();
                  return nullptr;
                },
                reinterpret_cast<void*>(fn)),
            0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
}

// The parser's depth check and the tree's destruction do not recurse as deep as the input
// nests: 49,999 nested additions or selects (the most 100,000 code points hold) are refused,
// and a 9,000-term && chain parses, on a small stack.
TEST(ParserTest, DeepTreesAreRefusedWithoutDeepRecursion) {
  OnSmallStack([] {
    std::string sum = "1";
    while (sum.size() + 2 <= 100000) sum += "+1";
    ParseError err;
    EXPECT_EQ(Parse(sum, &err), nullptr);
    EXPECT_EQ(err.message, "max recursion depth exceeded");
    std::string select = "a";
    while (select.size() + 2 <= 100000) select += ".b";
    EXPECT_EQ(Parse(select, &err), nullptr);
    EXPECT_EQ(err.message, "max recursion depth exceeded");
    std::string chain = "a";
    for (int i = 1; i < 9000; ++i) chain += " && a";
    EXPECT_NE(Parse(chain, &err), nullptr);
  });
}

TEST(ParserTest, Errors) {
  ParseError err;
  EXPECT_EQ(Parse("1 +", &err), nullptr);
  EXPECT_EQ(err.offset, 3);
  err = {};
  EXPECT_EQ(Parse("has(1)", &err), nullptr);
  EXPECT_EQ(err.message, "invalid argument to has() macro");
  EXPECT_EQ(err.offset, 4);
  err = {};
  EXPECT_EQ(Parse("(1", &err), nullptr);
  EXPECT_EQ(err.offset, 2);
}

}  // namespace
}  // namespace berth::cel
