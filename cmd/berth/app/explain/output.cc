#include "cmd/berth/app/explain/output.h"

#include "api/json/parse.h"

namespace berth::explain {
namespace {

void Append(const api::Value& v, int depth, std::string* out) {
  const std::string indent(2 * (depth + 1), ' ');
  if (v.IsObject() && !v.AsObject().empty()) {
    *out += "{\n";
    bool first = true;
    for (const auto& [key, member] : v.AsObject()) {
      if (!first) *out += ",\n";
      first = false;
      *out += indent + api::json::ToJson(api::Value::String(key)) + ": ";
      Append(member, depth + 1, out);
    }
    *out += "\n" + std::string(2 * depth, ' ') + "}";
    return;
  }
  if (v.IsArray() && !v.AsArray().empty()) {
    *out += "[\n";
    bool first = true;
    for (const auto& element : v.AsArray()) {
      if (!first) *out += ",\n";
      first = false;
      *out += indent;
      Append(element, depth + 1, out);
    }
    *out += "\n" + std::string(2 * depth, ' ') + "]";
    return;
  }
  *out += api::json::ToJson(v);
}

}  // namespace

std::string PrettyJson(const api::Value& v) {
  std::string out;
  Append(v, 0, &out);
  return out;
}

}  // namespace berth::explain
