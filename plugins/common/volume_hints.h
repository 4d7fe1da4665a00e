#pragma once
// Queueing hints shared by the volume plugins (VolumeRestrictions, VolumeZone).

#include "scheduler/framework/types.h"

namespace berth::plugins::common {

// A hint for PersistentVolumeClaim events: Queue when the claim is one the pod mounts through a
// persistentVolumeClaim volume (same namespace, same claim name) or when the event carries no
// claim; QueueSkip otherwise. Ephemeral volumes are not considered.
framework::QueueingHint QueueIfPodMountsClaim(const api::Pod& pod,
                                              const framework::EventObject& old_obj,
                                              const framework::EventObject& new_obj);

}  // namespace berth::plugins::common
