#pragma once
// The caches of the secure port's delegated authentication and authorization (delegated_auth.h):
//
// - TokenCacheKey: what a bearer token is cached under, as upstream's cached token
//   authenticator (k8s.io/apiserver/pkg/authentication/token/cache, keyFunc): the HMAC-SHA256 of
//   the length-prefixed token (and of the audience count, 0: berth asks for no audiences) with a
//   random key drawn once per process. 32 bytes whatever the token's size, and the token itself
//   is kept nowhere, so a storm of made-up 64 KB tokens costs 32 bytes of key each, and a heap
//   dump does not hold the tokens that were presented.
//
// - ExpiringLruCache: a map that forgets an entry after its TTL and that holds at most
//   `max_bytes` (keys, values as the caller sizes them, and a fixed per-entry overhead): when a
//   Put goes over, the least recently used entries are dropped. Upstream bounds the same caches
//   by count (the SAR cache is an LRUExpireCache of 8192, the token cache an Expiring map);
//   berth bounds them by bytes, which bounds memory whatever the entries hold.
//
// Threads: both may be used from any thread.

#include <chrono>
#include <cstddef>
#include <iterator>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "base/result.h"

namespace berth::serving {

class TokenCacheKey {
 public:
  static constexpr size_t kKeyBytes = 32;  // SHA-256

  // A hasher with a fresh random key (OpenSSL's RAND_bytes). Error (kInternal): the random
  // generator or the HMAC could not be set up; the message says which.
  static Result<TokenCacheKey> Create();

  // The 32-byte HMAC-SHA256 of the token (raw bytes, not hex). Same token, same key, for the
  // life of this object; another TokenCacheKey keys differently.
  std::string Of(std::string_view token) const;

 private:
  std::string secret_;
};

template <typename V>
class ExpiringLruCache {
 public:
  using Clock = std::chrono::steady_clock;
  // Charged per entry on top of its key and value: the list and hash nodes and the strings'
  // own headers (an estimate on the generous side for libstdc++ on 64 bits).
  static constexpr size_t kEntryOverhead = 160;

  explicit ExpiringLruCache(size_t max_bytes) : max_bytes_(max_bytes) {}
  ExpiringLruCache(const ExpiringLruCache&) = delete;
  ExpiringLruCache& operator=(const ExpiringLruCache&) = delete;

  // The value under `key` if it has not expired at `now` (an expired entry is dropped); a hit
  // becomes the most recently used.
  std::optional<V> Get(std::string_view key, Clock::time_point now) {
    std::lock_guard lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    auto entry = it->second;
    if (now >= entry->expiry) {
      Erase(entry);
      return std::nullopt;
    }
    lru_.splice(lru_.begin(), lru_, entry);
    return entry->value;
  }

  // Caches `value` under `key` until `expiry`, replacing what was there. `value_bytes` is what
  // the value holds beyond sizeof(V) (its strings' characters). Entries expired at `now` are
  // dropped from the least recently used end, then the least recently used ones until the
  // cache is within max_bytes. An entry larger than max_bytes by itself is not cached.
  void Put(std::string key, V value, size_t value_bytes, Clock::time_point expiry,
           Clock::time_point now) {
    const size_t bytes = kEntryOverhead + sizeof(V) + key.size() + value_bytes;
    std::lock_guard lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) Erase(it->second);
    if (bytes > max_bytes_) return;
    while (!lru_.empty() && now >= lru_.back().expiry) Erase(std::prev(lru_.end()));
    while (!lru_.empty() && bytes_ + bytes > max_bytes_) Erase(std::prev(lru_.end()));
    lru_.push_front(Entry{std::move(key), std::move(value), expiry, bytes});
    index_.emplace(lru_.front().key, lru_.begin());
    bytes_ += bytes;
  }

  // What the entries cost, as counted against max_bytes, and how many there are (expired ones
  // not yet dropped included).
  size_t bytes() const {
    std::lock_guard lock(mu_);
    return bytes_;
  }
  size_t size() const {
    std::lock_guard lock(mu_);
    return lru_.size();
  }
  size_t max_bytes() const { return max_bytes_; }

 private:
  struct Entry {
    std::string key;
    V value;
    Clock::time_point expiry;
    size_t bytes;
  };
  using List = std::list<Entry>;

  void Erase(typename List::iterator entry) {  // requires mu_
    bytes_ -= entry->bytes;
    index_.erase(std::string_view(entry->key));
    lru_.erase(entry);
  }

  const size_t max_bytes_;
  mutable std::mutex mu_;
  List lru_;  // guarded by mu_; most recently used first
  // Guarded by mu_; the views point into lru_'s keys (list nodes do not move).
  std::unordered_map<std::string_view, typename List::iterator> index_;
  size_t bytes_ = 0;  // guarded by mu_
};

}  // namespace berth::serving
