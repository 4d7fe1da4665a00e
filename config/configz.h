#pragma once
// The effective configuration, as /configz serves it (kube-scheduler's configz): the top-level
// fields of `cfg`, and for each profile the plugins enabled at each extension point after
// defaults and multiPoint expansion (the runtime knows those; the caller passes them in),
// with the weight of each score plugin.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/types.h"

namespace berth::config {

struct EffectivePlugin {
  std::string name;
  int64_t weight = 0;  // rendered for the "score" point only
};

struct EffectiveProfile {
  std::string scheduler_name;
  // Extension point ("filter", "score", ...) -> plugins in call order.
  std::map<std::string, std::vector<EffectivePlugin>> plugins;
};

// Renders {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
// ...} as JSON. Profiles come out in the order given.
std::string RenderConfigz(const SchedulerConfiguration& cfg,
                          const std::vector<EffectiveProfile>& profiles);

}  // namespace berth::config
