#include "plugins/replicated_storage/pod_claims.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <utility>

namespace berth::plugins::replicated_storage {
namespace {

using framework::Status;

constexpr const char kProvisionerAnnotation[] = "volume.kubernetes.io/storage-provisioner";
constexpr const char kBetaProvisionerAnnotation[] = "volume.beta.kubernetes.io/storage-provisioner";
constexpr const char kExtraPvcsAnnotation[] = "scheduler.deckhouse.io/extra-pvcs";

std::string Annotation(const api::ObjectMeta& m, const char* key) {
  auto it = m.annotations.find(key);
  return it == m.annotations.end() ? std::string() : it->second;
}

Access ParseAccess(const std::string& s) {
  if (s == "Local") return Access::kLocal;
  if (s == "EventuallyLocal") return Access::kEventuallyLocal;
  if (s == "Any") return Access::kAny;
  return Access::kPreferablyLocal;  // also the API default for ""
}

int64_t StorageOf(const api::ResourceList& list) {
  auto it = list.find(api::kResourceStorage);
  return it == list.end() ? 0 : it->second.Value();
}

// The claim names the pod uses, in order, each once: spec volumes (a generic ephemeral volume's
// claim is "<pod>-<volume>"), then the extra-pvcs annotation (KubeVirt hot-plug disks).
std::vector<std::string> ClaimNames(const api::Pod& pod) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](std::string name) {
    if (!name.empty() && seen.insert(name).second) out.push_back(std::move(name));
  };
  for (const auto& v : pod.spec.volumes) {
    if (v.ephemeral && v.pvc_claim_name.empty()) {
      add(pod.metadata.name + "-" + v.name);
    } else {
      add(v.pvc_claim_name);
    }
  }
  std::string_view extra = "";
  auto it = pod.metadata.annotations.find(kExtraPvcsAnnotation);
  if (it != pod.metadata.annotations.end()) extra = it->second;
  while (!extra.empty()) {
    size_t comma = extra.find(',');
    std::string_view item = extra.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    add(std::string(item));
    if (comma == std::string_view::npos) break;
    extra.remove_prefix(comma + 1);
  }
  return out;
}

// Production's discoverProvisionerForPVC.
std::string ProvisionerOf(const api::PersistentVolumeClaim& pvc, const api::StorageClass* sc,
                          const api::PersistentVolume* pv) {
  if (auto p = Annotation(pvc.metadata, kProvisionerAnnotation); !p.empty()) return p;
  if (auto p = Annotation(pvc.metadata, kBetaProvisionerAnnotation); !p.empty()) return p;
  if (sc != nullptr && !sc->provisioner.empty()) return sc->provisioner;
  if (pv != nullptr) return pv->spec.csi_driver;
  return "";
}

// Node -> pool for one ReplicatedStoragePool: the first entry of spec.lvmVolumeGroups whose
// LVMVolumeGroup exists, is Ready and lists the node (production's findLVGForNodeInRSP).
std::unordered_map<std::string, PoolKey> NodePools(const api::ReplicatedStoragePool& rsp,
                                                   const api::ClusterObjects& objects) {
  std::unordered_map<std::string, PoolKey> out;
  for (const auto& entry : rsp.lvm_volume_groups) {
    auto lvg = objects.lvm_volume_groups.Get(entry.name);
    if (lvg == nullptr || lvg->phase != "Ready") continue;
    PoolKey key{entry.name, rsp.Thin() ? entry.thin_pool_name : std::string()};
    for (const auto& node : lvg->node_names) out.emplace(node, key);  // keeps the first
  }
  return out;
}

