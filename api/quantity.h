#pragma once
// Kubernetes resource quantities ("1500m", "1.5", "2Gi", "2G", "1e3", "512Mi", "100k") held
// exactly as a signed 64-bit count of milli-units. Parsing follows apimachinery's grammar:
//   <quantity> ::= <signedNumber><suffix>; suffix = binarySI (Ki..Ei) | decimalSI (n u m "" k M G T
//   P E) | decimalExponent (e<n> / E<n>).
// Values that cannot be represented exactly at milli precision are rounded up (as MilliValue()
// does upstream); values whose milli count overflows int64 are errors.

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace berth::api {

struct Quantity {
  int64_t milli = 0;

  // Parses the textual form. The error message is `invalid quantity "<text>"` or
  // `quantity "<text>" is too large`.
  static Result<Quantity> Parse(std::string_view text);
  static Quantity FromMilli(int64_t m) { return Quantity{m}; }
  static Quantity FromValue(int64_t v) { return Quantity{v * 1000}; }

  int64_t MilliValue() const { return milli; }
  // Whole units; a fraction rounds away from zero, like apimachinery's Value() ("-1500m" -> -2).
  int64_t Value() const { return milli >= 0 ? (milli + 999) / 1000 : (milli - 999) / 1000; }
  // Canonical-ish text: "1500m", "2", "3Gi" when an exact binary multiple, else decimal.
  std::string ToString() const;
  bool operator==(const Quantity&) const = default;
};

}  // namespace berth::api
