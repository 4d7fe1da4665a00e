#include "scheduler/framework/registry.h"

namespace berth::framework {

Ok Registry::Register(const std::string& name, PluginFactory factory) {
  if (factories_.count(name)) return Error{"plugin \"" + name + "\" is already registered"};
  factories_[name] = std::move(factory);
  return {};
}

const PluginFactory* Registry::Find(const std::string& name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, f] : factories_) out.push_back(name);
  return out;
}

}  // namespace berth::framework
