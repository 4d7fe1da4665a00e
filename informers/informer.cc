#include "informers/informer.h"

#include <thread>

namespace berth::informers {

template class Informer<api::Pod>;
template class Informer<api::Node>;
template class Informer<api::PersistentVolumeClaim>;
template class Informer<api::PersistentVolume>;
template class Informer<api::StorageClass>;
template class Informer<api::CSINode>;
template class Informer<api::Namespace>;
template class Informer<api::Service>;
template class Informer<api::PodGroup>;
template class Informer<api::PodDisruptionBudget>;
template class Informer<api::ReplicatedStorageClass>;
template class Informer<api::ReplicatedStoragePool>;
template class Informer<api::LVMVolumeGroup>;
template class Informer<api::LVMLogicalVolume>;
template class Informer<api::ReplicatedVolume>;

template <typename T>
std::unique_ptr<Informer<T>> InformerFactory::Make(client::KubeClient& client,
                                                   const ReflectorOptions& base, std::string kind,
                                                   std::string path, bool optional,
                                                   typename Informer<T>::Decoder decode,
                                                   api::Store<T>* store) {
  ReflectorOptions options = base;
  options.kind = std::move(kind);
  options.list_path = std::move(path);
  options.optional = optional;
  auto informer = std::make_unique<Informer<T>>(client, std::move(options), decode, store);
  Informer<T>* p = informer.get();
  entries_.push_back(Entry{[p] { p->Start(); }, [p] { p->RequestStop(); }, [p] { p->Join(); },
                           [p] { return p->HasSynced(); }, [p] { return p->stats(); }, p->kind()});
  return informer;
}

InformerFactory::InformerFactory(client::KubeClient& client, api::ClusterObjects& objects,
                                 ReflectorOptions base) {
  pods_ = Make<api::Pod>(client, base, "Pod", "/api/v1/pods", false, api::DecodePod, &objects.pods);
  nodes_ = Make<api::Node>(client, base, "Node", "/api/v1/nodes", false, api::DecodeNode, nullptr);
  pvcs_ = Make<api::PersistentVolumeClaim>(client, base, "PersistentVolumeClaim",
                                           "/api/v1/persistentvolumeclaims", false,
                                           api::DecodePersistentVolumeClaim, &objects.pvcs);
  pvs_ = Make<api::PersistentVolume>(client, base, "PersistentVolume", "/api/v1/persistentvolumes",
                                     false, api::DecodePersistentVolume, &objects.pvs);
  storage_classes_ = Make<api::StorageClass>(client, base, "StorageClass",
                                             "/apis/storage.k8s.io/v1/storageclasses", false,
                                             api::DecodeStorageClass, &objects.storage_classes);
  csi_nodes_ = Make<api::CSINode>(client, base, "CSINode", "/apis/storage.k8s.io/v1/csinodes",
                                  false, api::DecodeCSINode, &objects.csi_nodes);
  namespaces_ = Make<api::Namespace>(client, base, "Namespace", "/api/v1/namespaces", false,
                                     api::DecodeNamespace, &objects.namespaces);
  services_ = Make<api::Service>(client, base, "Service", "/api/v1/services", false,
                                 api::DecodeService, &objects.services);
  pod_groups_ =
      Make<api::PodGroup>(client, base, "PodGroup", "/apis/scheduling.x-k8s.io/v1alpha1/podgroups",
                          true, api::DecodePodGroup, &objects.pod_groups);
  // Read by DefaultPreemption to spare victims whose budget allows no disruption.
  pdbs_ = Make<api::PodDisruptionBudget>(client, base, "PodDisruptionBudget",
                                         "/apis/policy/v1/poddisruptionbudgets", false,
                                         api::DecodePodDisruptionBudget, &objects.pdbs);
  // Deckhouse replicated storage (ReplicatedStorage plugin); cluster-scoped CRDs, optional.
  const std::string deckhouse = "/apis/storage.deckhouse.io/v1alpha1/";
  rscs_ = Make<api::ReplicatedStorageClass>(
      client, base, "ReplicatedStorageClass", deckhouse + "replicatedstorageclasses", true,
      api::DecodeReplicatedStorageClass, &objects.replicated_storage_classes);
  rsps_ = Make<api::ReplicatedStoragePool>(
      client, base, "ReplicatedStoragePool", deckhouse + "replicatedstoragepools", true,
      api::DecodeReplicatedStoragePool, &objects.replicated_storage_pools);
  lvgs_ = Make<api::LVMVolumeGroup>(client, base, "LVMVolumeGroup", deckhouse + "lvmvolumegroups",
                                    true, api::DecodeLVMVolumeGroup, &objects.lvm_volume_groups);
  llvs_ = Make<api::LVMLogicalVolume>(client, base, "LVMLogicalVolume",
                                      deckhouse + "lvmlogicalvolumes", true,
                                      api::DecodeLVMLogicalVolume, &objects.lvm_logical_volumes);
  rvs_ = Make<api::ReplicatedVolume>(client, base, "ReplicatedVolume",
                                     deckhouse + "replicatedvolumes", true,
                                     api::DecodeReplicatedVolume, &objects.replicated_volumes);
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
