#include "cel/checker.h"

#include <gtest/gtest.h>

#include "cel/parser.h"

namespace berth::cel {
namespace {

struct Checked {
  ExprPtr root;
  std::vector<CheckIssue> issues;
};

Checked MustCheck(std::string_view src) {
  ParseError err;
  Checked c;
  c.root = Parse(src, &err);
  EXPECT_NE(c.root, nullptr) << err.message;
  if (c.root) c.issues = Check(*c.root);
  return c;
}

TEST(CheckerTest, DeviceTypes) {
  struct Case {
    const char* expr;
    const char* type;
  };
  for (const Case& c : std::vector<Case>{
           {"device.driver", "string"},
           {"device.allowMultipleAllocations", "bool"},
           {"device.attributes", "map(string, map(string, dyn))"},
           {R"(device.attributes["d"].model)", "dyn"},
           {R"(device.capacity["d"].memory)", "kubernetes.Quantity"},
           {R"(device.capacity["d"].memory.compareTo(quantity("1")))", "int"},
           {R"(semver("1.0.0"))", "kubernetes.Semver"},
           {"[1, 2].map(x, x * 2)", "list(int)"},
           {"[1, 2].exists(x, x > 1)", "bool"},
           {R"(device.attributes["d"].?model)", "optional_type(dyn)"},
           {"cel.bind(x, 1, x + 1)", "int"},
       }) {
    Checked k = MustCheck(c.expr);
    EXPECT_TRUE(k.issues.empty()) << c.expr << ": " << k.issues[0].message;
    EXPECT_EQ(k.root->type.Name(), c.type) << c.expr;
  }
}

TEST(CheckerTest, Issues) {
  struct Case {
    const char* expr;
    const char* message;
    int32_t offset;
  };
  for (const Case& c : std::vector<Case>{
           {"foo", "undeclared reference to 'foo' (in container '')", 0},
           {"foo(1)", "undeclared reference to 'foo' (in container '')", 3},
           {"device.foo", "undefined field 'foo'", 6},
           {"1 == 1.0", "found no matching overload for '_==_' applied to '(int, double)'", 2},
           {"'a'.startsWith(1)",
            "found no matching overload for 'startsWith' applied to 'string.(int)'", 14},
           {"[1, 'a']", "expected type 'int' but found 'string'", 4},
           {"[1, 2].all(x, x)", "expected type 'bool' but found 'int'", 14},
           {"'abc'.matches('[')", "invalid matches argument", 14},
           {"sign(1)", "found no matching overload for 'sign' applied to '(int)'", 4},
       }) {
    Checked k = MustCheck(c.expr);
    ASSERT_FALSE(k.issues.empty()) << c.expr;
    EXPECT_EQ(k.issues[0].message, c.message) << c.expr;
    EXPECT_EQ(k.issues[0].offset, c.offset) << c.expr;
  }
}

TEST(CheckerTest, FoldsConstantConversions) {
  Checked k = MustCheck("int('12')");
  EXPECT_TRUE(k.issues.empty());
  EXPECT_EQ(k.root->kind, Expr::Kind::kConst);
  EXPECT_EQ(k.root->constant.As<int64_t>(), 12);
  k = MustCheck("uint(-1)");
  ASSERT_EQ(k.issues.size(), 1u);
  EXPECT_EQ(k.issues[0].phase, CheckIssue::Phase::kInstantiate);
  EXPECT_EQ(k.issues[0].message, "unsigned integer overflow");
}

}  // namespace
}  // namespace berth::cel
