#include "scheduler/framework/registry.h"

namespace berth::framework {

Ok Registry::Register(const std::string& name, PluginFactory factory,
                      std::vector<std::string> reads) {
  if (entries_.count(name)) return Error{"plugin \"" + name + "\" is already registered"};
  entries_[name] = Entry{std::move(factory), std::move(reads)};
  return {};
}

const PluginFactory* Registry::Find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second.factory;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, e] : entries_) out.push_back(name);
  return out;
}

const std::vector<std::string>& Registry::Reads(const std::string& name) const {
  static const std::vector<std::string> kNone;
  auto it = entries_.find(name);
  return it == entries_.end() ? kNone : it->second.reads;
}

}  // namespace berth::framework
