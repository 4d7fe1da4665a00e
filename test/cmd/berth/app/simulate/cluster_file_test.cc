// Reading cluster files: documents, Lists, ignored kinds, API-server defaults and errors that name
// the file, the document, the object and the field.

#include "cmd/berth/app/simulate/cluster_file.h"

#include <gtest/gtest.h>

namespace berth::simulate {
namespace {

TEST(ClusterFileTest, ReadsDocumentsAndListsAndWarnsOncePerIgnoredKind) {
  auto c = ParseClusterFile(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: c}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: y}}
- {apiVersion: apps/v1, kind: Deployment, metadata: {name: d}}
---
# an empty document is fine
)",
                            "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error();
  ASSERT_EQ(c->nodes.size(), 1u);
  ASSERT_EQ(c->pods.size(), 1u);
  EXPECT_EQ(c->pods[0]->metadata.namespace_, "default");
  EXPECT_FALSE(c->pods[0]->metadata.uid.empty());
  EXPECT_EQ(c->warnings,
            (std::vector<std::string>{"c.yaml: ignoring 2 object(s) of kind \"ConfigMap\"",
                                      "c.yaml: ignoring 1 object(s) of kind \"Deployment\""}));
}

// The controllers of system default spreading are read (namespace defaulted), not ignored.
TEST(ClusterFileTest, ReadsSpreadingControllers) {
  auto c = ParseClusterFile(R"(
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ReplicationController, metadata: {name: rc}, spec: {selector: {a: b}}}
- {apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: rs, namespace: shop},
   spec: {selector: {matchLabels: {app: web}}}}
- {apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db}, spec: {selector: {}}}
)",
                            "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_TRUE(c->warnings.empty());
  ASSERT_EQ(c->replication_controllers.size(), 1u);
  EXPECT_EQ(c->replication_controllers[0]->metadata.namespace_, "default");
  ASSERT_EQ(c->replica_sets.size(), 1u);
  EXPECT_EQ(c->replica_sets[0]->metadata.namespace_, "shop");
  ASSERT_EQ(c->stateful_sets.size(), 1u);
  EXPECT_TRUE(c->stateful_sets[0]->selector.has_value());
}

// The resource.k8s.io/v1 kinds (DynamicResources) are read, with the pod's claim statuses; claims
// and templates default to namespace "default", a claim without a uid gets a stable one.
TEST(ClusterFileTest, ReadsDynamicResourceAllocationKinds) {
  auto c = ParseClusterFile(R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0, attributes: {model: {string: A100}}}]
---
apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: shared-gpu}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: mine, namespace: team-a, uid: u-1}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaimTemplate
  metadata: {name: one-gpu}
  spec:
    spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceTaintRule
  metadata: {name: maintenance}
  spec: {deviceSelector: {driver: gpu.example.com}, taint: {key: k, effect: NoSchedule}}
- apiVersion: v1
  kind: Pod
  metadata: {name: trainer}
  spec:
    containers: [{name: c}]
    resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  status:
    resourceClaimStatuses: [{name: gpu, resourceClaimName: trainer-gpu-x1}]
)",
                            "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_TRUE(c->warnings.empty());
  ASSERT_EQ(c->device_classes.size(), 1u);
  EXPECT_EQ(c->device_classes[0]->spec.selectors[0].cel_expression,
            "device.driver == 'gpu.example.com'");
  ASSERT_EQ(c->resource_slices.size(), 1u);
  EXPECT_EQ(c->resource_slices[0]->spec.node_name, "n1");
  EXPECT_EQ(c->resource_slices[0]->spec.devices[0].attributes.at("model").string_value, "A100");
  ASSERT_EQ(c->resource_claims.size(), 2u);
  EXPECT_EQ(c->resource_claims[0]->metadata.namespace_, "default");
  EXPECT_EQ(c->resource_claims[0]->metadata.uid, "sim-resourceclaim-default-shared-gpu");
  EXPECT_EQ(c->resource_claims[0]->spec.devices.requests[0].exactly->count, 1);
  EXPECT_EQ(c->resource_claims[1]->metadata.namespace_, "team-a");
  EXPECT_EQ(c->resource_claims[1]->metadata.uid, "u-1");
  ASSERT_EQ(c->resource_claim_templates.size(), 1u);
  EXPECT_EQ(c->resource_claim_templates[0]->metadata.namespace_, "default");
  ASSERT_EQ(c->device_taint_rules.size(), 1u);
  EXPECT_EQ(c->device_taint_rules[0]->spec.device_selector->driver, "gpu.example.com");
  ASSERT_EQ(c->pods.size(), 1u);
  ASSERT_EQ(c->pods[0]->status.resource_claim_statuses.size(), 1u);
  EXPECT_EQ(c->pods[0]->status.resource_claim_statuses[0].resource_claim_name, "trainer-gpu-x1");
}

