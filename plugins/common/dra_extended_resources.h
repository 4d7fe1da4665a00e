#pragma once
// DRA-backed extended resources (DRAExtendedResource, GA in v1.37): which DeviceClass serves an
// extended resource a pod requests. Shared by NodeResourcesFit (which leaves such a resource to
// DynamicResources on nodes that do not advertise it) and DynamicResources (which allocates
// devices of the class for it). Upstream keeps this mapping in the DRA manager's
// ExtendedResourceCache; here it is computed from the DeviceClass store on demand.
//
// A class serves two names:
//   spec.extendedResourceName, when set. When several classes name the same resource, the one
//     created last wins, then the lowest name (upstream's rule for such clashes).
//   deviceclass.resource.kubernetes.io/<class name>, always.
// Thread-safe (the store is).

#include <memory>
#include <string_view>

#include "api/store.h"
#include "api/types_resource.h"

namespace berth::plugins {

inline constexpr std::string_view kDeviceClassResourcePrefix =
    "deviceclass.resource.kubernetes.io/";

// schedutil.IsDRAExtendedResourceName: an extended resource name (v1helper's rule) or one with
// the implicit device class prefix.
bool IsDRAExtendedResourceName(std::string_view name);

// The class serving extended resource `name`, or null.
std::shared_ptr<const api::DeviceClass> DeviceClassForExtendedResource(
    const api::Store<api::DeviceClass>& classes, std::string_view name);

}  // namespace berth::plugins
