#include "config/duration.h"

#include <gtest/gtest.h>

namespace berth::config {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(ParseGoDurationTest, Valid) {
  struct Case {
    const char* text;
    int64_t nanos;
  };
  const Case cases[] = {
      {"0", 0},
      {"15s", 15'000'000'000},
      {"1m30s", 90'000'000'000},
      {"500ms", 500'000'000},
      {"1h", 3'600'000'000'000},
      {"1.5h", 5'400'000'000'000},
      {".5s", 500'000'000},
      {"1.s", 1'000'000'000},
      {"-2s", -2'000'000'000},
      {"+3m", 180'000'000'000},
      {"10us", 10'000},
      {"10\xC2\xB5s", 10'000},
      {"7ns", 7},
      {"1h2m3s4ms5us6ns", 3'723'004'005'006},
      {"0s", 0},
      {"2562047h47m16.854775807s", INT64_MAX},
  };
  for (const Case& c : cases) {
    auto d = ParseGoDuration(c.text);
    ASSERT_TRUE(d.ok()) << c.text << ": " << d.error();
    EXPECT_EQ(d->count(), c.nanos) << c.text;
  }
}

TEST(ParseGoDurationTest, Invalid) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"", "time: invalid duration \"\""},
      {"abc", "time: invalid duration \"abc\""},
      {"1", "time: missing unit in duration \"1\""},
      {"10", "time: missing unit in duration \"10\""},
      {"1d", "time: unknown unit \"d\" in duration \"1d\""},
      {"1s2", "time: missing unit in duration \"1s2\""},
      {".s", "time: invalid duration \".s\""},
      {"-", "time: invalid duration \"-\""},
      {"3000000h", "time: invalid duration \"3000000h\""},
      {"99999999999999999999s", "time: invalid duration \"99999999999999999999s\""},
  };
  for (const Case& c : cases) {
    auto d = ParseGoDuration(c.text);
    ASSERT_FALSE(d.ok()) << c.text;
    EXPECT_EQ(d.error(), c.error);
  }
}

TEST(FormatGoDurationTest, LikeGo) {
  EXPECT_EQ(FormatGoDuration(milliseconds(0)), "0s");
  EXPECT_EQ(FormatGoDuration(milliseconds(500)), "500ms");
  EXPECT_EQ(FormatGoDuration(milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatGoDuration(milliseconds(2400)), "2.4s");
  EXPECT_EQ(FormatGoDuration(milliseconds(1050)), "1.05s");
  EXPECT_EQ(FormatGoDuration(milliseconds(15000)), "15s");
  EXPECT_EQ(FormatGoDuration(milliseconds(90000)), "1m30s");
  EXPECT_EQ(FormatGoDuration(milliseconds(7200000)), "2h0m0s");
  EXPECT_EQ(FormatGoDuration(milliseconds(-1000)), "-1s");
}

}  // namespace
}  // namespace berth::config
