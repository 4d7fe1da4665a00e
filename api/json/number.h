#pragma once
// JSON number text -> integer or double, shared by ParseJson (parse.cc) and ReadJsonEvents
// (events.cc). Internal to api/json.

#include <cstdint>
#include <string_view>

namespace berth::api::json::internal {

struct Number {
  enum class Kind { kInt, kDouble, kTooBig } kind = Kind::kInt;
  int64_t i = 0;
  double d = 0;
};

// `text` is a JSON number as RapidJSON validated it, and text.data()[text.size()] is NUL.
// Integer literals that fit int64 are kInt, all else kDouble; a magnitude beyond a double is
// kTooBig. The conversion is ours, not RapidJSON's: RapidJSON 1.1.0's full-precision strtod reads
// a zero significand with an exponent wrongly ("0e50" gave 2e124; found by test/fuzz/fuzz_json).
Number ConvertNumber(std::string_view text);

}  // namespace berth::api::json::internal
