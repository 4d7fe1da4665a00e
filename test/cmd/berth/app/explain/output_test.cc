// -o json's indentation.

#include "cmd/berth/app/explain/output.h"

#include <gtest/gtest.h>

#include "api/json/parse.h"

namespace berth::explain {
namespace {

TEST(PrettyJsonTest, IndentsAndRoundTrips) {
  auto v = api::json::ParseJson(
      R"({"pod":"shop/web-1","filter":{"n1":"Insufficient cpu"},"nearest":[],"empty":{},)"
      R"("victims":[{"pod":"a","priority":1}],"n":3,"x":null,"q":"say \"hi\"\n"})");
  ASSERT_TRUE(v.ok()) << v.error();
  const std::string pretty = PrettyJson(*v);
  EXPECT_EQ(pretty,
            "{\n"
            "  \"pod\": \"shop/web-1\",\n"
            "  \"filter\": {\n"
            "    \"n1\": \"Insufficient cpu\"\n"
            "  },\n"
            "  \"nearest\": [],\n"
            "  \"empty\": {},\n"
            "  \"victims\": [\n"
            "    {\n"
            "      \"pod\": \"a\",\n"
            "      \"priority\": 1\n"
            "    }\n"
            "  ],\n"
            "  \"n\": 3,\n"
            "  \"x\": null,\n"
            "  \"q\": \"say \\\"hi\\\"\\n\"\n"
            "}");
  auto back = api::json::ParseJson(pretty);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(api::json::ToJson(*back), api::json::ToJson(*v));
}

}  // namespace
}  // namespace berth::explain
