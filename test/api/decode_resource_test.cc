#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <variant>

#include "api/decode.h"
#include "api/json/parse.h"

namespace berth::api {
namespace {

Value Yaml(const std::string& text) {
  auto docs = json::ParseYamlDocuments(text);
  EXPECT_TRUE(docs.ok()) << docs.error();
  if (!docs.ok() || docs->size() != 1) {
    ADD_FAILURE() << "want exactly one document";
    return Value();
  }
  return (*docs)[0];
}

// A class as a GPU driver's installer would ship it.
constexpr const char* kDeviceClassYaml = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
  resourceVersion: "17"
spec:
  selectors:
  - cel:
      expression: device.driver == 'gpu.example.com'
  - cel:
      expression: device.attributes['gpu.example.com'].model.startsWith('A')
  config:
  - opaque:
      driver: gpu.example.com
      parameters:
        apiVersion: gpu.example.com/v1
        kind: GpuConfig
        sharing: {strategy: TimeSlicing}
  extendedResourceName: example.com/gpu
)";

TEST(DecodeResourceTest, DeviceClass) {
  auto obj = DecodeObject(Yaml(kDeviceClassYaml));
  ASSERT_TRUE(obj.ok()) << obj.error();
  const auto& dc = std::get<DeviceClass>(*obj);
  EXPECT_EQ(dc.metadata.name, "gpu.example.com");
  EXPECT_TRUE(dc.metadata.namespace_.empty());
  ASSERT_EQ(dc.spec.selectors.size(), 2u);
  EXPECT_EQ(dc.spec.selectors[0].cel_expression, "device.driver == 'gpu.example.com'");
  EXPECT_EQ(dc.spec.selectors[1].cel_expression,
            "device.attributes['gpu.example.com'].model.startsWith('A')");
  ASSERT_EQ(dc.spec.config.size(), 1u);
  ASSERT_TRUE(dc.spec.config[0].opaque.has_value());
  EXPECT_EQ(dc.spec.config[0].opaque->driver, "gpu.example.com");
  EXPECT_EQ(json::ToJson(dc.spec.config[0].opaque->parameters),
            R"({"apiVersion":"gpu.example.com/v1","kind":"GpuConfig",)"
            R"("sharing":{"strategy":"TimeSlicing"}})");
  EXPECT_EQ(dc.spec.extended_resource_name, "example.com/gpu");

  auto empty = DecodeDeviceClass(Yaml("kind: DeviceClass\nmetadata: {name: any}\n"));
  ASSERT_TRUE(empty.ok()) << empty.error();
  EXPECT_TRUE(empty->spec.selectors.empty());
  EXPECT_FALSE(empty->spec.extended_resource_name.has_value());
}

// A node-local slice with two devices, one tainted and partitionable.
constexpr const char* kResourceSliceYaml = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpu.example.com-x7k2p
  generation: 3
spec:
  driver: gpu.example.com
  pool: {name: node-1, generation: 2, resourceSliceCount: 1}
  nodeName: node-1
  devices:
  - name: gpu-0
    attributes:
      gpu.example.com/model: {string: A100}
      index: {int: 0}
      driverVersion: {version: 1.2.3}
      gpu.example.com/healthy: {bool: true}
      numa: {ints: [0, 1]}
    capacity:
      memory: {value: 40Gi}
      cores:
        value: "108"
        requestPolicy:
          default: "1"
          validRange: {min: "1", max: "108", step: "1"}
    consumesCounters:
    - counterSet: gpu-0-counters
      counters:
        memory: {value: 40Gi}
    allowMultipleAllocations: true
    bindsToNode: true
    bindingConditions: [Attached]
    bindingFailureConditions: [AttachFailed]
  - name: gpu-1
    attributes:
      gpu.example.com/model: {string: A100}
    taints:
    - key: gpu.example.com/unhealthy
      value: ecc
      effect: NoSchedule
      timeAdded: "2026-01-02T03:04:05Z"
)";

