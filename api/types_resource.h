#pragma once
// resource.k8s.io/v1 (Dynamic Resource Allocation): DeviceClass, ResourceSlice, ResourceClaim,
// ResourceClaimTemplate and DeviceTaintRule, as the DynamicResources plugin and its allocator read
// them. Decoded by
// api/decode_resource.cc; the status update PreBind writes is encoded by api/encode_resource.h.
//
// Conventions beyond types.h's:
//  - Go pointers whose nil differs from the zero value stay std::optional (nodeName, allNodes,
//    adminAccess, shareID, ...); Go slices and maps whose nil and empty mean the same are plain
//    containers.
//  - The defaults the API server applies are explicit here and applied by the decoder when a
//    field is absent (allocationMode "ExactCount"; count 1 in ExactCount mode; toleration
//    operator "Equal"), so a cluster file without them reads like the stored object.
//  - Enumerations that upstream tells clients to refuse when unknown (allocation modes, taint
//    effects, selector kinds) stay strings or optionals, so that the allocator can name what it
//    refuses instead of the decoder rejecting the whole object.
//  - Alpha and beta fields the v1.37 defaults leave off (list attributes, derived attributes,
//    node-allocatable resources, partition types, compatibility groups, skipped node operations)
//    are decoded too, so the plugin can refuse an object that uses them with a clear reason.
//  - CEL expressions are kept as text; evaluating them is someone else's job.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/quantity.h"
#include "api/types.h"
#include "api/value.h"

namespace berth::api {

// DeviceRequest / DeviceSubRequest allocationMode values.
inline constexpr const char* kDeviceAllocationModeExactCount = "ExactCount";
inline constexpr const char* kDeviceAllocationModeAll = "All";
// DeviceTaint / DeviceToleration effects (consumers treat unknown effects like None).
inline constexpr const char* kDeviceTaintEffectNone = "None";
inline constexpr const char* kDeviceTaintEffectNoSchedule = "NoSchedule";
inline constexpr const char* kDeviceTaintEffectNoExecute = "NoExecute";
// DeviceAllocationConfiguration.source values.
inline constexpr const char* kAllocationConfigSourceClass = "FromClass";
inline constexpr const char* kAllocationConfigSourceClaim = "FromClaim";
// The finalizer the scheduler adds to a claim it allocates.
inline constexpr const char* kResourceClaimFinalizer = "resource.kubernetes.io/delete-protection";
// Annotation of the claim the scheduler generates for DRA-backed extended resources.
inline constexpr const char* kExtendedResourceClaimAnnotation =
    "resource.kubernetes.io/extended-resource-claim";
// Annotation the ResourceClaim controller puts on template-generated claims (pod claim name).
inline constexpr const char* kPodResourceClaimAnnotation = "resource.kubernetes.io/pod-claim-name";
// Prefix of the implicit extended resource name of a DeviceClass without extendedResourceName.
inline constexpr const char* kResourceDeviceClassPrefix = "deviceclass.resource.kubernetes.io/";

// ---- shared pieces ----

// selectors[]: exactly one kind of selector is set; CEL is the only kind v1 knows. A selector
// without `cel` (a newer kind) has no expression and must be refused by its reader.
struct DeviceSelector {
  std::optional<std::string> cel_expression;  // cel.expression
};

// opaque: driver-specific parameters, passed to the driver, never read while allocating.
struct OpaqueDeviceConfiguration {
  std::string driver;
  Value parameters;  // runtime.RawExtension: any JSON value, kept as decoded
};

// spec.config[] of a DeviceClass.
struct DeviceClassConfiguration {
  std::optional<OpaqueDeviceConfiguration> opaque;
};

// spec.devices.config[] of a claim.
struct DeviceClaimConfiguration {
  std::vector<std::string> requests;  // empty: all requests; "<request>[/<subrequest>]"
  std::optional<OpaqueDeviceConfiguration> opaque;
};

// status.allocation.devices.config[]: the class and claim configs copied at allocation.
struct DeviceAllocationConfiguration {
  std::string source;  // FromClass | FromClaim (required)
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
};

struct DeviceToleration {
  std::string key;                  // empty with operator Exists: tolerates everything
  std::string operator_ = "Equal";  // Equal | Exists (the API server's default is Equal)
  std::string value;
  std::string effect;  // "" (all), NoSchedule, NoExecute
  std::optional<int64_t> toleration_seconds;
};

// capacity (DRAConsumableCapacity, beta on): requests[<qualified name>] = amount.
struct CapacityRequirements {
  std::map<std::string, Quantity> requests;
};

// derivedAttributes[] (DRADerivedAttributes, alpha off).
struct DeviceDerivedAttribute {
  std::string name;  // fully qualified
  std::string expression;
};

// ---- DeviceClass (cluster-scoped) ----

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors;
  std::vector<DeviceClassConfiguration> config;
  std::optional<std::string> extended_resource_name;  // extendedResourceName (DRAExtendedResource)
};

struct DeviceClass {
  ObjectMeta metadata;
  DeviceClassSpec spec;
};

