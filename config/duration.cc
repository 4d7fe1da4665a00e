#include "config/duration.h"

#include <cstdint>
#include <limits>

namespace berth::config {
namespace {

Error Invalid(std::string_view text) {
  return Error{"time: invalid duration \"" + std::string(text) + "\""};
}

// Nanoseconds per unit, or 0 for an unknown unit.
uint64_t UnitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1000;  // us, µs, μs
  if (unit == "ms") return 1000 * 1000;
  if (unit == "s") return 1000ull * 1000 * 1000;
  if (unit == "m") return 60ull * 1000 * 1000 * 1000;
  if (unit == "h") return 3600ull * 1000 * 1000 * 1000;
  return 0;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return Invalid(text);
  // Accumulate in unsigned nanoseconds; the limit is |INT64_MIN| so that
  // "-2562047h47m16.854775808s" parses, as in Go.
  const uint64_t limit = uint64_t{1} << 63;
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(IsDigit(s[0]) || s[0] == '.')) return Invalid(text);
    // Integer part.
    uint64_t whole = 0;
    size_t i = 0;
    bool overflow = false;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      if (whole > (limit - 9) / 10) overflow = true;
      whole = whole * 10 + static_cast<uint64_t>(s[i] - '0');
    }
    bool had_whole = i > 0;
    // Fraction: kept as digits/scale, at most 18 significant digits (finer than a nanosecond
    // of any unit).
    uint64_t frac = 0;
    uint64_t scale = 1;
    bool had_frac = false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      size_t start = i;
      for (; i < s.size() && IsDigit(s[i]); ++i) {
        if (scale < 1000000000000000000ull) {
          frac = frac * 10 + static_cast<uint64_t>(s[i] - '0');
          scale *= 10;
        }
      }
      had_frac = i > start;
    }
    if (!had_whole && !had_frac) return Invalid(text);
    size_t unit_start = i;
    for (; i < s.size() && s[i] != '.' && !IsDigit(s[i]); ++i) {
    }
    std::string_view unit = s.substr(unit_start, i - unit_start);
    if (unit.empty()) {
      return Error{"time: missing unit in duration \"" + std::string(text) + "\""};
    }
    uint64_t per = UnitNanos(unit);
    if (per == 0) {
      return Error{"time: unknown unit \"" + std::string(unit) + "\" in duration \"" +
                   std::string(text) + "\""};
    }
    if (overflow || (whole != 0 && whole > limit / per)) return Invalid(text);
    uint64_t value = whole * per;
    if (frac != 0) {
      long double part = static_cast<long double>(frac) * static_cast<long double>(per) /
                         static_cast<long double>(scale);
      value += static_cast<uint64_t>(part);
    }
    if (value > limit || total > limit - value) return Invalid(text);
    total += value;
    s.remove_prefix(i);
  }
  if (!negative && total > limit - 1) return Invalid(text);
  int64_t signed_total = negative ? (total == limit ? std::numeric_limits<int64_t>::min()
                                                    : -static_cast<int64_t>(total))
                                  : static_cast<int64_t>(total);
  return std::chrono::nanoseconds(signed_total);
}

std::string FormatGoDuration(std::chrono::milliseconds d) {
  int64_t ms = d.count();
  if (ms == 0) return "0s";
  std::string sign;
  uint64_t abs = ms < 0 ? static_cast<uint64_t>(-(ms + 1)) + 1 : static_cast<uint64_t>(ms);
  if (ms < 0) sign = "-";
  if (abs < 1000) return sign + std::to_string(abs) + "ms";
  uint64_t hours = abs / 3600000;
  uint64_t minutes = abs / 60000 % 60;
  uint64_t seconds = abs / 1000 % 60;
  uint64_t millis = abs % 1000;
  std::string secs = std::to_string(seconds);
  if (millis != 0) {
    std::string f = std::to_string(millis + 1000).substr(1);  // zero-padded to 3 digits
    while (f.back() == '0') f.pop_back();
    secs += "." + f;
  }
  std::string out = sign;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  return out + secs + "s";
}

}  // namespace berth::config
