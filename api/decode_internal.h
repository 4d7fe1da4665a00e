#pragma once
// Helpers shared by the decode_*.cc files; not part of berth_api's interface. An ObjectReader is
// a view of one JSON object plus its path from the object root; every getter leaves its output
// untouched when the field is absent or null and returns an error naming `<path>.<key>` when the
// field has the wrong type or an invalid value.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/decode.h"
#include "base/result.h"
#include "api/types.h"
#include "api/value.h"

// Returns the error of an Ok/Result expression from the enclosing function.
#define BERTH_DECODE_TRY(expr)                      \
  do {                                              \
    if (auto berth_ok_ = (expr); !berth_ok_.ok()) { \
      return ::berth::Error{berth_ok_.error()};     \
    }                                               \
  } while (0)

namespace berth::api::internal {

std::string JoinPath(const std::string& path, std::string_view key);
std::string IndexPath(const std::string& path, size_t index);
// "<path>: <what>", or just `what` at the root.
Error PathError(const std::string& path, const std::string& what);
Error TypeError(const std::string& path, std::string_view want, const Value& got);

// Integer checks shared by every integer field (an integral number such as 1e3 is accepted).
Result<int64_t> ToInt64(const Value& v, const std::string& path);
Result<int32_t> ToInt32(const Value& v, const std::string& path);

class ObjectReader {
 public:
  // `v` may be null (nullptr or a null Value): then every field is absent.
  static Result<ObjectReader> Of(const Value* v, std::string path);

  bool present() const { return v_ != nullptr; }
  const std::string& path() const { return path_; }
  std::string PathOf(std::string_view key) const { return JoinPath(path_, key); }
  // nullptr when absent or null.
  const Value* Get(std::string_view key) const;

  Ok String(std::string_view key, std::string* out) const;
  Ok OptString(std::string_view key, std::optional<std::string>* out) const;
  Ok Bool(std::string_view key, bool* out) const;
  Ok Int64(std::string_view key, int64_t* out) const;
  Ok Int32(std::string_view key, int32_t* out) const;
  Ok OptInt64(std::string_view key, std::optional<int64_t>* out) const;
  Ok OptInt32(std::string_view key, std::optional<int32_t>* out) const;
  Ok Strings(std::string_view key, std::vector<std::string>* out) const;
  Ok StringMap(std::string_view key, std::map<std::string, std::string>* out) const;
  Ok Resources(std::string_view key, ResourceList* out) const;
  Ok Timestamp(std::string_view key, std::optional<Time>* out) const;
  // A string that must be one of `allowed` (the empty string only if listed).
  Ok Enum(std::string_view key, std::initializer_list<std::string_view> allowed,
          std::string* out) const;
  // A nested object; the result is not present() when the field is absent or null.
  Result<ObjectReader> Child(std::string_view key) const;

  // A list of objects; `decode(const ObjectReader& item, T* out) -> Ok`.
  template <typename T, typename F>
  Ok List(std::string_view key, std::vector<T>* out, F decode) const {
    const Value* list = Get(key);
    if (list == nullptr) return Ok();
    std::string list_path = PathOf(key);
    if (!list->IsArray()) return TypeError(list_path, "array", *list);
    out->clear();
    out->reserve(list->AsArray().size());
    for (size_t i = 0; i < list->AsArray().size(); ++i) {
      const Value& item = list->AsArray()[i];
      std::string item_path = IndexPath(list_path, i);
      if (!item.IsObject()) return TypeError(item_path, "object", item);
      auto reader = Of(&item, item_path);
      BERTH_DECODE_TRY(reader);
      T decoded{};
      BERTH_DECODE_TRY(decode(*reader, &decoded));
      out->push_back(std::move(decoded));
    }
    return Ok();
  }

 private:
  ObjectReader(const Value* v, std::string path) : v_(v), path_(std::move(path)) {}
  const Value* v_;
  std::string path_;
};

// Typed pieces shared across kinds.
Ok DecodeObjectMeta(const ObjectReader& in, ObjectMeta* out);
Ok DecodeLabelSelectorInto(const ObjectReader& in, LabelSelector* out);
Ok DecodeOptLabelSelector(const ObjectReader& parent, std::string_view key,
                          std::optional<LabelSelector>* out);
Ok DecodeNodeSelectorInto(const ObjectReader& in, NodeSelector* out);
Ok DecodeNodeSelectorTerm(const ObjectReader& in, NodeSelectorTerm* out);
Ok DecodeNodeAffinityInto(const ObjectReader& in, NodeAffinity* out);
Ok DecodeTopologySpreadConstraintInto(const ObjectReader& in, TopologySpreadConstraint* out);
Ok DecodeResourceRequirements(const ObjectReader& in, ResourceRequirements* out);

// Decodes a whole object of type T with `decode(const ObjectReader& root, T*)`.
template <typename T, typename F>
Result<T> DecodeRoot(const Value& v, F decode) {
  if (!v.IsObject()) return TypeError("", "object", v);
  auto root = ObjectReader::Of(&v, "");
  BERTH_DECODE_TRY(root);
  T out{};
  BERTH_DECODE_TRY(decode(*root, &out));
  return out;
}

}  // namespace berth::api::internal
