// `berth simulate` end to end on in-memory cluster files: placements, messages, order,
// determinism, explanations, and the NodeLabel plugin through a config file.

#include <gtest/gtest.h>

#include <set>

#include "api/json/parse.h"
#include "cmd/berth/app/simulate/simulator.h"
#include "config/load.h"
#include "plugins/registry.h"

namespace berth::simulate {
namespace {

class SimulateTest : public ::testing::Test {
 protected:
  SimulateTest() : registry_(plugins::NewInTreeRegistry()) {}

  // Runs the cluster text with the default config (or `config_yaml`) and returns pod entries.
  std::vector<api::Value> Run(const std::string& cluster, const std::string& config_yaml = "",
                              Options options = {}) {
    auto c = ParseClusterFile(cluster, "cluster.yaml");
    EXPECT_TRUE(c.ok()) << c.error();
    if (!c.ok()) return {};
    config::SchedulerConfiguration cfg = config::DefaultConfig(registry_.Names());
    if (!config_yaml.empty()) {
      auto parsed = config::ParseConfig(config_yaml, "config.yaml", registry_.Names());
      EXPECT_TRUE(parsed.ok()) << parsed.error();
      if (!parsed.ok()) return {};
      cfg = *parsed;
    }
    auto out = simulate::Run(*c, cfg, registry_, options);
    EXPECT_TRUE(out.ok()) << out.error();
    if (!out.ok()) return {};
    json_ = api::json::ToJson(*out);
    return out->Find("pods")->AsArray();
  }
  static std::string Str(const api::Value& pod, const char* field) {
    const api::Value* v = pod.Find(field);
    return v == nullptr || v->IsNull() ? "<null>" : v->AsString();
  }

