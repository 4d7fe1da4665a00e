#include "cel/regex.h"

#include <gtest/gtest.h>

namespace berth::cel {
namespace {

bool Search(std::string_view re2, const std::string& text) {
  auto re = CompileRegex(re2);
  EXPECT_TRUE(re.has_value()) << re2;
  return re && std::regex_search(text, *re);
}

TEST(RegexTest, TranslatesRe2Spellings) {
  EXPECT_TRUE(Search("(?i)^A100$", "a100"));
  EXPECT_FALSE(Search("^A100$", "a100"));
  EXPECT_TRUE(Search("(?P<model>a[0-9]+)", "gpu-a100"));
  EXPECT_TRUE(Search("\\Agpu\\z", "gpu"));
  EXPECT_FALSE(Search("\\Agpu\\z", "gpu0"));
  EXPECT_TRUE(Search("[\\]a]", "]"));
  EXPECT_TRUE(Search("[[:digit:]]+", "42"));
}

TEST(RegexTest, InvalidPatterns) {
  std::string why;
  EXPECT_FALSE(CompileRegex("(", &why).has_value());
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(CompileRegex("[").has_value());
}

}  // namespace
}  // namespace berth::cel
