#pragma once
// VolumeRestrictions (PreFilter, Filter) — upstream's volumerestrictions plugin (v1.37).
//   PreFilter: looks up the pod's persistentVolumeClaim volumes (generic ephemeral ones are not
//     checked, as upstream): a missing claim is UnschedulableAndUnresolvable
//     `persistentvolumeclaim "<claim>" not found`. Counts how many of the pod's ReadWriteOncePod
//     claims some pod in the snapshot already uses. Skip when that count is 0 and the pod has no
//     inline gcePersistentDisk, awsElasticBlockStore, rbd or iscsi volume.
//   Filter (Unschedulable):
//     kErrReasonDiskConflict when an inline volume conflicts with one of a pod on the node: the
//       same GCE PD unless both are read-only, the same EBS volume ID, the same iSCSI IQN unless
//       both are read-only, or an RBD image with a shared monitor, pool and image unless both
//       are read-only;
//     kErrReasonReadWriteOncePodConflict when a ReadWriteOncePod claim of the pod is in use
//       anywhere (the count above, kept current by AddPod/RemovePod for preemption).
// Requeue: AssignedPod/Delete (hint: the deleted pod used a conflicting inline volume or
// one of the pod's claims), Node/Add, PersistentVolumeClaim/Add (hint: one of the pod's claims).

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::volume_restrictions {

inline constexpr const char kName[] = "VolumeRestrictions";
inline constexpr const char kErrReasonDiskConflict[] = "node(s) had no available disk";
inline constexpr const char kErrReasonReadWriteOncePodConflict[] =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod";

// Takes no args. Needs ctx.handle (the PVC store and the snapshot).
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::volume_restrictions