  framework::Registry registry_;
  std::string json_;
};

std::string Node(const std::string& name, const std::string& cpu, const std::string& extra = "") {
  return "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + name + ", labels: {" + extra +
         "}}\nstatus:\n  allocatable: {cpu: \"" + cpu + "\", memory: 8Gi, pods: \"110\"}\n";
}

std::string Pod(const std::string& name, const std::string& cpu, const std::string& more = "",
                const std::string& meta = "") {
  return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ns" + meta +
         "}\nspec:\n  schedulerName: berth-scheduler\n" + more +
         "  containers: [{name: c, resources: {requests: {cpu: \"" + cpu + "\"}}}]\n";
}

TEST_F(SimulateTest, PlacesPodsAndAssumesEachBeforeTheNext) {
  auto pods = Run(Node("n1", "2") + Pod("a", "1500m") + Pod("b", "1500m"));
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(Str(pods[0], "status"), "Scheduled");
  EXPECT_EQ(Str(pods[0], "node"), "n1");
  // The first pod's 1.5 CPU is counted before the second is placed.
  EXPECT_EQ(Str(pods[1], "status"), "Unschedulable");
  EXPECT_EQ(Str(pods[1], "node"), "<null>");
  // DefaultPreemption finds nothing of lower priority to evict (upstream's message).
  EXPECT_EQ(Str(pods[1], "message"),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption victims found for incoming pod.");
}

TEST_F(SimulateTest, RunningPodsCountAndOtherSchedulersArePassedOver) {
  auto pods = Run(Node("n1", "2") + Node("n2", "2") +
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: running, namespace: ns}\n"
                  "spec:\n  nodeName: n1\n  containers: [{name: c, resources: {requests: {cpu: "
                  "\"2\"}}}]\n" +
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: theirs, namespace: ns}\n"
                  "spec:\n  schedulerName: default-scheduler\n  containers: [{name: c}]\n" +
                  Pod("mine", "1"));
  ASSERT_EQ(pods.size(), 1u);  // neither the running pod nor default-scheduler's pod
  EXPECT_EQ(Str(pods[0], "pod"), "ns/mine");
  EXPECT_EQ(Str(pods[0], "node"), "n2");
}

TEST_F(SimulateTest, CreationTimestampOrderThenFileOrderThenPriority) {
  auto pods =
      Run(Node("n1", "8") + Pod("late", "1", "", ", creationTimestamp: \"2024-01-02T00:00:00Z\"") +
          Pod("early", "1", "", ", creationTimestamp: \"2024-01-01T00:00:00Z\"") +
          Pod("nots", "1") + Pod("high", "1", "  priority: 1000\n"));
  ASSERT_EQ(pods.size(), 4u);
  // Priority first; then the pods without a timestamp (they sort as oldest, file order), then
  // by creation time.
  EXPECT_EQ(Str(pods[0], "pod"), "ns/high");
  EXPECT_EQ(Str(pods[1], "pod"), "ns/nots");
  EXPECT_EQ(Str(pods[2], "pod"), "ns/early");
  EXPECT_EQ(Str(pods[3], "pod"), "ns/late");
}

TEST_F(SimulateTest, GatedPodsAppearOnceWithTheGateMessage) {
  auto pods = Run(Node("n1", "8") + Pod("gated", "1", "  schedulingGates: [{name: wait/me}]\n") +
                  Pod("free", "1"));
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(Str(pods[0], "pod"), "ns/free");
  EXPECT_EQ(Str(pods[1], "pod"), "ns/gated");
  // The API server's PodScheduled=False (reason SchedulingGated) message; the scheduler itself
  // records no FailedScheduling for a gated pod.
  EXPECT_EQ(Str(pods[1], "status"), "Gated");
  EXPECT_EQ(Str(pods[1], "message"), "Scheduling is blocked due to non-empty scheduling gates");
}

TEST_F(SimulateTest, HostPortsOfAnAssumedPodBlockTheNextPod) {
  std::string ports = "  containers: [{name: c, ports: [{containerPort: 80, hostPort: 8080}]}]\n";
  auto pod = [&](const std::string& n) {
    return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + n +
           ", namespace: ns}\nspec:\n  schedulerName: berth-scheduler\n" + ports;
  };
  auto pods = Run(Node("n1", "8") + Node("n2", "8") + pod("p1") + pod("p2") + pod("p3"));
  ASSERT_EQ(pods.size(), 3u);
  std::set<std::string> nodes{Str(pods[0], "node"), Str(pods[1], "node")};
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2"}));
  EXPECT_EQ(Str(pods[2], "message"),
            "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod "
            "ports. preemption: 0/2 nodes are available: 2 No preemption victims found for "
            "incoming pod.");
}

TEST_F(SimulateTest, SameSeedSameOutputAndTiesAreBrokenBySeed) {
  std::string cluster;
  for (int i = 0; i < 10; ++i) cluster += Node("n" + std::to_string(i), "4");
  cluster += Pod("p", "1");
  std::set<std::string> chosen;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Options o;
    o.seed = seed;
    auto a = Run(cluster, "", o);
    std::string first = json_;
    auto b = Run(cluster, "", o);
    EXPECT_EQ(first, json_) << "seed " << seed;
    chosen.insert(Str(a[0], "node"));
  }
  // Ten identical nodes: the seed decides, so twenty seeds do not all pick the same node.
  EXPECT_GT(chosen.size(), 1u);
}

TEST_F(SimulateTest, ExplainShowsReasonsPerNodeAndScoresPerPlugin) {
  Options o;
  o.explain = true;
  auto pods = Run(Node("small", "1") + Node("big", "8") + Node("big2", "4") + Pod("p", "2"), "", o);
  ASSERT_EQ(pods.size(), 1u);
  const api::Value* filter = pods[0].Find("filter");
  ASSERT_NE(filter, nullptr);
  EXPECT_EQ(Str(*filter, "small"), "Insufficient cpu");
  EXPECT_EQ(filter->Find("big"), nullptr);
  const api::Value* scores = pods[0].Find("scores");
  ASSERT_NE(scores, nullptr);
  const api::Value* big = scores->Find("big");
  ASSERT_NE(big, nullptr);
  // LeastAllocated: cpu (8-2)/8 = 75, memory (8Gi - 200Mi default)/8Gi = 97 -> (75+97)/2 = 86.
  EXPECT_EQ(big->Find("NodeResourcesFit")->AsInt(), 86);
  EXPECT_EQ(big->Find("TaintToleration")->AsInt(), 100);
  EXPECT_EQ(Str(pods[0], "node"), "big");
  // total = weighted sum: TaintToleration x3 + the rest x1.
  int64_t sum = 0;
  for (const auto& [plugin, v] : big->AsObject()) {
    if (plugin == "total") continue;
    sum += v.AsInt() * (plugin == "TaintToleration" ? 3 : plugin == "NodeAffinity" ? 2 : 1);
  }
  EXPECT_EQ(big->Find("total")->AsInt(), sum);
}

TEST_F(SimulateTest, NodeLabelFromConfigFiltersAndScores) {
  const std::string config = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: berth-scheduler
  plugins:
    multiPoint:
      enabled: [{name: NodeLabel, weight: 5}]
  pluginConfig:
  - name: NodeLabel
    args:
      presentLabels: [storage]
      presentLabelsPreference: [a, b, c]
      absentLabelsPreference: [d]
)";
  auto pods = Run(Node("plain", "4", "storage: x") +
                      Node("preferred", "4", "storage: x, a: \"1\", b: \"1\"") +
                      Node("nostorage", "4", "a: \"1\", b: \"1\", c: \"1\"") + Pod("p", "1"),
                  config, Options{1, true});
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(Str(pods[0], "node"), "preferred");
  EXPECT_EQ(Str(*pods[0].Find("filter"), "nostorage"), "node(s) didn't have the requested labels");
  // The seed's worked example: [a,b,c] and [d] with labels {a,b} -> 100*((1+1)+1)/(3+1) = 75.
  EXPECT_EQ(pods[0].Find("scores")->Find("preferred")->Find("NodeLabel")->AsInt(), 75);
  EXPECT_EQ(pods[0].Find("scores")->Find("plain")->Find("NodeLabel")->AsInt(), 25);
}

