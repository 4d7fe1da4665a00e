#include "plugins/volume_binding/binder.h"

#include <algorithm>
#include <set>

#include "base/strings.h"

namespace berth::plugins::volume_binding {

using framework::Status;

namespace {}  // namespace

VolumeBinder::VolumeBinder(framework::Handle* handle, framework::Duration bind_timeout)
    : handle_(handle),
      bind_timeout_(bind_timeout),
      pv_cache_(handle->objects().pvs, "PersistentVolume"),
      pvc_cache_(handle->objects().pvcs, "PersistentVolumeClaim") {}

PodVolumeClaims VolumeBinder::GetPodVolumeClaims(const api::Pod& pod) const {
  PodVolumeClaims out;
  const auto& classes = handle_->objects().storage_classes;
  for (const auto& v : pod.spec.volumes) {
    const std::string name = PodClaimName(pod, v);
    if (name.empty()) continue;
    PvcPtr pvc = pvc_cache_.Get(pod.metadata.namespace_ + "/" + name);
    if (pvc == nullptr) continue;
    if (IsFullyBound(*pvc)) {
      out.bound_pvs.push_back(pv_cache_.Get(pvc->spec.volume_name));
      out.bound_claims.push_back(std::move(pvc));
      continue;
    }
    // Upstream's IsDelayBindingMode: a claim without a class, or whose class does not exist,
    // binds immediately.
    const std::string cls = ClaimClass(*pvc);
    auto sc = cls.empty() ? nullptr : classes.Get(cls);
    const bool delay = sc != nullptr && sc->volume_binding_mode == "WaitForFirstConsumer";
    // A claim pre-bound to a PV (volumeName set) is the PV controller's job, as an immediate one.
    if (delay && pvc->spec.volume_name.empty()) {
      out.unbound_delay.push_back(std::move(pvc));
    } else {
      out.unbound_immediate.push_back(std::move(pvc));
    }
  }
  // Smallest requests first, so they get the smallest fitting PVs (upstream's byPVCSize).
  std::stable_sort(
      out.unbound_delay.begin(), out.unbound_delay.end(),
      [](const PvcPtr& a, const PvcPtr& b) { return RequestedBytes(*a) < RequestedBytes(*b); });
  for (const auto& pvc : out.unbound_delay) {
    const std::string cls = ClaimClass(*pvc);
    if (out.pvs_by_class.count(cls) > 0) continue;
    out.pvs_by_class[cls] =
        pv_cache_.List([&cls](const api::PersistentVolume& pv) { return VolumeClass(pv) == cls; });
  }
  return out;
}

Status VolumeBinder::FindPodVolumes(const PodVolumeClaims& claims, const api::Node& node,
                                    PodVolumes* out) const {
  const api::Labels& labels = node.metadata.labels;
  bool bound_satisfied = true;
  bool unbound_satisfied = true;
  bool bound_pvs_found = true;
  // Storage capacity is not modelled (no CSIStorageCapacity), so this stays true.
  const bool sufficient_storage = true;
  auto finish = [&]() -> Status {
    std::vector<std::string> reasons;
    if (!bound_satisfied) reasons.emplace_back(kErrReasonNodeConflict);
    if (!unbound_satisfied) reasons.emplace_back(kErrReasonBindConflict);
    if (!sufficient_storage) reasons.emplace_back(kErrReasonNotEnoughSpace);
    if (!bound_pvs_found) reasons.emplace_back(kErrReasonPVNotExist);
    if (reasons.empty()) return {};
    return Status(framework::Code::kUnschedulableAndUnresolvable, std::move(reasons));
  };

  for (const PvPtr& pv : claims.bound_pvs) {
    if (pv == nullptr) {
      bound_pvs_found = false;
      break;
    }
    if (!CheckNodeAffinity(*pv, labels)) {
      bound_satisfied = false;
      break;
    }
  }
  if (claims.unbound_delay.empty()) return finish();

  std::vector<PvcPtr> to_match;
  std::vector<PvcPtr> to_provision;
  for (const PvcPtr& pvc : claims.unbound_delay) {
    auto it = pvc->metadata.annotations.find(kAnnSelectedNode);
    if (it == pvc->metadata.annotations.end()) {
      to_match.push_back(pvc);
    } else if (it->second != node.metadata.name) {
      // Being provisioned for another node.
      unbound_satisfied = false;
      return finish();
    } else {
      to_provision.push_back(pvc);
    }
  }

  if (!to_match.empty()) {
    static const std::vector<PvPtr> kNone;
    std::set<std::string, std::less<>> chosen;
    bool found_all = true;
    for (const PvcPtr& pvc : to_match) {
      auto it = claims.pvs_by_class.find(ClaimClass(*pvc));
      const auto& pvs = it == claims.pvs_by_class.end() ? kNone : it->second;
      PvPtr pv = FindMatchingVolume(*pvc, pvs, labels, chosen);
      if (pv == nullptr) {
        to_provision.push_back(pvc);
        found_all = false;
        continue;
      }
      chosen.insert(pv->metadata.name);
      out->static_bindings.push_back({std::move(pv), pvc});
    }
    unbound_satisfied = found_all;
  }

  if (!to_provision.empty()) {
    // Upstream's checkVolumeProvisions.
    std::vector<PvcPtr> provisions;
    for (const PvcPtr& pvc : to_provision) {
      const std::string cls = ClaimClass(*pvc);
      if (cls.empty()) return Status::Error("no class for claim " + Quote(ClaimKey(*pvc)));
      auto sc = handle_->objects().storage_classes.Get(cls);
      if (sc == nullptr) return Status::Error("failed to find storage class " + Quote(cls));
      if (sc->provisioner.empty() || sc->provisioner == kNotSupportedProvisioner ||
          !MatchTopology(sc->allowed_topologies, labels)) {
        unbound_satisfied = false;
        return finish();
      }
      provisions.push_back(pvc);
    }
    unbound_satisfied = true;
    out->dynamic_provisions = std::move(provisions);
  }
  return finish();
}

Status VolumeBinder::AssumePodVolumes(const api::Pod& pod, const std::string& node,
                                      PodVolumes* volumes, bool* all_bound) {
  *all_bound = true;
  for (const auto& v : pod.spec.volumes) {
    const std::string name = PodClaimName(pod, v);
    if (name.empty()) continue;
    PvcPtr pvc = pvc_cache_.Get(pod.metadata.namespace_ + "/" + name);
    if (pvc == nullptr || !IsFullyBound(*pvc)) *all_bound = false;
  }
  if (*all_bound) return {};

  std::vector<BindingInfo> bindings;
  auto revert_pvs = [&] {
    for (const auto& b : bindings) pv_cache_.Restore(b.pv->metadata.name);
  };
  for (const BindingInfo& b : volumes->static_bindings) {
    bool dirty = false;
    auto pv =
        std::make_shared<const api::PersistentVolume>(BindVolumeToClaim(*b.pv, *b.pvc, &dirty));
    if (dirty) {
      if (auto ok = pv_cache_.Assume(pv); !ok) {
        revert_pvs();
        return Status::Error(ok.error());
      }
    }
    bindings.push_back({std::move(pv), b.pvc});
  }
  std::vector<PvcPtr> provisions;
  for (const PvcPtr& pvc : volumes->dynamic_provisions) {
    auto annotated = std::make_shared<api::PersistentVolumeClaim>(*pvc);
    annotated->metadata.annotations[kAnnSelectedNode] = node;
    if (auto ok = pvc_cache_.Assume(annotated); !ok) {
      revert_pvs();
      for (const auto& p : provisions) pvc_cache_.Restore(ClaimKey(*p));
      return Status::Error(ok.error());
    }
    provisions.push_back(std::move(annotated));
  }
  volumes->static_bindings = std::move(bindings);
  volumes->dynamic_provisions = std::move(provisions);
  return {};
}

void VolumeBinder::RevertAssumedPodVolumes(const PodVolumes& volumes) {
  for (const auto& b : volumes.static_bindings) pv_cache_.Restore(b.pv->metadata.name);
  for (const auto& p : volumes.dynamic_provisions) pvc_cache_.Restore(ClaimKey(*p));
}

Status VolumeBinder::BindPodVolumes(const api::Pod& pod, const std::string& node,
                                    const api::Labels& node_labels, const PodVolumes& volumes) {
  framework::ApiWriter& writer = handle_->api_writer();
  // Upstream's bindAPIUpdate: pre-bind the PVs, then annotate the claims to provision. There is
  // no API rollback; the writes not made are reverted in the caches.
  std::vector<uint64_t> pv_versions;
  std::vector<uint64_t> pvc_versions;
  auto revert_unwritten = [&] {
    for (size_t i = pv_versions.size(); i < volumes.static_bindings.size(); ++i) {
      pv_cache_.Restore(volumes.static_bindings[i].pv->metadata.name);
    }
    for (size_t i = pvc_versions.size(); i < volumes.dynamic_provisions.size(); ++i) {
      pvc_cache_.Restore(ClaimKey(*volumes.dynamic_provisions[i]));
    }
  };
  for (const BindingInfo& b : volumes.static_bindings) {
    api::Labels annotations;
    if (auto it = b.pv->metadata.annotations.find(kAnnBoundByController);
        it != b.pv->metadata.annotations.end()) {
      annotations.insert(*it);
    }
    std::string rv;
    Status s = writer.PatchPersistentVolumeClaimRef(*b.pv, *b.pv->spec.claim_ref, annotations, &rv);
    if (!s.IsSuccess()) {
      revert_unwritten();
      return Status::Error(s.Message());
    }
    pv_versions.push_back(ResourceVersionOf(rv));
  }
  for (const PvcPtr& pvc : volumes.dynamic_provisions) {
    std::string rv;
    Status s = writer.PatchPersistentVolumeClaimAnnotations(*pvc, {{kAnnSelectedNode, node}}, &rv);
    if (!s.IsSuccess()) {
      revert_unwritten();
      return Status::Error(s.Message());
    }
    pvc_versions.push_back(ResourceVersionOf(rv));
  }

  // Upstream polls every second until bound or bindTimeout; the first check here is immediate.
  const framework::Clock& clock = handle_->clock();
  const framework::TimePoint deadline = clock.Now() + bind_timeout_;
  for (;;) {
    std::string waiting_for;
    auto done =
        CheckBindings(pod, node, node_labels, volumes, pv_versions, pvc_versions, &waiting_for);
    if (!done.ok()) return Status::Error("binding volumes: " + done.error());
    if (*done) {
      // The stores now hold the API server's versions; the assumptions have served.
      RevertAssumedPodVolumes(volumes);
      return {};
    }
    if (handle_->Stopping()) {
      return Status::Error("binding volumes: scheduler is shutting down (waiting for " +
                           waiting_for + ")");
    }
    const framework::TimePoint now = clock.Now();
    if (now >= deadline) {
      return Status::Error(
          "binding volumes: timed out after " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(bind_timeout_).count()) +
          "s waiting for " + waiting_for);
    }
    clock.Sleep(std::min<framework::Duration>(std::chrono::seconds(1), deadline - now));
  }
}

