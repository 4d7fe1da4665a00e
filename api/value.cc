#include "api/value.h"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "api/duplicate_keys.h"

namespace berth::api {

Value Value::Bool(bool b) {
  Value v;
  v.type_ = Type::kBool;
  v.b_ = b;
  return v;
}

Value Value::Int(int64_t i) {
  Value v;
  v.type_ = Type::kInt;
  v.i_ = i;
  return v;
}

Value Value::Double(double d) {
  Value v;
  v.type_ = Type::kDouble;
  v.d_ = d;
  return v;
}

Value Value::String(std::string s) {
  Value v;
  v.type_ = Type::kString;
  v.s_ = std::move(s);
  return v;
}

Value Value::MakeArray() {
  Value v;
  v.type_ = Type::kArray;
  return v;
}

Value Value::MakeObject() {
  Value v;
  v.type_ = Type::kObject;
  return v;
}

const Value* Value::Find(std::string_view key) const {
  if (type_ != Type::kObject) return nullptr;
  for (const auto& [k, v] : o_) {
    if (k == key) return &v;
  }
  return nullptr;
}

Value& Value::Set(std::string key, Value v) {
  type_ = Type::kObject;
  for (auto& [k, existing] : o_) {
    if (k == key) {
      existing = std::move(v);
      return existing;
    }
  }
  o_.emplace_back(std::move(key), std::move(v));
  return o_.back().second;
}

std::string_view Value::TypeName() const {
  switch (type_) {
    case Type::kNull:
      return "null";
    case Type::kBool:
      return "boolean";
    case Type::kInt:
      return "integer";
    case Type::kDouble:
      return "number";
    case Type::kString:
      return "string";
    case Type::kArray:
      return "array";
    case Type::kObject:
      return "object";
  }
  return "unknown";
}

size_t FirstDuplicateKey(const Value::Object& members) {
  const size_t n = members.size();
  if (n < 2) return kNoDuplicateKey;
  if (n <= 16) {  // pairwise is cheaper than hashing for the usual small object
    for (size_t i = 1; i < n; ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (members[i].first == members[j].first) return i;
      }
    }
    return kNoDuplicateKey;
  }
  std::unordered_set<std::string_view> seen;
  seen.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!seen.insert(members[i].first).second) return i;
  }
  return kNoDuplicateKey;
}

void FoldDuplicateKeys(Value::Object* members) {
  Value::Object out;
  out.reserve(members->size());  // no reallocation: the string_views below stay valid
  std::unordered_map<std::string_view, size_t> at;
  at.reserve(members->size());
  for (auto& [key, value] : *members) {
    auto it = at.find(key);
    if (it != at.end()) {
      out[it->second].second = std::move(value);
      continue;
    }
    out.emplace_back(std::move(key), std::move(value));
    at.emplace(out.back().first, out.size() - 1);
  }
  *members = std::move(out);
}

const std::string& StringMember(const Value* obj, std::string_view key) {
  static const std::string kEmpty;
  const Value* f = obj == nullptr ? nullptr : obj->Find(key);
  return f != nullptr && f->IsString() ? f->AsString() : kEmpty;
}

}  // namespace berth::api
