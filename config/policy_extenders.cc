// The Policy's `extenders` (upstream's LegacyExtender) -> config::Extender. The legacy shape
// differs from KubeSchedulerConfiguration's Extender only in `enableHttps` (v1: enableHTTPS) and
// `httpTimeout` (integer nanoseconds; v1: a duration string), so entries are rewritten and decoded
// by config/decode.cc; the checks are upstream's ValidatePolicy extender checks.

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "config/internal.h"
#include "config/policy_internal.h"
#include "config/types.h"
#include "base/result.h"
#include "api/value.h"

namespace berth::config::policy_internal {

using api::Value;

Result<std::vector<Extender>> DecodeLegacyExtenders(const Value& list, const std::string& path) {
  if (!list.IsArray()) {
    return Error{path + ": expected array, got " + std::string(list.TypeName())};
  }
  Value rewritten = Value::MakeArray();
  for (size_t i = 0; i < list.AsArray().size(); ++i) {
    const Value& e = list.AsArray()[i];
    const std::string p = path + "[" + std::to_string(i) + "]";
    if (!e.IsObject()) return Error{p + ": expected object, got " + std::string(e.TypeName())};
    Value out = Value::MakeObject();
    for (const auto& [key, value] : e.AsObject()) {
      if (key == "enableHTTPS") {
        return Error{"strict decoding error: unknown field \"" + p +
                     ".enableHTTPS\" (the Policy spells it enableHttps)"};
      }
      if (key == "enableHttps") {
        out.Set("enableHTTPS", value);
      } else if (key == "httpTimeout" && !value.IsNull()) {
        if (!value.IsInt() || value.AsInt() < 0) {
          return Error{p + ".httpTimeout: expected non-negative integer nanoseconds, got " +
                       std::string(value.TypeName())};
        }
        out.Set("httpTimeout", Value::String(std::to_string(value.AsInt()) + "ns"));
      } else {
        out.Set(key, value);
      }
    }
    rewritten.Push(std::move(out));
  }
  Value root = Value::MakeObject();
  root.Set("extenders", std::move(rewritten));
  auto decoded = internal::Decode(root);
  if (!decoded) return Error{decoded.error()};
  std::vector<Extender> extenders = std::move(decoded->config.extenders);

  int binders = 0;
  std::set<std::string> managed;
  for (size_t i = 0; i < extenders.size(); ++i) {
    Extender& e = extenders[i];
    const std::string p = path + "[" + std::to_string(i) + "]";
    // Upstream's NewHTTPExtender: a zero timeout means DefaultExtenderTimeout (5s).
    if (e.http_timeout <= std::chrono::milliseconds(0)) e.http_timeout = std::chrono::seconds(5);
    if (e.url_prefix.empty()) return Error{p + ".urlPrefix: Required value"};
    if (!e.prioritize_verb.empty() && e.weight <= 0) {
      return Error{p + ".weight: priority for extender " + e.url_prefix +
                   " should have a positive weight applied to it"};
    }
    if (!e.bind_verb.empty()) ++binders;
    for (size_t j = 0; j < e.managed_resources.size(); ++j) {
      if (!managed.insert(e.managed_resources[j].name).second) {
        return Error{p + ".managedResources[" + std::to_string(j) +
                     "].name: Duplicate extender managed resource name " +
                     e.managed_resources[j].name};
      }
    }
  }
  if (binders > 1) {
    return Error{path + ": Only one extender can implement bind, found " + std::to_string(binders)};
  }
  return extenders;
}

}  // namespace berth::config::policy_internal
