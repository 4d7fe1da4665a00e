#include "api/json/parse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace berth::api::json {
namespace {

Value ParseOneYaml(const std::string& text) {
  auto docs = ParseYamlDocuments(text);
  EXPECT_TRUE(docs.ok()) << docs.error();
  if (!docs.ok() || docs->size() != 1) {
    ADD_FAILURE() << "want one document from: " << text;
    return Value();
  }
  return (*docs)[0];
}

TEST(ParseJsonTest, TypesAndNumbers) {
  auto v = ParseJson(
      R"({"i":42,"neg":-7,"big":9223372036854775807,"huge":18446744073709551615,)"
      R"("d":1.5,"one":1.0,"e":1e3,"s":"x\u00e9\n","b":true,"n":null,"a":[1,"2"],"o":{}})");
  ASSERT_TRUE(v.ok()) << v.error();
  EXPECT_TRUE(v->Find("i")->IsInt());
  EXPECT_EQ(v->Find("i")->AsInt(), 42);
  EXPECT_EQ(v->Find("neg")->AsInt(), -7);
  EXPECT_EQ(v->Find("big")->AsInt(), std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(v->Find("huge")->IsDouble()) << "out of int64 becomes a double";
  EXPECT_TRUE(v->Find("d")->IsDouble());
  EXPECT_EQ(v->Find("d")->AsDouble(), 1.5);
  EXPECT_TRUE(v->Find("one")->IsDouble()) << "a non-integer literal stays a double";
  EXPECT_TRUE(v->Find("e")->IsDouble());
  EXPECT_EQ(v->Find("s")->AsString(), "x\xc3\xa9\n");
  EXPECT_TRUE(v->Find("b")->AsBool());
  EXPECT_TRUE(v->Find("n")->IsNull());
  ASSERT_TRUE(v->Find("a")->IsArray());
  EXPECT_EQ(v->Find("a")->AsArray().size(), 2u);
  EXPECT_TRUE(v->Find("o")->IsObject());
  // Insertion order is kept.
  EXPECT_EQ(v->AsObject().front().first, "i");
}

// RapidJSON 1.1.0's full-precision conversion read a zero significand with an exponent as
// garbage: "0e50" was 2.1e124 (clang) or -1.6e-266 (g++), "0e-50" 1.4e-17 (found by fuzz_json).
TEST(ParseJsonTest, ZeroWithAnExponentIsZero) {
  for (const char* text : {"0e50", "0e-50", "-0E+5", "0.000e10", "[0e50]"}) {
    auto v = ParseJson(text);
    ASSERT_TRUE(v.ok()) << text << ": " << v.error();
    const auto& n = v->IsArray() ? v->AsArray().at(0) : *v;
    ASSERT_TRUE(n.IsDouble()) << text;
    EXPECT_EQ(n.AsDouble(), 0.0) << text;
  }
  auto v = ParseJson(R"([0.1, 1e-400, 123456789012345678901234567890, -9223372036854775808, -0])");
  ASSERT_TRUE(v.ok()) << v.error();
  EXPECT_EQ(v->AsArray()[0].AsDouble(), 0.1);
  EXPECT_EQ(v->AsArray()[1].AsDouble(), 0.0);
  EXPECT_EQ(v->AsArray()[2].AsDouble(), 1.2345678901234568e29);
  EXPECT_EQ(v->AsArray()[3].AsInt(), std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(v->AsArray()[4].IsInt());
  auto big = ParseJson("[1.8e308]");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().find("Number too big"), std::string::npos) << big.error();
}

TEST(ParseJsonTest, Errors) {
  struct Case {
    std::string input;
    std::string want_prefix;
  };
  for (const Case& c :
       {Case{"", "invalid JSON at offset 0: "}, Case{"{\"a\":1", "invalid JSON at offset 6: "},
        Case{"{\"a\":1} x", "invalid JSON at offset 8: "},
        Case{"[1,]", "invalid JSON at offset 3: "},
        Case{"{\"a\":\"\xff\"}", "invalid JSON at offset "},
        Case{std::string("{}\0{}", 5), "invalid JSON at offset 2: "},
        Case{"nul", "invalid JSON at offset "}}) {
    auto v = ParseJson(c.input);
    ASSERT_FALSE(v.ok()) << c.input;
    EXPECT_EQ(v.error().rfind(c.want_prefix, 0), 0u) << v.error();
  }
}

TEST(ParseJsonTest, DeepNestingIsAnErrorNotACrash) {
  for (int depth : {513, 10000, 1000000}) {
    auto v = ParseJson(std::string(depth, '['));
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.error().find("nesting deeper than 512 levels"), std::string::npos) << v.error();
  }
  std::string ok_depth = std::string(512, '[') + std::string(512, ']');
  EXPECT_TRUE(ParseJson(ok_depth).ok());
}

TEST(ParseYamlTest, CoreSchemaScalars) {
  Value v = ParseOneYaml(R"(
null1: null
null2: ~
null3:
null4: NULL
t1: true
t2: True
t3: TRUE
f1: false
i1: 42
i2: -17
i3: +5
i4: 0x1F
i5: 0o17
i6: 0
d1: 1.5
d2: 1e3
d3: .5
d4: -.inf
d5: .NaN
d6: 6.02e+23
big: 99999999999999999999
s1: "42"
s2: 'true'
s3: hello world
s4: yes
s5: 1.5.3
s6: 0x
s7: !!str 12
s8: "null"
i7: !!int "12"
d7: !!float 3
b1: !!bool "true"
dash: "-"
)");
  for (const char* k : {"null1", "null2", "null3", "null4"}) {
    ASSERT_NE(v.Find(k), nullptr) << k;
    EXPECT_TRUE(v.Find(k)->IsNull()) << k;
  }
  for (const char* k : {"t1", "t2", "t3"}) EXPECT_TRUE(v.Find(k)->IsBool() && v.Find(k)->AsBool());
  EXPECT_TRUE(v.Find("f1")->IsBool() && !v.Find("f1")->AsBool());
  EXPECT_EQ(v.Find("i1")->AsInt(), 42);
  EXPECT_EQ(v.Find("i2")->AsInt(), -17);
  EXPECT_EQ(v.Find("i3")->AsInt(), 5);
  EXPECT_EQ(v.Find("i4")->AsInt(), 31);
  EXPECT_EQ(v.Find("i5")->AsInt(), 15);
  EXPECT_TRUE(v.Find("i6")->IsInt());
  EXPECT_TRUE(v.Find("i7")->IsInt());
  EXPECT_EQ(v.Find("i7")->AsInt(), 12);
  EXPECT_TRUE(v.Find("d1")->IsDouble());
  EXPECT_EQ(v.Find("d2")->AsDouble(), 1000);
  EXPECT_TRUE(v.Find("d2")->IsDouble());
  EXPECT_EQ(v.Find("d3")->AsDouble(), 0.5);
  EXPECT_TRUE(std::isinf(v.Find("d4")->AsDouble()) && v.Find("d4")->AsDouble() < 0);
  EXPECT_TRUE(std::isnan(v.Find("d5")->AsDouble()));
  EXPECT_EQ(v.Find("d6")->AsDouble(), 6.02e23);
  EXPECT_TRUE(v.Find("d7")->IsDouble());
  EXPECT_TRUE(v.Find("big")->IsDouble());
  EXPECT_TRUE(v.Find("b1")->IsBool());
  struct Str {
    const char* key;
    const char* want;
  };
  for (const Str& s : {Str{"s1", "42"}, Str{"s2", "true"}, Str{"s3", "hello world"},
                       Str{"s4", "yes"}, Str{"s5", "1.5.3"}, Str{"s6", "0x"}, Str{"s7", "12"},
                       Str{"s8", "null"}, Str{"dash", "-"}}) {
    ASSERT_TRUE(v.Find(s.key)->IsString()) << s.key << " is " << v.Find(s.key)->TypeName();
    EXPECT_EQ(v.Find(s.key)->AsString(), s.want);
  }
}

TEST(ParseYamlTest, MultipleDocumentsAndEmptyOnesDropped) {
  auto docs = ParseYamlDocuments("---\na: 1\n---\n---\n# only a comment\n---\nnull\n---\n- x\n");
  ASSERT_TRUE(docs.ok()) << docs.error();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0].Find("a")->AsInt(), 1);
  EXPECT_TRUE((*docs)[1].IsArray());
  auto empty = ParseYamlDocuments("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(ParseYamlTest, JsonIsYaml) {
  Value v = ParseOneYaml(R"({"kind": "Pod", "n": [1, 2.5, "x", null, true]})");
  EXPECT_EQ(ToJson(v), R"({"kind":"Pod","n":[1,2.5,"x",null,true]})");
}

