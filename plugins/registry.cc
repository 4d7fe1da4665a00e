#include "plugins/registry.h"

#include "api/kinds.h"
#include "base/log.h"
#include "plugins/coscheduling/coscheduling.h"
#include "plugins/default_binder/default_binder.h"
#include "plugins/default_preemption/default_preemption.h"
#include "plugins/dynamic_resources/dynamic_resources.h"
#include "plugins/image_locality/image_locality.h"
#include "plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "plugins/node_affinity/node_affinity.h"
#include "plugins/node_declared_features/node_declared_features.h"
#include "plugins/node_label/node_label.h"
#include "plugins/node_name/node_name.h"
#include "plugins/node_ports/node_ports.h"
#include "plugins/node_resources_balanced_allocation/node_resources_balanced_allocation.h"
#include "plugins/node_resources_fit/node_resources_fit.h"
#include "plugins/node_unschedulable/node_unschedulable.h"
#include "plugins/node_volume_limits/node_volume_limits.h"
#include "plugins/pod_topology_spread/pod_topology_spread.h"
#include "plugins/priority_sort/priority_sort.h"
#include "plugins/replicated_storage/replicated_storage.h"
#include "plugins/scheduling_gates/scheduling_gates.h"
#include "plugins/selector_spread/selector_spread.h"
#include "plugins/service_affinity/service_affinity.h"
#include "plugins/taint_toleration/taint_toleration.h"
#include "plugins/volume_binding/volume_binding.h"
#include "plugins/volume_restrictions/volume_restrictions.h"
#include "plugins/volume_zone/volume_zone.h"

namespace berth::plugins {

framework::Registry NewInTreeRegistry() {
  namespace kind = api::kind;
  // The storage kinds the volume plugins read and requeue on.
  const std::vector<std::string> kVolumes = {kind::kPersistentVolumeClaim, kind::kPersistentVolume,
                                             kind::kStorageClass};
  auto plus = [](std::vector<std::string> a, std::vector<std::string> b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  framework::Registry r;
  // The list after the plugin is the kinds it reads besides Pods and Nodes (its stores and its
  // events' resources). Registration fails only for a duplicate name, a bug in this list: say so.
#define BERTH_REGISTER(ns, ...)                                                \
  if (auto ok = r.Register(ns::kName, ns::New, __VA_ARGS__); !ok) {            \
    BERTH_ERROR() << "registering plugin " << ns::kName << ": " << ok.error(); \
  }
  BERTH_REGISTER(priority_sort, {});
  BERTH_REGISTER(scheduling_gates, {});
  BERTH_REGISTER(node_unschedulable, {});
  BERTH_REGISTER(node_name, {});
  BERTH_REGISTER(taint_toleration, {});
  BERTH_REGISTER(node_affinity, {});
  BERTH_REGISTER(node_ports, {});
  // DeviceClasses: which extended resources DRA serves (DRAExtendedResource).
  BERTH_REGISTER(node_resources_fit, {kind::kDeviceClass});
  BERTH_REGISTER(node_resources_balanced_allocation, {});
  BERTH_REGISTER(image_locality, {});
  BERTH_REGISTER(default_binder, {});
  BERTH_REGISTER(node_label, {});
  BERTH_REGISTER(coscheduling, {kind::kPodGroup});
  // System default spreading (upstream's helper.DefaultSelector) reads Services and controllers.
  const std::vector<std::string> kSpreadOwners = {kind::kService, kind::kReplicationController,
                                                  kind::kReplicaSet, kind::kStatefulSet};
  BERTH_REGISTER(pod_topology_spread, kSpreadOwners);
  BERTH_REGISTER(inter_pod_affinity, {kind::kNamespace});
  BERTH_REGISTER(node_volume_limits, plus(kVolumes, {kind::kCSINode, kind::kCSIDriver}));
  BERTH_REGISTER(volume_restrictions, {kind::kPersistentVolumeClaim});
  BERTH_REGISTER(volume_binding, plus(kVolumes, {kind::kCSINode}));
  BERTH_REGISTER(volume_zone, kVolumes);
  BERTH_REGISTER(default_preemption, {kind::kPodDisruptionBudget});
  BERTH_REGISTER(node_declared_features, {});
  BERTH_REGISTER(dynamic_resources, {kind::kDeviceClass, kind::kResourceSlice, kind::kResourceClaim,
                                     kind::kResourceClaimTemplate, kind::kDeviceTaintRule});
  // Legacy Policy plugins (config/policy.h); not in the default profile.
  BERTH_REGISTER(service_affinity, {kind::kService});
  BERTH_REGISTER(selector_spread, kSpreadOwners);
  // Deckhouse replicated storage (seed 000); not in the default profile.
  BERTH_REGISTER(
      replicated_storage,
      plus(kVolumes, {kind::kReplicatedStorageClass, kind::kReplicatedStoragePool,
                      kind::kLVMVolumeGroup, kind::kLVMLogicalVolume, kind::kReplicatedVolume}));
#undef BERTH_REGISTER
  return r;
}

}  // namespace berth::plugins
