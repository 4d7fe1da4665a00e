#pragma once
// Plain typed Kubernetes objects: only the fields berth reads. Decoded once at the edge
// (api/decode.h) and shared read-only afterwards (std::shared_ptr<const T>).
// Field names follow the JSON names in snake_case; optional API fields are std::optional.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/quantity.h"

namespace berth::api {

// Microseconds since the Unix epoch (RFC 3339 timestamps in the API).
struct Time {
  int64_t unix_micros = 0;
  auto operator<=>(const Time&) const = default;
};

using Labels = std::map<std::string, std::string>;
using ResourceList = std::map<std::string, Quantity>;

// Well-known resource names.
inline constexpr const char* kResourceCPU = "cpu";
inline constexpr const char* kResourceMemory = "memory";
inline constexpr const char* kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr const char* kResourcePods = "pods";
inline constexpr const char* kResourceStorage = "storage";

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

struct ObjectMeta {
  std::string name;
  std::string namespace_;  // empty for cluster-scoped objects
  std::string uid;
  std::string resource_version;
  std::string generate_name;
  int64_t generation = 0;
  Labels labels;
  Labels annotations;
  std::optional<Time> creation_timestamp;
  std::optional<Time> deletion_timestamp;
  std::vector<OwnerReference> owner_references;
};

// ---- selectors ----

enum class SelectorOperator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

struct LabelSelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kIn;  // In, NotIn, Exists, DoesNotExist only
  std::vector<std::string> values;
};

// metav1.LabelSelector. An empty selector matches everything; an absent (nullopt) one nothing.
struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
};

struct NodeSelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kIn;  // all six operators
  std::vector<std::string> values;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // only key metadata.name
};

// Terms are ORed; requirements within a term are ANDed.
struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
};

struct NodeAffinity {
  std::optional<NodeSelector> required;  // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<PreferredSchedulingTerm> preferred;
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::string topology_key;
  std::optional<LabelSelector> namespace_selector;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm term;
};

struct PodAffinity {
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAffinity> pod_anti_affinity;
};

// ---- pods ----

struct Toleration {
  std::string key;
  std::string operator_ = "Equal";  // Equal | Exists
  std::string value;
  std::string effect;  // "" (all), NoSchedule, PreferNoSchedule, NoExecute
  std::optional<int64_t> toleration_seconds;
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;
};

struct ContainerPort {
  std::string name;
  int32_t container_port = 0;
  int32_t host_port = 0;
  std::string protocol = "TCP";
  std::string host_ip;
};

struct Container {
  std::string name;
  std::string image;
  ResourceRequirements resources;
  std::vector<ContainerPort> ports;
  std::string restart_policy;  // init containers: "Always" makes a restartable sidecar
  // restartPolicyRules[].action ("Restart", "RestartAllContainers"): NodeDeclaredFeatures infers
  // RestartAllContainersOnContainerExits from them.
  std::vector<std::string> restart_policy_rule_actions;
  // Some volumeMounts[].bindMountOptions is non-empty (NodeDeclaredFeatures infers
  // VolumeBindMountOptions); the mounts themselves are not kept.
  bool has_bind_mount_options = false;
};

struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  std::string when_unsatisfiable;  // DoNotSchedule | ScheduleAnyway
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  std::string node_affinity_policy;  // "" (Honor), Honor, Ignore
  std::string node_taints_policy;    // "" (Ignore), Honor, Ignore
  std::vector<std::string> match_label_keys;
};

// One pod volume; only the sources the scheduler's plugins look at are kept.
struct Volume {
  std::string name;
  std::string pvc_claim_name;  // persistentVolumeClaim.claimName
  bool pvc_read_only = false;
  bool ephemeral = false;   // generic ephemeral volume: the PVC is "<pod>-<volume>"
  std::string gce_pd_name;  // gcePersistentDisk.pdName
  bool gce_pd_read_only = false;
  std::string aws_ebs_volume_id;               // awsElasticBlockStore.volumeID
  std::string iscsi_target_portal, iscsi_iqn;  // iscsi
  int32_t iscsi_lun = 0;
  bool iscsi_read_only = false;
  std::vector<std::string> rbd_monitors;  // rbd
  std::string rbd_pool, rbd_image;
  bool rbd_read_only = false;
  std::string csi_driver;  // inline CSI volume
  // An image volume's image.reference (set, possibly empty, when the volume has an `image` source).
  std::optional<std::string> image_reference;
};