// Space of the given pools: production's getAvailableSpace with the calibration computed from
// the current objects (unaccounted = max(0, total - on-disk LLVs - reported free)).
std::map<PoolKey, PoolSpace> ComputeSpace(const std::set<PoolKey>& pools,
                                          const api::ClusterObjects& objects,
                                          const std::map<PoolKey, int64_t>& held) {
  struct Sums {
    int64_t all = 0;
    int64_t on_disk = 0;
  };
  std::map<PoolKey, Sums> sums;
  std::set<std::string, std::less<>> lvgs;
  for (const auto& p : pools) lvgs.insert(p.lvg);
  objects.lvm_logical_volumes.ForEach([&](const api::LVMLogicalVolume& llv) {
    if (!lvgs.count(llv.lvm_volume_group_name)) return;
    PoolKey key{llv.lvm_volume_group_name, llv.thin_pool_name.value_or("")};
    if (!pools.count(key)) return;
    Sums& s = sums[key];
    s.all += llv.size;
    if (llv.phase == "Created" || llv.actual_size > 0) s.on_disk += llv.size;
  });
  std::map<PoolKey, PoolSpace> out;
  for (const auto& key : pools) {
    PoolSpace& space = out[key];
    auto lvg = objects.lvm_volume_groups.Get(key.lvg);
    if (lvg == nullptr) continue;
    int64_t reported_free = 0;
    if (key.thin_pool.empty()) {
      space.total = lvg->vg_size;
      reported_free = lvg->vg_free;
    } else {
      for (const auto& tp : lvg->thin_pools) {
        if (tp.name != key.thin_pool) continue;
        space.total = tp.allocated_size + tp.available_space;
        reported_free = tp.available_space;
      }
    }
    const Sums& s = sums[key];
    const int64_t unaccounted = std::max<int64_t>(0, space.total - s.on_disk - reported_free);
    space.available = std::min(space.total - s.all - unaccounted, reported_free);
    if (auto it = held.find(key); it != held.end()) space.available -= it->second;
  }
  return out;
}

}  // namespace

const char* AccessName(Access a) {
  switch (a) {
    case Access::kLocal:
      return "Local";
    case Access::kEventuallyLocal:
      return "EventuallyLocal";
    case Access::kPreferablyLocal:
      return "PreferablyLocal";
    case Access::kAny:
      return "Any";
  }
  return "?";
}

bool Claim::HasReplicaOn(const std::string& node) const {
  return std::binary_search(replica_nodes.begin(), replica_nodes.end(), node);
}

const PoolKey* PodClaims::PoolOn(const Claim& c, const std::string& node) const {
  auto rsp = pools_by_rsp.find(c.rsp);
  if (rsp == pools_by_rsp.end()) return nullptr;
  auto it = rsp->second.find(node);
  return it == rsp->second.end() ? nullptr : &it->second;
}

Status ResolvePodClaims(const api::Pod& pod, const api::ClusterObjects& objects,
                        const std::function<std::map<PoolKey, int64_t>()>& held, PodClaims* out) {
  const std::string& ns = pod.metadata.namespace_;
  for (const auto& name : ClaimNames(pod)) {
    auto pvc = objects.pvcs.Get(ns, name);
    if (pvc == nullptr) continue;  // VolumeBinding reports missing claims
    const std::string sc_name = pvc->spec.storage_class_name.value_or("");
    if (sc_name.empty()) continue;
    auto sc = objects.storage_classes.Get(sc_name);
    if (sc == nullptr) continue;  // production drops claims whose StorageClass is missing
    auto pv = pvc->spec.volume_name.empty() ? nullptr : objects.pvs.Get(pvc->spec.volume_name);
    if (ProvisionerOf(*pvc, sc.get(), pv.get()) != api::kReplicatedCsiProvisioner) continue;

    Claim c;
    c.key = ns + "/" + name;
    c.pv = pvc->spec.volume_name;
    c.rsc = sc_name;
    auto rsc = objects.replicated_storage_classes.Get(sc_name);
    if (rsc == nullptr) {
      return Status::Unresolvable("PVC " + c.key + ": ReplicatedStorageClass \"" + sc_name +
                                  "\" not found");
    }
    c.rsp = rsc->StoragePoolName();
    if (c.rsp.empty()) {
      return Status::Unresolvable(
          "PVC " + c.key + ": ReplicatedStorageClass \"" + sc_name +
          "\" names no storage pool (status.storagePoolName, spec.storagePool)");
    }
    auto rsp = objects.replicated_storage_pools.Get(c.rsp);
    if (rsp == nullptr) {
      return Status::Unresolvable("PVC " + c.key + ": ReplicatedStoragePool \"" + c.rsp +
                                  "\" not found");
    }
    c.access = ParseAccess(rsc->volume_access);
    c.zones = rsc->zones;
    const int64_t requested = StorageOf(pvc->spec.resources.requests);
    if (c.Bound()) {
      const int64_t capacity = pv == nullptr ? 0 : StorageOf(pv->spec.capacity);
      c.request = std::max<int64_t>(0, requested - capacity);
      if (auto rv = objects.replicated_volumes.Get(c.pv)) {
        c.replicas_known = true;
        for (const auto& m : rv->members) {
          if (m.Diskful() && !m.node_name.empty()) c.replica_nodes.push_back(m.node_name);
        }
        std::sort(c.replica_nodes.begin(), c.replica_nodes.end());
        c.replica_nodes.erase(std::unique(c.replica_nodes.begin(), c.replica_nodes.end()),
                              c.replica_nodes.end());
      }
    } else {
      c.request = requested;
    }
    if (!out->pools_by_rsp.count(c.rsp)) out->pools_by_rsp[c.rsp] = NodePools(*rsp, objects);
    out->claims.push_back(std::move(c));
  }
  if (out->claims.empty()) return Status::Skip();
  std::set<PoolKey> pools;
  for (const auto& [rsp, by_node] : out->pools_by_rsp) {
    for (const auto& [node, key] : by_node) pools.insert(key);
  }
  out->space = ComputeSpace(pools, objects, held());
  return {};
}

