// Hostile but well-formed numbers through `berth simulate`, as a user (or an attacker writing a
// pod spec) would feed them: sums and scores must not wrap around int64, and negative amounts the
// API server would refuse are refused here too, naming the field.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "api/json/parse.h"
#include "test/cmd/berth/run_berth.h"

namespace {

std::string WriteCluster(const std::string& name, const std::string& yaml) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << yaml;
  return path;
}

const char* kNodes = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: small, labels: {kubernetes.io/hostname: small}}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    conditions: [{type: Ready, status: "True"}]
- apiVersion: v1
  kind: Node
  metadata: {name: huge, labels: {kubernetes.io/hostname: huge}}
  status:
    allocatable: {cpu: "100000000000000", memory: 8Gi, pods: "110"}
    conditions: [{type: Ready, status: "True"}]
)";

berth::api::Value Simulate(const std::string& file) {
  const berth::testing::Run r = berth::testing::Berth("simulate --explain --cluster " + file);
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  auto doc = berth::api::json::ParseJson(r.out);
  EXPECT_TRUE(doc.ok()) << r.out;
  return doc.ok() ? *doc : berth::api::Value();
}

TEST(HostileInput, RequestsThatOverflowInt64AreInsufficientNotScheduled) {
  // Each container asks for INT64_MAX milli-cores: the sum wraps to a negative number unless it
  // saturates; wrapped, the pod "fits" on a 4-CPU node.
  const std::string file = WriteCluster("overflow.yaml", std::string(kNodes) + R"(- apiVersion: v1
  kind: Pod
  metadata: {name: greedy, namespace: default}
  spec:
    schedulerName: berth-scheduler
    containers:
    - {name: a, image: x, resources: {requests: {cpu: 9223372036854775807m}}}
    - {name: b, image: x, resources: {requests: {cpu: 9223372036854775807m}}}
)");
  berth::api::Value doc = Simulate(file);
  const berth::api::Value& pod = doc.Find("pods")->AsArray().at(0);
  EXPECT_TRUE(pod.Find("node") == nullptr || pod.Find("node")->IsNull())
      << berth::api::json::ToJson(pod);
  EXPECT_EQ(pod.Find("status")->AsString(), "Unschedulable") << berth::api::json::ToJson(pod);
  for (const char* node : {"small", "huge"}) {
    const berth::api::Value* reason = pod.Find("filter")->Find(node);
    ASSERT_NE(reason, nullptr) << berth::api::json::ToJson(pod);
    EXPECT_EQ(reason->AsString(), "Insufficient cpu") << node;
  }
}

TEST(HostileInput, HugeAllocatableScoresRight) {
  // (allocatable - requested) * 100 overflows int64 for 1e17 milli-cores; the exact score is
  // cpu 99 (1e17 - 1000 of 1e17 free) and memory 97 ((8Gi - 200Mi default) / 8Gi): 98.
  const std::string file = WriteCluster("huge.yaml", std::string(kNodes) + R"(- apiVersion: v1
  kind: Pod
  metadata: {name: one-cpu, namespace: default}
  spec:
    schedulerName: berth-scheduler
    containers:
    - {name: a, image: x, resources: {requests: {cpu: "1"}}}
)");
  berth::api::Value doc = Simulate(file);
  const berth::api::Value& pod = doc.Find("pods")->AsArray().at(0);
  const berth::api::Value* scores = pod.Find("scores");
  ASSERT_NE(scores, nullptr) << berth::api::json::ToJson(pod);
  EXPECT_EQ(scores->Find("huge")->Find("NodeResourcesFit")->AsInt(), 98)
      << berth::api::json::ToJson(pod);
  EXPECT_EQ(pod.Find("node")->AsString(), "huge");
}

TEST(HostileInput, NegativeAmountsAreRefusedNamingTheField) {
  const std::string pod =
      WriteCluster("negative-pod.yaml", std::string(kNodes) + R"(- apiVersion: v1
  kind: Pod
  metadata: {name: negative, namespace: default}
  spec:
    schedulerName: berth-scheduler
    containers:
    - {name: a, image: x, resources: {requests: {cpu: "-2"}}}
)");
  berth::testing::Run r = berth::testing::Berth("simulate --cluster " + pod);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(
      r.err.find("spec.containers[0].resources.requests.cpu: must be greater than or equal to 0"),
      std::string::npos)
      << r.err;
  std::string nodes = kNodes;
  nodes.replace(nodes.find("memory: 8Gi"), 11, "memory: -8Gi");
  r = berth::testing::Berth("simulate --cluster " + WriteCluster("negative-node.yaml", nodes));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("status.allocatable.memory: must be greater than or equal to 0"),
            std::string::npos)
      << r.err;
}

TEST(HostileInput, ErrorsStayOnOneLineAndOutputStaysUtf8) {
  // A name holding a newline and a terminal escape, quoted into the error: escaped, one line.
  const std::string bad = WriteCluster("newline.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: "bad\nname\e[31m", namespace: default}
spec:
  schedulerName: berth-scheduler
  containers: [{name: a, image: x, resources: {requests: {cpu: "-1"}}}]
)");
  berth::testing::Run r = berth::testing::Berth("simulate --cluster " + bad);
  EXPECT_EQ(r.code, 2);
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // only the final newline
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Pod default/bad\\nname\\x1b[31m: "), std::string::npos) << r.err;

  // Bytes that are not UTF-8 in a pod's name: the JSON output says U+FFFD, as encoding/json.
  const std::string latin1 = WriteCluster(
      "latin1.yaml",
      std::string(kNodes) +
          "- apiVersion: v1\n"
          "  kind: Pod\n  metadata: {name: p\xfe\xff, namespace: default}\n"
          "  spec: {schedulerName: berth-scheduler, containers: [{name: a, image: x}]}\n");
  r = berth::testing::Berth("simulate --cluster " + latin1);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("pod":"default/p\ufffd\ufffd")"), std::string::npos) << r.out;
}

TEST(HostileInput, HttpsExtenderWithoutCaWarnsThatItDoesNotVerify) {
  const std::string cfg =
      WriteCluster("https-extender.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles: [{schedulerName: berth-scheduler}]
extenders:
- {urlPrefix: "https://127.0.0.1:1", filterVerb: filter, enableHTTPS: true}
)");
  const berth::testing::Run r = berth::testing::Berth("simulate --config " + cfg + " --cluster " +
                                                      WriteCluster("nodes.yaml", kNodes));
  EXPECT_NE(r.err.find("warning: extender https://127.0.0.1:1: enableHTTPS without "
                       "tlsConfig.caFile/caData: the server's certificate will NOT be verified"),
            std::string::npos)
      << r.err;
}

}  // namespace