// spec.resourceClaims[]: a claim the pod uses, by name or generated from a template.
struct PodResourceClaim {
  std::string name;
  std::string resource_claim_name;           // resourceClaimName
  std::string resource_claim_template_name;  // resourceClaimTemplateName
};

struct PodSpec {
  std::string node_name;
  std::string scheduler_name = "default-scheduler";
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  ResourceList overhead;
  Labels node_selector;
  std::optional<Affinity> affinity;
  std::vector<Toleration> tolerations;
  std::optional<int32_t> priority;
  std::string priority_class_name;
  std::string preemption_policy;  // "" (PreemptLowerPriority) | PreemptLowerPriority | Never
  std::vector<std::string> scheduling_gates;
  std::vector<PodResourceClaim> resource_claims;  // spec.resourceClaims (DynamicResources)
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::vector<Volume> volumes;
  bool host_network = false;
  std::optional<bool> host_users;  // spec.hostUsers; false asks for a user namespace
  // spec.ephemeralContainers, decoded as containers (only what NodeDeclaredFeatures reads matters).
  std::vector<Container> ephemeral_containers;
  // spec.resources: pod-level requests/limits (PodLevelResources). Only cpu, memory and
  // hugepages-* take part in scheduling (scheduler/framework/pod_requests.h).
  ResourceRequirements resources;
};

struct PodCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
};

// The in-place-resize fields of a status.containerStatuses[] / initContainerStatuses[] entry. An
// absent (or null) map stays nullopt, as Go's nil; the difference matters to PodRequests.
struct ContainerStatus {
  std::string name;
  std::optional<ResourceList> allocated_resources;  // allocatedResources
  std::optional<ResourceList> resources_requests;   // resources.requests
};

// status.resources of a pod (the pod-level resources the kubelet actuated). Absent maps stay
// nullopt (Go's nil).
struct PodStatusResources {
  std::optional<ResourceList> requests;
  std::optional<ResourceList> limits;
};

// status.resourceClaimStatuses[]: the claim generated for a pod.spec.resourceClaims[] entry.
struct PodResourceClaimStatus {
  std::string name;  // the pod.spec.resourceClaims[] entry
  // resourceClaimName; absent when no claim was needed (the entry can then be ignored).
  std::optional<std::string> resource_claim_name;
};

// status.extendedResourceClaimStatus.requestMappings[]: which request of the generated claim
// backs a container's DRA extended resource.
struct ContainerExtendedResourceRequest {
  std::string container_name;  // containerName
  std::string resource_name;   // resourceName
  std::string request_name;    // requestName
};

// status.extendedResourceClaimStatus: the claim the scheduler generated for the pod's
// DRA-backed extended resources.
struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> request_mappings;  // requestMappings
  std::string resource_claim_name;                                 // resourceClaimName
};

struct PodStatus {
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::string nominated_node_name;
  std::vector<PodCondition> conditions;
  std::optional<Time> start_time;  // status.startTime (preemption prefers younger victims)
  std::vector<ContainerStatus> container_statuses;
  std::vector<ContainerStatus> init_container_statuses;
  std::optional<ResourceList> allocated_resources;  // status.allocatedResources (pod level)
  std::optional<PodStatusResources> resources;      // status.resources (pod level)
  std::vector<PodResourceClaimStatus> resource_claim_statuses;  // status.resourceClaimStatuses
  // status.extendedResourceClaimStatus
  std::optional<PodExtendedResourceClaimStatus> extended_resource_claim_status;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;

  // "namespace/name"
  std::string Key() const { return metadata.namespace_ + "/" + metadata.name; }
  int32_t Priority() const { return spec.priority.value_or(0); }
};

// ---- nodes ----

struct NodeCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
};

struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;
};

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  std::vector<ContainerImage> images;
  // status.declaredFeatures, kept in the kubelet's (sorted) order: NodeDeclaredFeatures matches
  // the features a pod requires against them.
  std::vector<std::string> declared_features;
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
};

struct Namespace {
  ObjectMeta metadata;
};

// ---- storage ----

struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
};

struct PersistentVolumeClaimSpec {
  std::vector<std::string> access_modes;
  std::optional<std::string> storage_class_name;
  std::string volume_name;
  ResourceRequirements resources;
  std::optional<LabelSelector> selector;
  std::string volume_mode;
};

struct PersistentVolumeClaimStatus {
  std::string phase;  // Pending, Bound, Lost
  std::vector<std::string> access_modes;
  ResourceList capacity;
};

struct PersistentVolumeClaim {
  ObjectMeta metadata;
  PersistentVolumeClaimSpec spec;
  PersistentVolumeClaimStatus status;
};

struct PersistentVolumeSpec {
  ResourceList capacity;
  std::vector<std::string> access_modes;
  std::optional<ObjectReference> claim_ref;
  std::string storage_class_name;
  std::optional<NodeSelector> node_affinity;  // spec.nodeAffinity.required
  std::string reclaim_policy;
  std::string volume_mode;
  std::string csi_driver;
  std::string csi_volume_handle;
};

struct PersistentVolume {
  ObjectMeta metadata;
  PersistentVolumeSpec spec;
  std::string phase;  // status.phase
};

struct StorageClass {
  ObjectMeta metadata;
  std::string provisioner;
  std::map<std::string, std::string> parameters;
  std::string volume_binding_mode = "Immediate";  // Immediate | WaitForFirstConsumer
  std::string reclaim_policy;
  std::vector<NodeSelectorTerm> allowed_topologies;
};

struct CSINodeDriver {
  std::string name;
  std::string node_id;
  std::optional<int32_t> allocatable_count;
  std::vector<std::string> topology_keys;
};

struct CSINode {
  ObjectMeta metadata;
  std::vector<CSINodeDriver> drivers;
};

// storage.k8s.io/v1 CSIDriver, named after the driver; only what NodeVolumeLimits reads.
struct CSIDriver {
  ObjectMeta metadata;
  // spec.preventPodSchedulingIfMissing: pods using the driver fit only nodes whose CSINode lists
  // it (VolumeLimitScaling, beta and on in v1.37).
  bool prevent_pod_scheduling_if_missing = false;
};

// ---- services ----

struct Service {
  ObjectMeta metadata;
  Labels selector;
  std::string type;
  std::string cluster_ip;
};

// ---- controllers whose selectors system default spreading uses (upstream's
// helper.DefaultSelector): only metadata and spec.selector are read ----

struct ReplicationController {  // v1
  ObjectMeta metadata;
  Labels selector;  // spec.selector: a plain map
};

struct ReplicaSet {  // apps/v1
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;  // spec.selector
};

struct StatefulSet {  // apps/v1
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;  // spec.selector
};

// ---- policy/v1 PodDisruptionBudget (read by DefaultPreemption) ----

struct PodDisruptionBudget {
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;    // spec.selector; absent or empty matches nothing
  int32_t disruptions_allowed = 0;          // status.disruptionsAllowed
  std::vector<std::string> disrupted_pods;  // names in status.disruptedPods
};

// ---- gangs: scheduling.x-k8s.io/v1alpha1 PodGroup ----

inline constexpr const char* kPodGroupLabel = "scheduling.x-k8s.io/pod-group";

struct PodGroupSpec {
  int32_t min_member = 0;
  ResourceList min_resources;
  std::optional<int32_t> schedule_timeout_seconds;
};

struct PodGroupStatus {
  std::string phase;  // Pending, Scheduling, Running, Finished, Failed, Unknown
  std::string occupied_by;
  int32_t running = 0;
  int32_t succeeded = 0;
  int32_t failed = 0;
  std::optional<Time> schedule_start_time;
};

struct PodGroup {
  ObjectMeta metadata;
  PodGroupSpec spec;
  PodGroupStatus status;
};

}  // namespace berth::api
