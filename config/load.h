#pragma once
// Loading berth's KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): YAML -> strict
// decoding -> upstream's v1 defaults (with berth's names) -> upstream's validation.
//
// `known_plugins` are the registry's plugin names. They serve twice: every plugin a profile names
// (enabled anywhere, or given a pluginConfig) must be one of them, and the upstream default
// plugins are merged in only when berth has them.
//
// Every error message starts with `<source>: `; YAML errors continue with `line L, column C: `,
// other errors with a field path (`profiles[0].plugins.score.enabled[1]: unknown plugin "Foo";
// known plugins: A, B`). Validation reports every problem found, one per line, each line prefixed
// with the source. All functions are pure and thread-safe.

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/types.h"

namespace berth::config {

// Reads and parses the file at `path` (the source name is the path). Errors as ParseConfig, or
// `<path>: cannot read file: <reason>`.
Result<SchedulerConfiguration> LoadConfigFile(const std::string& path,
                                              const std::vector<std::string>& known_plugins);

// Parses one YAML (or JSON) document. Errors:
//  - the YAML is malformed, empty, or holds more than one document;
//  - apiVersion is not kubescheduler.config.k8s.io/v1 (v1beta2/v1beta3 are no longer served) or
//    kind is not KubeSchedulerConfiguration;
//  - an unknown or duplicate field anywhere outside pluginConfig args (strict decoding), a wrong
//    type, a bad duration or an out-of-range integer;
//  - any validation failure (see config/validate.cc).
Result<SchedulerConfiguration> ParseConfig(std::string_view yaml, const std::string& source_name,
                                           const std::vector<std::string>& known_plugins);

// The configuration used when no file is given: every default, one profile `berth-scheduler`
// running the upstream default plugins that exist in `known_plugins`.
SchedulerConfiguration DefaultConfig(const std::vector<std::string>& known_plugins);

}  // namespace berth::config
