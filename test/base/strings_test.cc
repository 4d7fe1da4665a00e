#include "base/strings.h"

#include <gtest/gtest.h>

namespace berth {
namespace {

// Continue tokens and resourceVersions go into list and watch URLs: what is not unreserved is
// percent-encoded, as Go's url.QueryEscape does (which writes a space as '+'; berth writes %20,
// which every server decodes the same).
TEST(QueryEscapeTest, UnreservedStaysOthersArePercentEncoded) {
  EXPECT_EQ(QueryEscape("abcXYZ019-_.~"), "abcXYZ019-_.~");
  EXPECT_EQ(QueryEscape("eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ=="),
            "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ%3D%3D");
  EXPECT_EQ(QueryEscape("a+b/c&d e"), "a%2Bb%2Fc%26d%20e");
  EXPECT_EQ(QueryEscape("\xff"), "%FF");
  EXPECT_EQ(QueryEscape(""), "");
}

}  // namespace
}  // namespace berth
