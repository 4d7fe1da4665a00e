#pragma once
// VolumeZone (PreFilter, Filter) — upstream's volumezone plugin (v1.34).
//   PreFilter: for each persistentVolumeClaim volume (not generic ephemeral ones, as upstream)
//     collects the bound PV's topology labels — failure-domain.beta.kubernetes.io/zone and
//     /region, topology.kubernetes.io/zone and /region; a value may list several zones joined by
//     "__". Skip when there are none. UnschedulableAndUnresolvable when
//       the claim is missing: `persistentvolumeclaim "<claim>" not found`;
//       the claim is unbound and has no class: `PersistentVolumeClaim had no pv name and
//         storageClass name`;
//       its class is missing: `storageclass.storage.k8s.io "<class>" not found`;
//       it is unbound with an Immediate class: `PersistentVolume had no name`
//         (unbound WaitForFirstConsumer claims are skipped);
//       its PV is missing: `persistentvolume "<pv>" not found`.
//   Filter: a node with none of the four labels fits (single-zone clusters); otherwise each PV
//     label's key must be on the node with one of the PV's values, else
//     UnschedulableAndUnresolvable kErrReasonConflict.
// Requeue: StorageClass/Add, Node/Add|UpdateNodeLabel, PersistentVolumeClaim/Add|Update (hint:
// one of the pod's claims), PersistentVolume/Add|Update.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::volume_zone {

inline constexpr const char kName[] = "VolumeZone";
inline constexpr const char kErrReasonConflict[] = "node(s) had no available volume zone";

// Takes no args. Needs ctx.handle (the PVC, PV and StorageClass stores).
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::volume_zone
