#include "api/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace berth::api {
namespace {

struct ParseCase {
  std::string text;
  int64_t milli;
};

class QuantityParseTest : public testing::TestWithParam<ParseCase> {};

TEST_P(QuantityParseTest, ParsesExactly) {
  const ParseCase& c = GetParam();
  auto q = Quantity::Parse(c.text);
  ASSERT_TRUE(q.ok()) << c.text << ": " << q.error();
  EXPECT_EQ(q->milli, c.milli) << c.text;
}

constexpr int64_t kKi = 1024;
constexpr int64_t kMi = kKi * 1024;
constexpr int64_t kGi = kMi * 1024;

INSTANTIATE_TEST_SUITE_P(
    Forms, QuantityParseTest,
    testing::Values(ParseCase{"1500m", 1500}, ParseCase{"1.5", 1500},
                    ParseCase{"2Gi", 2 * kGi * 1000}, ParseCase{"2G", 2'000'000'000'000},
                    ParseCase{"1e3", 1'000'000}, ParseCase{"1E3", 1'000'000},
                    ParseCase{"1e+3", 1'000'000}, ParseCase{"512Mi", 512 * kMi * 1000},
                    ParseCase{"100k", 100'000'000}, ParseCase{"0.1", 100}, ParseCase{"1n", 1},
                    ParseCase{"1u", 1}, ParseCase{"1000000n", 1}, ParseCase{"1000001n", 2},
                    ParseCase{"-1", -1000}, ParseCase{"+1", 1000}, ParseCase{"0", 0},
                    ParseCase{"-0", 0}, ParseCase{"0.0001", 1}, ParseCase{"-0.0001", -1},
                    ParseCase{"1.", 1000}, ParseCase{".5", 500}, ParseCase{"1Ki", 1024'000},
                    ParseCase{"1.5Ki", 1536'000}, ParseCase{"0.5Ki", 512'000}, ParseCase{"1e-3", 1},
                    ParseCase{"1e-4", 1}, ParseCase{"12e-1", 1200}, ParseCase{"1M", 1'000'000'000},
                    ParseCase{"1T", 1'000'000'000'000'000},
                    ParseCase{"1P", 1'000'000'000'000'000'000},
                    ParseCase{"7Pi", 7 * kGi* kMi * 1000}, ParseCase{"0e99999999", 0},
                    ParseCase{"000012", 12000},
                    ParseCase{"9223372036854775807m", std::numeric_limits<int64_t>::max()},
                    ParseCase{"0.000000000000000000000000000001", 1}));

struct BadCase {
  std::string text;
  std::string error;
};

class QuantityErrorTest : public testing::TestWithParam<BadCase> {};

TEST_P(QuantityErrorTest, Rejects) {
  const BadCase& c = GetParam();
  auto q = Quantity::Parse(c.text);
  ASSERT_FALSE(q.ok()) << c.text << " parsed as " << q->milli;
  EXPECT_EQ(q.error(), c.error);
}

std::string Invalid(const std::string& t) { return "invalid quantity \"" + t + "\""; }
std::string TooLarge(const std::string& t) { return "quantity \"" + t + "\" is too large"; }

INSTANTIATE_TEST_SUITE_P(
    Malformed, QuantityErrorTest,
    testing::Values(BadCase{"1.5.3", Invalid("1.5.3")}, BadCase{"", Invalid("")},
                    BadCase{"abc", Invalid("abc")}, BadCase{"1Kb", Invalid("1Kb")},
                    BadCase{" 1", Invalid(" 1")}, BadCase{"1 ", Invalid("1 ")},
                    BadCase{".", Invalid(".")}, BadCase{"-", Invalid("-")},
                    BadCase{"+-1", Invalid("+-1")}, BadCase{"1K", Invalid("1K")},
                    BadCase{"1e", Invalid("1e")}, BadCase{"1e1.5", Invalid("1e1.5")},
                    BadCase{"1ee3", Invalid("1ee3")}, BadCase{"1Gii", Invalid("1Gii")},
                    BadCase{"Gi", Invalid("Gi")}, BadCase{"0x10", Invalid("0x10")},
                    BadCase{"1e99999999999999999999", Invalid("1e99999999999999999999")},
                    BadCase{"1e30", TooLarge("1e30")},
                    BadCase{"99999999999999Ei", TooLarge("99999999999999Ei")},
                    BadCase{"8Ei", TooLarge("8Ei")},
                    BadCase{"9223372036854775808m", TooLarge("9223372036854775808m")},
                    BadCase{"10E", TooLarge("10E")}, BadCase{"1e1000", TooLarge("1e1000")},
                    BadCase{"-1e30", TooLarge("-1e30")}));

TEST(QuantityTest, ToString) {
  struct Case {
    int64_t milli;
    std::string want;
  };
  for (const Case& c :
       {Case{1500, "1500m"}, Case{2000, "2"}, Case{0, "0"}, Case{2 * kGi * 1000, "2Gi"},
        Case{512 * kMi * 1000, "512Mi"}, Case{1024 * 1000, "1Ki"}, Case{1536 * 1000, "1536"},
        Case{1000 * 1000, "1000"}, Case{-1500, "-1500m"}, Case{-2048 * 1000, "-2Ki"},
        Case{512 * 1000, "512"}, Case{3 * kGi * 1024 * 1000, "3Ti"}}) {
    EXPECT_EQ(Quantity::FromMilli(c.milli).ToString(), c.want) << c.milli;
  }
}

TEST(QuantityTest, ToStringRoundTrips) {
  for (const char* text : {"1500m", "2Gi", "2G", "1e3", "512Mi", "100k", "0.1", "1n", "-1"}) {
    auto q = Quantity::Parse(text);
    ASSERT_TRUE(q.ok()) << text;
    auto again = Quantity::Parse(q->ToString());
    ASSERT_TRUE(again.ok()) << q->ToString();
    EXPECT_EQ(*again, *q) << text;
  }
}

TEST(QuantityTest, ValueRoundsAwayFromZero) {
  EXPECT_EQ(Quantity::FromMilli(1500).Value(), 2);
  EXPECT_EQ(Quantity::FromMilli(2000).Value(), 2);
  EXPECT_EQ(Quantity::FromMilli(1).Value(), 1);
  EXPECT_EQ(Quantity::FromMilli(0).Value(), 0);
  EXPECT_EQ(Quantity::FromMilli(-1500).Value(), -2);
  EXPECT_EQ(Quantity::FromMilli(-2000).Value(), -2);
  EXPECT_EQ(Quantity::FromValue(3).MilliValue(), 3000);
}

}  // namespace
}  // namespace berth::api