// ---- ResourceSlice (cluster-scoped) ----

// A device attribute: exactly one member is set (the API server validates it). The list forms
// are DRAListTypeAttributes (alpha, off).
// The list-typed values of a DeviceAttribute (DRAListTypeAttributes).
struct DeviceAttributeLists {
  std::optional<std::vector<int64_t>> int_values;          // ints
  std::optional<std::vector<bool>> bool_values;            // bools
  std::optional<std::vector<std::string>> string_values;   // strings
  std::optional<std::vector<std::string>> version_values;  // versions
};

// A device attribute. A ResourceSlice carries thousands of them, so the rare list values live
// out of line (null when there are none): 112 bytes an attribute instead of 232.
struct DeviceAttribute {
  std::optional<int64_t> int_value;          // int
  std::optional<bool> bool_value;            // bool
  std::optional<std::string> string_value;   // string
  std::optional<std::string> version_value;  // version (semver 2.0.0)
  std::shared_ptr<const DeviceAttributeLists> lists;
};

struct CapacityRequestPolicyRange {
  std::optional<Quantity> min;
  std::optional<Quantity> max;
  std::optional<Quantity> step;
};

// requestPolicy of a consumable capacity (DRAConsumableCapacity).
struct CapacityRequestPolicy {
  std::optional<Quantity> default_value;                  // default
  std::vector<Quantity> valid_values;                     // validValues
  std::optional<CapacityRequestPolicyRange> valid_range;  // validRange
};

struct DeviceCapacity {
  Quantity value;
  std::optional<CapacityRequestPolicy> request_policy;  // requestPolicy
};

// consumesCounters[] (DRAPartitionableDevices, beta on).
struct DeviceCounterConsumption {
  std::string counter_set;                        // counterSet
  std::map<std::string, Quantity> counters;       // counters[<name>].value
  std::vector<std::string> compatibility_groups;  // compatibilityGroups (alpha off)
};

struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;              // None | NoSchedule | NoExecute (unknown: like None)
  std::optional<Time> time_added;  // timeAdded
};

// nodeAllocatableResources[<resource>] (DRANodeAllocatableResources, alpha off).
struct NodeAllocatableMapping {
  std::optional<std::string> capacity_key;      // capacityKey
  std::optional<Quantity> capacity_multiplier;  // capacityMultiplier
  std::optional<Quantity> device_multiplier;    // deviceMultiplier
};
struct NodeAllocatableOverhead {
  std::optional<Quantity> per_pod;        // perPod
  std::optional<Quantity> per_container;  // perContainer
};
struct NodeAllocatableResource {
  std::optional<NodeAllocatableMapping> mapping;
  std::optional<NodeAllocatableOverhead> overhead;
};

struct Device {
  std::string name;
  std::map<std::string, DeviceAttribute> attributes;        // by qualified name
  std::map<std::string, DeviceCapacity> capacity;           // by qualified name
  std::vector<DeviceCounterConsumption> consumes_counters;  // consumesCounters
  // Per-device node selection, only with spec.perDeviceNodeSelection (at most one is set).
  std::optional<std::string> node_name;       // nodeName
  std::optional<NodeSelector> node_selector;  // nodeSelector
  std::optional<bool> all_nodes;              // allNodes
  std::vector<DeviceTaint> taints;
  std::optional<bool> binds_to_node;                    // bindsToNode
  std::vector<std::string> binding_conditions;          // bindingConditions
  std::vector<std::string> binding_failure_conditions;  // bindingFailureConditions
  std::optional<bool> allow_multiple_allocations;       // allowMultipleAllocations
  std::map<std::string, NodeAllocatableResource> node_allocatable_resources;
};

struct ResourcePool {
  std::string name;
  int64_t generation = 0;
  int64_t resource_slice_count = 0;  // resourceSliceCount
};

// spec.sharedCounters[] (DRAPartitionableDevices).
struct CounterSet {
  std::string name;
  std::map<std::string, Quantity> counters;  // counters[<name>].value
};

struct ResourceSliceSpec {
  std::string driver;
  ResourcePool pool;
  // Exactly one of the four node selections is set (the API server validates it).
  std::optional<std::string> node_name;           // nodeName
  std::optional<NodeSelector> node_selector;      // nodeSelector
  std::optional<bool> all_nodes;                  // allNodes
  std::optional<bool> per_device_node_selection;  // perDeviceNodeSelection
  std::vector<Device> devices;
  std::vector<CounterSet> shared_counters;              // sharedCounters
  std::optional<std::string> partition_type_attribute;  // partitionTypeAttribute (alpha)
  std::vector<std::string> skip_node_operations;        // skipNodeOperations (alpha)
};

struct ResourceSlice {
  ObjectMeta metadata;
  ResourceSliceSpec spec;
};

// ---- DeviceTaintRule (cluster-scoped; DRADeviceTaintRules, GA and on in v1.37) ----
// Adds one taint to every device its selector matches, as if the driver had published it in the
// ResourceSlice (upstream's scheduler lists slices "with device taint rules applied").

