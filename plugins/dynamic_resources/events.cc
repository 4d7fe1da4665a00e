// DynamicResources: the cluster events that may make a pod with claims schedulable, and
// upstream's queueing hint for ResourceClaim changes.

#include "api/encode_resource.h"
#include "api/json/parse.h"
#include "plugins/dynamic_resources/plugin_impl.h"

namespace berth::plugins::dynamic_resources {

using framework::ClusterEvent;
using framework::EventResource;
using framework::QueueingHint;
namespace action = framework::action;

namespace {

const api::ResourceClaim* AsClaim(const framework::EventObject& obj) {
  if (const auto* c = std::get_if<const api::ResourceClaim*>(&obj)) return *c;
  return nullptr;
}

bool SameStatus(const api::ResourceClaim& a, const api::ResourceClaim& b) {
  return api::json::ToJson(api::EncodeResourceClaimStatus(a.status)) ==
         api::json::ToJson(api::EncodeResourceClaimStatus(b.status));
}

}  // namespace

// Upstream's isSchedulableAfterClaimChange.
QueueingHint DynamicResources::HintAfterClaimChange(const api::Pod& pod,
                                                    const framework::EventObject& old_obj,
                                                    const framework::EventObject& new_obj) const {
  const api::ResourceClaim* original = AsClaim(old_obj);
  const api::ResourceClaim* modified = AsClaim(new_obj);
  if (modified == nullptr) {
    // Deleted: only a claim that held devices frees anything.
    if (original == nullptr) return QueueingHint::kQueue;
    return original->status.allocation ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  }
  bool uses_claim = false;
  Ok ok = ForEachPodClaim(pod, [&](ClaimPtr c) {
    if (c->metadata.uid == modified->metadata.uid) uses_claim = true;
  });
  if (!ok.ok()) return QueueingHint::kQueueSkip;
  if (original != nullptr && original->status.allocation && !modified->status.allocation) {
    return QueueingHint::kQueue;  // deallocated: its devices are free again
  }
  if (!uses_claim) return QueueingHint::kQueueSkip;
  if (original == nullptr) return QueueingHint::kQueue;  // the pod's claim got created
  return SameStatus(*original, *modified) ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
}

std::vector<framework::ClusterEventWithHint> DynamicResources::EventsToRegister() const {
  return {
      {ClusterEvent{EventResource::kNode,
                    action::kAdd | action::kUpdateNodeLabel | action::kUpdateNodeAllocatable, ""},
       nullptr},
      {ClusterEvent{EventResource::kResourceClaim, action::kAdd | action::kUpdate | action::kDelete,
                    ""},
       [this](const api::Pod& pod, const framework::EventObject& o,
              const framework::EventObject& n) { return HintAfterClaimChange(pod, o, n); }},
      {ClusterEvent{EventResource::kDeviceClass, action::kAdd | action::kUpdate, ""}, nullptr},
      {ClusterEvent{EventResource::kResourceSlice, action::kAdd | action::kUpdate, ""}, nullptr},
  };
}

}  // namespace berth::plugins::dynamic_resources
