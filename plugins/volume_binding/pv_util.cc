#include "plugins/volume_binding/pv_util.h"

#include <algorithm>
#include <charconv>

#include "api/selector.h"

namespace berth::plugins::volume_binding {

std::string PodClaimName(const api::Pod& pod, const api::Volume& volume) {
  if (!volume.pvc_claim_name.empty()) return volume.pvc_claim_name;
  if (volume.ephemeral) return pod.metadata.name + "-" + volume.name;
  return "";
}

std::string ClaimClass(const api::PersistentVolumeClaim& pvc) {
  if (auto it = pvc.metadata.annotations.find(kAnnBetaStorageClass);
      it != pvc.metadata.annotations.end()) {
    return it->second;
  }
  return pvc.spec.storage_class_name.value_or("");
}

std::string VolumeClass(const api::PersistentVolume& pv) {
  if (auto it = pv.metadata.annotations.find(kAnnBetaStorageClass);
      it != pv.metadata.annotations.end()) {
    return it->second;
  }
  return pv.spec.storage_class_name;
}

std::string ClaimKey(const api::PersistentVolumeClaim& pvc) {
  return pvc.metadata.namespace_ + "/" + pvc.metadata.name;
}

int64_t RequestedBytes(const api::PersistentVolumeClaim& pvc) {
  auto it = pvc.spec.resources.requests.find(api::kResourceStorage);
  return it == pvc.spec.resources.requests.end() ? 0 : it->second.Value();
}

int64_t CapacityBytes(const api::PersistentVolume& pv) {
  auto it = pv.spec.capacity.find(api::kResourceStorage);
  return it == pv.spec.capacity.end() ? 0 : it->second.Value();
}

bool IsFullyBound(const api::PersistentVolumeClaim& pvc) {
  return !pvc.spec.volume_name.empty() && pvc.metadata.annotations.count(kAnnBindCompleted) > 0;
}

bool IsVolumeBoundToClaim(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& pvc) {
  if (!pv.spec.claim_ref) return false;
  const api::ObjectReference& ref = *pv.spec.claim_ref;
  if (ref.name != pvc.metadata.name || ref.namespace_ != pvc.metadata.namespace_) return false;
  return ref.uid.empty() || ref.uid == pvc.metadata.uid;
}

bool CheckNodeAffinity(const api::PersistentVolume& pv, const api::Labels& node_labels) {
  if (!pv.spec.node_affinity) return true;
  return api::Matches(*pv.spec.node_affinity, node_labels, /*node_name=*/"");
}

bool MatchTopology(const std::vector<api::NodeSelectorTerm>& terms, const api::Labels& labels) {
  if (terms.empty()) return true;
  return std::any_of(terms.begin(), terms.end(), [&](const api::NodeSelectorTerm& t) {
    return api::MatchesTerm(t, labels, "");
  });
}

namespace {

bool CheckAccessModes(const api::PersistentVolumeClaim& pvc, const api::PersistentVolume& pv) {
  for (const auto& mode : pvc.spec.access_modes) {
    if (std::find(pv.spec.access_modes.begin(), pv.spec.access_modes.end(), mode) ==
        pv.spec.access_modes.end()) {
      return false;
    }
  }
  return true;
}

// Unset volume modes default to Filesystem on both sides.
bool VolumeModeMismatch(const api::PersistentVolumeClaim& pvc, const api::PersistentVolume& pv) {
  auto mode = [](const std::string& m) -> std::string_view {
    return m.empty() ? std::string_view("Filesystem") : std::string_view(m);
  };
  return mode(pvc.spec.volume_mode) != mode(pv.spec.volume_mode);
}

}  // namespace

PvPtr FindMatchingVolume(const api::PersistentVolumeClaim& pvc, const std::vector<PvPtr>& pvs,
                         const api::Labels& node_labels,
                         const std::set<std::string, std::less<>>& excluded) {
  const int64_t requested = RequestedBytes(pvc);
  const std::string requested_class = ClaimClass(pvc);
  PvPtr smallest;
  int64_t smallest_bytes = 0;
  for (const PvPtr& pv : pvs) {
    if (excluded.count(pv->metadata.name) > 0) continue;
    if (pv->spec.claim_ref && !IsVolumeBoundToClaim(*pv, pvc)) continue;
    const int64_t capacity = CapacityBytes(*pv);
    if (capacity < requested) continue;
    if (VolumeModeMismatch(pvc, *pv)) continue;
    if (pv->metadata.deletion_timestamp) continue;
    const bool affinity_ok = CheckNodeAffinity(*pv, node_labels);
    if (IsVolumeBoundToClaim(*pv, pvc)) {
      // Pre-bound to this claim: it is the answer, or the node is wrong for the claim.
      return affinity_ok ? pv : nullptr;
    }
    if (pv->phase != "Available") continue;
    if (pvc.spec.selector && !api::Matches(*pvc.spec.selector, pv->metadata.labels)) continue;
    if (VolumeClass(*pv) != requested_class) continue;
    if (!affinity_ok) continue;
    if (!CheckAccessModes(pvc, *pv)) continue;
    if (smallest == nullptr || smallest_bytes > capacity) {
      smallest = pv;
      smallest_bytes = capacity;
    }
  }
  return smallest;
}

api::PersistentVolume BindVolumeToClaim(const api::PersistentVolume& pv,
                                        const api::PersistentVolumeClaim& pvc, bool* dirty) {
  *dirty = false;
  const bool set_bound_by_controller = !IsVolumeBoundToClaim(pv, pvc);
  api::PersistentVolume out = pv;
  const auto& ref = pv.spec.claim_ref;
  if (!ref || ref->name != pvc.metadata.name || ref->namespace_ != pvc.metadata.namespace_ ||
      ref->uid != pvc.metadata.uid) {
    out.spec.claim_ref = api::ObjectReference{"PersistentVolumeClaim", pvc.metadata.namespace_,
                                              pvc.metadata.name, pvc.metadata.uid};
    *dirty = true;
  }
  if (set_bound_by_controller && out.metadata.annotations.count(kAnnBoundByController) == 0) {
    out.metadata.annotations[kAnnBoundByController] = "yes";
    *dirty = true;
  }
  return out;
}

uint64_t ResourceVersionOf(const std::string& rv) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (ec != std::errc() || ptr != rv.data() + rv.size()) return 0;
  return v;
}

}  // namespace berth::plugins::volume_binding
