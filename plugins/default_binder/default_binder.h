#pragma once
// DefaultBinder (Bind): binds the pod by POSTing a Binding through Handle::api_writer()
// (upstream's defaultbinder plugin). Runs on a binding worker, never on the scheduling thread.
// Returns the writer's status: Success, or Error carrying the API error.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::default_binder {

inline constexpr const char kName[] = "DefaultBinder";

// Error when ctx.handle is null.
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::default_binder