TEST(DecodeResourceTest, ResourceSlice) {
  auto obj = DecodeObject(Yaml(kResourceSliceYaml));
  ASSERT_TRUE(obj.ok()) << obj.error();
  const auto& s = std::get<ResourceSlice>(*obj);
  EXPECT_EQ(s.metadata.name, "node-1-gpu.example.com-x7k2p");
  EXPECT_EQ(s.spec.driver, "gpu.example.com");
  EXPECT_EQ(s.spec.pool.name, "node-1");
  EXPECT_EQ(s.spec.pool.generation, 2);
  EXPECT_EQ(s.spec.pool.resource_slice_count, 1);
  EXPECT_EQ(s.spec.node_name, "node-1");
  EXPECT_FALSE(s.spec.node_selector.has_value());
  EXPECT_FALSE(s.spec.all_nodes.has_value());
  EXPECT_FALSE(s.spec.per_device_node_selection.has_value());
  ASSERT_EQ(s.spec.devices.size(), 2u);

  const Device& d0 = s.spec.devices[0];
  EXPECT_EQ(d0.name, "gpu-0");
  ASSERT_EQ(d0.attributes.size(), 5u);
  EXPECT_EQ(d0.attributes.at("gpu.example.com/model").string_value, "A100");
  EXPECT_EQ(d0.attributes.at("index").int_value, 0);
  EXPECT_EQ(d0.attributes.at("driverVersion").version_value, "1.2.3");
  EXPECT_EQ(d0.attributes.at("gpu.example.com/healthy").bool_value, true);
  ASSERT_TRUE(d0.attributes.at("numa").lists->int_values.has_value());
  EXPECT_EQ(*d0.attributes.at("numa").lists->int_values, (std::vector<int64_t>{0, 1}));
  EXPECT_FALSE(d0.attributes.at("index").string_value.has_value());
  EXPECT_EQ(d0.capacity.at("memory").value, Quantity::FromValue(int64_t{40} << 30));
  EXPECT_FALSE(d0.capacity.at("memory").request_policy.has_value());
  const auto& cores = d0.capacity.at("cores");
  EXPECT_EQ(cores.value, Quantity::FromValue(108));
  ASSERT_TRUE(cores.request_policy.has_value());
  EXPECT_EQ(cores.request_policy->default_value, Quantity::FromValue(1));
  ASSERT_TRUE(cores.request_policy->valid_range.has_value());
  EXPECT_EQ(cores.request_policy->valid_range->max, Quantity::FromValue(108));
  ASSERT_EQ(d0.consumes_counters.size(), 1u);
  EXPECT_EQ(d0.consumes_counters[0].counter_set, "gpu-0-counters");
  EXPECT_EQ(d0.consumes_counters[0].counters.at("memory"), Quantity::FromValue(int64_t{40} << 30));
  EXPECT_EQ(d0.allow_multiple_allocations, true);
  EXPECT_EQ(d0.binds_to_node, true);
  EXPECT_EQ(d0.binding_conditions, std::vector<std::string>{"Attached"});
  EXPECT_EQ(d0.binding_failure_conditions, std::vector<std::string>{"AttachFailed"});
  EXPECT_TRUE(d0.taints.empty());

  const Device& d1 = s.spec.devices[1];
  ASSERT_EQ(d1.taints.size(), 1u);
  EXPECT_EQ(d1.taints[0].key, "gpu.example.com/unhealthy");
  EXPECT_EQ(d1.taints[0].value, "ecc");
  EXPECT_EQ(d1.taints[0].effect, "NoSchedule");
  ASSERT_TRUE(d1.taints[0].time_added.has_value());
  EXPECT_EQ(FormatTime(*d1.taints[0].time_added), "2026-01-02T03:04:05.000000Z");
  EXPECT_FALSE(d1.allow_multiple_allocations.has_value());
}

TEST(DecodeResourceTest, ResourceSliceNodeSelectionAndCounters) {
  auto slice = DecodeResourceSlice(Yaml(R"(
kind: ResourceSlice
metadata: {name: rack-a}
spec:
  driver: nic.example.com
  pool: {name: rack-a, generation: 1, resourceSliceCount: 2}
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions: [{key: rack, operator: In, values: [a]}]
)"));
  ASSERT_TRUE(slice.ok()) << slice.error();
  ASSERT_TRUE(slice->spec.node_selector.has_value());
  ASSERT_EQ(slice->spec.node_selector->terms.size(), 1u);
  EXPECT_EQ(slice->spec.node_selector->terms[0].match_expressions[0].key, "rack");

  auto counters = DecodeResourceSlice(Yaml(R"(
kind: ResourceSlice
metadata: {name: counters}
spec:
  driver: gpu.example.com
  pool: {name: node-1, generation: 1, resourceSliceCount: 2}
  perDeviceNodeSelection: true
  sharedCounters:
  - name: gpu-0-counters
    counters:
      memory: {value: 80Gi}
      multiprocessors: {value: "98"}
)"));
  ASSERT_TRUE(counters.ok()) << counters.error();
  EXPECT_EQ(counters->spec.per_device_node_selection, true);
  ASSERT_EQ(counters->spec.shared_counters.size(), 1u);
  EXPECT_EQ(counters->spec.shared_counters[0].name, "gpu-0-counters");
  EXPECT_EQ(counters->spec.shared_counters[0].counters.at("multiprocessors"),
            Quantity::FromValue(98));

  auto per_device = DecodeResourceSlice(Yaml(R"(
kind: ResourceSlice
metadata: {name: per-device}
spec:
  driver: gpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  perDeviceNodeSelection: true
  devices:
  - {name: a, nodeName: node-1}
  - {name: b, allNodes: true}
  - name: c
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n2]}]}]
)"));
  ASSERT_TRUE(per_device.ok()) << per_device.error();
  EXPECT_EQ(per_device->spec.devices[0].node_name, "node-1");
  EXPECT_EQ(per_device->spec.devices[1].all_nodes, true);
  ASSERT_TRUE(per_device->spec.devices[2].node_selector.has_value());
}