bool HoldLanded(const SpaceHold& hold, const api::ClusterObjects& objects,
                const std::function<const LogicalVolumeIndex&()>& llvs) {
  auto pvc = objects.pvcs.Get(hold.claim_key);
  if (pvc == nullptr) return true;
  const std::string& pv = pvc->spec.volume_name;
  if (pv.empty()) return false;
  if (auto rv = objects.replicated_volumes.Get(pv)) {
    bool any = false, here = false;
    for (const auto& m : rv->members) {
      if (!m.Diskful()) continue;
      any = true;
      here = here || m.node_name == hold.node;
    }
    if (any && !here) return true;
  }
  return llvs().Has(hold.pool, pv);
}

LogicalVolumeIndex::LogicalVolumeIndex(const api::ClusterObjects& objects)
    : all_(objects.lvm_logical_volumes.List()) {
  for (const auto& llv : all_) by_lvg_[llv->lvm_volume_group_name].push_back(llv.get());
}

bool LogicalVolumeIndex::Has(const PoolKey& pool, const std::string& pv) const {
  auto it = by_lvg_.find(pool.lvg);
  if (it == by_lvg_.end()) return false;
  for (const api::LVMLogicalVolume* llv : it->second) {
    if (llv->thin_pool_name.value_or("") != pool.thin_pool) continue;
    const std::string& n = llv->metadata.name;
    if (llv->actual_lv_name_on_the_node == pv || n == pv ||
        (n.size() > pv.size() && n.compare(0, pv.size(), pv) == 0 && n[pv.size()] == '-')) {
      return true;
    }
  }
  return false;
}

bool PodBoundTo(const std::string& pod_uid, const std::string& pod_key, const std::string& node,
                const api::ClusterObjects& objects) {
  auto pod = objects.pods.Get(pod_key);
  return pod != nullptr && pod->metadata.uid == pod_uid && pod->spec.node_name == node;
}

int64_t PercentLeft(int64_t available, int64_t request, int64_t total) {
  if (total == 0) return 0;
  return static_cast<int64_t>(static_cast<double>(available - request) /
                              static_cast<double>(total) * 100.0);
}

int64_t LogScore(double x, double divisor) {
  const double v = x / divisor;
  if (!(v > 0)) return 1;
  const double r = std::round(std::log2(v));  // half away from zero, as Go's math.Round
  return static_cast<int64_t>(std::clamp(r, 1.0, 10.0));
}

}  // namespace berth::plugins::replicated_storage
