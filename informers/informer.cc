#include "informers/informer.h"

#include <string_view>
#include <thread>
#include <tuple>

#include "api/kinds.h"

namespace berth::informers {

template class Informer<api::Pod>;
template class Informer<api::Node>;
template class Informer<api::PersistentVolumeClaim>;
template class Informer<api::PersistentVolume>;
template class Informer<api::StorageClass>;
template class Informer<api::CSINode>;
template class Informer<api::CSIDriver>;
template class Informer<api::Namespace>;
template class Informer<api::Service>;
template class Informer<api::ReplicationController>;
template class Informer<api::ReplicaSet>;
template class Informer<api::StatefulSet>;
template class Informer<api::PodGroup>;
template class Informer<api::PodDisruptionBudget>;
template class Informer<api::DeviceClass>;
template class Informer<api::ResourceSlice>;
template class Informer<api::ResourceClaim>;
template class Informer<api::ResourceClaimTemplate>;
template class Informer<api::DeviceTaintRule>;
template class Informer<api::ReplicatedStorageClass>;
template class Informer<api::ReplicatedStoragePool>;
template class Informer<api::LVMVolumeGroup>;
template class Informer<api::LVMLogicalVolume>;
template class Informer<api::ReplicatedVolume>;

namespace {

template <typename T>
using Spec = InformerFactory::KindSpec<T>;
using O = api::ClusterObjects;
namespace kind = api::kind;
#define BERTH_DECKHOUSE "/apis/storage.deckhouse.io/v1alpha1/"

// The kind table: a new kind is one row here (and its requeue event in
// cmd/berth/app/run/cluster_feed.h). Start order = row order.
const auto kKinds = std::make_tuple(
    Spec<api::Pod>{kind::kPod, "/api/v1/pods", false, api::DecodePod, &O::pods},
    Spec<api::Node>{kind::kNode, "/api/v1/nodes", false, api::DecodeNode, nullptr},
    Spec<api::PersistentVolumeClaim>{kind::kPersistentVolumeClaim, "/api/v1/persistentvolumeclaims",
                                     false, api::DecodePersistentVolumeClaim, &O::pvcs},
    Spec<api::PersistentVolume>{kind::kPersistentVolume, "/api/v1/persistentvolumes", false,
                                api::DecodePersistentVolume, &O::pvs},
    Spec<api::StorageClass>{kind::kStorageClass, "/apis/storage.k8s.io/v1/storageclasses", false,
                            api::DecodeStorageClass, &O::storage_classes},
    Spec<api::CSINode>{kind::kCSINode, "/apis/storage.k8s.io/v1/csinodes", false,
                       api::DecodeCSINode, &O::csi_nodes},
    // Read by NodeVolumeLimits (preventPodSchedulingIfMissing); no plugin requeues on it.
    Spec<api::CSIDriver>{kind::kCSIDriver, "/apis/storage.k8s.io/v1/csidrivers", false,
                         api::DecodeCSIDriver, &O::csi_drivers},
    Spec<api::Namespace>{kind::kNamespace, "/api/v1/namespaces", false, api::DecodeNamespace,
                         &O::namespaces},
    Spec<api::Service>{kind::kService, "/api/v1/services", false, api::DecodeService, &O::services},
    // The controllers whose selectors system default spreading reads (no requeue events: upstream
    // registers none for them).
    Spec<api::ReplicationController>{kind::kReplicationController, "/api/v1/replicationcontrollers",
                                     false, api::DecodeReplicationController,
                                     &O::replication_controllers},
    Spec<api::ReplicaSet>{kind::kReplicaSet, "/apis/apps/v1/replicasets", false,
                          api::DecodeReplicaSet, &O::replica_sets},
    Spec<api::StatefulSet>{kind::kStatefulSet, "/apis/apps/v1/statefulsets", false,
                           api::DecodeStatefulSet, &O::stateful_sets},
    Spec<api::PodGroup>{kind::kPodGroup, "/apis/scheduling.x-k8s.io/v1alpha1/podgroups", true,
                        api::DecodePodGroup, &O::pod_groups},
    // Read by DefaultPreemption to spare victims whose budget allows no disruption.
    Spec<api::PodDisruptionBudget>{kind::kPodDisruptionBudget,
                                   "/apis/policy/v1/poddisruptionbudgets", false,
                                   api::DecodePodDisruptionBudget, &O::pdbs},
    // Dynamic resource allocation (DynamicResources). Built into the API server since v1.34:
    // not optional. DeviceClasses and ResourceSlices are cluster-scoped.
    Spec<api::DeviceClass>{kind::kDeviceClass, "/apis/resource.k8s.io/v1/deviceclasses", false,
                           api::DecodeDeviceClass, &O::device_classes},
    Spec<api::ResourceSlice>{kind::kResourceSlice, "/apis/resource.k8s.io/v1/resourceslices", false,
                             api::DecodeResourceSlice, &O::resource_slices},
    Spec<api::ResourceClaim>{kind::kResourceClaim, "/apis/resource.k8s.io/v1/resourceclaims", false,
                             api::DecodeResourceClaim, &O::resource_claims},
    // Read to find a pod's claim templates; no plugin requeues on them.
    Spec<api::ResourceClaimTemplate>{
        kind::kResourceClaimTemplate, "/apis/resource.k8s.io/v1/resourceclaimtemplates", false,
        api::DecodeResourceClaimTemplate, &O::resource_claim_templates},
    // Taints applied to matching devices, as if in their slices (GA in v1.37). A change requeues
    // as a ResourceSlice update (cmd/berth/app/run/cluster_feed.h), as upstream reports it.
    Spec<api::DeviceTaintRule>{kind::kDeviceTaintRule, "/apis/resource.k8s.io/v1/devicetaintrules",
                               false, api::DecodeDeviceTaintRule, &O::device_taint_rules},
    // Deckhouse replicated storage (ReplicatedStorage plugin); cluster-scoped CRDs, optional.
    Spec<api::ReplicatedStorageClass>{
        kind::kReplicatedStorageClass, BERTH_DECKHOUSE "replicatedstorageclasses", true,
        api::DecodeReplicatedStorageClass, &O::replicated_storage_classes},
    Spec<api::ReplicatedStoragePool>{
        kind::kReplicatedStoragePool, BERTH_DECKHOUSE "replicatedstoragepools", true,
        api::DecodeReplicatedStoragePool, &O::replicated_storage_pools},
    Spec<api::LVMVolumeGroup>{kind::kLVMVolumeGroup, BERTH_DECKHOUSE "lvmvolumegroups", true,
                              api::DecodeLVMVolumeGroup, &O::lvm_volume_groups},
    Spec<api::LVMLogicalVolume>{kind::kLVMLogicalVolume, BERTH_DECKHOUSE "lvmlogicalvolumes", true,
                                api::DecodeLVMLogicalVolume, &O::lvm_logical_volumes},
    Spec<api::ReplicatedVolume>{kind::kReplicatedVolume, BERTH_DECKHOUSE "replicatedvolumes", true,
                                api::DecodeReplicatedVolume, &O::replicated_volumes});
#undef BERTH_DECKHOUSE

}  // namespace

template <typename T>
void InformerFactory::Add(client::KubeClient& client, const ReflectorOptions& base,
                          api::ClusterObjects& objects, const KindSpec<T>& spec) {
  ReflectorOptions options = base;
  options.kind = spec.kind;
  options.list_path = spec.list_path;
  options.optional = spec.optional;
  api::Store<T>* store = spec.store == nullptr ? nullptr : &(objects.*(spec.store));
  auto informer = std::make_shared<Informer<T>>(client, std::move(options), spec.decode, store);
  Informer<T>* p = informer.get();
  entries_.push_back(Entry{[p] { p->Start(); }, [p] { p->RequestStop(); }, [p] { p->Join(); },
                           [p] { return p->HasSynced(); }, [p] { return p->stats(); }, p->kind()});
  informers_[std::type_index(typeid(T))] = std::move(informer);
}

InformerFactory::InformerFactory(client::KubeClient& client, api::ClusterObjects& objects,
                                 ReflectorOptions base,
                                 const std::optional<std::set<std::string>>& kinds) {
  auto wanted = [&kinds](const char* k) {
    return !kinds || kinds->count(k) > 0 || std::string_view(k) == kind::kPod ||
           std::string_view(k) == kind::kNode;
  };
  std::apply(
      [&](const auto&... spec) {
        ((wanted(spec.kind) ? Add(client, base, objects, spec) : void()), ...);
      },
      kKinds);
}

std::vector<std::string> InformerFactory::Kinds() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.kind);
  return out;
}

InformerFactory::~InformerFactory() { Stop(); }

void InformerFactory::Start() {
  for (auto& e : entries_) e.start();
}

void InformerFactory::Stop() {
  for (auto& e : entries_) e.request_stop();
  for (auto& e : entries_) e.join();
}

bool InformerFactory::HasSynced() const {
  for (const auto& e : entries_) {
    if (!e.has_synced()) return false;
  }
  return true;
}

std::vector<std::string> InformerFactory::Unsynced() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) {
    if (!e.has_synced()) out.push_back(e.kind);
  }
  return out;
}

Ok InformerFactory::WaitForCacheSync(std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!HasSynced()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string kinds;
      for (const auto& k : Unsynced()) kinds += (kinds.empty() ? "" : ", ") + k;
      return Error{"timed out after " + std::to_string(timeout.count()) +
                   "ms waiting for caches to sync: " + kinds};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Ok();
}

std::vector<std::pair<std::string, ReflectorStats>> InformerFactory::Stats() const {
  std::vector<std::pair<std::string, ReflectorStats>> out;
  for (const auto& e : entries_) out.emplace_back(e.kind, e.stats());
  return out;
}

}  // namespace berth::informers