// The alpha fields the v1.37 defaults leave off are decoded so the plugin can refuse them.
TEST(DecodeResourceTest, ResourceSliceAlphaFields) {
  auto slice = DecodeResourceSlice(Yaml(R"(
kind: ResourceSlice
metadata: {name: alpha}
spec:
  driver: cpu.example.com
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  nodeName: node-1
  partitionTypeAttribute: cpu.example.com/profile
  skipNodeOperations: [NodePrepareResources, NodeUnprepareResources]
  devices:
  - name: ccx-0
    attributes:
      models: {strings: [a, b]}
      flags: {bools: [true, false]}
      versions: {versions: [1.0.0]}
    consumesCounters:
    - counterSet: s
      counters: {c: {value: "1"}}
      compatibilityGroups: [g1]
    nodeAllocatableResources:
      cpu:
        mapping: {deviceMultiplier: "8"}
        overhead: {perPod: 100m, perContainer: 10m}
      memory:
        mapping: {capacityKey: mem, capacityMultiplier: "1"}
)"));
  ASSERT_TRUE(slice.ok()) << slice.error();
  EXPECT_EQ(slice->spec.partition_type_attribute, "cpu.example.com/profile");
  EXPECT_EQ(slice->spec.skip_node_operations.size(), 2u);
  const Device& d = slice->spec.devices[0];
  EXPECT_EQ(*d.attributes.at("models").lists->string_values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*d.attributes.at("flags").lists->bool_values, (std::vector<bool>{true, false}));
  EXPECT_EQ(*d.attributes.at("versions").lists->version_values, std::vector<std::string>{"1.0.0"});
  EXPECT_EQ(d.consumes_counters[0].compatibility_groups, std::vector<std::string>{"g1"});
  const auto& cpu = d.node_allocatable_resources.at("cpu");
  EXPECT_EQ(cpu.mapping->device_multiplier, Quantity::FromValue(8));
  EXPECT_EQ(cpu.overhead->per_pod, Quantity::FromMilli(100));
  EXPECT_EQ(cpu.overhead->per_container, Quantity::FromMilli(10));
  const auto& mem = d.node_allocatable_resources.at("memory");
  EXPECT_EQ(mem.mapping->capacity_key, "mem");
  EXPECT_FALSE(mem.overhead.has_value());
}

// A claim as the API server returns it after the scheduler allocated and reserved it and the
// driver reported the device's status.
constexpr const char* kResourceClaimYaml = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: pod-1-gpu-abc12
  namespace: team-a
  uid: 0c7e3d5a-1111-4b7a-9d0e-2f3a4b5c6d7e
  resourceVersion: "4242"
  finalizers: [resource.kubernetes.io/delete-protection]
  annotations: {resource.kubernetes.io/pod-claim-name: gpu}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel: {expression: "device.capacity['gpu.example.com'].memory.compareTo(quantity('10Gi')) >= 0"}
        tolerations:
        - {key: gpu.example.com/unhealthy, operator: Exists, effect: NoSchedule}
        - {key: maintenance, value: planned, tolerationSeconds: 60}
        capacity:
          requests: {memory: 10Gi}
    - name: all-nics
      exactly:
        deviceClassName: nic.example.com
        allocationMode: All
        adminAccess: true
    - name: any-gpu
      firstAvailable:
      - name: big
        deviceClassName: gpu.example.com
        count: 2
        selectors:
        - cel: {expression: "device.attributes['gpu.example.com'].model == 'A100'"}
      - name: small
        deviceClassName: gpu.example.com
    constraints:
    - requests: [gpu, any-gpu]
      matchAttribute: gpu.example.com/numa
    - distinctAttribute: gpu.example.com/uuid
    config:
    - requests: [gpu]
      opaque:
        driver: gpu.example.com
        parameters: {mode: shared}
status:
  allocation:
    allocationTimestamp: "2026-03-04T05:06:07Z"
    devices:
      results:
      - request: gpu
        driver: gpu.example.com
        pool: node-1
        device: gpu-0
        tolerations:
        - {key: gpu.example.com/unhealthy, operator: Exists, effect: NoSchedule}
        bindingConditions: [Attached]
        bindingFailureConditions: [AttachFailed]
        shareID: 7b1f0c1e-2222-4c8d-8e9f-0a1b2c3d4e5f
        consumedCapacity: {memory: 10Gi}
      - request: any-gpu/small
        driver: gpu.example.com
        pool: node-1
        device: gpu-1
        adminAccess: false
      config:
      - source: FromClass
        opaque: {driver: gpu.example.com, parameters: {sharing: TimeSlicing}}
      - source: FromClaim
        requests: [gpu]
        opaque: {driver: gpu.example.com, parameters: {mode: shared}}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [node-1]}]
  reservedFor:
  - {resource: pods, name: pod-1, uid: 5d4c3b2a-3333-4f0e-9d8c-7b6a5f4e3d2c}
  devices:
  - driver: gpu.example.com
    pool: node-1
    device: gpu-0
    shareID: 7b1f0c1e-2222-4c8d-8e9f-0a1b2c3d4e5f
    conditions:
    - type: Attached
      status: "True"
      reason: Done
      message: attached to node-1
      observedGeneration: 2
      lastTransitionTime: "2026-03-04T05:06:09Z"
    data: {vendor: {serial: X1}}
    networkData: {interfaceName: eth1, ips: [10.0.0.5/24]}
)";

