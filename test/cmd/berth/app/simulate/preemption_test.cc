// `berth simulate` on docs/examples/preemption/cluster.yaml: preemption acts as the daemon would,
// on the virtual clock — the victim is removed and listed under "preempted", the preemptor lands on
// its nominated node, the room it was given is not taken by a lower-priority pod, PDB-protected
// pods survive, and preemptionPolicy: Never is honoured.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "api/json/parse.h"
#include "cmd/berth/app/simulate/simulator.h"
#include "config/load.h"
#include "plugins/registry.h"

namespace berth::simulate {
namespace {

std::string Str(const api::Value& o, const char* field) {
  const api::Value* v = o.Find(field);
  return v == nullptr || v->IsNull() ? std::string() : v->AsString();
}

TEST(PreemptionSimulateTest, Example) {
  framework::Registry registry = plugins::NewInTreeRegistry();
  auto cluster =
      LoadClusterFile(std::string(BERTH_SOURCE_DIR) + "/docs/examples/preemption/cluster.yaml");
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  EXPECT_EQ(cluster->pdbs.size(), 1u);
  auto cfg = config::DefaultConfig(registry.Names());
  cfg.profiles[0].scheduler_name = "berth-scheduler";
  auto out = simulate::Run(*cluster, cfg, registry, Options{});
  ASSERT_TRUE(out.ok()) << out.error();
  const std::string json = api::json::ToJson(*out);
  std::map<std::string, std::pair<std::string, std::string>> pods;  // pod -> (node, message)
  for (const auto& p : out->Find("pods")->AsArray()) {
    pods[Str(p, "pod")] = {Str(p, "node"), Str(p, "message")};
  }
  EXPECT_EQ(pods["apps/critical"].first, "node-1") << json;
  // The attempt that preempted, as upstream v1.37 words it.
  for (const auto& p : out->Find("pods")->AsArray()) {
    if (Str(p, "pod") != "apps/critical") continue;
    EXPECT_EQ(Str(p, "failedScheduling"),
              "0/3 nodes are available: 3 Insufficient cpu. preemption: found a potential "
              "placement for pod on node node-1, preempting 1 victims")
        << json;
  }
  EXPECT_EQ(pods["apps/filler"].first, "") << json;
  EXPECT_EQ(pods["apps/filler"].second,
            "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 "
            "No preemption victims found for incoming pod.")
      << json;
  EXPECT_EQ(pods["apps/background"].second,
            "0/3 nodes are available: 3 Insufficient cpu. preemption: not eligible due to "
            "preemptionPolicy=Never.")
      << json;
  const api::Value* preempted = out->Find("preempted");
  ASSERT_NE(preempted, nullptr) << json;
  ASSERT_EQ(preempted->AsArray().size(), 1u) << json;
  const api::Value& v = preempted->AsArray()[0];
  EXPECT_EQ(Str(v, "pod"), "apps/batch-1");
  EXPECT_EQ(Str(v, "node"), "node-1");
  EXPECT_EQ(Str(v, "preemptor"), "apps/critical");
}

}  // namespace
}  // namespace berth::simulate
