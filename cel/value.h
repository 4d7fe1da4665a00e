#pragma once
// Runtime CEL values. A Value is a small tagged union; lists and maps are shared immutable
// vectors so copying a Value never copies a container. Only the evaluator creates them.

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "cel/quantity.h"
#include "cel/semver.h"

namespace berth::cel {

struct Value;
struct TypeValue {
  std::string name;  // "int", "list", "kubernetes.Quantity", ...
};
struct ListValue {
  std::vector<Value> items;
};
// Map entries in insertion order. `missing_is_empty` mirrors DRA's attribute and capacity maps,
// whose lookups of an unknown domain yield an empty map instead of an error.
struct MapValue {
  std::vector<std::pair<Value, Value>> entries;
  bool missing_is_empty = false;
};
struct OptionalValue {
  std::shared_ptr<const Value> value;  // null: optional.none()
};
struct Null {};

// A string value. Long strings are shared, not copied, when a Value is copied (as cel-go's
// immutable strings are): a selector that puts one long string into many list elements or
// variables holds it once. Short ones stay inline (no allocation, no shared reference count
// between threads evaluating the same program).
class StringValue {
 public:
  StringValue(std::string s) {  // NOLINT: implicit by design, like the std::string it replaces
    if (s.size() > kInline) {
      shared_ = std::make_shared<const std::string>(std::move(s));
    } else {
      inline_ = std::move(s);
    }
  }
  StringValue(const char* s) : StringValue(std::string(s)) {}  // NOLINT
  const std::string& get() const { return shared_ ? *shared_ : inline_; }

 private:
  static constexpr size_t kInline = 64;
  std::string inline_;
  std::shared_ptr<const std::string> shared_;
};

// A bytes value, shared like a long string.
struct Bytes {
  explicit Bytes(std::string s) : value(std::move(s)) {}
  explicit Bytes(const char* s) : value(s) {}
  const std::string& data() const { return value.get(); }
  StringValue value;
};

struct Value {
  std::variant<Null, bool, int64_t, uint64_t, double, StringValue, Bytes,
               std::shared_ptr<const ListValue>, std::shared_ptr<const MapValue>, Semver, Quantity,
               TypeValue, OptionalValue>
      v;

  // Is<std::string>() and As<std::string>() see through StringValue.
  template <typename T>
  bool Is() const {
    if constexpr (std::is_same_v<T, std::string>) {
      return std::holds_alternative<StringValue>(v);
    } else {
      return std::holds_alternative<T>(v);
    }
  }
  template <typename T>
  const T& As() const {
    if constexpr (std::is_same_v<T, std::string>) {
      return std::get<StringValue>(v).get();
    } else {
      return std::get<T>(v);
    }
  }
  const ListValue& List() const { return *std::get<std::shared_ptr<const ListValue>>(v); }
  const MapValue& Map() const { return *std::get<std::shared_ptr<const MapValue>>(v); }
  bool IsList() const { return Is<std::shared_ptr<const ListValue>>(); }
  bool IsMap() const { return Is<std::shared_ptr<const MapValue>>(); }

  // Created mutable and shared as const: the evaluator appends in place to a list it is the only
  // owner of (a map()/filter() accumulator).
  static Value MakeList(std::vector<Value> items) {
    return Value{
        std::shared_ptr<const ListValue>(std::make_shared<ListValue>(ListValue{std::move(items)}))};
  }
  static Value MakeMap(std::vector<std::pair<Value, Value>> entries,
                       bool missing_is_empty = false) {
    return Value{std::make_shared<const MapValue>(MapValue{std::move(entries), missing_is_empty})};
  }

  // cel-go's type name of the runtime value: "int", "string", "list", "map", ...
  std::string TypeName() const;
};

// CEL heterogeneous equality (numbers compare across int/uint/double; lists and maps
// element-wise). Values of unrelated types are unequal.
bool Equal(const Value& a, const Value& b);

// -2 when the values are not comparable (the `no such overload` case), else -1/0/1. Numbers
// compare across types (CrossTypeNumericComparisons).
int Compare(const Value& a, const Value& b);

// cel-go's actualSize for cost accounting: the size of strings (code points), bytes, lists and
// maps; 1 for everything else.
uint64_t CostSize(const Value& v);

// Number of Unicode code points of a UTF-8 string.
uint64_t CodePoints(std::string_view s);

// Map lookup with CEL key equality; nullptr when absent.
const Value* MapFind(const MapValue& m, const Value& key);

}  // namespace berth::cel
