#include "cel/quantity.h"

#include <algorithm>
#include <string>

namespace berth::cel {
namespace {

constexpr const char* kFormat =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr const char* kSuffix = "unable to parse quantity's suffix";
constexpr const char* kNumeric = "unable to parse numeric part of quantity";
constexpr __int128 kLimit = static_cast<__int128>(1) << 120;  // headroom for one multiplication

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The suffix as a power of ten and a power of 1024.
bool ParseSuffix(std::string_view s, int64_t* exp10, int* pow1024) {
  struct Entry {
    std::string_view name;
    int exp10;
    int pow1024;
  };
  static constexpr Entry kSuffixes[] = {
      {"", 0, 0},   {"n", -9, 0}, {"u", -6, 0}, {"m", -3, 0}, {"k", 3, 0},  {"M", 6, 0},
      {"G", 9, 0},  {"T", 12, 0}, {"P", 15, 0}, {"E", 18, 0}, {"Ki", 0, 1}, {"Mi", 0, 2},
      {"Gi", 0, 3}, {"Ti", 0, 4}, {"Pi", 0, 5}, {"Ei", 0, 6},
  };
  *exp10 = 0;
  *pow1024 = 0;
  for (const auto& e : kSuffixes) {
    if (s == e.name) {
      *exp10 = e.exp10;
      *pow1024 = e.pow1024;
      return true;
    }
  }
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return false;
  std::string_view n = s.substr(1);
  bool neg = n[0] == '-';
  if (n[0] == '+' || n[0] == '-') n.remove_prefix(1);
  if (n.empty() || n.size() > 6) return false;
  int64_t v = 0;
  for (char c : n) {
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *exp10 = neg ? -v : v;
  return true;
}

// 10^exp as int64, or false on overflow (exp >= 0).
bool Pow10(int64_t exp, int64_t* out) {
  int64_t v = 1;
  for (int64_t k = 0; k < exp; ++k) {
    if (__builtin_mul_overflow(v, int64_t{10}, &v)) return false;
  }
  *out = v;
  return true;
}

// apimachinery's positiveScaleInt64: value * 10^scale.
bool ScaleUp(int64_t value, int64_t scale, int64_t* out) {
  int64_t f;
  return Pow10(scale, &f) && !__builtin_mul_overflow(value, f, out);
}

Quantity AddValues(const Quantity& q, const Quantity& o) {
  Quantity r{q.nanos + o.nanos, false, 0, 0};
  if (!q.fast || !o.fast) return r;
  if (o.value == 0) return Quantity{r.nanos, true, q.value, q.scale};
  if (q.value == 0) return Quantity{r.nanos, true, o.value, o.scale};
  int64_t a = q.value, b = o.value, s = std::min(q.scale, o.scale);
  if (q.scale > s && !ScaleUp(a, q.scale - s, &a)) return r;
  if (o.scale > s && !ScaleUp(b, o.scale - s, &b)) return r;
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return r;
  return Quantity{r.nanos, true, sum, static_cast<int32_t>(s)};
}

Result<Quantity> ParseShape(std::string_view text, Quantity q);

}  // namespace

Quantity Quantity::FromApi(const api::Quantity& q) {
  if (q.milli % 1000 == 0) return Quantity{__int128{q.milli} * 1000000, true, q.milli / 1000, 0};
  return Quantity{__int128{q.milli} * 1000000, true, q.milli, -3};
}

bool Quantity::AsInt64(int64_t* out) const {
  if (!fast) return false;
  if (scale == 0) {
    *out = value;
    return true;
  }
  if (scale < 0) return false;
  return ScaleUp(value, scale, out);
}

// int64Amount.Add: equal scales add; otherwise the larger scale is brought down to the smaller.
Quantity Quantity::Add(const Quantity& o) const {
  Quantity r = AddValues(*this, o);
  r.boxed = true;
  return r;
}

Quantity Quantity::Sub(const Quantity& o) const {
  // (Add marks the result boxed.)
  Quantity neg = o;
  neg.nanos = -o.nanos;
  if (o.fast && o.value == INT64_MIN) neg.fast = false;
  neg.value = -o.value;
  return Add(neg);
}

Result<Quantity> Quantity::Parse(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  std::string digits;  // significant digits of integer and fraction, leading zeros dropped
  size_t i = 0, int_len = 0, frac_len = 0;
  for (; i < s.size() && IsDigit(s[i]); ++i, ++int_len) {
    if (!digits.empty() || s[i] != '0') digits += s[i];
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    for (; i < s.size() && IsDigit(s[i]); ++i, ++frac_len) {
      if (!digits.empty() || s[i] != '0') digits += s[i];
    }
  }
  // As parseQuantityString: the number may be empty ("Gi" and "." are zero); the suffix is
  // letters of "eEinumkKMGTP", an optional sign and digits, and nothing may follow. A suffix of
  // that shape that is not a known one is upstream's ErrSuffix.
  if (text.empty()) return Error{kFormat};
  std::string_view suffix = s.substr(i);
  size_t j = 0;
  while (j < suffix.size() &&
         std::string_view("eEinumkKMGTP").find(suffix[j]) != std::string_view::npos) {
    ++j;
  }
  if (j < suffix.size() && (suffix[j] == '+' || suffix[j] == '-')) ++j;
  while (j < suffix.size() && IsDigit(suffix[j])) ++j;
  if (j < suffix.size()) return Error{kFormat};
  int64_t exp10 = 0;
  int pow1024 = 0;
  if (!ParseSuffix(suffix, &exp10, &pow1024)) return Error{kSuffix};
  // A number without any digit ("Ei", "-.e-10") is zero where ParseQuantity's int64 fast path
  // takes it, and ErrNumeric where it falls to the inf.Dec path, which needs a digit: a binary
  // suffix of 2^50 or more (its precision estimate goes negative) or a decimal exponent below -9.
  if (int_len + frac_len == 0 && (pow1024 >= 5 || (pow1024 == 0 && exp10 < -9))) {
    return Error{kNumeric};
  }
  // Trailing zeros of the fraction carry no value; drop them so the digit count stays small.
  while (frac_len > 0 && !digits.empty() && digits.back() == '0' && digits.size() > int_len) {
    digits.pop_back();
    --frac_len;
  }
  if (digits.empty()) return ParseShape(text, Quantity{});  // zero, in the form its text gives
  if (digits.size() > 36) return Error{kFormat};

  // nanos = digits * 10^(exp10 - frac_len + 9) * 1024^pow1024, rounded away from zero.
  __int128 m = 0;
  for (char c : digits) m = m * 10 + (c - '0');
  for (int k = 0; k < pow1024; ++k) {
    if (m > kLimit / 1024) return Error{kFormat};
    m *= 1024;
  }
  int64_t shift = exp10 - static_cast<int64_t>(frac_len) + 9;
  for (; shift > 0; --shift) {
    if (m > kLimit / 10) return Error{kFormat};
    m *= 10;
  }
  bool inexact = false;
  for (; shift < 0 && m > 0; ++shift) {
    inexact |= m % 10 != 0;
    m /= 10;
  }
  if (shift < 0) inexact = true;  // everything divided away: 0 < |value| < 1n
  if (inexact) m += 1;
  Quantity q{negative ? -m : m, false, 0, 0};
  return ParseShape(text, q);
}

namespace {

// ParseQuantity's choice between int64Amount and inf.Dec, from the text's shape.
Result<Quantity> ParseShape(std::string_view str, Quantity q) {
  bool positive = true;
  size_t pos = 0;
  if (!str.empty() && (str[0] == '-' || str[0] == '+')) {
    positive = str[0] == '+';
    ++pos;
  }
  while (pos < str.size() && str[pos] == '0') ++pos;
  if (pos >= str.size()) {
    q.fast = true;  // "0", "-00": zero
    return q;
  }
  size_t start = pos;
  while (pos < str.size() && IsDigit(str[pos])) ++pos;
  std::string num(str.substr(start, pos - start));
  if (num.empty()) num = "0";
  std::string denom;
  if (pos < str.size() && str[pos] == '.') {
    size_t d = ++pos;
    while (pos < str.size() && IsDigit(str[pos])) ++pos;
    denom = std::string(str.substr(d, pos - d));
  }
  int64_t exp10 = 0;
  int pow1024 = 0;
  ParseSuffix(str.substr(pos), &exp10, &pow1024);
  bool binary = pow1024 > 0;
  int64_t exponent = binary ? 10 * pow1024 : exp10;
  int64_t precision, scale = 0, mantissa = 1;
  if (!binary) {
    scale = exponent;
    precision = 18 - static_cast<int64_t>(num.size() + denom.size());
  } else if (denom.empty()) {
    mantissa = int64_t{1} << exponent;
    precision = 15 - static_cast<int64_t>(num.size()) -
                static_cast<int64_t>(static_cast<float>(exponent) * 3 / 10) - 1;
  } else {
    precision = -1;
  }
  if (precision >= 0) {
    scale -= static_cast<int64_t>(denom.size());
    if (scale >= -9) {
      int64_t value = 0;
      for (char c : num) value = value * 10 + (c - '0');
      for (char c : denom) value = value * 10 + (c - '0');
      int64_t result;
      if (!__builtin_mul_overflow(value, mantissa, &result)) {
        q.fast = true;
        q.value = positive ? result : -result;
        q.scale = static_cast<int32_t>(scale);
        return q;
      }
    }
  }
  // inf.Dec form (zero too: "0Ei" is an inf.Dec zero); binary quantities are capped at 2^63-1.
  q.fast = false;
  constexpr __int128 kMaxAllowed = static_cast<__int128>(INT64_MAX) * 1000000000;
  if (binary && q.nanos > kMaxAllowed) q.nanos = kMaxAllowed;
  if (binary && q.nanos < -kMaxAllowed) q.nanos = -kMaxAllowed;
  return q;
}

}  // namespace

}  // namespace berth::cel
