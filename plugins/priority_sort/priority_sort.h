#pragma once
// PrioritySort (QueueSort): orders activeQ by pod priority, highest first; equal priorities by the
// time the pod entered the queue, earliest first (upstream's queuesort.PrioritySort). Berth adds a
// last tie-break on QueuedPodInfo::seq (lower first) so the order is deterministic, e.g. in
// `berth simulate`. Stateless; Less may be called from any thread holding the queue lock.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::priority_sort {

inline constexpr const char kName[] = "PrioritySort";

// Takes no args; non-null args are rejected by the strict reader only if they carry fields.
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::priority_sort
