// `berth explain --offline`: the pod's diagnosis from a re-evaluation of a cluster snapshot, and
// the pods it refuses to explain (missing, bound, finished, not berth's, gated).

#include "cmd/berth/app/explain/offline.h"

#include <gtest/gtest.h>

#include "config/load.h"
#include "plugins/registry.h"

namespace berth::explain {
namespace {

constexpr char kCluster[] = R"(
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "2", pods: "10"}}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2}
  spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
  status: {allocatable: {cpu: "8", pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: big, namespace: shop, uid: u-big}
  spec: {schedulerName: berth-scheduler, containers: [{name: c, resources: {requests: {cpu: "4"}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: small, namespace: shop, uid: u-small}
  spec: {schedulerName: berth-scheduler, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: running, namespace: shop}
  spec: {schedulerName: berth-scheduler, nodeName: n1, containers: [{name: c}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: done, namespace: shop}
  spec: {schedulerName: berth-scheduler, containers: [{name: c}]}
  status: {phase: Succeeded}
- apiVersion: v1
  kind: Pod
  metadata: {name: theirs, namespace: shop}
  spec: {containers: [{name: c}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: gated, namespace: shop}
  spec: {schedulerName: berth-scheduler, schedulingGates: [{name: example.com/wait}], containers: [{name: c}]}
)";

class ExplainOfflineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = simulate::ParseClusterFile(kCluster, "cluster.yaml");
    ASSERT_TRUE(c.ok()) << c.error();
    cluster_ = std::move(*c);
    cfg_ = config::DefaultConfig(registry_.Names());
  }
  OfflineResult Explain(const std::string& pod) {
    return ExplainOffline(cluster_, cfg_, registry_, {}, "shop", pod);
  }

  framework::Registry registry_ = plugins::NewInTreeRegistry();
  simulate::ClusterFile cluster_;
  config::SchedulerConfiguration cfg_;
};

TEST_F(ExplainOfflineTest, PendingPodGetsItsPerNodeReasons) {
  OfflineResult r = Explain("big");
  ASSERT_EQ(r.kind, OfflineResult::Kind::kExplained) << r.message;
  EXPECT_EQ(r.record.pod, "shop/big");
  EXPECT_EQ(r.record.uid, "u-big");
  EXPECT_EQ(r.record.status, "Unschedulable");
  EXPECT_EQ(r.record.attempted_unix_micros, 0);  // virtual time is not shown
  ASSERT_EQ(r.record.filter.size(), 2u);
  EXPECT_EQ(r.record.filter[0].node, "n1");
  EXPECT_EQ(r.record.filter[0].reasons, "Insufficient cpu");
  EXPECT_EQ(r.record.filter[1].node, "n2");
  EXPECT_EQ(r.record.filter[1].reasons, "node(s) had untolerated taint(s)");
  EXPECT_NE(r.record.message.find("0/2 nodes are available"), std::string::npos)
      << r.record.message;
}

TEST_F(ExplainOfflineTest, APodThatWouldFitNowIsReportedScheduled) {
  OfflineResult r = Explain("small");
  ASSERT_EQ(r.kind, OfflineResult::Kind::kExplained) << r.message;
  EXPECT_EQ(r.record.status, "Scheduled");
  EXPECT_EQ(r.record.node, "n1");
}

TEST_F(ExplainOfflineTest, PodsItDoesNotExplain) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nope", "pod shop/nope not found"},
      {"running", "pod shop/running is not pending: it is bound to node n1"},
      {"done", "pod shop/done is not pending: it has finished (phase Succeeded)"},
      {"theirs",
       "pod shop/theirs is not berth's: its schedulerName \"default-scheduler\" is no profile of "
       "berth's configuration (berth-scheduler)"},
      {"gated",
       "pod shop/gated is held by its scheduling gates (example.com/wait); no scheduler tries it "
       "until they are removed"},
  };
  for (const auto& [pod, message] : cases) {
    OfflineResult r = Explain(pod);
    EXPECT_EQ(r.kind, OfflineResult::Kind::kNotApplicable) << pod;
    EXPECT_EQ(r.message, message);
  }
}

}  // namespace
}  // namespace berth::explain
