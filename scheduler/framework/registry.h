#pragma once
// Registry: plugin name -> factory. plugins/registry.cc is the one file that names every plugin.
// A factory parses its args once (nullptr args = defaults) and returns the plugin, or an Error
// whose message is `<args_path>.<field>: <what>` so start-up errors name the config field.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "api/value.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/plugin.h"

namespace berth::framework {

struct PluginContext {
  const api::Value* args = nullptr;  // the pluginConfig args, or nullptr
  std::string args_path;             // e.g. "profiles[0].pluginConfig[2].args"
  Handle* handle = nullptr;
  std::string scheduler_name;        // the profile's
};

using PluginFactory = std::function<Result<std::shared_ptr<Plugin>>(const PluginContext&)>;

class Registry {
 public:
  // Error if the name is already registered.
  Ok Register(const std::string& name, PluginFactory factory);
  const PluginFactory* Find(const std::string& name) const;
  std::vector<std::string> Names() const;  // sorted

 private:
  std::map<std::string, PluginFactory> factories_;
};

}  // namespace berth::framework
