#include "api/value.h"

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

}  // namespace berth::api
