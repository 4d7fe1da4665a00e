#pragma once
// The quantity values of Kubernetes' CEL quantity library. Upstream's resource.Quantity keeps
// arbitrary precision but rounds parsed text up to nano precision (10^-9), so berth holds a
// quantity exactly as a 128-bit count of nano-units: "1u" and "1n" differ, as upstream.
// (Device capacities arrive as api::Quantity, exact to the milli-unit.)

#include <cstdint>
#include <string_view>

#include "api/quantity.h"
#include "base/result.h"

namespace berth::cel {

struct Quantity {
  __int128 nanos = 0;
  // Upstream's isInteger()/asInteger() answer from resource.Quantity's internal form, not the
  // value: only a quantity held as int64Amount{value, scale} (value * 10^scale) converts, and
  // ParseQuantity and Add choose that form by the text's shape ("1.0" and "1000m" are not
  // integers there). berth tracks the same form; `fast` is false for the inf.Dec form.
  bool fast = true;
  int64_t value = 0;
  int32_t scale = 0;
  // add() and sub() return *apiservercel.Quantity where quantity() returns the value type, and
  // upstream's Quantity.Equal accepts only the value type on its right: `q == x.add(y)` is
  // "no such overload" there. berth marks such results to answer the same.
  bool boxed = false;

  // apimachinery's grammar (<signedNumber><suffix>); fractions finer than 1n round away from
  // zero. Errors carry upstream's texts: "quantities must match the regular expression ..." or
  // "unable to parse quantity's suffix"; values beyond ±1.7e29 units (which upstream holds) are
  // reported as the former.
  static Result<Quantity> Parse(std::string_view text);
  // A capacity (exact to the milli-unit): whole units when integral, else milli-units.
  static Quantity FromApi(const api::Quantity& q);
  static Quantity FromInt(int64_t v) { return Quantity{__int128{v} * 1000000000, true, v, 0}; }

  // resource.Quantity.AsInt64.
  bool AsInt64(int64_t* out) const;
  // resource.Quantity.Add / Sub: exact values; the int64 form is kept while it fits.
  Quantity Add(const Quantity& o) const;
  Quantity Sub(const Quantity& o) const;

  bool operator==(const Quantity& o) const { return nanos == o.nanos; }
  int Compare(const Quantity& o) const { return nanos < o.nanos ? -1 : (nanos > o.nanos ? 1 : 0); }
};

}  // namespace berth::cel
