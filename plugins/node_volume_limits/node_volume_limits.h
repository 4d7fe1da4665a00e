#pragma once
// NodeVolumeLimits (PreFilter, Filter) — upstream's nodevolumelimits CSILimits plugin (v1.37).
//   PreFilter: Skip when the pod has no PVC, generic ephemeral or migratable in-tree inline
//     volume (awsElasticBlockStore, gcePersistentDisk). Otherwise resolves the pod's volumes once
//     into CycleState: PVC -> bound PV's spec.csi (driver, volumeHandle); an unbound claim (or
//     one whose PV is missing) -> its StorageClass's provisioner with a per-claim placeholder
//     handle; a claim without a StorageClass, or whose PV is not CSI, is not counted.
//   Filter, for the node's CSINode (by node name; none means no limits):
//     UnschedulableAndUnresolvable `looking up PVC <ns>/<claim>: persistentvolumeclaims "<claim>"
//       not found` when a claim of the pod does not exist (every node, as upstream);
//     Error `PVC <ns>/<claim> was not created for pod <ns>/<pod> (pod is not owner)` when a
//       generic ephemeral volume's claim is not controlled by the pod;
//     Unschedulable `<driver> CSI driver is not installed on the node` when one of the pod's new
//       volumes uses a driver whose CSIDriver sets preventPodSchedulingIfMissing and the node's
//       CSINode (or the lack of one) does not list it (VolumeLimitScaling, on in v1.37);
//     Unschedulable kErrReasonMaxVolumeCountExceeded when, for a driver with
//       `allocatable.count` on the CSINode, the unique volumes ("<driver>/<handle>") of the pods
//       on the node plus the pod's new ones exceed the count. A volume already used on the node
//       is not counted twice. Existing pods' missing claims are ignored.
//   In-tree volumes (inline EBS/GCE PD, in-tree provisioners) count under their CSI driver as
//   upstream's isCSIMigrationOn says: AWS EBS, GCE PD, Azure Disk and Cinder wherever the node has
//   a CSINode; Portworx only when the CSINode's kMigratedPluginsAnnotation lists it; others never.
//   Inline CSI (ephemeral csi:) volumes are not counted, as upstream.
// Differences from upstream: VolumeAttachment objects are not counted (berth has no
// VolumeAttachment informer), and in-tree PersistentVolumes are not translated (berth's PV keeps
// only spec.csi). The node-allocatable `attachable-volumes-csi-*` fallback is gone upstream too.
// Requeue: CSINode/Add (no hint), CSINode/Update (hint: a driver's limit rose or was removed),
// AssignedPod/Delete (hint: the deleted pod was bound and had a PVC, ephemeral or migratable
// volume), PersistentVolumeClaim/Add (hint: the claim is one of the pod's).

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::node_volume_limits {

inline constexpr const char kName[] = "NodeVolumeLimits";
inline constexpr const char kErrReasonMaxVolumeCountExceeded[] = "node(s) exceed max volume count";
// CSINode annotation listing the in-tree plugins migrated to CSI on the node (comma-separated).
inline constexpr const char kMigratedPluginsAnnotation[] =
    "storage.alpha.kubernetes.io/migrated-plugins";

// Takes no args. Needs ctx.handle (for the PVC, PV, StorageClass and CSINode stores).
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::node_volume_limits