TEST(DecodeResourceTest, ResourceClaim) {
  auto obj = DecodeObject(Yaml(kResourceClaimYaml));
  ASSERT_TRUE(obj.ok()) << obj.error();
  const auto& c = std::get<ResourceClaim>(*obj);
  EXPECT_EQ(c.metadata.namespace_, "team-a");
  EXPECT_EQ(c.metadata.uid, "0c7e3d5a-1111-4b7a-9d0e-2f3a4b5c6d7e");
  EXPECT_EQ(c.metadata.resource_version, "4242");
  EXPECT_EQ(c.finalizers, std::vector<std::string>{kResourceClaimFinalizer});
  EXPECT_EQ(c.metadata.annotations.at(kPodResourceClaimAnnotation), "gpu");

  const auto& requests = c.spec.devices.requests;
  ASSERT_EQ(requests.size(), 3u);
  ASSERT_TRUE(requests[0].exactly.has_value());
  const ExactDeviceRequest& gpu = *requests[0].exactly;
  EXPECT_EQ(gpu.device_class_name, "gpu.example.com");
  ASSERT_EQ(gpu.selectors.size(), 1u);
  EXPECT_EQ(gpu.selectors[0].cel_expression,
            "device.capacity['gpu.example.com'].memory.compareTo(quantity('10Gi')) >= 0");
  // The API server's defaults.
  EXPECT_EQ(gpu.allocation_mode, kDeviceAllocationModeExactCount);
  EXPECT_EQ(gpu.count, 1);
  EXPECT_FALSE(gpu.admin_access.has_value());
  ASSERT_EQ(gpu.tolerations.size(), 2u);
  EXPECT_EQ(gpu.tolerations[0].operator_, "Exists");
  EXPECT_EQ(gpu.tolerations[1].operator_, "Equal");
  EXPECT_EQ(gpu.tolerations[1].value, "planned");
  EXPECT_EQ(gpu.tolerations[1].toleration_seconds, 60);
  ASSERT_TRUE(gpu.capacity.has_value());
  EXPECT_EQ(gpu.capacity->requests.at("memory"), Quantity::FromValue(int64_t{10} << 30));
  EXPECT_TRUE(requests[0].first_available.empty());

  const ExactDeviceRequest& nics = *requests[1].exactly;
  EXPECT_EQ(nics.allocation_mode, kDeviceAllocationModeAll);
  EXPECT_EQ(nics.count, 0);  // no count default in All mode
  EXPECT_EQ(nics.admin_access, true);

  EXPECT_FALSE(requests[2].exactly.has_value());
  ASSERT_EQ(requests[2].first_available.size(), 2u);
  EXPECT_EQ(requests[2].first_available[0].name, "big");
  EXPECT_EQ(requests[2].first_available[0].count, 2);
  EXPECT_EQ(requests[2].first_available[0].selectors.size(), 1u);
  EXPECT_EQ(requests[2].first_available[1].name, "small");
  EXPECT_EQ(requests[2].first_available[1].allocation_mode, kDeviceAllocationModeExactCount);
  EXPECT_EQ(requests[2].first_available[1].count, 1);

  ASSERT_EQ(c.spec.devices.constraints.size(), 2u);
  EXPECT_EQ(c.spec.devices.constraints[0].requests, (std::vector<std::string>{"gpu", "any-gpu"}));
  EXPECT_EQ(c.spec.devices.constraints[0].match_attribute, "gpu.example.com/numa");
  EXPECT_FALSE(c.spec.devices.constraints[0].distinct_attribute.has_value());
  EXPECT_TRUE(c.spec.devices.constraints[1].requests.empty());
  EXPECT_EQ(c.spec.devices.constraints[1].distinct_attribute, "gpu.example.com/uuid");
  ASSERT_EQ(c.spec.devices.config.size(), 1u);
  EXPECT_EQ(c.spec.devices.config[0].requests, std::vector<std::string>{"gpu"});
  EXPECT_EQ(json::ToJson(c.spec.devices.config[0].opaque->parameters), R"({"mode":"shared"})");

  ASSERT_TRUE(c.status.allocation.has_value());
  const AllocationResult& a = *c.status.allocation;
  ASSERT_TRUE(a.allocation_timestamp.has_value());
  EXPECT_EQ(FormatTime(*a.allocation_timestamp), "2026-03-04T05:06:07.000000Z");
  ASSERT_EQ(a.devices.results.size(), 2u);
  const auto& r0 = a.devices.results[0];
  EXPECT_EQ(r0.request, "gpu");
  EXPECT_EQ(r0.driver, "gpu.example.com");
  EXPECT_EQ(r0.pool, "node-1");
  EXPECT_EQ(r0.device, "gpu-0");
  EXPECT_FALSE(r0.admin_access.has_value());
  ASSERT_EQ(r0.tolerations.size(), 1u);
  EXPECT_EQ(r0.binding_conditions, std::vector<std::string>{"Attached"});
  EXPECT_EQ(r0.binding_failure_conditions, std::vector<std::string>{"AttachFailed"});
  EXPECT_EQ(r0.share_id, "7b1f0c1e-2222-4c8d-8e9f-0a1b2c3d4e5f");
  EXPECT_EQ(r0.consumed_capacity.at("memory"), Quantity::FromValue(int64_t{10} << 30));
  EXPECT_EQ(a.devices.results[1].request, "any-gpu/small");
  EXPECT_EQ(a.devices.results[1].admin_access, false);
  ASSERT_EQ(a.devices.config.size(), 2u);
  EXPECT_EQ(a.devices.config[0].source, kAllocationConfigSourceClass);
  EXPECT_EQ(a.devices.config[1].source, kAllocationConfigSourceClaim);
  EXPECT_EQ(a.devices.config[1].requests, std::vector<std::string>{"gpu"});
  ASSERT_TRUE(a.node_selector.has_value());
  EXPECT_EQ(a.node_selector->terms[0].match_fields[0].values, std::vector<std::string>{"node-1"});

  ASSERT_EQ(c.status.reserved_for.size(), 1u);
  EXPECT_EQ(c.status.reserved_for[0].api_group, "");
  EXPECT_EQ(c.status.reserved_for[0].resource, "pods");
  EXPECT_EQ(c.status.reserved_for[0].name, "pod-1");
  EXPECT_EQ(c.status.reserved_for[0].uid, "5d4c3b2a-3333-4f0e-9d8c-7b6a5f4e3d2c");

  ASSERT_EQ(c.status.devices.size(), 1u);
  const AllocatedDeviceStatus& ds = c.status.devices[0];
  EXPECT_EQ(ds.driver, "gpu.example.com");
  EXPECT_EQ(ds.device, "gpu-0");
  EXPECT_EQ(ds.share_id, "7b1f0c1e-2222-4c8d-8e9f-0a1b2c3d4e5f");
  ASSERT_EQ(ds.conditions.size(), 1u);
  EXPECT_EQ(ds.conditions[0].type, "Attached");
  EXPECT_EQ(ds.conditions[0].status, "True");
  EXPECT_EQ(ds.conditions[0].observed_generation, 2);
  // The whole entry is kept for writing back.
  ASSERT_TRUE(ds.raw.IsObject());
  ASSERT_NE(ds.raw.Find("networkData"), nullptr);
  EXPECT_EQ(json::ToJson(*ds.raw.Find("data")), R"({"vendor":{"serial":"X1"}})");
}

