#include "config/configz.h"

#include <gtest/gtest.h>

namespace berth::config {
namespace {

TEST(ConfigzTest, RendersTheEffectiveConfiguration) {
  SchedulerConfiguration cfg;
  cfg.parallelism = 16;
  cfg.percentage_of_nodes_to_score = 0;
  cfg.pod_initial_backoff_seconds = 1;
  cfg.pod_max_backoff_seconds = 10;
  cfg.leader_election.leader_elect = true;
  cfg.leader_election.resource_name = "berth";
  cfg.client_connection.qps = 50;
  cfg.client_connection.burst = 100;
  EffectiveProfile p{"berth", {}};
  p.plugins["filter"] = {{"NodeName", 0}, {"TaintToleration", 3}};
  p.plugins["score"] = {{"TaintToleration", 3}};
  EXPECT_EQ(RenderConfigz(cfg, {p}),
            R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration",)"
            R"("parallelism":16,"percentageOfNodesToScore":0,"podInitialBackoffSeconds":1,)"
            R"("podMaxBackoffSeconds":10,"leaderElection":{"leaderElect":true,)"
            R"("resourceName":"berth"},"clientConnection":{"qps":50.0,"burst":100},)"
            R"("profiles":[{"schedulerName":"berth","plugins":{"filter":[{"name":"NodeName"},)"
            R"({"name":"TaintToleration"}],"score":[{"name":"TaintToleration","weight":3}]}}]})");
}

}  // namespace
}  // namespace berth::config
