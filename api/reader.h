#pragma once
// api::Reader: the one reader of Value trees. The object decoders (api/decode_*.cc), the
// KubeSchedulerConfiguration and Policy decoders (config/), the plugins' args and the kubeconfig
// loader (informers/client) all read through it, so every reader-level error is worded once:
//
//   wrong type     `<path>: expected <what>, got <type>`   e.g. `spec.priority: expected integer,
//                                                           got string`
//   required       `<path>: <key> is required`             e.g. `spec.taints[0].effect: effect is
//                                                           required`
//   unknown field  `strict decoding error: unknown field "<path>"` (upstream's strict decoder)
//   duplicate      `strict decoding error: duplicate field "<path>"`
//   int range      `<path>: value <v> out of range for int32`
//
// `<path>` is the field path from the reader's root
// (`profiles[0].plugins.score.enabled[1].weight`); at the root itself the message is `<what>`
// alone. Every error has code kInvalid.
//
// A Reader is a view of one object (or of nothing: every field is then absent). Getters leave their
// output untouched when the field is absent or null, as Go's decoder does. In kStrict mode a reader
// remembers which members a getter asked for and Done() reports the first member nobody read;
// List() and Object() call Done() on the readers they hand out, a Reader from Of()/Child() must be
// finished by its caller. Duplicate members are errors in every mode (api/json's YAML parser
// already refuses them with the line, its JSON parser folds them, last one wins, as encoding/json
// does, so only a hand-built Value reaches this check).
//
// Not thread-safe (a Reader records what was read); the Value must outlive it.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/types.h"
#include "api/value.h"
#include "base/result.h"

namespace berth::api {

struct ReadMode {
  // Members no getter asked for are ignored rather than errors: Kubernetes objects from the API
  // server carry many fields berth does not read, and so do real kubeconfig files.
  bool ignore_unknown_fields = false;
  // An integral floating-point number (1e3, 2.0) is accepted where an integer is expected, as the
  // object decoders always have; configuration (Go's json into an int) rejects it.
  bool integral_numbers_are_integers = false;
};

// Configuration, Policy and plugin args: unknown fields are errors, integers must be integers.
inline constexpr ReadMode kStrict{};
// Kubernetes objects (pods, nodes, CRDs): unknown fields ignored, 1e3 is an integer.
inline constexpr ReadMode kObjectMode{true, true};
// kubeconfig files: unknown fields ignored (clientcmd reads many berth does not).
inline constexpr ReadMode kLenient{true, false};

// Path helpers: JoinPath("a", "b") == "a.b", JoinPath("", "b") == "b"; IndexPath("a", 2) == "a[2]".
std::string JoinPath(const std::string& path, std::string_view key);
std::string IndexPath(const std::string& path, size_t index);
// "<path>: <what>", or just `what` at the root (path empty). Code kInvalid.
Error PathError(const std::string& path, const std::string& what);
// "<path>: expected <want>, got <type of got>".
Error TypeError(const std::string& path, std::string_view want, const Value& got);
// "<path>: <key> is required" where path already ends in key.
Error RequiredError(const std::string& path);
// `strict decoding error: unknown field "<path>"`.
Error UnknownFieldError(const std::string& path);

// Integer conversions shared by every integer field.
Result<int64_t> ToInt64(const Value& v, const std::string& path, ReadMode mode = kStrict);
Result<int32_t> ToInt32(const Value& v, const std::string& path, ReadMode mode = kStrict);

class Reader {
 public:
  // A reader of `v` at `path`. `v` may be nullptr or null: then every field is absent.
  // Errors: `<path>: expected object, got <type>`; a duplicate member.
  static Result<Reader> Of(const Value* v, std::string path, ReadMode mode = kStrict);

  bool present() const { return v_ != nullptr; }
  const std::string& path() const { return path_; }
  ReadMode mode() const { return mode_; }
  std::string PathOf(std::string_view key) const { return JoinPath(path_, key); }

  // The member, marked as read; nullptr when absent or null.
  const Value* Get(std::string_view key) const;
  // Marks a member as known without reading it.
  void Ignore(std::string_view key) const { (void)Get(key); }
  // `<path>.<key>: <key> is required` unless the member is present (and not null).
  Ok Require(std::string_view key) const;

