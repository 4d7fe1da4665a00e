#include "plugins/common/dra_extended_resources.h"

#include <string>

namespace berth::plugins {

bool IsDRAExtendedResourceName(std::string_view name) {
  if (name.starts_with(kDeviceClassResourcePrefix)) return true;
  // v1helper.IsExtendedResourceName: domain-prefixed, not kubernetes.io, not a quota name.
  if (name.find('/') == std::string_view::npos) return false;
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;
  return !name.starts_with("requests.");
}

std::shared_ptr<const api::DeviceClass> DeviceClassForExtendedResource(
    const api::Store<api::DeviceClass>& classes, std::string_view name) {
  if (name.starts_with(kDeviceClassResourcePrefix)) {
    return classes.Get(std::string(name.substr(kDeviceClassResourcePrefix.size())));
  }
  std::shared_ptr<const api::DeviceClass> best;
  auto created = [](const api::DeviceClass& c) {
    return c.metadata.creation_timestamp ? c.metadata.creation_timestamp->unix_micros : 0;
  };
  for (const auto& c : classes.List()) {
    if (!c->spec.extended_resource_name || *c->spec.extended_resource_name != name) continue;
    if (best == nullptr || created(*c) > created(*best) ||
        (created(*c) == created(*best) && c->metadata.name < best->metadata.name)) {
      best = c;
    }
  }
  return best;
}

}  // namespace berth::plugins
