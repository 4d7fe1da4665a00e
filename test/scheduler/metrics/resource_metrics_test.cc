// /metrics/resources (RenderPodResourceMetrics): the series kube-scheduler v1.37.2 serves for the
// same pods. The first case was recorded from the real binary (a pod with two containers, an init
// container and an extended resource, bound to n1).

#include "scheduler/metrics/resource_metrics.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"

namespace berth::metrics {
namespace {

using testing::MakePod;

std::shared_ptr<const api::Pod> Share(api::Pod p) {
  return std::make_shared<const api::Pod>(std::move(p));
}

TEST(PodResourceMetricsTest, MatchesKubeSchedulerForABoundPod) {
  api::Pod p = MakePod("p1")
                   .Namespace("default")
                   .Node("n1")
                   .Priority(0)
                   .Req({{"cpu", "250m"}, {"memory", "64Mi"}, {"nvidia.com/gpu", "1"}})
                   .Lim({{"memory", "128Mi"}, {"nvidia.com/gpu", "1"}})
                   .Req({{"cpu", "1"}, {"memory", "1Gi"}})
                   .InitReq({{"cpu", "2"}})
                   .Obj();
  p.spec.scheduler_name = "default-scheduler";
  const std::string text = RenderPodResourceMetrics({Share(p)});
  const std::string labels = "namespace=\"default\",node=\"n1\",pod=\"p1\",priority=\"0\",";
  for (const std::string& line : {
           "kube_pod_resource_request{" + labels +
               "resource=\"cpu\",scheduler=\"default-scheduler\",unit=\"cores\"} 2",
           "kube_pod_resource_request{" + labels +
               "resource=\"memory\",scheduler=\"default-scheduler\",unit=\"bytes\"} 1140850688",
           "kube_pod_resource_request{" + labels +
               "resource=\"nvidia.com/gpu\",scheduler=\"default-scheduler\",unit=\"\"} 1",
           "kube_pod_resource_limit{" + labels +
               "resource=\"memory\",scheduler=\"default-scheduler\",unit=\"bytes\"} 134217728",
           "kube_pod_resource_limit{" + labels +
               "resource=\"nvidia.com/gpu\",scheduler=\"default-scheduler\",unit=\"\"} 1",
       }) {
    EXPECT_NE(text.find(line + "\n"), std::string::npos) << line << "\nin:\n" << text;
  }
  EXPECT_NE(text.find("# HELP kube_pod_resource_request [STABLE] Resources requested by "
                      "workloads on the cluster, broken down by pod."),
            std::string::npos);
  // Only the limits the pod sets: no cpu limit series.
  EXPECT_EQ(text.find("kube_pod_resource_limit{" + labels + "resource=\"cpu\""), std::string::npos);
}

TEST(PodResourceMetricsTest, PendingPodsCountAndFinishedOnesDoNot) {
  api::Pod pending = MakePod("waiting").Namespace("ns").Req({{"cpu", "500m"}}).Obj();
  pending.spec.scheduler_name = "berth-scheduler";
  api::Pod done = MakePod("done").Namespace("ns").Node("n1").Req({{"cpu", "1"}}).Obj();
  done.status.phase = "Succeeded";
  api::Pod empty = MakePod("empty").Namespace("ns").Node("n1").Req({}).Obj();
  const std::string text = RenderPodResourceMetrics({Share(pending), Share(done), Share(empty)});
  EXPECT_NE(text.find("kube_pod_resource_request{namespace=\"ns\",node=\"\",pod=\"waiting\","
                      "priority=\"\",resource=\"cpu\",scheduler=\"berth-scheduler\","
                      "unit=\"cores\"} 0.5\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("pod=\"done\""), std::string::npos);
  EXPECT_EQ(text.find("pod=\"empty\""), std::string::npos);  // zero amounts are left out
}

TEST(PodResourceMetricsTest, OverheadRaisesOnlyTheLimitsThatAreSet) {
  api::Pod p = MakePod("p")
                   .Namespace("ns")
                   .Node("n1")
                   .Req({{"cpu", "1"}})
                   .Lim({{"cpu", "2"}})
                   .Overhead({{"cpu", "100m"}, {"memory", "10Mi"}})
                   .Obj();
  const std::string text = RenderPodResourceMetrics({Share(p)});
  EXPECT_NE(text.find("kube_pod_resource_limit{namespace=\"ns\",node=\"n1\",pod=\"p\",priority="
                      "\"\",resource=\"cpu\",scheduler=\"berth-scheduler\",unit=\"cores\"} 2.1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("kube_pod_resource_limit{namespace=\"ns\",node=\"n1\",pod=\"p\",priority="
                      "\"\",resource=\"memory\""),
            std::string::npos);
  // Requests take the whole overhead.
  EXPECT_NE(text.find("resource=\"memory\",scheduler=\"berth-scheduler\",unit=\"bytes\"} "
                      "10485760\n"),
            std::string::npos);
}

}  // namespace
}  // namespace berth::metrics
