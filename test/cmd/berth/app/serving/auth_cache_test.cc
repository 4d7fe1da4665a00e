#include "cmd/berth/app/serving/auth_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace berth::serving {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

TEST(TokenCacheKeyTest, ThirtyTwoBytesWhateverTheTokenAndNeverTheToken) {
  auto k = TokenCacheKey::Create();
  ASSERT_TRUE(k.ok()) << k.error();
  const std::string long_token(64 * 1024, 'x');
  for (const std::string& token : {std::string("t"), std::string(), long_token}) {
    const std::string key = k->Of(token);
    EXPECT_EQ(key.size(), TokenCacheKey::kKeyBytes);
    EXPECT_EQ(key.size(), 32u);
    EXPECT_EQ(key, k->Of(token));  // stable
    if (token.size() > key.size()) EXPECT_EQ(key.find(token.substr(0, 8)), std::string::npos);
  }
  EXPECT_NE(k->Of("a"), k->Of("b"));
  EXPECT_NE(k->Of("ab"), k->Of("a"));
  // A random key per process (per object): another hasher keys the same token differently.
  auto other = TokenCacheKey::Create();
  ASSERT_TRUE(other.ok());
  EXPECT_NE(k->Of("t"), other->Of("t"));
}

TEST(ExpiringLruCacheTest, EntriesExpireAtTheirTime) {
  ExpiringLruCache<int> c(1 << 20);
  const Clock::time_point t0{};
  c.Put("a", 1, 0, t0 + seconds(10), t0);
  c.Put("b", 2, 0, t0 + seconds(5), t0);
  EXPECT_EQ(c.Get("a", t0 + seconds(4)), 1);
  EXPECT_EQ(c.Get("b", t0 + seconds(4)), 2);
  EXPECT_EQ(c.Get("b", t0 + seconds(5)), std::nullopt);  // at its expiry: gone
  EXPECT_EQ(c.size(), 1u);                               // and dropped
  EXPECT_EQ(c.Get("a", t0 + seconds(9)), 1);
  EXPECT_EQ(c.Get("a", t0 + seconds(10)), std::nullopt);
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(c.bytes(), 0u);
}

TEST(ExpiringLruCacheTest, StaysWithinItsBytesDroppingTheLeastRecentlyUsed) {
  constexpr size_t kEntry = ExpiringLruCache<int>::kEntryOverhead + sizeof(int) + 1 + 100;
  ExpiringLruCache<int> c(3 * kEntry);
  const Clock::time_point t0{};
  const auto far = t0 + seconds(100);
  c.Put("a", 1, 100, far, t0);
  c.Put("b", 2, 100, far, t0);
  c.Put("c", 3, 100, far, t0);
  EXPECT_EQ(c.bytes(), 3 * kEntry);
  EXPECT_EQ(c.Get("a", t0), 1);  // a is now the most recently used; b the least
  c.Put("d", 4, 100, far, t0);
  EXPECT_EQ(c.size(), 3u);
  EXPECT_LE(c.bytes(), c.max_bytes());
  EXPECT_EQ(c.Get("b", t0), std::nullopt);
  EXPECT_EQ(c.Get("a", t0), 1);
  EXPECT_EQ(c.Get("c", t0), 3);
  EXPECT_EQ(c.Get("d", t0), 4);
  // Replacing a key does not count it twice.
  c.Put("d", 5, 100, far, t0);
  EXPECT_EQ(c.bytes(), 3 * kEntry);
  EXPECT_EQ(c.Get("d", t0), 5);
  // An entry larger than the whole budget is not cached (and pushes nothing out).
  c.Put("huge", 6, 10 * kEntry, far, t0);
  EXPECT_EQ(c.Get("huge", t0), std::nullopt);
  EXPECT_EQ(c.size(), 3u);
}

TEST(ExpiringLruCacheTest, APutDropsExpiredEntriesAtTheColdEndEvenWithRoomLeft) {
  ExpiringLruCache<int> c(1 << 20);
  const Clock::time_point t0{};
  c.Put("old", 1, 1000, t0 + seconds(1), t0);
  c.Put("new", 2, 0, t0 + seconds(100), t0 + seconds(2));
  EXPECT_EQ(c.size(), 1u);
  EXPECT_EQ(c.Get("new", t0 + seconds(2)), 2);
}

TEST(ExpiringLruCacheTest, ManyLargeDistinctKeysStayWithinTheBudget) {
  ExpiringLruCache<int> c(256 * 1024);
  const Clock::time_point t0{};
  for (int i = 0; i < 2000; ++i) {
    c.Put(std::to_string(i) + std::string(4096, 'k'), i, 0, t0 + seconds(10), t0);
    ASSERT_LE(c.bytes(), 256u * 1024) << i;
  }
  EXPECT_GT(c.size(), 10u);
  EXPECT_LT(c.size(), 64u);
  EXPECT_EQ(c.Get("1999" + std::string(4096, 'k'), t0), 1999);
}

}  // namespace
}  // namespace berth::serving