// Which devices: every set field must match; an empty selector matches all devices, an absent
// one (DeviceTaintRuleSpec::device_selector == nullopt) none.
struct DeviceTaintSelector {
  std::optional<std::string> driver;  // slice.spec.driver
  std::optional<std::string> pool;    // slice.spec.pool.name
  std::optional<std::string> device;  // slice.spec.devices[].name
};

struct DeviceTaintRuleSpec {
  std::optional<DeviceTaintSelector> device_selector;  // deviceSelector
  DeviceTaint taint;
};

struct DeviceTaintRule {
  ObjectMeta metadata;
  DeviceTaintRuleSpec spec;  // status (eviction progress) is not read
};

// ---- ResourceClaim / ResourceClaimTemplate (namespaced) ----

// requests[].exactly: one or more identical devices. Defaults applied when absent:
// allocation_mode "ExactCount", and count 1 in ExactCount mode (0 in All mode).
struct ExactDeviceRequest {
  std::string device_class_name;  // deviceClassName
  std::vector<DeviceSelector> selectors;
  std::string allocation_mode = kDeviceAllocationModeExactCount;  // ExactCount | All | unknown
  int64_t count = 1;
  std::optional<bool> admin_access;  // adminAccess
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  std::vector<DeviceDerivedAttribute> derived_attributes;  // derivedAttributes (alpha)
};

// requests[].firstAvailable[]: one alternative; the first that can be satisfied is used. Same
// defaults as ExactDeviceRequest.
struct DeviceSubRequest {
  std::string name;
  std::string device_class_name;  // deviceClassName
  std::vector<DeviceSelector> selectors;
  std::string allocation_mode = kDeviceAllocationModeExactCount;
  int64_t count = 1;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  std::vector<DeviceDerivedAttribute> derived_attributes;
};

// Exactly one of `exactly` and `first_available` is set (the API server validates it).
struct DeviceRequest {
  std::string name;
  std::optional<ExactDeviceRequest> exactly;
  std::vector<DeviceSubRequest> first_available;  // firstAvailable
};

// One of match_attribute / distinct_attribute is set.
struct DeviceConstraint {
  std::vector<std::string> requests;              // empty: all requests
  std::optional<std::string> match_attribute;     // matchAttribute (fully qualified)
  std::optional<std::string> distinct_attribute;  // distinctAttribute (fully qualified)
};

struct DeviceClaim {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceClaimConfiguration> config;
};

struct ResourceClaimSpec {
  DeviceClaim devices;
};

// status.allocation.devices.results[]: one allocated device.
struct DeviceRequestAllocationResult {
  std::string request;  // "<request>" or "<request>/<subrequest>"
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<bool> admin_access;  // adminAccess
  std::vector<DeviceToleration> tolerations;
  std::vector<std::string> binding_conditions;          // bindingConditions
  std::vector<std::string> binding_failure_conditions;  // bindingFailureConditions
  std::optional<std::string> share_id;                  // shareID
  std::map<std::string, Quantity> consumed_capacity;    // consumedCapacity
  std::vector<std::string> skip_node_operations;        // skipNodeOperations (alpha)
};

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results;
  std::vector<DeviceAllocationConfiguration> config;
};

struct AllocationResult {
  DeviceAllocationResult devices;
  std::optional<NodeSelector> node_selector;  // nodeSelector; absent: available everywhere
  std::optional<Time> allocation_timestamp;   // allocationTimestamp
};

// status.reservedFor[]: a consumer (a pod, or a PodGroup) allowed to use the claim.
struct ResourceClaimConsumerReference {
  std::string api_group;  // apiGroup; empty for the core group
  std::string resource;   // e.g. "pods"
  std::string name;
  std::string uid;
};

// metav1.Condition, as drivers report them per device.
struct DeviceCondition {
  std::string type;
  std::string status;  // True | False | Unknown
  std::string reason;
  std::string message;
  int64_t observed_generation = 0;
  std::optional<Time> last_transition_time;
};

// status.devices[]: written by drivers. The scheduler only reads the conditions (binding
// conditions) and must write the entries back unchanged, so the whole entry is also kept raw.
struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<std::string> share_id;  // shareID
  std::vector<DeviceCondition> conditions;
  Value raw;  // the entry as decoded (conditions, data, networkData, ...)
};

struct ResourceClaimStatus {
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reserved_for;  // reservedFor
  std::vector<AllocatedDeviceStatus> devices;
};

struct ResourceClaim {
  ObjectMeta metadata;
  // metadata.finalizers (ObjectMeta does not keep them): PreBind adds kResourceClaimFinalizer.
  std::vector<std::string> finalizers;
  ResourceClaimSpec spec;
  ResourceClaimStatus status;
};

// spec of a ResourceClaimTemplate: the metadata (labels and annotations only) and spec of the
// claims made from it.
struct ResourceClaimTemplateSpec {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
};

struct ResourceClaimTemplate {
  ObjectMeta metadata;
  ResourceClaimTemplateSpec spec;
};

}  // namespace berth::api
