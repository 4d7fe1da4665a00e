#pragma once
// Registry: plugin name -> factory, and the object kinds the plugin reads (its stores through
// Handle::objects() and the kinds of the cluster events it registers for; api/kinds.h names
// them), so that `berth run` starts only the informers its profiles need. Pods and Nodes are
// always read and need not be declared. plugins/registry.cc is the one file that names every
// plugin.
// A factory parses its args once (nullptr args = defaults) and returns the plugin, or an Error
// whose message is `<args_path>.<field>: <what>` so start-up errors name the config field.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/value.h"
#include "base/result.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/plugin.h"

namespace berth::framework {

struct PluginContext {
  const api::Value* args = nullptr;  // the pluginConfig args, or nullptr
  std::string args_path;             // e.g. "profiles[0].pluginConfig[2].args"
  Handle* handle = nullptr;
  std::string scheduler_name;  // the profile's
};

using PluginFactory = std::function<Result<std::shared_ptr<Plugin>>(const PluginContext&)>;

class Registry {
 public:
  // Error if the name is already registered.
  Ok Register(const std::string& name, PluginFactory factory, std::vector<std::string> reads = {});
  const PluginFactory* Find(const std::string& name) const;
  std::vector<std::string> Names() const;  // sorted
  // The kinds the plugin declared (empty for an unknown name).
  const std::vector<std::string>& Reads(const std::string& name) const;

 private:
  struct Entry {
    PluginFactory factory;
    std::vector<std::string> reads;
  };
  std::map<std::string, Entry> entries_;
};

}  // namespace berth::framework
