// Quantities, resource lists and RFC 3339 timestamps shared by the typed decoders.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "api/decode.h"
#include "api/reader.h"

namespace berth::api {

Result<Quantity> DecodeQuantity(const Value& v, const std::string& path) {
  std::string text;
  if (v.IsString()) {
    text = v.AsString();
  } else if (v.IsInt()) {
    text = std::to_string(v.AsInt());
  } else if (v.IsDouble()) {
    // An unquoted YAML/JSON number is read through its text, as Quantity.UnmarshalJSON does.
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v.AsDouble());
    text.assign(buf, p);
  } else {
    return TypeError(path, "quantity (string or number)", v);
  }
  auto q = Quantity::Parse(text);
  if (!q.ok()) return PathError(path, q.error());
  return *q;
}

Result<ResourceList> DecodeResourceList(const Value& v, const std::string& path) {
  ResourceList out;
  if (v.IsNull()) return out;
  if (!v.IsObject()) return TypeError(path, "object", v);
  for (const auto& [name, item] : v.AsObject()) {
    std::string item_path = JoinPath(path, name);
    if (name.empty()) return PathError(item_path, "resource name must not be empty");
    BERTH_ASSIGN_OR_RETURN(Quantity q, DecodeQuantity(item, item_path));
    // The API server refuses negative amounts in every resource list (requests, limits,
    // overhead, capacity, allocatable); a negative one would make a pod fit or a node look free.
    if (q.milli < 0) return PathError(item_path, "must be greater than or equal to 0");
    out[name] = q;
  }
  return out;
}

// ---- RFC 3339 timestamps ----

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, int* m, int* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

bool ReadDigits(const std::string& s, size_t* pos, size_t n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool Expect(const std::string& s, size_t* pos, char c) {
  if (*pos >= s.size() || s[*pos] != c) return false;
  ++*pos;
  return true;
}

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

}  // namespace

Result<Time> ParseTime(const std::string& text) {
  Error bad{"invalid time \"" + text + "\" (want RFC 3339, e.g. 2024-01-02T03:04:05Z)"};
  size_t pos = 0;
  int year, month, day, hour, minute, second;
  if (!ReadDigits(text, &pos, 4, &year) || !Expect(text, &pos, '-') ||
      !ReadDigits(text, &pos, 2, &month) || !Expect(text, &pos, '-') ||
      !ReadDigits(text, &pos, 2, &day) || !Expect(text, &pos, 'T') ||
      !ReadDigits(text, &pos, 2, &hour) || !Expect(text, &pos, ':') ||
      !ReadDigits(text, &pos, 2, &minute) || !Expect(text, &pos, ':') ||
      !ReadDigits(text, &pos, 2, &second)) {
    return bad;
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return bad;
  }
  int64_t micros = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t digits = 0;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++digits) {
      if (digits < 6) micros = micros * 10 + (text[pos] - '0');  // finer digits are truncated
    }
    if (digits == 0) return bad;
    for (size_t i = digits; i < 6; ++i) micros *= 10;
  }
  int64_t offset_seconds = 0;
  if (pos < text.size() && text[pos] == 'Z') {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh, om;
    if (!ReadDigits(text, &pos, 2, &oh) || !Expect(text, &pos, ':') ||
        !ReadDigits(text, &pos, 2, &om) || oh > 23 || om > 59) {
      return bad;
    }
    offset_seconds = sign * (oh * 3600 + om * 60);
  } else {
    return bad;
  }
  if (pos != text.size()) return bad;
  int64_t seconds =
      DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  return Time{seconds * 1000000 + micros};
}

std::string FormatTime(Time t) {
  int64_t micros = t.unix_micros % 1000000;
  int64_t seconds = t.unix_micros / 1000000;
  if (micros < 0) {
    micros += 1000000;
    seconds -= 1;
  }
  int64_t days = seconds / 86400;
  int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  int64_t year;
  int month, day;
  CivilFromDays(days, &year, &month, &day);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04lld-%02d-%02dT%02d:%02d:%02d.%06lldZ",
                static_cast<long long>(year), month, day, static_cast<int>(rem / 3600),
                static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60),
                static_cast<long long>(micros));
  return buf;
}

}  // namespace berth::api
