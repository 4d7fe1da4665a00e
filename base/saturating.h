#pragma once
// Saturating int64 arithmetic for resource amounts. Requests and allocatable are int64 milli-units
// (or bytes); sums of hostile but valid quantities (two containers each asking for
// 9223372036854775807m of CPU) must not wrap to a negative number and make a pod fit anywhere.
// Saturated at INT64_MAX such a pod is simply larger than every node: "Insufficient cpu".

#include <cstdint>
#include <limits>

namespace berth {

inline int64_t SatAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return out;
}

inline int64_t SatSub(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) {
    return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return out;
}

// a * b / c with the product taken in 128 bits (c != 0); for scores such as
// (allocatable - requested) * 100 / allocatable, exact where int64 would overflow. The quotient
// saturates (it fits whenever |b| <= |c|, as for every score).
inline int64_t MulDiv(int64_t a, int64_t b, int64_t c) {
  int64_t product = 0;
  if (!__builtin_mul_overflow(a, b, &product)) return product / c;  // the usual case: no 128 bits
  __int128 q = static_cast<__int128>(a) * b / c;
  if (q > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (q < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(q);
}

}  // namespace berth
