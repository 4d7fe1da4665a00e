// Field readers, quantities and timestamps shared by the typed decoders.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace internal {

std::string JoinPath(const std::string& path, std::string_view key) {
  if (path.empty()) return std::string(key);
  std::string out = path;
  out.push_back('.');
  out.append(key);
  return out;
}

std::string IndexPath(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

Error PathError(const std::string& path, const std::string& what) {
  if (path.empty()) return Error{what};
  return Error{path + ": " + what};
}

Error TypeError(const std::string& path, std::string_view want, const Value& got) {
  return PathError(path, "expected " + std::string(want) + ", got " + std::string(got.TypeName()));
}

namespace {

std::string NumberText(double d) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  return std::string(buf, p);
}

}  // namespace

Result<int64_t> ToInt64(const Value& v, const std::string& path) {
  if (v.IsInt()) return v.AsInt();
  if (v.IsDouble()) {
    double d = v.AsDouble();
    if (!std::isfinite(d) || d != std::floor(d)) {
      return PathError(path, "expected integer, got number " + NumberText(d));
    }
    // 2^63 is exactly representable; anything at or beyond it does not fit.
    if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
      return PathError(path, "value " + NumberText(d) + " out of range for int64");
    }
    return static_cast<int64_t>(d);
  }
  return TypeError(path, "integer", v);
}

Result<int32_t> ToInt32(const Value& v, const std::string& path) {
  auto i = ToInt64(v, path);
  BERTH_DECODE_TRY(i);
  if (*i < std::numeric_limits<int32_t>::min() || *i > std::numeric_limits<int32_t>::max()) {
    return PathError(path, "value " + std::to_string(*i) + " out of range for int32");
  }
  return static_cast<int32_t>(*i);
}

Result<ObjectReader> ObjectReader::Of(const Value* v, std::string path) {
  if (v != nullptr && v->IsNull()) v = nullptr;
  if (v != nullptr && !v->IsObject()) return TypeError(path, "object", *v);
  return ObjectReader(v, std::move(path));
}

const Value* ObjectReader::Get(std::string_view key) const {
  if (v_ == nullptr) return nullptr;
  const Value* f = v_->Find(key);
  return f == nullptr || f->IsNull() ? nullptr : f;
}

Ok ObjectReader::String(std::string_view key, std::string* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  if (!f->IsString()) return TypeError(PathOf(key), "string", *f);
  *out = f->AsString();
  return Ok();
}

Ok ObjectReader::OptString(std::string_view key, std::optional<std::string>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  if (!f->IsString()) return TypeError(PathOf(key), "string", *f);
  *out = f->AsString();
  return Ok();
}

Ok ObjectReader::Bool(std::string_view key, bool* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  if (!f->IsBool()) return TypeError(PathOf(key), "boolean", *f);
  *out = f->AsBool();
  return Ok();
}

Ok ObjectReader::Int64(std::string_view key, int64_t* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  auto i = ToInt64(*f, PathOf(key));
  BERTH_DECODE_TRY(i);
  *out = *i;
  return Ok();
}

Ok ObjectReader::Int32(std::string_view key, int32_t* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  auto i = ToInt32(*f, PathOf(key));
  BERTH_DECODE_TRY(i);
  *out = *i;
  return Ok();
}

Ok ObjectReader::OptInt64(std::string_view key, std::optional<int64_t>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  auto i = ToInt64(*f, PathOf(key));
  BERTH_DECODE_TRY(i);
  *out = *i;
  return Ok();
}

Ok ObjectReader::OptInt32(std::string_view key, std::optional<int32_t>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  auto i = ToInt32(*f, PathOf(key));
  BERTH_DECODE_TRY(i);
  *out = *i;
  return Ok();
}

Ok ObjectReader::Strings(std::string_view key, std::vector<std::string>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  std::string path = PathOf(key);
  if (!f->IsArray()) return TypeError(path, "array", *f);
  out->clear();
  for (size_t i = 0; i < f->AsArray().size(); ++i) {
    const Value& item = f->AsArray()[i];
    if (!item.IsString()) return TypeError(IndexPath(path, i), "string", item);
    out->push_back(item.AsString());
  }
  return Ok();
}

Ok ObjectReader::StringMap(std::string_view key, std::map<std::string, std::string>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  std::string path = PathOf(key);
  if (!f->IsObject()) return TypeError(path, "object", *f);
  out->clear();
  for (const auto& [k, item] : f->AsObject()) {
    if (!item.IsString()) return TypeError(JoinPath(path, k), "string", item);
    (*out)[k] = item.AsString();
  }
  return Ok();
}

Ok ObjectReader::Resources(std::string_view key, ResourceList* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  auto list = DecodeResourceList(*f, PathOf(key));
  BERTH_DECODE_TRY(list);
  *out = std::move(*list);
  return Ok();
}

Ok ObjectReader::Timestamp(std::string_view key, std::optional<Time>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  if (!f->IsString()) return TypeError(PathOf(key), "string", *f);
  auto t = ParseTime(f->AsString());
  if (!t.ok()) return PathError(PathOf(key), t.error());
  *out = *t;
  return Ok();
}

Ok ObjectReader::Enum(std::string_view key, std::initializer_list<std::string_view> allowed,
                      std::string* out) const {
  std::string s;
  BERTH_DECODE_TRY(String(key, &s));
  if (Get(key) == nullptr) return Ok();
  std::string want;
  for (std::string_view a : allowed) {
    if (s == a) {
      *out = std::move(s);
      return Ok();
    }
    if (a.empty()) continue;
    if (!want.empty()) want += ", ";
    want += "\"" + std::string(a) + "\"";
  }
  // Worded like the API server's field.NotSupported.
  return PathError(PathOf(key), "unsupported value \"" + s + "\": supported values: " + want);
}

Result<ObjectReader> ObjectReader::Child(std::string_view key) const {
  return Of(Get(key), PathOf(key));
}

}  // namespace internal

using internal::PathError;
using internal::TypeError;

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
    std::string item_path = internal::JoinPath(path, name);
    if (name.empty()) return PathError(item_path, "resource name must not be empty");
    auto q = DecodeQuantity(item, item_path);
    BERTH_DECODE_TRY(q);
    out[name] = *q;
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