TEST(DecodeResourceTest, UnallocatedClaimAndEmptyClaim) {
  auto claim = DecodeResourceClaim(Yaml(R"(
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: cls, count: 3}
)"));
  ASSERT_TRUE(claim.ok()) << claim.error();
  EXPECT_EQ(claim->spec.devices.requests[0].exactly->count, 3);
  EXPECT_FALSE(claim->status.allocation.has_value());
  EXPECT_TRUE(claim->status.reserved_for.empty());
  EXPECT_TRUE(claim->finalizers.empty());

  auto empty = DecodeResourceClaim(Yaml("kind: ResourceClaim\nmetadata: {name: e}\n"));
  ASSERT_TRUE(empty.ok()) << empty.error();
  EXPECT_TRUE(empty->spec.devices.requests.empty());
}

TEST(DecodeResourceTest, ResourceClaimTemplate) {
  auto obj = DecodeObject(Yaml(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu-template, namespace: team-a, uid: t-1}
spec:
  metadata:
    labels: {app: trainer}
    annotations: {note: generated}
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount}
)"));
  ASSERT_TRUE(obj.ok()) << obj.error();
  const auto& t = std::get<ResourceClaimTemplate>(*obj);
  EXPECT_EQ(t.metadata.name, "gpu-template");
  EXPECT_EQ(t.metadata.namespace_, "team-a");
  EXPECT_EQ(t.spec.metadata.labels.at("app"), "trainer");
  EXPECT_EQ(t.spec.metadata.annotations.at("note"), "generated");
  ASSERT_EQ(t.spec.spec.devices.requests.size(), 1u);
  EXPECT_EQ(t.spec.spec.devices.requests[0].exactly->device_class_name, "gpu.example.com");
  EXPECT_EQ(t.spec.spec.devices.requests[0].exactly->count, 1);
}

TEST(DecodeResourceTest, PodClaimStatuses) {
  auto pod = DecodePod(Yaml(R"(
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: gpu-template}
  - {name: unused, resourceClaimTemplateName: other}
status:
  resourceClaimStatuses:
  - {name: gpu, resourceClaimName: p-gpu-x7k2p}
  - {name: unused}
  extendedResourceClaimStatus:
    resourceClaimName: p-extended-resources-abcde
    requestMappings:
    - {containerName: main, resourceName: example.com/gpu, requestName: container-0-request-0}
)"));
  ASSERT_TRUE(pod.ok()) << pod.error();
  const auto& statuses = pod->status.resource_claim_statuses;
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_EQ(statuses[0].name, "gpu");
  EXPECT_EQ(statuses[0].resource_claim_name, "p-gpu-x7k2p");
  EXPECT_EQ(statuses[1].name, "unused");
  EXPECT_FALSE(statuses[1].resource_claim_name.has_value());
  ASSERT_TRUE(pod->status.extended_resource_claim_status.has_value());
  const auto& ext = *pod->status.extended_resource_claim_status;
  EXPECT_EQ(ext.resource_claim_name, "p-extended-resources-abcde");
  ASSERT_EQ(ext.request_mappings.size(), 1u);
  EXPECT_EQ(ext.request_mappings[0].container_name, "main");
  EXPECT_EQ(ext.request_mappings[0].resource_name, "example.com/gpu");
  EXPECT_EQ(ext.request_mappings[0].request_name, "container-0-request-0");

  auto plain = DecodePod(Yaml("kind: Pod\nmetadata: {name: q}\n"));
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->status.resource_claim_statuses.empty());
  EXPECT_FALSE(plain->status.extended_resource_claim_status.has_value());
}

