// ReadJsonEvents (api/json/events.h): the same documents, numbers and error texts as ParseJson,
// delivered as events.
#include "api/json/events.h"

#include <gtest/gtest.h>

#include <string>

#include "api/json/parse.h"

namespace berth::api::json {
namespace {

// Writes the events as a compact trace: n b i:<int> d:<double> s:<text> { k:<key> } [ ].
class Trace final : public JsonHandler {
 public:
  explicit Trace(int stop_after = -1) : left_(stop_after) {}
  bool Null() override { return Add("n"); }
  bool Bool(bool b) override { return Add(b ? "true" : "false"); }
  bool Int(int64_t i) override { return Add("i:" + std::to_string(i)); }
  bool Double(double d) override { return Add("d:" + std::to_string(d)); }
  bool String(std::string_view s) override { return Add("s:" + std::string(s)); }
  bool StartObject() override { return Add("{"); }
  bool Key(std::string_view k) override { return Add("k:" + std::string(k)); }
  bool EndObject() override { return Add("}"); }
  bool StartArray() override { return Add("["); }
  bool EndArray() override { return Add("]"); }
  std::string out;

 private:
  bool Add(const std::string& e) {
    if (left_ == 0) return false;
    if (left_ > 0) --left_;
    out += (out.empty() ? "" : " ") + e;
    return true;
  }
  int left_;
};

TEST(ReadJsonEventsTest, EventsInDocumentOrderWithParseJsonsNumbers) {
  Trace t;
  ASSERT_TRUE(ReadJsonEvents(R"({"a":[1,-2,9223372036854775808,1.5,"x",true,null],"a":{}})", t));
  // Duplicate keys come as they are; an integer beyond int64 is a double, as ParseJson's.
  EXPECT_EQ(t.out,
            "{ k:a [ i:1 i:-2 d:9223372036854775808.000000 d:1.500000 s:x true n ] k:a { } }");
  Trace zero;
  ASSERT_TRUE(ReadJsonEvents("[0e50]", zero));  // RapidJSON's own conversion got this wrong
  EXPECT_EQ(zero.out, "[ d:0.000000 ]");
}

TEST(ReadJsonEventsTest, ErrorsAreParseJsons) {
  const std::string deep = std::string(513, '[') + std::string(513, ']');
  for (const std::string doc :
       {std::string("{\"a\":1,}"), std::string("[1e999]"), std::string("[\"a\0b\"]", 7), deep,
        std::string("[\"\xff\"]"), std::string(""), std::string("[1] 2")}) {
    Trace t;
    Ok events = ReadJsonEvents(doc, t);
    auto tree = ParseJson(doc);
    ASSERT_FALSE(events.ok()) << doc;
    ASSERT_FALSE(tree.ok()) << doc;
    EXPECT_EQ(events.error(), tree.error()) << doc;
  }
}

TEST(ReadJsonEventsTest, AHandlerThatStopsEndsTheRead) {
  Trace t(/*stop_after=*/3);
  Ok read = ReadJsonEvents(R"({"a":1,"b":2})", t);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error(), "stopped at offset 10");
  EXPECT_EQ(t.out, "{ k:a i:1");
}

}  // namespace
}  // namespace berth::api::json
