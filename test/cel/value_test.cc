#include "cel/value.h"

#include <gtest/gtest.h>

#include <cmath>

namespace berth::cel {
namespace {

Value S(const char* s) { return Value{std::string(s)}; }

TEST(ValueTest, HeterogeneousNumericEquality) {
  EXPECT_TRUE(Equal(Value{int64_t{1}}, Value{uint64_t{1}}));
  EXPECT_TRUE(Equal(Value{int64_t{1}}, Value{1.0}));
  EXPECT_FALSE(Equal(Value{int64_t{-1}}, Value{uint64_t{18446744073709551615u}}));
  EXPECT_FALSE(Equal(Value{std::nan("")}, Value{std::nan("")}));
  EXPECT_FALSE(Equal(Value{int64_t{1}}, S("1")));
}

TEST(ValueTest, ContainerEquality) {
  EXPECT_TRUE(
      Equal(Value::MakeList({Value{int64_t{1}}, S("a")}), Value::MakeList({Value{1.0}, S("a")})));
  EXPECT_FALSE(Equal(Value::MakeList({Value{int64_t{1}}}), Value::MakeList({})));
  EXPECT_TRUE(Equal(Value::MakeMap({{S("a"), Value{true}}, {S("b"), Value{false}}}),
                    Value::MakeMap({{S("b"), Value{false}}, {S("a"), Value{true}}})));
}

TEST(ValueTest, Compare) {
  EXPECT_EQ(Compare(Value{int64_t{-1}}, Value{uint64_t{0}}), -1);
  EXPECT_EQ(Compare(Value{2.5}, Value{int64_t{2}}), 1);
  EXPECT_EQ(Compare(S("abc"), S("abd")), -1);
  EXPECT_EQ(Compare(S("a"), Value{int64_t{1}}), -2);  // not comparable: no such overload
  EXPECT_EQ(Compare(Value{true}, Value{false}), 1);
}

TEST(ValueTest, CostSizeCountsCodePoints) {
  EXPECT_EQ(CostSize(S("héllo")), 5u);
  EXPECT_EQ(CostSize(Value{Bytes{"héllo"}}), 6u);
  EXPECT_EQ(CostSize(Value::MakeList({Value{}, Value{}})), 2u);
  EXPECT_EQ(CostSize(Value{int64_t{123456}}), 1u);
}

}  // namespace
}  // namespace berth::cel
