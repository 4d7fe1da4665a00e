#pragma once
// Phases of config/load.cc, exposed for it and for tests only. Messages carry field paths but no
// source name; ParseConfig adds `<source>: `. Pure functions; thread-safe.

#include <string>
#include <vector>

#include "api/value.h"
#include "base/result.h"
#include "config/types.h"

namespace berth::config::internal {

// What decoding saw besides the values: the presence bits that defaulting needs where an explicit
// value differs from an absent one.
struct Decoded {
  SchedulerConfiguration config;         // profiles' plugins are the user's, not yet merged
  std::vector<bool> scheduler_name_set;  // one per profile
  bool contention_profiling_set = false;
};

// Strict decoding of a KubeSchedulerConfiguration document (apiVersion and kind already checked).
// Error (kInvalid): the first problem, worded by api::Reader (api/reader.h): `<path>: <what>` or
// `strict decoding error: unknown field "<path>"`.
Result<Decoded> Decode(const api::Value& root);

// Checks the plugin names, weights and pluginConfig entries the user wrote (paths index the
// user's lists). Returns one message per problem.
std::vector<std::string> ValidateCustomPlugins(const SchedulerConfiguration& config,
                                               const std::vector<std::string>& known_plugins);

// Upstream's SetDefaults_KubeSchedulerConfiguration with berth's names; merges each profile's
// plugins into DefaultPlugins(known_plugins).
SchedulerConfiguration ApplyDefaults(Decoded decoded,
                                     const std::vector<std::string>& known_plugins);

// Upstream's ValidateKubeSchedulerConfiguration (plus component-base and client-go checks) on a
// defaulted configuration. Returns one message per problem.
std::vector<std::string> Validate(const SchedulerConfiguration& config);

// Deep equality of two value trees (object member order ignored).
bool ValueEqual(const api::Value& a, const api::Value& b);

}  // namespace berth::config::internal
