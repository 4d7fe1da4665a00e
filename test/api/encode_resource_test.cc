#include "api/encode_resource.h"

#include <gtest/gtest.h>

#include <string>

#include "api/decode.h"
#include "api/json/parse.h"

namespace berth::api {
namespace {

// What the binding cycle builds: an allocation for one pod on node-1, reserved for it.
ResourceClaim AllocatedClaim() {
  ResourceClaim claim;
  claim.metadata.name = "pod-1-gpu";
  claim.metadata.namespace_ = "team-a";
  claim.metadata.uid = "claim-uid";
  claim.metadata.resource_version = "41";
  claim.spec.devices.requests.push_back(DeviceRequest{"gpu", ExactDeviceRequest{}, {}});
  claim.spec.devices.requests[0].exactly->device_class_name = "gpu.example.com";

  AllocationResult allocation;
  DeviceRequestAllocationResult r0;
  r0.request = "gpu";
  r0.driver = "gpu.example.com";
  r0.pool = "node-1";
  r0.device = "gpu-0";
  r0.admin_access = false;
  r0.tolerations.push_back(DeviceToleration{"k", "Exists", "", "NoExecute", 30});
  r0.binding_conditions = {"Attached"};
  r0.binding_failure_conditions = {"AttachFailed"};
  r0.share_id = "share-1";
  r0.consumed_capacity["memory"] = Quantity::FromValue(int64_t{10} << 30);
  r0.consumed_capacity["cores"] = Quantity::FromMilli(1500);
  allocation.devices.results.push_back(r0);
  DeviceRequestAllocationResult r1;
  r1.request = "any/small";
  r1.driver = "gpu.example.com";
  r1.pool = "node-1";
  r1.device = "gpu-1";
  allocation.devices.results.push_back(r1);
  DeviceAllocationConfiguration config;
  config.source = kAllocationConfigSourceClass;
  config.requests = {"gpu"};
  config.opaque = OpaqueDeviceConfiguration{"gpu.example.com", *json::ParseJson(R"({"a":[1,2]})")};
  allocation.devices.config.push_back(config);
  NodeSelectorTerm term;
  term.match_fields.push_back(
      NodeSelectorRequirement{"metadata.name", SelectorOperator::kIn, {"node-1"}});
  term.match_expressions.push_back(
      NodeSelectorRequirement{"zone", SelectorOperator::kNotIn, {"b", "c"}});
  allocation.node_selector = NodeSelector{{term}};
  // 2026-03-04T05:06:07.654321Z: written at second precision, as metav1.Time marshals.
  allocation.allocation_timestamp = Time{int64_t{1772600767} * 1000000 + 654321};
  claim.status.allocation = allocation;
  claim.status.reserved_for.push_back(ResourceClaimConsumerReference{"", "pods", "pod-1", "p-1"});
  claim.status.reserved_for.push_back(
      ResourceClaimConsumerReference{"scheduling.k8s.io", "podgroups", "g", "g-1"});
  return claim;
}

TEST(EncodeResourceTest, StatusUpdateBody) {
  const ResourceClaim claim = AllocatedClaim();
  const Value body = EncodeResourceClaimStatusUpdate(claim);
  EXPECT_EQ(body.Find("apiVersion")->AsString(), "resource.k8s.io/v1");
  EXPECT_EQ(body.Find("kind")->AsString(), "ResourceClaim");
  EXPECT_EQ(json::ToJson(*body.Find("metadata")),
            R"({"name":"pod-1-gpu","namespace":"team-a","uid":"claim-uid",)"
            R"("resourceVersion":"41"})");
  EXPECT_EQ(body.Find("spec"), nullptr);  // the status subresource ignores it
  const Value* allocation = body.Find("status")->Find("allocation");
  ASSERT_NE(allocation, nullptr);
  EXPECT_EQ(allocation->Find("allocationTimestamp")->AsString(), "2026-03-04T05:06:07Z");
  EXPECT_EQ(json::ToJson(*allocation->Find("nodeSelector")),
            R"({"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"NotIn",)"
            R"("values":["b","c"]}],"matchFields":[{"key":"metadata.name","operator":"In",)"
            R"("values":["node-1"]}]}]})");
  const Value& results = *allocation->Find("devices")->Find("results");
  EXPECT_EQ(json::ToJson(results.AsArray()[1]),
            R"({"request":"any/small","driver":"gpu.example.com","pool":"node-1",)"
            R"("device":"gpu-1"})");  // omitempty: nothing else
  EXPECT_EQ(json::ToJson(*results.AsArray()[0].Find("consumedCapacity")),
            R"({"cores":"1500m","memory":"10Gi"})");
  EXPECT_EQ(json::ToJson(*body.Find("status")->Find("reservedFor")),
            R"([{"resource":"pods","name":"pod-1","uid":"p-1"},)"
            R"({"apiGroup":"scheduling.k8s.io","resource":"podgroups","name":"g","uid":"g-1"}])");
  EXPECT_EQ(body.Find("status")->Find("devices"), nullptr);
}

TEST(EncodeResourceTest, RoundTripGivesTheSameStatus) {
  ResourceClaim claim = AllocatedClaim();
  claim.status.allocation->allocation_timestamp = Time{int64_t{1772600767} * 1000000};
  auto decoded = DecodeResourceClaim(EncodeResourceClaimStatusUpdate(claim));
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  EXPECT_EQ(decoded->metadata.name, claim.metadata.name);
  EXPECT_EQ(decoded->metadata.namespace_, claim.metadata.namespace_);
  EXPECT_EQ(decoded->metadata.uid, claim.metadata.uid);
  EXPECT_EQ(decoded->metadata.resource_version, claim.metadata.resource_version);

  ASSERT_TRUE(decoded->status.allocation.has_value());
  const AllocationResult& want = *claim.status.allocation;
  const AllocationResult& got = *decoded->status.allocation;
  EXPECT_EQ(got.allocation_timestamp, want.allocation_timestamp);
  ASSERT_EQ(got.devices.results.size(), 2u);
  const auto& r0 = got.devices.results[0];
  EXPECT_EQ(r0.request, "gpu");
  EXPECT_EQ(r0.driver, "gpu.example.com");
  EXPECT_EQ(r0.pool, "node-1");
  EXPECT_EQ(r0.device, "gpu-0");
  EXPECT_EQ(r0.admin_access, false);
  ASSERT_EQ(r0.tolerations.size(), 1u);
  EXPECT_EQ(r0.tolerations[0].key, "k");
  EXPECT_EQ(r0.tolerations[0].operator_, "Exists");
  EXPECT_EQ(r0.tolerations[0].effect, "NoExecute");
  EXPECT_EQ(r0.tolerations[0].toleration_seconds, 30);
  EXPECT_EQ(r0.binding_conditions, want.devices.results[0].binding_conditions);
  EXPECT_EQ(r0.binding_failure_conditions, want.devices.results[0].binding_failure_conditions);
  EXPECT_EQ(r0.share_id, "share-1");
  EXPECT_EQ(r0.consumed_capacity, want.devices.results[0].consumed_capacity);
  EXPECT_FALSE(got.devices.results[1].admin_access.has_value());
  EXPECT_FALSE(got.devices.results[1].share_id.has_value());
  ASSERT_EQ(got.devices.config.size(), 1u);
  EXPECT_EQ(got.devices.config[0].source, "FromClass");
  EXPECT_EQ(got.devices.config[0].requests, std::vector<std::string>{"gpu"});
  EXPECT_EQ(json::ToJson(got.devices.config[0].opaque->parameters), R"({"a":[1,2]})");
  ASSERT_TRUE(got.node_selector.has_value());
  ASSERT_EQ(got.node_selector->terms.size(), 1u);
  EXPECT_EQ(got.node_selector->terms[0].match_fields[0].key, "metadata.name");
  EXPECT_EQ(got.node_selector->terms[0].match_expressions[0].op, SelectorOperator::kNotIn);
  EXPECT_EQ(got.node_selector->terms[0].match_expressions[0].values,
            (std::vector<std::string>{"b", "c"}));
  ASSERT_EQ(decoded->status.reserved_for.size(), 2u);
  EXPECT_EQ(decoded->status.reserved_for[1].api_group, "scheduling.k8s.io");
  EXPECT_EQ(decoded->status.reserved_for[1].resource, "podgroups");
  EXPECT_EQ(decoded->status.reserved_for[1].uid, "g-1");

  // And a second lap changes nothing.
  EXPECT_EQ(json::ToJson(EncodeResourceClaimStatus(decoded->status)),
            json::ToJson(EncodeResourceClaimStatus(claim.status)));
}

// A claim read from the API server, with driver-written device status, written back with one
// more reservation: everything else comes back unchanged.
TEST(EncodeResourceTest, ReadModifyWriteKeepsDriverStatus) {
  auto read = json::ParseYamlDocuments(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: ns, uid: u, resourceVersion: "7"}
spec:
  devices:
    requests: [{name: r, exactly: {deviceClassName: c}}]
status:
  allocation:
    devices:
      results: [{request: r, driver: d, pool: p, device: x}]
    allocationTimestamp: "2026-01-01T00:00:00Z"
  reservedFor: [{resource: pods, name: a, uid: ua}]
  devices:
  - driver: d
    pool: p
    device: x
    conditions:
    - {type: Ready, status: "True", reason: R, message: M, lastTransitionTime: "2026-01-01T00:00:01Z"}
    data: {any: [thing, 1, true]}
    networkData: {interfaceName: eth0, ips: [10.0.0.1/24], hardwareAddress: "aa:bb"}
)");
  ASSERT_TRUE(read.ok()) << read.error();
  auto claim = DecodeResourceClaim((*read)[0]);
  ASSERT_TRUE(claim.ok()) << claim.error();
  ResourceClaim updated = *claim;
  updated.status.reserved_for.push_back(ResourceClaimConsumerReference{"", "pods", "b", "ub"});
  const Value body = EncodeResourceClaimStatusUpdate(updated);
  const Value* original_status = (*read)[0].Find("status");
  EXPECT_EQ(json::ToJson(*body.Find("status")->Find("devices")),
            json::ToJson(*original_status->Find("devices")));
  EXPECT_EQ(json::ToJson(*body.Find("status")->Find("allocation")),
            R"({"devices":{"results":[{"request":"r","driver":"d","pool":"p","device":"x"}]},)"
            R"("allocationTimestamp":"2026-01-01T00:00:00Z"})");
  EXPECT_EQ(body.Find("status")->Find("reservedFor")->AsArray().size(), 2u);

  // Typed device status built in code (no raw entry) is encoded from its fields.
  ResourceClaimStatus status;
  AllocatedDeviceStatus ds;
  ds.driver = "d";
  ds.pool = "p";
  ds.device = "x";
  ds.conditions.push_back(DeviceCondition{"Ready", "True", "R", "M", 3, std::nullopt});
  status.devices.push_back(ds);
  EXPECT_EQ(json::ToJson(EncodeResourceClaimStatus(status)),
            R"({"devices":[{"driver":"d","pool":"p","device":"x","conditions":[{"type":"Ready",)"
            R"("status":"True","observedGeneration":3,"reason":"R","message":"M"}]}]})");
}

TEST(EncodeResourceTest, DeallocationClearsEverything) {
  ResourceClaim claim = AllocatedClaim();
  claim.status = ResourceClaimStatus{};
  EXPECT_EQ(json::ToJson(*EncodeResourceClaimStatusUpdate(claim).Find("status")), "{}");
}

}  // namespace
}  // namespace berth::api
