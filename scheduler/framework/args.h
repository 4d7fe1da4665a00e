#pragma once
// Plugin args: a plugin's factory reads `profiles[i].pluginConfig[j].args` through the one strict
// reader, api::Reader (api/reader.h), so its wrong-type and unknown-field errors read like every
// other configuration error:
//
//   BERTH_ASSIGN_OR_RETURN(api::Reader r, framework::ReadArgs(ctx.args, ctx.args_path));
//   std::optional<int64_t> weight;
//   BERTH_RETURN_IF_ERROR(r.OptInt64("hardPodAffinityWeight", &weight));
//   BERTH_RETURN_IF_ERROR(r.Done());  // rejects fields nobody read
//
// Errors have code kInvalid.

#include <string>

#include "api/reader.h"
#include "api/value.h"
#include "base/result.h"

namespace berth::framework {

// A kStrict reader of `args` at `path`; null or absent args read as an empty object. apiVersion and
// kind may accompany typed args, as upstream accepts. Error: `<path>: expected object, got <type>`.
Result<api::Reader> ReadArgs(const api::Value* args, const std::string& path);

// For plugins without args: Ok when `args` is absent, null or has only apiVersion and kind;
// otherwise the unknown-field error of its first field.
Ok NoArgs(const api::Value* args, const std::string& path);

}  // namespace berth::framework