TEST(ClusterFileTest, RequestsDefaultToLimitsAsTheApiServerDoes) {
  auto c = ParseClusterFile(R"(
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: ns}
spec:
  containers:
  - name: c
    resources:
      requests: {memory: 1Gi}
      limits: {cpu: "2", memory: 2Gi}
)",
                            "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error();
  const auto& req = c->pods[0]->spec.containers[0].resources.requests;
  EXPECT_EQ(req.at("cpu").MilliValue(), 2000);
  EXPECT_EQ(req.at("memory").Value(), 1024LL * 1024 * 1024);  // explicit request kept
}

// The API server's DefaultPodLevelResources (v1.37): with spec.resources set, pod-level cpu and
// memory requests default to the containers' sums, other supported resources to their pod-level
// limit, and hugepage limits to the containers' hugepage limits.
TEST(ClusterFileTest, PodLevelRequestsDefaultAsTheApiServerDoes) {
  auto c = ParseClusterFile(R"(
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  resources:
    limits: {cpu: "4"}
  containers:
  - name: c
    resources:
      requests: {memory: 1Gi}
      limits: {hugepages-2Mi: 4Mi}
  - name: d
    resources:
      requests: {memory: 1Gi}
---
apiVersion: v1
kind: Pod
metadata: {name: plain}
spec:
  containers:
  - name: c
    resources: {requests: {cpu: "1"}}
)",
                            "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error();
  const auto& plr = c->pods[0]->spec.resources;
  EXPECT_EQ(plr.requests.at("cpu").MilliValue(), 4000);  // from the pod-level limit
  EXPECT_EQ(plr.requests.at("memory").Value(), 2LL * 1024 * 1024 * 1024);  // containers' sum
  EXPECT_EQ(plr.limits.at("hugepages-2Mi").Value(), 4LL * 1024 * 1024);
  EXPECT_EQ(plr.requests.at("hugepages-2Mi").Value(), 4LL * 1024 * 1024);
  // No pod-level resources: nothing is added.
  EXPECT_TRUE(c->pods[1]->spec.resources.requests.empty());
  EXPECT_TRUE(c->pods[1]->spec.resources.limits.empty());
}

struct BadCase {
  const char* name;
  const char* text;
  const char* error;
};

TEST(ClusterFileTest, BadInputNamesFileDocumentObjectAndField) {
  const BadCase cases[] = {
      {"bad quantity",
       "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: default}\n"
       "spec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: 1.5.3}}\n",
       "c.yaml: document 2: Pod default/web-1: spec.containers[0].resources.requests.cpu: "
       "invalid quantity \"1.5.3\""},
      {"list item",
       "kind: List\nitems:\n- {kind: Node, apiVersion: v1, metadata: {name: n1}, spec: {taints: "
       "[{key: k, effect: Sometimes}]}}\n",
       "c.yaml: document 1: items[0]: Node n1: spec.taints[0].effect"},
      {"not an object", "- a\n- b\n",
       "c.yaml: document 1: expected a Kubernetes object, got array"},
      {"duplicate",
       "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n---\nkind: Node\napiVersion: "
       "v1\nmetadata: {name: n1}\n",
       "c.yaml: document 2: Node n1: defined twice"},
      {"broken yaml", "kind: Node\nmetadata: {name: [\n", "c.yaml: line "},
      {"bad resource slice",
       "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  "
       "driver: d\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices: [{name: "
       "x, capacity: {mem: {value: lots}}}]\n",
       "c.yaml: document 1: ResourceSlice s: spec.devices[0].capacity.mem.value: invalid "
       "quantity \"lots\""},
      {"duplicate claim",
       "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n---\n"
       "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: "
       "default}\n",
       "c.yaml: document 2: ResourceClaim default/c: defined twice"},
  };
  for (const auto& tc : cases) {
    auto c = ParseClusterFile(tc.text, "c.yaml");
    ASSERT_FALSE(c.ok()) << tc.name;
    EXPECT_EQ(c.error().rfind(tc.error, 0), 0u) << tc.name << ": " << c.error();
  }
}

TEST(ClusterFileTest, MissingFileIsAnError) {
  auto c = LoadClusterFile("/nonexistent/cluster.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error(), "/nonexistent/cluster.yaml: cannot read file: No such file or directory");
}

// A directory used to read as an empty cluster (exit 0, no pods); /dev/zero was read until
// std::bad_alloc aborted the process.
TEST(ClusterFileTest, DirectoriesAndEndlessFilesAreErrors) {
  auto dir = LoadClusterFile("/tmp");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error(), "/tmp: cannot read file: is a directory");
  auto zero = LoadClusterFile("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error(), "/dev/zero: cannot read file: larger than 256 MiB");
}

}  // namespace
}  // namespace berth::simulate
