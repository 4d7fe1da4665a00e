#pragma once
// Test helper: a seeded generator of well-typed (mostly) DRA selector expressions over the
// attributes of test/cel/corpus.jsonl's devices, mixing literals, attribute lookups (present and
// missing), arithmetic that may overflow or divide by zero, string, semver and quantity functions
// and list macros. It never iterates maps, so cel-go's results are deterministic.

#include <cstdint>
#include <random>
#include <string>

namespace berth::cel::testing {

class RandomExpr {
 public:
  explicit RandomExpr(uint64_t seed) : rng_(seed) {}
  std::string Bool(int depth);

 private:
  std::string Int(int depth);
  std::string String(int depth);
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::mt19937_64 rng_;
};

// `s` as a JSON string literal.
std::string JsonString(const std::string& s);

}  // namespace berth::cel::testing
