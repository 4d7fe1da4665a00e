#pragma once
// ArgsReader: strict, typed reading of a plugin's args (an api::Value object) in its factory.
// Every getter returns nullopt when the field is absent; a wrong type records an error naming the
// field path (`<args_path>.<field>: expected array of strings, got integer`). Finish() also
// rejects fields that no getter asked for (strict decoding, as upstream's config loader does).
//
//   ArgsReader r(ctx.args, ctx.args_path);
//   auto present = r.StringList("presentLabels");
//   if (auto ok = r.Finish(); !ok) return Error{ok.error()};

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "api/value.h"

namespace berth::framework {

class ArgsReader {
 public:
  ArgsReader(const api::Value* args, std::string path);

  std::optional<std::vector<std::string>> StringList(std::string_view field);
  std::optional<std::string> String(std::string_view field);
  std::optional<int64_t> Int(std::string_view field);
  std::optional<double> Number(std::string_view field);
  std::optional<bool> Bool(std::string_view field);
  // Objects and arrays are returned raw for nested reading; nullptr when absent or mistyped.
  const api::Value* Object(std::string_view field);
  const api::Value* Array(std::string_view field);
  // Marks a field as known without reading it.
  void Ignore(std::string_view field);

  // "<path>.<field>"
  std::string Path(std::string_view field) const;
  const std::string& path() const { return path_; }
  // Records an error (the first one wins).
  void Fail(std::string message);
  bool failed() const { return error_.has_value(); }
  // The first error, or an unknown-field error, or Ok.
  Ok Finish();

 private:
  const api::Value* Field(std::string_view field);

  const api::Value* args_;
  std::string path_;
  std::set<std::string, std::less<>> seen_;
  std::optional<std::string> error_;
};

}  // namespace berth::framework