  Ok String(std::string_view key, std::string* out) const;
  Ok OptString(std::string_view key, std::optional<std::string>* out) const;
  Ok Bool(std::string_view key, bool* out) const;
  Ok OptBool(std::string_view key, std::optional<bool>* out) const;
  Ok Int64(std::string_view key, int64_t* out) const;
  Ok Int32(std::string_view key, int32_t* out) const;
  Ok OptInt64(std::string_view key, std::optional<int64_t>* out) const;
  Ok OptInt32(std::string_view key, std::optional<int32_t>* out) const;
  // Any number (integer or not).
  Ok Double(std::string_view key, double* out) const;
  Ok OptDouble(std::string_view key, std::optional<double>* out) const;
  // An array of strings (`expected array of strings, got <type>`; `<path>[i]: expected string`).
  Ok Strings(std::string_view key, std::vector<std::string>* out) const;
  Ok OptStrings(std::string_view key, std::optional<std::vector<std::string>>* out) const;
  Ok StringMap(std::string_view key, std::map<std::string, std::string>* out) const;
  Ok Resources(std::string_view key, ResourceList* out) const;
  Ok Timestamp(std::string_view key, std::optional<Time>* out) const;
  // A string that must be one of `allowed` (the empty string only if listed). Otherwise worded
  // like the API server's field.NotSupported.
  Ok Enum(std::string_view key, std::initializer_list<std::string_view> allowed,
          std::string* out) const;
  // An array, returned raw (nullptr when absent or null).
  Result<const Value*> Array(std::string_view key) const;
  // A nested object; the result is not present() when the field is absent or null. The caller
  // finishes it with Done().
  Result<Reader> Child(std::string_view key) const;

  // The first member no getter asked for (document order), as an unknown-field error; Ok in a
  // mode that ignores unknown fields.
  Ok Done() const;

  // A nested object read by `decode(const Reader&) -> Ok`, then Done(); nothing when absent.
  template <typename F>
  Ok Object(std::string_view key, F decode) const {
    BERTH_ASSIGN_OR_RETURN(Reader child, Child(key));
    if (!child.present()) return Ok();
    BERTH_RETURN_IF_ERROR(decode(child));
    return child.Done();
  }

  // A list of objects; `decode(const Reader& item, T* out) -> Ok`, then Done() on each item.
  template <typename T, typename F>
  Ok List(std::string_view key, std::vector<T>* out, F decode) const {
    BERTH_ASSIGN_OR_RETURN(const Value* list, Array(key));
    if (list == nullptr) return Ok();
    const std::string list_path = PathOf(key);
    out->clear();
    out->reserve(list->AsArray().size());
    for (size_t i = 0; i < list->AsArray().size(); ++i) {
      const Value& item = list->AsArray()[i];
      std::string item_path = IndexPath(list_path, i);
      if (!item.IsObject()) return TypeError(item_path, "object", item);
      BERTH_ASSIGN_OR_RETURN(Reader reader, Of(&item, std::move(item_path), mode_));
      T decoded{};
      BERTH_RETURN_IF_ERROR(decode(reader, &decoded));
      BERTH_RETURN_IF_ERROR(reader.Done());
      out->push_back(std::move(decoded));
    }
    return Ok();
  }

 private:
  Reader(const Value* v, std::string path, ReadMode mode)
      : v_(v), path_(std::move(path)), mode_(mode) {}

  const Value* v_;
  std::string path_;
  ReadMode mode_;
  // One bit per member of *v_: read by a getter (kept only when unknown fields are errors).
  mutable std::vector<bool> read_;
};

// Decodes object `v` (which must be an object) with `decode(const Reader&, T*) -> Ok`, then
// Done(). Errors are prefixed by `path` (empty at a document root).
template <typename T, typename F>
Result<T> ReadObject(const Value& v, const std::string& path, ReadMode mode, F decode) {
  if (!v.IsObject()) return TypeError(path, "object", v);
  BERTH_ASSIGN_OR_RETURN(Reader reader, Reader::Of(&v, path, mode));
  T out{};
  BERTH_RETURN_IF_ERROR(decode(reader, &out));
  BERTH_RETURN_IF_ERROR(reader.Done());
  return out;
}

}  // namespace berth::api