TEST(DecodeResourceTest, DeviceTaintRule) {
  auto obj = DecodeObject(Yaml(R"(
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: maintenance}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-1, device: gpu-0}
  taint: {key: example.com/maintenance, value: planned, effect: NoExecute, timeAdded: "2026-01-02T03:04:05Z"}
status:
  conditions: [{type: EvictionInProgress, status: "False", reason: Done, message: "", lastTransitionTime: "2026-01-02T03:04:06Z"}]
)"));
  ASSERT_TRUE(obj.ok()) << obj.error();
  const auto& rule = std::get<DeviceTaintRule>(*obj);
  EXPECT_EQ(rule.metadata.name, "maintenance");
  ASSERT_TRUE(rule.spec.device_selector.has_value());
  EXPECT_EQ(rule.spec.device_selector->driver, "gpu.example.com");
  EXPECT_EQ(rule.spec.device_selector->pool, "node-1");
  EXPECT_EQ(rule.spec.device_selector->device, "gpu-0");
  EXPECT_EQ(rule.spec.taint.key, "example.com/maintenance");
  EXPECT_EQ(rule.spec.taint.value, "planned");
  EXPECT_EQ(rule.spec.taint.effect, kDeviceTaintEffectNoExecute);
  EXPECT_TRUE(rule.spec.taint.time_added.has_value());

  // An empty selector matches every device; an absent one none.
  auto all = DecodeDeviceTaintRule(
      Yaml("kind: DeviceTaintRule\nmetadata: {name: a}\nspec:\n  deviceSelector: {}\n  taint: "
           "{key: k, effect: None}\n"));
  ASSERT_TRUE(all.ok()) << all.error();
  ASSERT_TRUE(all->spec.device_selector.has_value());
  EXPECT_FALSE(all->spec.device_selector->driver.has_value());
  auto none = DecodeDeviceTaintRule(
      Yaml("kind: DeviceTaintRule\nmetadata: {name: n}\nspec:\n  taint: {key: k, effect: None}\n"));
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_FALSE(none->spec.device_selector.has_value());
}

struct ErrorCase {
  std::string name;
  std::string yaml;
  std::string want;
};

class DecodeResourceErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(DecodeResourceErrorTest, NamesObjectAndField) {
  const ErrorCase& c = GetParam();
  auto obj = DecodeObject(Yaml(c.yaml));
  ASSERT_FALSE(obj.ok()) << c.name;
  EXPECT_EQ(obj.error(), c.want) << c.name;
}

constexpr const char* kClassHead =
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: dc}\n";
constexpr const char* kSliceHead =
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n";
constexpr const char* kClaimHead =
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\n";
constexpr const char* kPool = "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n";

std::string Class(const std::string& spec) { return std::string(kClassHead) + "spec:\n" + spec; }
std::string Slice(const std::string& rest) {
  return std::string(kSliceHead) + "spec:\n  driver: d\n" + kPool + rest;
}
std::string SliceDevice(const std::string& device) {
  return Slice("  nodeName: n\n  devices:\n  - name: dev\n" + device);
}
std::string Claim(const std::string& spec) {
  return std::string(kClaimHead) + "spec:\n  devices:\n" + spec;
}
std::string Request(const std::string& exactly) {
  return Claim("    requests:\n    - name: r\n      exactly:\n        deviceClassName: cls\n" +
               exactly);
}
std::string Status(const std::string& status) {
  return std::string(kClaimHead) + "status:\n" + status;
}
std::string Result(const std::string& extra) {
  return Status(
      "  allocation:\n    devices:\n      results:\n      - {request: r, driver: d, pool: p, "
      "device: x" +
      extra + "}\n");
}

