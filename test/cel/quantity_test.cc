#include "cel/quantity.h"

#include <gtest/gtest.h>

namespace berth::cel {
namespace {

__int128 Nanos(std::string_view text) {
  auto q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.error();
  return q.ok() ? q->nanos : 0;
}

bool IsInteger(std::string_view text) {
  int64_t v;
  return Quantity::Parse(text)->AsInt64(&v);
}

TEST(QuantityTest, ExactToTheNanoUnit) {
  EXPECT_TRUE(Nanos("1Gi") == __int128{1073741824} * 1000000000);
  EXPECT_TRUE(Nanos("1u") == 1000);
  EXPECT_TRUE(Nanos("1n") == 1);
  EXPECT_TRUE(Nanos("0.0000000001") == 1);    // finer than 1n rounds up
  EXPECT_TRUE(Nanos("-0.0000000001") == -1);  // away from zero
  EXPECT_TRUE(Nanos("0.1Ki") == __int128{102400000000});
  EXPECT_TRUE(Nanos("1e-3") == 1000000);
  EXPECT_TRUE(Nanos("+.5") == 500000000);
}

TEST(QuantityTest, FormatErrors) {
  for (const char* bad : {"", "1x", "1 Gi", "1.2.3", "1Gix"}) {
    auto q = Quantity::Parse(bad);
    ASSERT_FALSE(q.ok()) << bad;
    EXPECT_EQ(q.error(),
              "quantities must match the regular expression "
              "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  }
}

TEST(QuantityTest, SuffixErrorsAndEmptyNumbers) {
  for (const char* bad : {"1e", "1K", "1mm", "--1", "1ee3"}) {
    auto q = Quantity::Parse(bad);
    ASSERT_FALSE(q.ok()) << bad;
    EXPECT_EQ(q.error(), "unable to parse quantity's suffix") << bad;
  }
  // parseQuantityString accepts an empty number: these are all zero.
  for (const char* zero : {"Gi", ".", "-", "+.", "0", "-0.0"}) {
    auto q = Quantity::Parse(zero);
    ASSERT_TRUE(q.ok()) << zero;
    EXPECT_TRUE(q->nanos == 0) << zero;
  }
}

TEST(QuantityTest, IntegerFormFollowsTheText) {
  // resource.Quantity keeps int64Amount{value, scale} only for some texts (see quantity.h).
  EXPECT_TRUE(IsInteger("8"));
  EXPECT_TRUE(IsInteger("1k"));
  EXPECT_TRUE(IsInteger("1.5k"));
  EXPECT_TRUE(IsInteger("1Gi"));
  EXPECT_TRUE(IsInteger("999999999999999999"));
  EXPECT_FALSE(IsInteger("1000000000000000000"));  // 19 digits: inf.Dec
  EXPECT_FALSE(IsInteger("1.0"));
  EXPECT_FALSE(IsInteger("1000m"));
  EXPECT_FALSE(IsInteger("0.5Ki"));
  EXPECT_FALSE(IsInteger("1Ei"));
  EXPECT_FALSE(IsInteger("10E"));  // overflows int64
}

TEST(QuantityTest, AddKeepsTheIntegerFormWhileItFits) {
  Quantity one = *Quantity::Parse("1");
  Quantity milli = *Quantity::Parse("1m");
  Quantity sum = one.Add(milli).Sub(milli);
  EXPECT_EQ(sum, one);
  int64_t v;
  EXPECT_FALSE(sum.AsInt64(&v));  // scale -3 after mixing with milli-units, as upstream
  EXPECT_TRUE(sum.boxed);
  EXPECT_TRUE(one.Add(Quantity::FromInt(2)).AsInt64(&v));
  EXPECT_EQ(v, 3);
}

TEST(QuantityTest, FromApi) {
  int64_t v;
  EXPECT_TRUE(Quantity::FromApi(*api::Quantity::Parse("40Gi")).AsInt64(&v));
  EXPECT_EQ(v, int64_t{40} << 30);
  EXPECT_FALSE(Quantity::FromApi(*api::Quantity::Parse("1500m")).AsInt64(&v));
  EXPECT_EQ(Quantity::FromApi(*api::Quantity::Parse("1500m")), *Quantity::Parse("1.5"));
}

}  // namespace
}  // namespace berth::cel