// A cluster file with the resource.k8s.io/v1 kinds loads and runs: the pod naming a claim gets
// the device of its node, which the output lists under "claims"; a pod without claims is placed
// as before.
TEST_F(SimulateTest, DynamicResourceObjectsLoad) {
  const std::string dra = R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu, namespace: ns}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
)";
  // The daemon watches these kinds because the default profile's DynamicResources reads them.
  EXPECT_EQ(registry_.Reads("DynamicResources"),
            (std::vector<std::string>{"DeviceClass", "ResourceSlice", "ResourceClaim",
                                      "ResourceClaimTemplate", "DeviceTaintRule"}));
  auto pods = Run(Node("n1", "2") + dra + Pod("plain", "1") +
                  Pod("trainer", "1", "  resourceClaims: [{name: gpu, resourceClaimName: gpu}]\n"));
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(Str(pods[0], "node"), "n1");
  EXPECT_EQ(pods[0].Find("claims"), nullptr);
  EXPECT_EQ(Str(pods[1], "status"), "Scheduled");
  EXPECT_EQ(Str(pods[1], "node"), "n1");
  const api::Value* claims = pods[1].Find("claims");
  ASSERT_NE(claims, nullptr);
  const api::Value* gpu = claims->Find("gpu");
  ASSERT_NE(gpu, nullptr);
  ASSERT_EQ(gpu->AsArray().size(), 1u);
  EXPECT_EQ(Str(gpu->AsArray()[0], "device"), "gpu-0");
  EXPECT_EQ(Str(gpu->AsArray()[0], "pool"), "n1");
  EXPECT_EQ(Str(gpu->AsArray()[0], "request"), "gpu");
}

// DRA-backed extended resources: berth simulate answers for the API server when PreBind creates
// the pod's claim, and lists its devices under "claims"; a node advertising the resource serves
// it without a claim.
TEST_F(SimulateTest, ExtendedResourceClaimsAreCreatedAndListed) {
  const std::string dra = R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  extendedResourceName: example.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
)";
  auto gpu_pod = [](const std::string& name, const std::string& count) {
    return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
           ", namespace: ns}\nspec:\n  schedulerName: berth-scheduler\n"
           "  containers: [{name: c, resources: {requests: {example.com/gpu: \"" +
           count + "\"}}}]\n";
  };
  EXPECT_EQ(registry_.Reads("NodeResourcesFit"), (std::vector<std::string>{"DeviceClass"}));
  auto pods = Run(Node("n1", "2") + dra + gpu_pod("two", "2") + gpu_pod("one", "1"));
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(Str(pods[0], "node"), "n1");
  const api::Value* claims = pods[0].Find("claims");
  ASSERT_NE(claims, nullptr) << json_;
  ASSERT_EQ(claims->AsObject().size(), 1u) << json_;
  const auto& [name, devices] = *claims->AsObject().begin();
  EXPECT_TRUE(name.starts_with("two-extended-resources-")) << name;
  ASSERT_EQ(devices.AsArray().size(), 2u);
  EXPECT_EQ(Str(devices.AsArray()[0], "request"), "container-0-request-0");
  EXPECT_EQ(Str(devices.AsArray()[0], "device"), "gpu-0");
  EXPECT_EQ(Str(devices.AsArray()[1], "device"), "gpu-1");
  // Both devices are taken: the second pod fits nowhere.
  EXPECT_EQ(Str(pods[1], "status"), "Unschedulable");
  EXPECT_EQ(Str(pods[1], "message"),
            "0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are "
            "available: 1 Preemption is not helpful for scheduling.");
}

TEST_F(SimulateTest, NoNodesAtAll) {
  auto pods = Run(Pod("p", "1"));
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(Str(pods[0], "message"), "no nodes available to schedule pods");
}

TEST_F(SimulateTest, BadPluginArgsAreAStartError) {
  const std::string config = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: berth-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy: {type: Cheapest}
)";
  auto c = ParseClusterFile(Node("n1", "1"), "cluster.yaml");
  ASSERT_TRUE(c.ok());
  auto cfg = config::ParseConfig(config, "config.yaml", registry_.Names());
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto out = simulate::Run(*c, *cfg, registry_, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().find("profiles[0].pluginConfig[0].args.scoringStrategy.type"),
            std::string::npos)
      << out.error();
}

}  // namespace
}  // namespace berth::simulate
