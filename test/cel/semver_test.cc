#include "cel/semver.h"

#include <gtest/gtest.h>

namespace berth::cel {
namespace {

TEST(SemverTest, ParseStrict) {
  auto v = Semver::Parse("1.2.3-rc.1+build.5");
  ASSERT_TRUE(v.ok()) << v.error();
  EXPECT_EQ(v->major, 1u);
  EXPECT_EQ(v->minor, 2u);
  EXPECT_EQ(v->patch, 3u);
  EXPECT_EQ(v->pre, (std::vector<std::string>{"rc", "1"}));
  EXPECT_EQ(v->ToString(), "1.2.3-rc.1+build.5");
  EXPECT_EQ(Semver::Parse("1.2").error(), "No Major.Minor.Patch elements found");
  EXPECT_EQ(Semver::Parse("01.2.3").error(), "Major number must not contain leading zeroes \"01\"");
  EXPECT_EQ(Semver::Parse("1.2.x").error(), "Invalid character(s) found in patch number \"x\"");
  EXPECT_FALSE(Semver::Parse("v1.2.3").ok());
}

TEST(SemverTest, ParseNormalized) {
  EXPECT_EQ(Semver::ParseNormalized("v1.2")->ToString(), "1.2.0");
  EXPECT_EQ(Semver::ParseNormalized("1")->ToString(), "1.0.0");
  EXPECT_EQ(Semver::ParseNormalized("01.02.03")->ToString(), "1.2.3");
  EXPECT_EQ(Semver::ParseNormalized("1.2-rc").error(),
            "short version cannot contain PreRelease/Build meta data");
}

TEST(SemverTest, Precedence) {
  // The ordering example of semver.org section 11.
  const char* ordered[] = {"1.0.0-alpha",  "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
                           "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1",       "1.0.0",
                           "1.0.1",        "1.10.0"};
  for (size_t i = 0; i + 1 < std::size(ordered); ++i) {
    auto a = Semver::Parse(ordered[i]);
    auto b = Semver::Parse(ordered[i + 1]);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->Compare(*b), -1) << ordered[i] << " < " << ordered[i + 1];
    EXPECT_EQ(b->Compare(*a), 1);
  }
  EXPECT_EQ(Semver::Parse("1.0.0+a")->Compare(*Semver::Parse("1.0.0+b")), 0);
}

}  // namespace
}  // namespace berth::cel