Result<bool> VolumeBinder::CheckBindings(const api::Pod& pod, const std::string& node,
                                         const api::Labels& node_labels, const PodVolumes& volumes,
                                         const std::vector<uint64_t>& pv_versions,
                                         const std::vector<uint64_t>& pvc_versions,
                                         std::string* waiting_for) const {
  // A pod deleted meanwhile cancels the binding.
  if (handle_->objects().pods.Get(pod.Key()) == nullptr) {
    return Error{"pod does not exist any more: pods " + Quote(pod.metadata.name) + " not found"};
  }
  auto affinity_error = [&](const api::PersistentVolume& pv) {
    return Error{"pv " + Quote(pv.metadata.name) + " node affinity doesn't match node " +
                 Quote(node) + ": no matching NodeSelectorTerms"};
  };
  for (size_t i = 0; i < volumes.static_bindings.size(); ++i) {
    const BindingInfo& b = volumes.static_bindings[i];
    PvPtr pv = pv_cache_.GetApi(b.pv->metadata.name);
    if (pv == nullptr) {
      return Error{"failed to check binding: persistentvolume " + Quote(b.pv->metadata.name) +
                   " not found"};
    }
    PvcPtr pvc = pvc_cache_.GetApi(ClaimKey(*b.pvc));
    if (pvc == nullptr) {
      return Error{"failed to check binding: persistentvolumeclaim " + Quote(ClaimKey(*b.pvc)) +
                   " not found"};
    }
    if (ResourceVersionOf(pv->metadata.resource_version) < pv_versions[i]) {
      *waiting_for = "PersistentVolume " + Quote(pv->metadata.name) + " to be updated";
      return false;
    }
    if (!CheckNodeAffinity(*pv, node_labels)) return affinity_error(*pv);
    if (!pv->spec.claim_ref || pv->spec.claim_ref->uid.empty()) {
      return Error{"ClaimRef got reset for pv " + Quote(pv->metadata.name)};
    }
    if (!IsFullyBound(*pvc)) {
      *waiting_for = "PersistentVolumeClaim " + Quote(ClaimKey(*pvc)) + " to be bound";
      return false;
    }
  }
  for (size_t i = 0; i < volumes.dynamic_provisions.size(); ++i) {
    const std::string key = ClaimKey(*volumes.dynamic_provisions[i]);
    PvcPtr pvc = pvc_cache_.GetApi(key);
    if (pvc == nullptr) {
      return Error{"failed to check provisioning pvc: persistentvolumeclaim " + Quote(key) +
                   " not found"};
    }
    if (ResourceVersionOf(pvc->metadata.resource_version) < pvc_versions[i]) {
      *waiting_for = "PersistentVolumeClaim " + Quote(key) + " to be updated";
      return false;
    }
    if (pvc->metadata.annotations.empty()) {
      return Error{"selectedNode annotation reset for PVC " + Quote(pvc->metadata.name)};
    }
    auto it = pvc->metadata.annotations.find(kAnnSelectedNode);
    if (it == pvc->metadata.annotations.end() || it->second != node) {
      // The provisioner removes the annotation when provisioning fails, to have us retry.
      return Error{"provisioning failed for PVC " + Quote(pvc->metadata.name)};
    }
    if (!pvc->spec.volume_name.empty()) {
      PvPtr pv = pv_cache_.GetApi(pvc->spec.volume_name);
      if (pv == nullptr) {
        // Not seen yet; a deleted PV unbinds the claim eventually.
        *waiting_for = "PersistentVolume " + Quote(pvc->spec.volume_name) + " to appear";
        return false;
      }
      if (!CheckNodeAffinity(*pv, node_labels)) return affinity_error(*pv);
    }
    if (!IsFullyBound(*pvc)) {
      *waiting_for = "PersistentVolumeClaim " + Quote(key) + " to be bound";
      return false;
    }
  }
  return true;
}

}  // namespace berth::plugins::volume_binding
