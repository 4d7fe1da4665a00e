#pragma once
// Reading a cluster file for `berth simulate`: YAML (JSON is YAML), one or more `---`-separated
// documents, each a Kubernetes object or a `kind: List` with `items` (what
// `kubectl get nodes,pods -A -o yaml` prints). This is the file-backed stand-in for the
// informers: it yields typed objects, with the defaults the API server would have applied.

#include <memory>
#include <string>
#include <vector>

#include "api/replicated_storage_types.h"
#include "api/types.h"
#include "api/types_resource.h"
#include "api/value.h"
#include "base/result.h"

namespace berth::simulate {

struct ClusterFile {
  // In file order.
  std::vector<std::shared_ptr<const api::Node>> nodes;
  std::vector<std::shared_ptr<const api::Pod>> pods;
  std::vector<std::shared_ptr<const api::Namespace>> namespaces;
  std::vector<std::shared_ptr<const api::PersistentVolumeClaim>> pvcs;
  std::vector<std::shared_ptr<const api::PersistentVolume>> pvs;
  std::vector<std::shared_ptr<const api::StorageClass>> storage_classes;
  std::vector<std::shared_ptr<const api::CSINode>> csi_nodes;
  std::vector<std::shared_ptr<const api::CSIDriver>> csi_drivers;
  std::vector<std::shared_ptr<const api::Service>> services;
  std::vector<std::shared_ptr<const api::ReplicationController>> replication_controllers;
  std::vector<std::shared_ptr<const api::ReplicaSet>> replica_sets;
  std::vector<std::shared_ptr<const api::StatefulSet>> stateful_sets;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pdbs;
  std::vector<std::shared_ptr<const api::PodGroup>> pod_groups;
  // resource.k8s.io/v1 (DynamicResources). Claims and templates default to namespace "default";
  // a claim without a uid gets "sim-resourceclaim-<ns>-<name>" (allocations are keyed by uid).
  std::vector<std::shared_ptr<const api::DeviceClass>> device_classes;
  std::vector<std::shared_ptr<const api::ResourceSlice>> resource_slices;
  std::vector<std::shared_ptr<const api::ResourceClaim>> resource_claims;
  std::vector<std::shared_ptr<const api::ResourceClaimTemplate>> resource_claim_templates;
  std::vector<std::shared_ptr<const api::DeviceTaintRule>> device_taint_rules;
  // storage.deckhouse.io/v1alpha1 objects (the ReplicatedStorage plugin's), in file order.
  std::vector<std::shared_ptr<const api::ReplicatedStorageClass>> replicated_storage_classes;
  std::vector<std::shared_ptr<const api::ReplicatedStoragePool>> replicated_storage_pools;
  std::vector<std::shared_ptr<const api::LVMVolumeGroup>> lvm_volume_groups;
  std::vector<std::shared_ptr<const api::LVMLogicalVolume>> lvm_logical_volumes;
  std::vector<std::shared_ptr<const api::ReplicatedVolume>> replicated_volumes;
  // One line per ignored kind: `<file>: ignoring N object(s) of kind "X"`.
  std::vector<std::string> warnings;
};

// Errors (one line): `<file>: cannot read: ...`, `<file>: line L, column C: ...` for broken
// YAML, `<file>: document N: <Kind> <ns/name>: <field>: <what>` for a bad object (items of a
// List add `items[i]` after the document number), and duplicate objects.
Result<ClusterFile> LoadClusterFile(const std::string& path);
Result<ClusterFile> ParseClusterFile(const std::string& text, const std::string& source);

// Objects already parsed (the live lister's, cluster_lister.h), each with what names its origin
// in errors: `<where>: <Kind> <ns/name>: <field>: <what>`. Read exactly as the items of a
// cluster file's List, so a cluster listed live and the same objects saved to a file and read
// back give the same ClusterFile. `object` must outlive the call.
struct SourcedObject {
  std::string where;
  const api::Value* object = nullptr;
};
Result<ClusterFile> ClusterFileFromObjects(const std::vector<SourcedObject>& objects);

// The API server's defaulting that a hand-written file may lack: namespace "default", a uid,
// requests copied from limits where unset, schedulerName "default-scheduler" (decoder default),
// and the pod-level requests below.
void ApplyPodDefaults(api::Pod& pod, size_t index);
// The API server's DefaultPodLevelResources (PodLevelResourcesFixDefaulting, on in v1.37), the
// parts scheduling sees: when spec.resources sets anything, pod-level hugepage limits default to
// the containers' aggregated hugepage limits, then pod-level cpu / memory requests to the
// containers' aggregated requests, then any other supported request to its pod-level limit.
void DefaultPodLevelRequests(api::Pod& pod);

}  // namespace berth::simulate