INSTANTIATE_TEST_SUITE_P(
    BadFields, DecodeResourceErrorTest,
    testing::Values(
        ErrorCase{"older api version",
                  "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: c}\n",
                  "unsupported kind \"ResourceClaim\" in apiVersion \"resource.k8s.io/v1beta1\" "
                  "(want resource.k8s.io/v1)"},
        ErrorCase{"selector expression not a string",
                  Class("  selectors:\n  - cel: {expression: 1}\n"),
                  "DeviceClass dc: spec.selectors[0].cel.expression: expected string, got integer"},
        ErrorCase{"selector without expression", Class("  selectors:\n  - cel: {}\n"),
                  "DeviceClass dc: spec.selectors[0].cel.expression: expression is required"},
        ErrorCase{"selectors not a list", Class("  selectors: {cel: {expression: x}}\n"),
                  "DeviceClass dc: spec.selectors: expected array, got object"},
        ErrorCase{"config driver missing", Class("  config:\n  - opaque: {parameters: {}}\n"),
                  "DeviceClass dc: spec.config[0].opaque.driver: driver is required"},
        ErrorCase{"extended resource name not a string", Class("  extendedResourceName: [x]\n"),
                  "DeviceClass dc: spec.extendedResourceName: expected string, got array"},
        ErrorCase{"slice without driver",
                  std::string(kSliceHead) + "spec:\n" + kPool + "  nodeName: n\n",
                  "ResourceSlice s: spec.driver: driver is required"},
        ErrorCase{"slice without pool", std::string(kSliceHead) + "spec:\n  driver: d\n",
                  "ResourceSlice s: spec.pool: pool is required"},
        ErrorCase{"pool generation not an integer",
                  std::string(kSliceHead) + "spec:\n  driver: d\n  pool: {name: p, generation: x, "
                                            "resourceSliceCount: 1}\n",
                  "ResourceSlice s: spec.pool.generation: expected integer, got string"},
        ErrorCase{"all nodes not a bool", Slice("  allNodes: yes please\n"),
                  "ResourceSlice s: spec.allNodes: expected boolean, got string"},
        ErrorCase{"node selector term not an object",
                  Slice("  nodeSelector: {nodeSelectorTerms: [x]}\n"),
                  "ResourceSlice s: spec.nodeSelector.nodeSelectorTerms[0]: expected object, got "
                  "string"},
        ErrorCase{"device without name", Slice("  devices:\n  - {allNodes: true}\n"),
                  "ResourceSlice s: spec.devices[0].name: name is required"},
        ErrorCase{"attribute not an object", SliceDevice("    attributes: {model: A100}\n"),
                  "ResourceSlice s: spec.devices[0].attributes.model: expected object, got "
                  "string"},
        ErrorCase{"int attribute not an integer", SliceDevice("    attributes: {idx: {int: a}}\n"),
                  "ResourceSlice s: spec.devices[0].attributes.idx.int: expected integer, got "
                  "string"},
        ErrorCase{"ints attribute element", SliceDevice("    attributes: {n: {ints: [1, x]}}\n"),
                  "ResourceSlice s: spec.devices[0].attributes.n.ints[1]: expected integer, got "
                  "string"},
        ErrorCase{"bools attribute element", SliceDevice("    attributes: {n: {bools: [1]}}\n"),
                  "ResourceSlice s: spec.devices[0].attributes.n.bools[0]: expected boolean, got "
                  "integer"},
        ErrorCase{"capacity without value", SliceDevice("    capacity: {memory: {}}\n"),
                  "ResourceSlice s: spec.devices[0].capacity.memory.value: value is required"},
        ErrorCase{"bad capacity", SliceDevice("    capacity: {memory: {value: 4Qi}}\n"),
                  "ResourceSlice s: spec.devices[0].capacity.memory.value: invalid quantity "
                  "\"4Qi\""},
        ErrorCase{"bad request policy step",
                  SliceDevice("    capacity: {c: {value: 1, requestPolicy: {validRange: {min: 1, "
                              "step: z}}}}\n"),
                  "ResourceSlice s: spec.devices[0].capacity.c.requestPolicy.validRange.step: "
                  "invalid quantity \"z\""},
        ErrorCase{"bad valid value",
                  SliceDevice("    capacity: {c: {value: 1, requestPolicy: {validValues: [1, "
                              "y]}}}\n"),
                  "ResourceSlice s: spec.devices[0].capacity.c.requestPolicy.validValues[1]: "
                  "invalid quantity \"y\""},
        ErrorCase{"counter set without name",
                  Slice("  sharedCounters:\n  - counters: {m: {value: 1}}\n"),
                  "ResourceSlice s: spec.sharedCounters[0].name: name is required"},
        ErrorCase{"bad counter",
                  SliceDevice("    consumesCounters:\n    - counterSet: s\n      counters: {m: "
                              "{value: q}}\n"),
                  "ResourceSlice s: spec.devices[0].consumesCounters[0].counters.m.value: invalid "
                  "quantity \"q\""},
        ErrorCase{"taint without effect", SliceDevice("    taints: [{key: k}]\n"),
                  "ResourceSlice s: spec.devices[0].taints[0].effect: effect is required"},
        ErrorCase{"bad taint time",
                  SliceDevice("    taints: [{key: k, effect: NoSchedule, timeAdded: soon}]\n"),
                  "ResourceSlice s: spec.devices[0].taints[0].timeAdded: invalid time \"soon\" "
                  "(want RFC 3339, e.g. 2024-01-02T03:04:05Z)"},
        ErrorCase{"binding conditions not strings", SliceDevice("    bindingConditions: [1]\n"),
                  "ResourceSlice s: spec.devices[0].bindingConditions[0]: expected string, got "
                  "integer"},
        ErrorCase{"bad node allocatable overhead",
                  SliceDevice("    nodeAllocatableResources: {cpu: {overhead: {perPod: w}}}\n"),
                  "ResourceSlice s: spec.devices[0].nodeAllocatableResources.cpu.overhead.perPod: "
                  "invalid quantity \"w\""},
        ErrorCase{"taint rule without taint",
                  "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
                  "spec: {deviceSelector: {}}\n",
                  "DeviceTaintRule r: spec.taint: taint is required"},
        ErrorCase{"taint rule selector",
                  "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
                  "spec: {deviceSelector: {pool: 1}, taint: {key: k, effect: None}}\n",
                  "DeviceTaintRule r: spec.deviceSelector.pool: expected string, got integer"},
        ErrorCase{"request without name",
                  Claim("    requests:\n    - exactly: {deviceClassName: cls}\n"),
                  "ResourceClaim ns/c: spec.devices.requests[0].name: name is required"},
        ErrorCase{"request without class",
                  Claim("    requests:\n    - name: r\n      exactly: {}\n"),
                  "ResourceClaim ns/c: spec.devices.requests[0].exactly.deviceClassName: "
                  "deviceClassName is required"},
        ErrorCase{"count not an integer", Request("        count: two\n"),
                  "ResourceClaim ns/c: spec.devices.requests[0].exactly.count: expected integer, "
                  "got string"},
        ErrorCase{"negative count", Request("        count: -1\n"),
                  "ResourceClaim ns/c: spec.devices.requests[0].exactly.count: must be greater "
                  "than zero"},
        ErrorCase{"allocation mode not a string", Request("        allocationMode: 1\n"),
                  "ResourceClaim ns/c: spec.devices.requests[0].exactly.allocationMode: expected "
                  "string, got integer"},
        ErrorCase{"admin access not a bool", Request("        adminAccess: 1\n"),
                  "ResourceClaim ns/c: spec.devices.requests[0].exactly.adminAccess: expected "
                  "boolean, got integer"},
        ErrorCase{"toleration seconds",
                  Request("        tolerations: [{key: k, tolerationSeconds: x}]\n"),
                  "ResourceClaim ns/c: spec.devices.requests[0].exactly.tolerations[0]."
                  "tolerationSeconds: expected integer, got string"},
        ErrorCase{"capacity request", Request("        capacity: {requests: {memory: lots}}\n"),
                  "ResourceClaim ns/c: spec.devices.requests[0].exactly.capacity.requests.memory: "
                  "invalid quantity \"lots\""},
        ErrorCase{"subrequest without name",
                  Claim("    requests:\n    - name: r\n      firstAvailable: [{deviceClassName: "
                        "cls}]\n"),
                  "ResourceClaim ns/c: spec.devices.requests[0].firstAvailable[0].name: name is "
                  "required"},
        ErrorCase{"subrequest count",
                  Claim("    requests:\n    - name: r\n      firstAvailable: [{name: a, "
                        "deviceClassName: cls, count: 1.5}]\n"),
                  "ResourceClaim ns/c: spec.devices.requests[0].firstAvailable[0].count: expected "
                  "integer, got number"},
        ErrorCase{"constraint attribute", Claim("    constraints: [{matchAttribute: [a]}]\n"),
                  "ResourceClaim ns/c: spec.devices.constraints[0].matchAttribute: expected "
                  "string, got array"},
        ErrorCase{"config requests", Claim("    config: [{requests: r}]\n"),
                  "ResourceClaim ns/c: spec.devices.config[0].requests: expected array of "
                  "strings, got string"},
        ErrorCase{"result without device",
                  Status("  allocation:\n    devices:\n      results: [{request: r, driver: d, "
                         "pool: p}]\n"),
                  "ResourceClaim ns/c: status.allocation.devices.results[0].device: device is "
                  "required"},
        ErrorCase{"result share id", Result(", shareID: 5"),
                  "ResourceClaim ns/c: status.allocation.devices.results[0].shareID: expected "
                  "string, got integer"},
        ErrorCase{"consumed capacity", Result(", consumedCapacity: {m: x}"),
                  "ResourceClaim ns/c: status.allocation.devices.results[0].consumedCapacity.m: "
                  "invalid quantity \"x\""},
        ErrorCase{"allocation config source",
                  Status("  allocation:\n    devices:\n      config: [{opaque: {driver: d}}]\n"),
                  "ResourceClaim ns/c: status.allocation.devices.config[0].source: source is "
                  "required"},
        ErrorCase{"allocation timestamp", Status("  allocation: {allocationTimestamp: 5}\n"),
                  "ResourceClaim ns/c: status.allocation.allocationTimestamp: expected string, got "
                  "integer"},
        ErrorCase{"reservation without uid", Status("  reservedFor: [{resource: pods, name: p}]\n"),
                  "ResourceClaim ns/c: status.reservedFor[0].uid: uid is required"},
        ErrorCase{"device status condition",
                  Status("  devices: [{driver: d, pool: p, device: x, conditions: [{status: "
                         "\"True\"}]}]\n"),
                  "ResourceClaim ns/c: status.devices[0].conditions[0].type: type is required"},
        ErrorCase{"finalizers",
                  std::string("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
                              "metadata: {name: c, namespace: ns, finalizers: x}\n"),
                  "ResourceClaim ns/c: metadata.finalizers: expected array of strings, got "
                  "string"},
        ErrorCase{"template spec",
                  "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: "
                  "t, namespace: ns}\nspec:\n  spec:\n    devices: {requests: [{name: r, exactly: "
                  "{deviceClassName: c, count: x}}]}\n",
                  "ResourceClaimTemplate ns/t: spec.spec.devices.requests[0].exactly.count: "
                  "expected integer, got string"},
        ErrorCase{"template labels",
                  "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: "
                  "t, namespace: ns}\nspec:\n  metadata: {labels: {a: [1]}}\n",
                  "ResourceClaimTemplate ns/t: spec.metadata.labels.a: expected string, got "
                  "array"},
        ErrorCase{"pod claim status name",
                  "kind: Pod\nmetadata: {name: p, namespace: ns}\nstatus:\n  "
                  "resourceClaimStatuses: [{resourceClaimName: x}]\n",
                  "Pod ns/p: status.resourceClaimStatuses[0].name: name is required"},
        ErrorCase{"pod extended claim status",
                  "kind: Pod\nmetadata: {name: p, namespace: ns}\nstatus:\n  "
                  "extendedResourceClaimStatus: {requestMappings: [{containerName: 1}]}\n",
                  "Pod ns/p: status.extendedResourceClaimStatus.requestMappings[0].containerName: "
                  "expected string, got integer"}),
    [](const testing::TestParamInfo<ErrorCase>& info) {
      std::string name;
      for (char c : info.param.name) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

}  // namespace
}  // namespace berth::api
