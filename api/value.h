#pragma once
// A small JSON-like document tree. The byte parsers in api/json (RapidJSON, yaml-cpp)
// produce it; the typed decoders (decode.h) and plugin factories read it. Keeping the tree our own
// keeps RapidJSON and yaml-cpp out of every header below the edge.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::api {

class Value {
 public:
  enum class Type : uint8_t { kNull, kBool, kInt, kDouble, kString, kArray, kObject };
  using Array = std::vector<Value>;
  using Member = std::pair<std::string, Value>;
  using Object =
      std::vector<Member>;  // insertion order kept; lookups are linear (objects are small)

  Value() = default;
  static Value Bool(bool b);
  static Value Int(int64_t i);
  static Value Double(double d);
  static Value String(std::string s);
  static Value MakeArray();
  static Value MakeObject();

  Type type() const { return type_; }
  bool IsNull() const { return type_ == Type::kNull; }
  bool IsBool() const { return type_ == Type::kBool; }
  bool IsInt() const { return type_ == Type::kInt; }
  bool IsDouble() const { return type_ == Type::kDouble; }
  bool IsNumber() const { return type_ == Type::kInt || type_ == Type::kDouble; }
  bool IsString() const { return type_ == Type::kString; }
  bool IsArray() const { return type_ == Type::kArray; }
  bool IsObject() const { return type_ == Type::kObject; }

  bool AsBool() const { return b_; }
  int64_t AsInt() const { return i_; }
  double AsDouble() const { return type_ == Type::kInt ? static_cast<double>(i_) : d_; }
  const std::string& AsString() const { return s_; }
  const Array& AsArray() const { return a_; }
  Array& MutableArray() { return a_; }
  const Object& AsObject() const { return o_; }
  Object& MutableObject() { return o_; }

  // Object member lookup; nullptr when absent or when this is not an object.
  const Value* Find(std::string_view key) const;
  // Object member set (replaces an existing key).
  Value& Set(std::string key, Value v);
  void Push(Value v) { a_.push_back(std::move(v)); }

  // Type name for error messages: "null", "boolean", "integer", "number", "string", "array",
  // "object".
  std::string_view TypeName() const;

 private:
  Type type_ = Type::kNull;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  Array a_;
  Object o_;
};

// The string member `key` of `obj`; empty when obj is null, the member is absent or not a string.
const std::string& StringMember(const Value* obj, std::string_view key);

}  // namespace berth::api
