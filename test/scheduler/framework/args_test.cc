#include "scheduler/framework/args.h"

#include <gtest/gtest.h>

#include <optional>
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

TEST(ReadArgsTest, NullArgsMeanDefaults) {
  auto r = ReadArgs(nullptr, kPath);
  ASSERT_TRUE(r.ok()) << r.error();
  std::optional<std::string> s;
  ASSERT_TRUE(r->OptString("scoringStrategy", &s).ok());
  EXPECT_FALSE(s.has_value());
  EXPECT_TRUE(r->Done().ok());

  Value null_value;
  EXPECT_TRUE(NoArgs(&null_value, kPath).ok());
  EXPECT_TRUE(NoArgs(nullptr, kPath).ok());
}

TEST(ReadArgsTest, ReadsTypedFields) {
  Value args = Value::MakeObject();
  args.Set("presentLabels", Strings({"zone", "rack"}));
  args.Set("timeout", Value::Int(60));
  args.Set("ratioInt", Value::Int(2));
  args.Set("absentByNull", Value());
  auto r = ReadArgs(&args, kPath);
  ASSERT_TRUE(r.ok()) << r.error();
  std::vector<std::string> labels;
  int64_t timeout = 0;
  double ratio = 0;
  std::string absent = "default";
  ASSERT_TRUE(r->Strings("presentLabels", &labels).ok());
  ASSERT_TRUE(r->Int64("timeout", &timeout).ok());
  ASSERT_TRUE(r->Double("ratioInt", &ratio).ok());  // an integer is a number
  ASSERT_TRUE(r->String("absentByNull", &absent).ok());
  EXPECT_EQ(labels, (std::vector<std::string>{"zone", "rack"}));
  EXPECT_EQ(timeout, 60);
  EXPECT_EQ(ratio, 2.0);
  EXPECT_EQ(absent, "default");  // null reads as absent
  EXPECT_TRUE(r->Done().ok());
}

TEST(ReadArgsTest, WrongTypesNameTheField) {
  Value args = Value::MakeObject();
  args.Set("f", Value::Double(1.5));
  auto r = ReadArgs(&args, kPath);
  ASSERT_TRUE(r.ok());
  int64_t i = 0;
  Ok ok = r->Int64("f", &i);
  ASSERT_FALSE(ok.ok());
  EXPECT_EQ(ok.error(), "profiles[0].pluginConfig[2].args.f: expected integer, got number");
  EXPECT_EQ(ok.code(), ErrorCode::kInvalid);
}

TEST(ReadArgsTest, UnknownFieldsAreRejectedButApiVersionAndKindAreNot) {
  Value args = Value::MakeObject();
  args.Set("apiVersion", Value::String("kubescheduler.config.k8s.io/v1"));
  args.Set("kind", Value::String("NodeResourcesFitArgs"));
  args.Set("ignoredResources", Strings({"x"}));
  args.Set("typo", Value::Int(1));
  auto r = ReadArgs(&args, kPath);
  ASSERT_TRUE(r.ok());
  std::vector<std::string> ignored;
  ASSERT_TRUE(r->Strings("ignoredResources", &ignored).ok());
  Ok ok = r->Done();
  ASSERT_FALSE(ok.ok());
  EXPECT_EQ(ok.error(),
            "strict decoding error: unknown field \"profiles[0].pluginConfig[2].args.typo\"");

  Value typed = Value::MakeObject();
  typed.Set("apiVersion", Value::String("v1"));
  typed.Set("kind", Value::String("X"));
  EXPECT_TRUE(NoArgs(&typed, kPath).ok());
  Ok extra = NoArgs(&args, kPath);
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.error(),
            "strict decoding error: unknown field "
            "\"profiles[0].pluginConfig[2].args.ignoredResources\"");
}

TEST(ReadArgsTest, NonObjectArgsAreAnError) {
  Value args = Value::MakeArray();
  auto r = ReadArgs(&args, kPath);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "profiles[0].pluginConfig[2].args: expected object, got array");
}

TEST(ReadArgsTest, PathJoinsFieldNames) {
  auto r = ReadArgs(nullptr, kPath);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->PathOf("hardPodAffinityWeight"),
            "profiles[0].pluginConfig[2].args.hardPodAffinityWeight");
}

}  // namespace
}  // namespace berth::framework
