#pragma once
// ReplicatedStorage (PreFilter, Filter, PreScore, Score, Reserve/Unreserve): places pods whose
// PVCs are provisioned by replicated.csi.storage.deckhouse.io (Deckhouse sds-replicated-volume)
// by the rules of seed 000 on the objects the production extender reads
// (/work/shared/reference/replicated-storage.md). Not in the default profile.
//
// PreFilter resolves the pod's replicated PVCs once (pod_claims.h) and returns Skip when there
// are none; UnschedulableAndUnresolvable `PVC <ns>/<name>: ReplicatedStorageClass "X" not found`
// (or ReplicatedStoragePool) when a PVC's class or pool is missing.
//
// Filter, per node, first failure wins, all UnschedulableAndUnresolvable (evicting pods frees no
// volume-group space):
//   kReasonNotStorageNode   node lacks label storage.deckhouse.io/sds-replicated-volume-node;
//   kReasonNotReady / "node(s) are offline: taint <key>"  Ready condition not True, or a
//                           node.kubernetes.io/unreachable or not-ready taint (the seed's offline
//                           check; production has none);
//   per PVC, in the pod's volume order:
//   "PVC <ns>/<name>: node is not in a zone of ReplicatedStorageClass <rsc> (<zones>)"
//                           the RSC lists spec.zones and the node's topology.kubernetes.io/zone
//                           is not one of them;
//   "PVC <ns>/<name>: node has no diskful replica of volume <pv> (volumeAccess <mode>)"
//                           bound Local or EventuallyLocal, and no Diskful/ShadowDiskful member
//                           of ReplicatedVolume <pv> is on the node;
//   "PVC <ns>/<name>: node has no Ready LVMVolumeGroup of ReplicatedStoragePool <rsp>"
//   "PVC <ns>/<name>: not enough space in ReplicatedStoragePool <rsp> on the node (needs <q>)"
//                           unbound Local/EventuallyLocal/PreferablyLocal, and bound
//                           EventuallyLocal (for its growth), need room in the node's pool;
//                           several PVCs on one pool are deducted in turn.
//   Any and bound PreferablyLocal PVCs need nothing more than a storage node.
//
// Score (PreScore Skips pods without replicated PVCs): production's free-space and
// replica-locality score, 1..10, times 10. Per PVC: a bound non-Any PVC counts as a "replica
// PVC"; with a replica on the node it is a hit (and contributes 0 to the average); bound Local
// without one contributes 0; every other PVC contributes the percent of its pool left after it
// (PercentLeft; 0 without a pool on the node). base = LogScore(integer average);
// score = max(base, 10 * hits / replicaPVCs) when there are hits. Production applies LogScore
// to each replicated PVC's percent and again to the average (log2 twice); berth applies it once.
//
// Reserve holds the room of the pod's unbound PVCs on the chosen node's pools in the plugin's
// ReservationLedger (ledger.h) until the volume's LVMLogicalVolume appears (or its replicas are
// placed elsewhere, or the claim goes, or reservationTimeoutSeconds pass while the pod is not
// bound to the node); Unreserve releases it.
//
// Args (all optional): defaultDivisor (number > 0, default 1: production's default-divisor),
// reservationTimeoutSeconds (integer > 0, default 60: production's reservation TTL).
// Requeue: Node add and label/taint/condition updates, PVC/PV add and update, StorageClass add,
// and any storage.deckhouse.io object event.

#include <memory>

#include "base/result.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::replicated_storage {

inline constexpr const char kName[] = "ReplicatedStorage";
inline constexpr const char kReasonNotStorageNode[] =
    "node(s) are not replicated storage nodes (no label "
    "storage.deckhouse.io/sds-replicated-volume-node)";
inline constexpr const char kReasonNotReady[] = "node(s) are offline: Ready condition is not True";
inline constexpr const char kZoneLabel[] = "topology.kubernetes.io/zone";

// Needs ctx.handle (object stores and clock).
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::replicated_storage
