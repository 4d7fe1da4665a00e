#pragma once
// VolumeBinding (PreFilter, Filter, PreScore, Score, Reserve, PreBind) — upstream's volumebinding
// plugin (v1.37).
//   PreFilter: Skip when the pod uses no PVC (persistentVolumeClaim or generic ephemeral volume).
//     UnschedulableAndUnresolvable, on every node, when a claim
//       is missing: `persistentvolumeclaim "<claim>" not found` (ephemeral: `waiting for
//         ephemeral volume controller to create the persistentvolumeclaim "<claim>"`),
//       is Lost: `persistentvolumeclaim "<claim>" bound to non-existent persistentvolume "<pv>"`,
//       is being deleted: `persistentvolumeclaim "<claim>" is being deleted`,
//       is an ephemeral claim the pod does not own: `PVC <ns>/<claim> was not created for pod
//         <ns>/<pod> (pod is not owner)`,
//       is unbound and not WaitForFirstConsumer (or pre-bound to a PV but not bound yet):
//         `pod has unbound immediate PersistentVolumeClaims`.
//   Filter (UnschedulableAndUnresolvable; the reasons may combine):
//     a bound claim's PV does not exist: kErrReasonPVNotExist;
//     a bound claim's PV nodeAffinity does not match the node's labels: kErrReasonNodeConflict;
//     a WaitForFirstConsumer claim finds neither a matching Available PV (class, size, access
//       modes, volume mode, selector, node affinity; the smallest fit) nor dynamic provisioning
//       (a provisioner other than kubernetes.io/no-provisioner and allowedTopologies matching
//       the node), or is already being provisioned for another node: kErrReasonBindConflict.
//     Error when a claim to provision has no class or its StorageClass is missing.
//   Reserve: assumes the node's choice (PV claimRefs, the claims' selected-node annotation) so
//     later cycles see it; Unreserve reverts.
//   PreBind (binding workers): patches the chosen PVs' claimRef and the claims to provision with
//     `volume.kubernetes.io/selected-node: <node>`, then waits (polling the informer's stores
//     every second on the Handle's clock) until each claim is fully bound — volumeName set and
//     `pv.kubernetes.io/bind-completed` present, as the PV controller leaves it — up to
//     `bindTimeoutSeconds`. Error (the pod is retried) on a failed write, a timeout, a provisioner
//     that dropped the annotation, a PV that does not fit the node, a deleted pod, or when the
//     scheduler shuts down (Handle::Stopping).
//   PreScore/Score (the StorageCapacityScoring gate, beta and on in v1.37): a node's static
//     bindings (the PVs chosen by Filter) grouped by the PV's StorageClass score `shape` at
//     requested*100/capacity, averaged over classes (scorer.h); nodes without static bindings
//     score 0 (upstream then scores provisioning against CSIStorageCapacity, not modelled).
// Args (VolumeBindingArgs): bindTimeoutSeconds (default 600, >= 0); shape (default
// [{utilization: 0, score: 10}, {utilization: 100, score: 0}], validated as upstream's
// validateFunctionShape).
// Not modelled: CSIStorageCapacity (provisioning never fails for capacity), in-tree PV
// translation to CSI.
// Requeue: StorageClass Add/Update (hint: added, or allowedTopologies changed),
// PersistentVolumeClaim Add/Update (hint: one of the pod's claims), PersistentVolume Add/Update,
// Node Add/UpdateNodeLabel, CSINode Add/Update (hint: added, or migrated-plugins annotation
// changed).

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::volume_binding {

inline constexpr const char kName[] = "VolumeBinding";
inline constexpr int64_t kDefaultBindTimeoutSeconds = 600;
inline constexpr const char kErrReasonUnboundImmediate[] =
    "pod has unbound immediate PersistentVolumeClaims";

// Needs ctx.handle (stores, clock, API writer).
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::volume_binding