TEST(ParseYamlTest, AnchorsAndAliases) {
  Value v = ParseOneYaml("base: &b {cpu: 1}\ncopy: *b\nlist: [&x 7, *x]\n");
  EXPECT_EQ(ToJson(v), R"({"base":{"cpu":1},"copy":{"cpu":1},"list":[7,7]})");
}

TEST(ParseYamlTest, AliasBombIsRefused) {
  std::string text = "a0: &a0 [x,x,x,x,x,x,x,x,x,x]\n";
  for (int i = 1; i < 10; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ",*a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  auto docs = ParseYamlDocuments(text);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.error().find("alias expansion"), std::string::npos) << docs.error();
}

TEST(ParseYamlTest, AliasesOfLongStringsAreBoundedInBytes) {
  // 12.5 KB of text that would expand to ~4 GB: a 1 KB string aliased 1,900 times in a list, and
  // that list aliased 1,900 times. Refused (by bytes: far fewer than the node limit) before it
  // costs memory.
  std::string text = "s: &s " + std::string(1024, 'x') + "\nl: &l [";
  for (int i = 0; i < 1900; ++i) text += i ? ",*s" : "*s";
  text += "]\nll: [";
  for (int i = 0; i < 1900; ++i) text += i ? ",*l" : "*l";
  text += "]\n";
  auto docs = ParseYamlDocuments(text);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.error().find("document too large after alias expansion"), std::string::npos)
      << docs.error();
  // A modest use of the same aliases still parses.
  auto small = ParseYamlDocuments("s: &s " + std::string(1024, 'x') + "\nl: [*s, *s, *s]\n");
  ASSERT_TRUE(small.ok()) << small.error();
  EXPECT_EQ((*small)[0].Find("l")->AsArray().size(), 3u);
}

