#include "config/types.h"

namespace berth::config {

const PluginConfig* Profile::FindPluginConfig(std::string_view name) const {
  for (const PluginConfig& pc : plugin_config) {
    if (pc.name == name) return &pc;
  }
  return nullptr;
}

const api::Value* Profile::Args(std::string_view name) const {
  const PluginConfig* pc = FindPluginConfig(name);
  return pc == nullptr ? nullptr : &pc->args;
}

}  // namespace berth::config
