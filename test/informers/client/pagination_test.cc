// PaginationGuard: repeated continue tokens and the item / page bounds of one list.
#include "informers/client/pagination.h"

#include <gtest/gtest.h>

#include <string>

namespace berth::client {
namespace {

constexpr char kWhat[] = "list Pod (https://host/api/v1/pods)";

TEST(PaginationGuardTest, DistinctTokensAndTheLastPageAreFine) {
  PaginationGuard g(kWhat);
  EXPECT_TRUE(g.Page(500, "t1").ok());
  EXPECT_TRUE(g.Page(500, "t2").ok());
  EXPECT_TRUE(g.Page(3, "").ok());
  EXPECT_EQ(g.pages(), 3);
  EXPECT_EQ(g.items(), 1003);
}

TEST(PaginationGuardTest, RepeatedTokenIsAnErrorNamingThePage) {
  PaginationGuard g(kWhat);
  ASSERT_TRUE(g.Page(1, "t1").ok());
  ASSERT_TRUE(g.Page(1, "t2").ok());
  auto again = g.Page(1, "t1");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error(),
            "list Pod (https://host/api/v1/pods): the server repeated continue token \"t1\" "
            "(page 3)");
  // A hostile token is quoted on one line and cut.
  PaginationGuard h(kWhat);
  const std::string token = "a\nb" + std::string(100, 'z');
  ASSERT_TRUE(h.Page(0, token).ok());
  auto hostile = h.Page(0, token);
  ASSERT_FALSE(hostile.ok());
  EXPECT_EQ(hostile.error(), std::string(kWhat) + ": the server repeated continue token \"a\\nb" +
                                 std::string(61, 'z') + "\"... (103 bytes) (page 2)");
}

TEST(PaginationGuardTest, ItemAndPageBounds) {
  PaginationGuard items(kWhat, ListBounds{10, 100});
  ASSERT_TRUE(items.Page(10, "t1").ok());
  auto over = items.Page(1, "t2");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error(),
            std::string(kWhat) + ": more than 10 items in one list (page 2); stopping");

  PaginationGuard pages(kWhat, ListBounds{10, 3});
  ASSERT_TRUE(pages.Page(0, "t1").ok());
  ASSERT_TRUE(pages.Page(0, "t2").ok());
  EXPECT_TRUE(pages.Page(0, "").ok());  // the third page is the last: within the bound
  PaginationGuard more(kWhat, ListBounds{10, 3});
  ASSERT_TRUE(more.Page(0, "t1").ok());
  ASSERT_TRUE(more.Page(0, "t2").ok());
  auto third = more.Page(0, "t3");
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error(), std::string(kWhat) + ": more than 3 pages in one list; stopping");
}

TEST(PaginationGuardTest, RestartForgetsTokensAndCounts) {
  PaginationGuard g(kWhat, ListBounds{10, 100});
  ASSERT_TRUE(g.Page(8, "t1").ok());
  g.Restart();
  EXPECT_TRUE(g.Page(8, "t1").ok());
  EXPECT_EQ(g.items(), 8);
}

}  // namespace
}  // namespace berth::client
