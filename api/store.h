#pragma once
// Thread-safe stores of typed cluster objects that plugins read (PVCs, PVs, StorageClasses, ...).
// Filled by the informers in `berth run` and from the cluster file in `berth simulate`.
// Readers get shared_ptr<const T> snapshots of single objects; writers replace whole objects.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "api/replicated_storage_types.h"
#include "api/types.h"
#include "api/types_resource.h"

namespace berth::api {

template <typename T>
class Store {
 public:
  using Ptr = std::shared_ptr<const T>;
  // Key is "namespace/name" for namespaced kinds, "name" otherwise.
  static std::string KeyOf(const T& obj) {
    return obj.metadata.namespace_.empty() ? obj.metadata.name
                                           : obj.metadata.namespace_ + "/" + obj.metadata.name;
  }
  void Upsert(Ptr obj) {
    std::unique_lock lock(mu_);
    items_[KeyOf(*obj)] = std::move(obj);
  }
  void Remove(const std::string& key) {
    std::unique_lock lock(mu_);
    items_.erase(key);
  }
  Ptr Get(const std::string& key) const {
    std::shared_lock lock(mu_);
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }
  Ptr Get(const std::string& ns, const std::string& name) const {
    return Get(ns.empty() ? name : ns + "/" + name);
  }
  std::vector<Ptr> List() const {
    std::shared_lock lock(mu_);
    std::vector<Ptr> out;
    out.reserve(items_.size());
    for (const auto& [k, v] : items_) out.push_back(v);
    return out;
  }
  // Calls fn for every object in namespace ns (all namespaces when ns is empty).
  void ForEach(const std::function<void(const T&)>& fn) const {
    std::shared_lock lock(mu_);
    for (const auto& [k, v] : items_) fn(*v);
  }
  size_t Size() const {
    std::shared_lock lock(mu_);
    return items_.size();
  }
  void Clear() {
    std::unique_lock lock(mu_);
    items_.clear();
  }

 private:
  mutable std::shared_mutex mu_;  // guards items_
  std::map<std::string, Ptr> items_;
};

// Everything besides nodes and pods (which live in the scheduler cache) that plugins look up.
// Pods are also kept here (all pods, bound or not) for plugins that count siblings.
struct ClusterObjects {
  Store<Pod> pods;
  Store<Namespace> namespaces;
  Store<PersistentVolumeClaim> pvcs;
  Store<PersistentVolume> pvs;
  Store<StorageClass> storage_classes;
  Store<CSINode> csi_nodes;
  Store<CSIDriver> csi_drivers;
  Store<Service> services;
  // The controllers of system default spreading (PodTopologySpread, SelectorSpread).
  Store<ReplicationController> replication_controllers;
  Store<ReplicaSet> replica_sets;
  Store<StatefulSet> stateful_sets;
  Store<PodGroup> pod_groups;
  // storage.deckhouse.io/v1alpha1 (ReplicatedStorage plugin); empty when the CRDs are absent.
  Store<ReplicatedStorageClass> replicated_storage_classes;
  Store<ReplicatedStoragePool> replicated_storage_pools;
  Store<LVMVolumeGroup> lvm_volume_groups;
  Store<LVMLogicalVolume> lvm_logical_volumes;
  Store<ReplicatedVolume> replicated_volumes;
  Store<PodDisruptionBudget> pdbs;
  // resource.k8s.io/v1 (DynamicResources). DeviceClasses, ResourceSlices and DeviceTaintRules are
  // cluster-scoped (key "name"); claims and templates are keyed "namespace/name".
  Store<DeviceClass> device_classes;
  Store<ResourceSlice> resource_slices;
  Store<ResourceClaim> resource_claims;
  Store<ResourceClaimTemplate> resource_claim_templates;
  Store<DeviceTaintRule> device_taint_rules;  // cluster-scoped
};

}  // namespace berth::api
