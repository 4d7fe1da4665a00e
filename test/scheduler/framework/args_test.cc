#include "scheduler/framework/args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace berth::framework {
namespace {

using api::Value;

constexpr char kPath[] = "profiles[0].pluginConfig[2].args";

Value Strings(std::vector<std::string> items) {
  Value a = Value::MakeArray();
  for (auto& s : items) a.Push(Value::String(std::move(s)));
  return a;
}

TEST(ArgsReaderTest, NullArgsMeanDefaults) {
  ArgsReader r(nullptr, kPath);
  EXPECT_FALSE(r.String("scoringStrategy").has_value());
  EXPECT_FALSE(r.Int("permitWaitingTimeSeconds").has_value());
  EXPECT_EQ(r.Object("nested"), nullptr);
  EXPECT_TRUE(r.Finish().ok());

  Value null_value;
  ArgsReader n(&null_value, kPath);
  EXPECT_TRUE(n.Finish().ok());
}

TEST(ArgsReaderTest, ReadsTypedFields) {
  Value args = Value::MakeObject();
  args.Set("presentLabels", Strings({"zone", "rack"}));
  args.Set("name", Value::String("x"));
  args.Set("timeout", Value::Int(60));
  args.Set("ratio", Value::Double(0.5));
  args.Set("ratioInt", Value::Int(2));
  args.Set("enabled", Value::Bool(true));
  Value nested = Value::MakeObject();
  nested.Set("type", Value::String("LeastAllocated"));
  args.Set("scoringStrategy", nested);
  Value arr = Value::MakeArray();
  arr.Push(Value::Int(1));
  args.Set("shape", arr);
  args.Set("absentByNull", Value());

  ArgsReader r(&args, kPath);
  EXPECT_EQ(r.StringList("presentLabels"), (std::vector<std::string>{"zone", "rack"}));
  EXPECT_EQ(r.String("name"), "x");
  EXPECT_EQ(r.Int("timeout"), 60);
  EXPECT_EQ(r.Number("ratio"), 0.5);
  EXPECT_EQ(r.Number("ratioInt"), 2.0);  // an integer is a number
  EXPECT_EQ(r.Bool("enabled"), true);
  const Value* s = r.Object("scoringStrategy");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->Find("type")->AsString(), "LeastAllocated");
  const Value* a = r.Array("shape");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->AsArray().size(), 1u);
  EXPECT_FALSE(r.String("absentByNull").has_value());  // null reads as absent
  EXPECT_FALSE(r.Int("missing").has_value());
  EXPECT_FALSE(r.failed());
  EXPECT_TRUE(r.Finish().ok());
}

TEST(ArgsReaderTest, WrongTypesNameTheField) {
  struct Case {
    std::string name;
    Value value;
    std::string error;
  };
  Value mixed = Value::MakeArray();
  mixed.Push(Value::String("a"));
  mixed.Push(Value::Int(3));
  const std::vector<Case> cases = {
      {"StringList", Value::String("zone"),
       "profiles[0].pluginConfig[2].args.f: expected array of strings, got string"},
      {"StringListElement", mixed,
       "profiles[0].pluginConfig[2].args.f[1]: expected string, got integer"},
      {"String", Value::Int(1), "profiles[0].pluginConfig[2].args.f: expected string, got integer"},
      {"Int", Value::Double(1.5),
       "profiles[0].pluginConfig[2].args.f: expected integer, got number"},
      {"Number", Value::Bool(true),
       "profiles[0].pluginConfig[2].args.f: expected number, got boolean"},
      {"Bool", Value::String("true"),
       "profiles[0].pluginConfig[2].args.f: expected boolean, got string"},
      {"Object", Value::MakeArray(),
       "profiles[0].pluginConfig[2].args.f: expected object, got array"},
      {"Array", Value::MakeObject(),
       "profiles[0].pluginConfig[2].args.f: expected array, got object"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Value args = Value::MakeObject();
    args.Set("f", c.value);
    ArgsReader r(&args, kPath);
    if (c.name.starts_with("StringList")) {
      EXPECT_FALSE(r.StringList("f").has_value());
    } else if (c.name == "String") {
      EXPECT_FALSE(r.String("f").has_value());
    } else if (c.name == "Int") {
      EXPECT_FALSE(r.Int("f").has_value());
    } else if (c.name == "Number") {
      EXPECT_FALSE(r.Number("f").has_value());
    } else if (c.name == "Bool") {
      EXPECT_FALSE(r.Bool("f").has_value());
    } else if (c.name == "Object") {
      EXPECT_EQ(r.Object("f"), nullptr);
    } else {
      EXPECT_EQ(r.Array("f"), nullptr);
    }
    EXPECT_TRUE(r.failed());
    Ok ok = r.Finish();
    ASSERT_FALSE(ok.ok());
    EXPECT_EQ(ok.error(), c.error);
  }
}

TEST(ArgsReaderTest, FirstErrorWins) {
  Value args = Value::MakeObject();
  args.Set("a", Value::Int(1));
  args.Set("b", Value::Int(2));
  ArgsReader r(&args, kPath);
  EXPECT_FALSE(r.String("a").has_value());
  EXPECT_FALSE(r.Bool("b").has_value());
  r.Fail("later");
  Ok ok = r.Finish();
  ASSERT_FALSE(ok.ok());
  EXPECT_EQ(ok.error(), "profiles[0].pluginConfig[2].args.a: expected string, got integer");
}

TEST(ArgsReaderTest, UnknownFieldsAreRejected) {
  Value args = Value::MakeObject();
  args.Set("apiVersion", Value::String("kubescheduler.config.k8s.io/v1"));
  args.Set("kind", Value::String("NodeResourcesFitArgs"));
  args.Set("ignoredResources", Strings({"x"}));
  args.Set("scoringStrategy", Value::MakeObject());
  args.Set("typo", Value::Int(1));
  ArgsReader r(&args, kPath);
  EXPECT_TRUE(r.StringList("ignoredResources").has_value());
  r.Ignore("scoringStrategy");
  Ok ok = r.Finish();
  ASSERT_FALSE(ok.ok());
  EXPECT_EQ(ok.error(), "profiles[0].pluginConfig[2].args.typo: unknown field");

  // Asking for a field, even one with the wrong type or null, marks it known.
  Value args2 = Value::MakeObject();
  args2.Set("apiVersion", Value::String("v1"));
  args2.Set("known", Value());
  ArgsReader r2(&args2, kPath);
  EXPECT_FALSE(r2.Int("known").has_value());
  EXPECT_TRUE(r2.Finish().ok());
}

TEST(ArgsReaderTest, NonObjectArgsAreAnError) {
  Value args = Value::MakeArray();
  ArgsReader r(&args, kPath);
  EXPECT_TRUE(r.failed());
  EXPECT_FALSE(r.String("x").has_value());
  Ok ok = r.Finish();
  ASSERT_FALSE(ok.ok());
  EXPECT_EQ(ok.error(), "profiles[0].pluginConfig[2].args: expected object, got array");
}

TEST(ArgsReaderTest, PathJoinsFieldNames) {
  ArgsReader r(nullptr, kPath);
  EXPECT_EQ(r.Path("hardPodAffinityWeight"),
            "profiles[0].pluginConfig[2].args.hardPodAffinityWeight");
  EXPECT_EQ(r.path(), kPath);
  ArgsReader top(nullptr, "");
  EXPECT_EQ(top.Path("x"), "x");
}

}  // namespace
}  // namespace berth::framework
