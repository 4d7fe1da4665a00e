// The Policy's `extenders` (upstream's LegacyExtender) -> config::Extender. The legacy shape
// differs from KubeSchedulerConfiguration's Extender only in `enableHttps` (v1: enableHTTPS) and
// `httpTimeout` (integer nanoseconds; v1: a duration string), so entries are rewritten and decoded
// by config/decode.cc; the checks are upstream's ValidatePolicy extender checks.

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "api/reader.h"
#include "api/value.h"
#include "base/result.h"
#include "config/internal.h"
#include "config/policy_internal.h"
#include "config/types.h"

namespace berth::config::policy_internal {

using api::Value;

Result<std::vector<Extender>> DecodeLegacyExtenders(const Value& list, const std::string& path) {
  if (!list.IsArray()) return api::TypeError(path, "array", list);
  Value rewritten = Value::MakeArray();
  for (size_t i = 0; i < list.AsArray().size(); ++i) {
    const Value& e = list.AsArray()[i];
    const std::string p = api::IndexPath(path, i);
    if (!e.IsObject()) return api::TypeError(p, "object", e);
    Value out = Value::MakeObject();
    for (const auto& [key, value] : e.AsObject()) {
      if (key == "enableHTTPS") {
        Error err = api::UnknownFieldError(p + ".enableHTTPS");
        err.message += " (the Policy spells it enableHttps)";
        return err;
      }
      if (key == "enableHttps") {
        out.Set("enableHTTPS", value);
      } else if (key == "httpTimeout" && !value.IsNull()) {
        if (!value.IsInt() || value.AsInt() < 0) {
          return api::TypeError(p + ".httpTimeout", "non-negative integer nanoseconds", value);
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
  BERTH_ASSIGN_OR_RETURN(internal::Decoded decoded, internal::Decode(root));
  std::vector<Extender> extenders = std::move(decoded.config.extenders);

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
