#include "api/reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/json/parse.h"

namespace berth::api {
namespace {

Value Yaml(const std::string& text) {
  auto docs = json::ParseYamlDocuments(text);
  EXPECT_TRUE(docs.ok()) << docs.error();
  if (!docs.ok() || docs->size() != 1) return Value();
  return (*docs)[0];
}

struct Item {
  std::string name;
  int32_t weight = 0;
};

struct Doc {
  std::string name;
  std::vector<Item> items;
  std::vector<std::string> tags;
  bool on = false;
};

Ok ReadItem(const Reader& in, Item* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  return in.Int32("weight", &out->weight);
}

Ok ReadDoc(const Reader& in, Doc* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  BERTH_RETURN_IF_ERROR(in.List("items", &out->items, ReadItem));
  BERTH_RETURN_IF_ERROR(in.Strings("tags", &out->tags));
  return in.Object("nested", [&](const Reader& n) { return n.Bool("on", &out->on); });
}

Result<Doc> Read(const std::string& yaml, ReadMode mode = kStrict) {
  return ReadObject<Doc>(Yaml(yaml), "root", mode, ReadDoc);
}

TEST(Reader, ReadsFields) {
  auto d = Read("name: a\nitems: [{name: x, weight: 2}]\ntags: [t]\nnested: {on: true}\n");
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->name, "a");
  ASSERT_EQ(d->items.size(), 1u);
  EXPECT_EQ(d->items[0].weight, 2);
  EXPECT_EQ(d->tags, std::vector<std::string>{"t"});
  EXPECT_TRUE(d->on);
}

TEST(Reader, NullAndAbsentLeaveDefaults) {
  auto d = Read("name: null\nitems: ~\n");
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->name, "");
  EXPECT_TRUE(d->items.empty());
}

TEST(Reader, OneWordingForEveryError) {
  struct Case {
    std::string yaml;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"name: 1\n", "root.name: expected string, got integer"},
      {"items: {}\n", "root.items: expected array, got object"},
      {"items: [a]\n", "root.items[0]: expected object, got string"},
      {"items: [{weight: x}]\n", "root.items[0].weight: expected integer, got string"},
      {"items: [{weight: 1.5}]\n", "root.items[0].weight: expected integer, got number"},
      {"items: [{weight: 2.0}]\n", "root.items[0].weight: expected integer, got number"},
      {"items: [{weight: 3000000000}]\n",
       "root.items[0].weight: value 3000000000 out of range for int32"},
      {"tags: t\n", "root.tags: expected array of strings, got string"},
      {"tags: [1]\n", "root.tags[0]: expected string, got integer"},
      {"nested: {on: yes please}\n", "root.nested.on: expected boolean, got string"},
      {"nested: []\n", "root.nested: expected object, got array"},
      {"bogus: 1\n", "strict decoding error: unknown field \"root.bogus\""},
      {"items: [{name: a, bogus: 1}]\n",
       "strict decoding error: unknown field \"root.items[0].bogus\""},
      {"nested: {bogus: 1}\n", "strict decoding error: unknown field \"root.nested.bogus\""},
  };
  for (const auto& c : cases) {
    auto d = Read(c.yaml);
    ASSERT_FALSE(d.ok()) << c.yaml;
    EXPECT_EQ(d.error(), c.want) << c.yaml;
    EXPECT_EQ(d.code(), ErrorCode::kInvalid) << c.yaml;
  }
}

TEST(Reader, ObjectModeIgnoresUnknownFieldsAndTakesIntegralNumbers) {
  auto d = Read("bogus: 1\nitems: [{weight: 2.0, extra: x}]\n", kObjectMode);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->items[0].weight, 2);
  auto bad = Read("items: [{weight: 2.5}]\n", kObjectMode);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "root.items[0].weight: expected integer, got number");
}

TEST(Reader, DuplicateFieldsAreErrorsInEveryMode) {
  // api/json's builders fold duplicate keys (the last wins), so build the object by hand.
  Value v = Value::MakeObject();
  v.MutableObject().emplace_back("name", Value::String("a"));
  v.MutableObject().emplace_back("name", Value::String("b"));
  for (ReadMode mode : {kStrict, kObjectMode}) {
    auto d = ReadObject<Doc>(v, "root", mode, ReadDoc);
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.error(), "strict decoding error: duplicate field \"root.name\"");
  }
}

TEST(Reader, RequireAndRootPaths) {
  Value v = Yaml("a: 1\n");
  auto r = Reader::Of(&v, "");
  ASSERT_TRUE(r.ok());
  Ok missing = r->Require("kind");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "kind: kind is required");
  int32_t a = 0;
  ASSERT_TRUE(r->Int32("a", &a).ok());
  EXPECT_TRUE(r->Done().ok());
  Value list = Yaml("[1]\n");
  auto not_object = Reader::Of(&list, "");
  ASSERT_FALSE(not_object.ok());
  EXPECT_EQ(not_object.error(), "expected object, got array");
}

TEST(Reader, IgnoreMarksAFieldKnown) {
  Value v = Yaml("apiVersion: x\nkind: y\n");
  auto r = Reader::Of(&v, "args");
  ASSERT_TRUE(r.ok());
  r->Ignore("apiVersion");
  Ok left = r->Done();
  ASSERT_FALSE(left.ok());
  EXPECT_EQ(left.error(), "strict decoding error: unknown field \"args.kind\"");
  r->Ignore("kind");
  EXPECT_TRUE(r->Done().ok());
}

}  // namespace
}  // namespace berth::api
