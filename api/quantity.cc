#include "api/quantity.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace berth::api {
namespace {

Error Invalid(std::string_view text) {
  return Error{"invalid quantity \"" + std::string(text) + "\""};
}
Error TooLarge(std::string_view text) {
  return Error{"quantity \"" + std::string(text) + "\" is too large"};
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Interprets the suffix: a power of ten (decimalSI or e<n>) or a power of 1024 (binarySI).
bool ParseSuffix(std::string_view s, int64_t* exp10, int* pow1024) {
  *exp10 = 0;
  *pow1024 = 0;
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
  for (const auto& e : kSuffixes) {
    if (s == e.name) {
      *exp10 = e.exp10;
      *pow1024 = e.pow1024;
      return true;
    }
  }
  // decimalExponent: e/E followed by a signed integer (strconv.ParseInt upstream).
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return false;
  std::string_view n = s.substr(1);
  bool neg = false;
  if (n[0] == '+' || n[0] == '-') {
    neg = n[0] == '-';
    n.remove_prefix(1);
  }
  if (n.empty()) return false;
  for (char c : n) {
    if (!IsDigit(c)) return false;
  }
  int64_t v = 0;
  auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
  if (ec != std::errc() || p != n.data() + n.size()) return false;
  *exp10 = neg ? -v : v;
  return true;
}

// Multiplies a big-endian decimal digit string in place by a small factor.
void MultiplyDigits(std::vector<uint8_t>* digits, uint32_t factor) {
  uint64_t carry = 0;
  for (auto it = digits->rbegin(); it != digits->rend(); ++it) {
    uint64_t v = uint64_t{*it} * factor + carry;
    *it = static_cast<uint8_t>(v % 10);
    carry = v / 10;
  }
  while (carry > 0) {
    digits->insert(digits->begin(), static_cast<uint8_t>(carry % 10));
    carry /= 10;
  }
}

}  // namespace

Result<Quantity> Quantity::Parse(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  // <number> ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
  std::vector<uint8_t> digits;  // integer and fraction digits, leading zeros dropped
  size_t i = 0, int_len = 0, frac_len = 0;
  for (; i < s.size() && IsDigit(s[i]); ++i, ++int_len) {
    if (!digits.empty() || s[i] != '0') digits.push_back(static_cast<uint8_t>(s[i] - '0'));
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    for (; i < s.size() && IsDigit(s[i]); ++i, ++frac_len) {
      if (!digits.empty() || s[i] != '0') digits.push_back(static_cast<uint8_t>(s[i] - '0'));
    }
  }
  if (int_len == 0 && frac_len == 0) return Invalid(text);
  int64_t exp10 = 0;
  int pow1024 = 0;
  if (!ParseSuffix(s.substr(i), &exp10, &pow1024)) return Invalid(text);
  if (digits.empty()) return Quantity{0};

  // value = digits * 10^(exp10 - frac_len) * 1024^pow1024; we want ceil(|value| * 1000).
  for (int k = 0; k < pow1024; ++k) MultiplyDigits(&digits, 1024);
  // exp10 came from a parsed int64; keep the shift arithmetic in a range that cannot overflow.
  if (exp10 > 1000) return TooLarge(text);
  if (exp10 < -100000) exp10 = -100000;  // any smaller value rounds up to 1m all the same
  int64_t shift = exp10 - static_cast<int64_t>(frac_len) + 3;

  constexpr size_t kMaxDigits = 19;  // int64 max has 19 digits
  std::vector<uint8_t> whole;
  bool round_up = false;
  if (shift >= 0) {
    if (digits.size() + static_cast<size_t>(shift) > kMaxDigits) return TooLarge(text);
    whole = digits;
    whole.resize(digits.size() + static_cast<size_t>(shift), 0);
  } else {
    size_t drop = static_cast<size_t>(-shift);
    if (drop >= digits.size()) {
      round_up = true;  // 0 < |value| < 1m
    } else {
      whole.assign(digits.begin(), digits.end() - static_cast<std::ptrdiff_t>(drop));
      for (auto it = digits.end() - static_cast<std::ptrdiff_t>(drop); it != digits.end(); ++it) {
        if (*it != 0) round_up = true;
      }
    }
    if (whole.size() > kMaxDigits) return TooLarge(text);
  }
  unsigned __int128 magnitude = 0;
  for (uint8_t d : whole) magnitude = magnitude * 10 + d;
  // Like MilliValue(), a fraction of a milli rounds away from zero.
  if (round_up) magnitude += 1;
  if (magnitude > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max())) {
    return TooLarge(text);
  }
  int64_t milli = static_cast<int64_t>(magnitude);
  return Quantity{negative ? -milli : milli};
}

std::string Quantity::ToString() const {
  if (milli % 1000 != 0) return std::to_string(milli) + "m";
  int64_t value = milli / 1000;
  // Exact binary multiples read better as Ki/Mi/...: 2Gi rather than 2147483648.
  static constexpr const char* kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  if (magnitude >= 1024) {
    int k = 0;
    while (k < 6 && magnitude % 1024 == 0) {
      magnitude /= 1024;
      ++k;
    }
    if (k > 0) return (value < 0 ? "-" : "") + std::to_string(magnitude) + kBinary[k - 1];
  }
  return std::to_string(value);
}

}  // namespace berth::api
