#include "config/load.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "api/json/parse.h"
#include "base/read_file.h"
#include "base/strings.h"
#include "config/defaults.h"
#include "config/internal.h"

namespace berth::config {
namespace {

// Upstream's scheme picks the type from apiVersion/kind before decoding; berth serves only v1.
Ok CheckTypeMeta(const api::Value& root) {
  const api::Value* api_version = root.Find("apiVersion");
  if (api_version == nullptr || !api_version->IsString() || api_version->AsString().empty()) {
    return Error{"apiVersion is required: want " + Quote(kApiVersion)};
  }
  if (api_version->AsString() != kApiVersion) {
    return Error{"apiVersion " + Quote(api_version->AsString()) + " is not supported: only " +
                 Quote(kApiVersion) +
                 " is served (kubescheduler.config.k8s.io/v1beta* are no longer served; migrate "
                 "the file to v1)"};
  }
  const api::Value* kind = root.Find("kind");
  if (kind == nullptr || !kind->IsString() || kind->AsString().empty()) {
    return Error{"kind is required: want " + Quote(kKind)};
  }
  if (kind->AsString() != kKind) {
    std::string hint;
    if (kind->AsString() == "Policy") {
      hint = " (the scheduler Policy API was removed; express it as profiles and pluginConfig)";
    }
    return Error{"kind " + Quote(kind->AsString()) + " is not supported: want " + Quote(kKind) +
                 hint};
  }
  return Ok();
}

}  // namespace

Result<SchedulerConfiguration> ParseConfig(std::string_view yaml, const std::string& source_name,
                                           const std::vector<std::string>& known_plugins) {
  const std::string prefix = source_name + ": ";
  auto docs = api::json::ParseYamlDocuments(yaml);
  if (!docs) return Error{prefix + docs.error()};
  if (docs->empty()) {
    return Error{prefix + "empty file: expected a " + std::string(kKind) + " document"};
  }
  if (docs->size() > 1) {
    return Error{prefix + "expected one YAML document, found " + std::to_string(docs->size())};
  }
  const api::Value& root = (*docs)[0];
  if (!root.IsObject()) {
    return Error{prefix + "expected a " + std::string(kKind) + " object, got " +
                 std::string(root.TypeName())};
  }
  if (Ok ok = CheckTypeMeta(root); !ok) return Error{prefix + ok.error()};

  auto decoded = internal::Decode(root);
  if (!decoded) return Error{prefix + decoded.error()};
  // Names are checked against what the user wrote, so that paths index the user's lists.
  std::vector<std::string> errs = internal::ValidateCustomPlugins(decoded->config, known_plugins);
  SchedulerConfiguration config = internal::ApplyDefaults(std::move(*decoded), known_plugins);
  for (std::string& e : internal::Validate(config)) errs.push_back(std::move(e));
  if (!errs.empty()) {
    std::string message;
    for (const std::string& e : errs) message += (message.empty() ? "" : "\n") + prefix + e;
    return Error{std::move(message)};
  }
  return config;
}

Result<SchedulerConfiguration> LoadConfigFile(const std::string& path,
                                              const std::vector<std::string>& known_plugins) {
  auto text = ReadFile(path, kMaxConfigFileBytes);
  if (!text.ok()) return Error{path + ": cannot read file: " + text.error()};
  return ParseConfig(*text, path, known_plugins);
}

SchedulerConfiguration DefaultConfig(const std::vector<std::string>& known_plugins) {
  return internal::ApplyDefaults(internal::Decoded{}, known_plugins);
}

}  // namespace berth::config