TEST(ParseYamlTest, DuplicateKeysAreErrorsNamingThePathAndLine) {
  auto docs = ParseYamlDocuments(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "- schedulerName: berth-scheduler\n"
      "  plugins: {}\n"
      "  schedulerName: other\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(
      docs.error(),
      "line 6, column 3: profiles[0].schedulerName: key \"schedulerName\" already set in map");
  auto root = ParseYamlDocuments("a: 1\nb: 2\na: 3\n");
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.error(), "line 3, column 1: a: key \"a\" already set in map");
  // Many keys, the duplicate at the end: found through the hash set, same message.
  std::string many = "labels:\n";
  for (int i = 0; i < 100; ++i) many += "  k" + std::to_string(i) + ": v\n";
  many += "  k7: again\n";
  auto big = ParseYamlDocuments(many);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error(), "line 102, column 3: labels.k7: key \"k7\" already set in map");
}

TEST(ParseJsonTest, DuplicateKeysLastWinsAtTheFirstPosition) {
  auto v = ParseJson(R"({"a": 1, "b": 2, "a": 3})");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(ToJson(*v), R"({"a":3,"b":2})");
  std::string big = "{";
  for (int i = 0; i < 40; ++i) big += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  big += "\"k3\":\"last\"}";
  auto w = ParseJson(big);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->AsObject().size(), 40u);
  EXPECT_EQ(w->AsObject()[3].second.AsString(), "last");
}

