#include "api/reader.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "api/decode.h"
#include "api/duplicate_keys.h"

namespace berth::api {

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
  if (path.empty()) return Error{what, ErrorCode::kInvalid};
  return Error{path + ": " + what, ErrorCode::kInvalid};
}

Error TypeError(const std::string& path, std::string_view want, const Value& got) {
  return PathError(path, "expected " + std::string(want) + ", got " + std::string(got.TypeName()));
}

Error RequiredError(const std::string& path) {
  size_t dot = path.find_last_of('.');
  std::string key = dot == std::string::npos ? path : path.substr(dot + 1);
  return PathError(path, key + " is required");
}

Error UnknownFieldError(const std::string& path) {
  return Error{"strict decoding error: unknown field \"" + path + "\"", ErrorCode::kInvalid};
}

namespace {

std::string NumberText(double d) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  return std::string(buf, p);
}

}  // namespace

Result<int64_t> ToInt64(const Value& v, const std::string& path, ReadMode mode) {
  if (v.IsInt()) return v.AsInt();
  if (v.IsDouble() && mode.integral_numbers_are_integers) {
    double d = v.AsDouble();
    if (std::isfinite(d) && d == std::floor(d)) {
      // 2^63 is exactly representable; anything at or beyond it does not fit.
      if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
        return PathError(path, "value " + NumberText(d) + " out of range for int64");
      }
      return static_cast<int64_t>(d);
    }
  }
  return TypeError(path, "integer", v);
}

Result<int32_t> ToInt32(const Value& v, const std::string& path, ReadMode mode) {
  BERTH_ASSIGN_OR_RETURN(int64_t i, ToInt64(v, path, mode));
  if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
    return PathError(path, "value " + std::to_string(i) + " out of range for int32");
  }
  return static_cast<int32_t>(i);
}

Result<Reader> Reader::Of(const Value* v, std::string path, ReadMode mode) {
  if (v != nullptr && v->IsNull()) v = nullptr;
  if (v != nullptr && !v->IsObject()) return TypeError(path, "object", *v);
  if (v != nullptr) {
    const Value::Object& members = v->AsObject();
    size_t dup = FirstDuplicateKey(members);
    if (dup != kNoDuplicateKey) {
      return Error{
          "strict decoding error: duplicate field \"" + JoinPath(path, members[dup].first) + "\"",
          ErrorCode::kInvalid};
    }
  }
  Reader reader(v, std::move(path), mode);
  if (v != nullptr && !mode.ignore_unknown_fields) reader.read_.assign(v->AsObject().size(), false);
  return reader;
}

const Value* Reader::Get(std::string_view key) const {
  if (v_ == nullptr) return nullptr;
  const Value::Object& members = v_->AsObject();
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i].first != key) continue;
    if (!read_.empty()) read_[i] = true;
    const Value& f = members[i].second;
    return f.IsNull() ? nullptr : &f;
  }
  return nullptr;
}

Ok Reader::Require(std::string_view key) const {
  if (Get(key) == nullptr) return RequiredError(PathOf(key));
  return Ok();
}

Ok Reader::String(std::string_view key, std::string* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  if (!f->IsString()) return TypeError(PathOf(key), "string", *f);
  *out = f->AsString();
  return Ok();
}

Ok Reader::OptString(std::string_view key, std::optional<std::string>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  if (!f->IsString()) return TypeError(PathOf(key), "string", *f);
  *out = f->AsString();
  return Ok();
}

Ok Reader::Bool(std::string_view key, bool* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  if (!f->IsBool()) return TypeError(PathOf(key), "boolean", *f);
  *out = f->AsBool();
  return Ok();
}

Ok Reader::OptBool(std::string_view key, std::optional<bool>* out) const {
  bool b = false;
  if (Get(key) == nullptr) return Ok();
  BERTH_RETURN_IF_ERROR(Bool(key, &b));
  *out = b;
  return Ok();
}

Ok Reader::Int64(std::string_view key, int64_t* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  BERTH_ASSIGN_OR_RETURN(*out, ToInt64(*f, PathOf(key), mode_));
  return Ok();
}

