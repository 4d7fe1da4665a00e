#include "plugins/common/volume_hints.h"

namespace berth::plugins::common {

framework::QueueingHint QueueIfPodMountsClaim(const api::Pod& pod, const framework::EventObject&,
                                              const framework::EventObject& new_obj) {
  using framework::QueueingHint;
  const auto* claim = std::get_if<const api::PersistentVolumeClaim*>(&new_obj);
  if (claim == nullptr || *claim == nullptr) return QueueingHint::kQueue;
  if ((*claim)->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::kQueueSkip;
  for (const auto& v : pod.spec.volumes) {
    if (!v.ephemeral && v.pvc_claim_name == (*claim)->metadata.name) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

}  // namespace berth::plugins::common