TEST(ParseYamlTest, ErrorsCarryLineAndColumn) {
  struct Case {
    std::string input;
    std::string want;
  };
  for (const Case& c : {
           Case{"a: [1, 2\n", "line 2, column 1: end of sequence flow not found"},
           Case{"a: 1\n  b: 2\n", "line 2, column 4: illegal map value"},
           Case{"{a: 1\n", "line 2, column 1: end of map flow not found"},
           Case{"? [a]\n: 1\n", "line 1, column 3: mapping keys must be scalars"},
           Case{"a: !!int x\n", "line 1, column 4: invalid !!int value \"x\""},
           Case{"a: *nope\n", "line 1, column 4: "},
       }) {
    auto docs = ParseYamlDocuments(c.input);
    ASSERT_FALSE(docs.ok()) << c.input;
    EXPECT_EQ(docs.error().rfind(c.want, 0), 0u) << docs.error();
  }
}

TEST(ParseYamlTest, StrayTokensDoNotHang) {
  // yaml-cpp 0.7 loops forever on these (jbeder/yaml-cpp#1040) unless the builder stops it.
  for (const char* text : {",", ",\napiVersion: v1\n", " ,\na", "a: 1\n---\n,\n", "[:", "{:"}) {
    auto docs = ParseYamlDocuments(text);
    ASSERT_FALSE(docs.ok()) << text;
    EXPECT_EQ(docs.error().rfind("line ", 0), 0u) << docs.error();
  }
}

TEST(ParseYamlTest, TruncatedDocument) {
  std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n"
      "  - name: c\n    resources: {requests: {cpu: \"1\"";
  auto docs = ParseYamlDocuments(pod);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.error().rfind("line ", 0), 0u) << docs.error();
}

TEST(ParseYamlTest, DeepNestingIsAnErrorNotACrash) {
  for (const std::string& text :
       {std::string(10000, '['), std::string(10000, '[') + std::string(10000, ']'),
        std::string(10000, '{'), [] {
          std::string s;
          for (int i = 0; i < 3000; ++i) s += std::string(i, ' ') + "a:\n";
          return s;
        }()}) {
    auto docs = ParseYamlDocuments(text);
    ASSERT_FALSE(docs.ok());
    EXPECT_NE(docs.error().find("nesting deeper than"), std::string::npos) << docs.error();
  }
  std::string ok = std::string(100, '[') + std::string(100, ']');
  EXPECT_TRUE(ParseYamlDocuments(ok).ok());
}

TEST(ToJsonTest, EscapingAndRoundTrip) {
  Value v = Value::MakeObject();
  v.Set("quote\"", Value::String("a\\b\"c\n\t\r\b\f\x01\x7f\xc3\xa9"));
  v.Set("d", Value::Double(0.1));
  v.Set("whole", Value::Double(3));
  v.Set("tiny", Value::Double(1e-300));
  v.Set("inf", Value::Double(std::numeric_limits<double>::infinity()));
  v.Set("i", Value::Int(std::numeric_limits<int64_t>::min()));
  v.Set("arr", Value::MakeArray());
  std::string text = ToJson(v);
  EXPECT_EQ(text,
            "{\"quote\\\"\":\"a\\\\b\\\"c\\n\\t\\r\\b\\f\\u0001\\u007f\xc3\xa9\",\"d\":0.1,"
            "\"whole\":3.0,\"tiny\":1e-300,\"inf\":null,\"i\":-9223372036854775808,\"arr\":[]}");
  auto back = ParseJson(text);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->Find("quote\"")->AsString(), v.Find("quote\"")->AsString());
  EXPECT_EQ(back->Find("d")->AsDouble(), 0.1);
  EXPECT_TRUE(back->Find("whole")->IsDouble());
  EXPECT_EQ(back->Find("tiny")->AsDouble(), 1e-300);
  EXPECT_EQ(back->Find("i")->AsInt(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ToJson(*back), text);
}

TEST(ToJsonTest, DoublesRoundTripExactly) {
  for (double d : {0.1, 1.0 / 3, 123456789.123456789, 5e-324, 1.7976931348623157e308, -2.5}) {
    Value v = Value::Double(d);
    auto back = ParseJson(ToJson(v));
    ASSERT_TRUE(back.ok()) << ToJson(v);
    EXPECT_EQ(back->AsDouble(), d) << ToJson(v);
  }
}

}  // namespace
}  // namespace berth::api::json