Ok Reader::Int32(std::string_view key, int32_t* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  BERTH_ASSIGN_OR_RETURN(*out, ToInt32(*f, PathOf(key), mode_));
  return Ok();
}

Ok Reader::OptInt64(std::string_view key, std::optional<int64_t>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  BERTH_ASSIGN_OR_RETURN(*out, ToInt64(*f, PathOf(key), mode_));
  return Ok();
}

Ok Reader::OptInt32(std::string_view key, std::optional<int32_t>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  BERTH_ASSIGN_OR_RETURN(*out, ToInt32(*f, PathOf(key), mode_));
  return Ok();
}

Ok Reader::Double(std::string_view key, double* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  if (!f->IsNumber()) return TypeError(PathOf(key), "number", *f);
  *out = f->AsDouble();
  return Ok();
}

Ok Reader::OptDouble(std::string_view key, std::optional<double>* out) const {
  double d = 0;
  if (Get(key) == nullptr) return Ok();
  BERTH_RETURN_IF_ERROR(Double(key, &d));
  *out = d;
  return Ok();
}

Ok Reader::Strings(std::string_view key, std::vector<std::string>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  std::string path = PathOf(key);
  if (!f->IsArray()) return TypeError(path, "array of strings", *f);
  out->clear();
  for (size_t i = 0; i < f->AsArray().size(); ++i) {
    const Value& item = f->AsArray()[i];
    if (!item.IsString()) return TypeError(IndexPath(path, i), "string", item);
    out->push_back(item.AsString());
  }
  return Ok();
}

Ok Reader::OptStrings(std::string_view key, std::optional<std::vector<std::string>>* out) const {
  std::vector<std::string> strings;
  if (Get(key) == nullptr) return Ok();
  BERTH_RETURN_IF_ERROR(Strings(key, &strings));
  *out = std::move(strings);
  return Ok();
}

Ok Reader::StringMap(std::string_view key, std::map<std::string, std::string>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  std::string path = PathOf(key);
  // Of() checks the type and rejects duplicate keys.
  BERTH_RETURN_IF_ERROR(Of(f, path, mode_));
  out->clear();
  for (const auto& [k, item] : f->AsObject()) {
    if (!item.IsString()) return TypeError(JoinPath(path, k), "string", item);
    (*out)[k] = item.AsString();
  }
  return Ok();
}

Ok Reader::Resources(std::string_view key, ResourceList* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  BERTH_ASSIGN_OR_RETURN(*out, DecodeResourceList(*f, PathOf(key)));
  return Ok();
}

Ok Reader::Timestamp(std::string_view key, std::optional<Time>* out) const {
  const Value* f = Get(key);
  if (f == nullptr) return Ok();
  if (!f->IsString()) return TypeError(PathOf(key), "string", *f);
  auto t = ParseTime(f->AsString());
  if (!t.ok()) return PathError(PathOf(key), t.error());
  *out = *t;
  return Ok();
}

Ok Reader::Enum(std::string_view key, std::initializer_list<std::string_view> allowed,
                std::string* out) const {
  std::string s;
  BERTH_RETURN_IF_ERROR(String(key, &s));
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
  return PathError(PathOf(key), "unsupported value \"" + s + "\": supported values: " + want);
}

Result<const Value*> Reader::Array(std::string_view key) const {
  const Value* f = Get(key);
  if (f != nullptr && !f->IsArray()) return TypeError(PathOf(key), "array", *f);
  return f;
}

Result<Reader> Reader::Child(std::string_view key) const {
  return Of(Get(key), PathOf(key), mode_);
}

Ok Reader::Done() const {
  if (v_ == nullptr || read_.empty()) return Ok();
  const Value::Object& members = v_->AsObject();
  for (size_t i = 0; i < members.size(); ++i) {
    if (!read_[i]) return UnknownFieldError(PathOf(members[i].first));
  }
  return Ok();
}

}  // namespace berth::api
