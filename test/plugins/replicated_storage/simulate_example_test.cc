// `berth simulate` on docs/examples/replicated-storage: the cluster file carries the
// storage.deckhouse.io objects, and the placements are the ones its header comment promises.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "api/json/parse.h"
#include "cmd/berth/app/simulate/simulator.h"
#include "config/load.h"
#include "plugins/registry.h"

namespace berth::plugins::replicated_storage {
namespace {

struct Outcome {
  std::string status, node, message;
};

TEST(ReplicatedStorageExampleTest, PlacesPodsWhereTheSeedsRulesAllow) {
  const std::string dir = std::string(BERTH_SOURCE_DIR) + "/docs/examples/replicated-storage/";
  auto registry = plugins::NewInTreeRegistry();
  auto cluster = simulate::LoadClusterFile(dir + "cluster.yaml");
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  EXPECT_EQ(cluster->lvm_volume_groups.size(), 3u);
  EXPECT_EQ(cluster->replicated_volumes.size(), 1u);
  EXPECT_TRUE(cluster->warnings.empty()) << cluster->warnings.front();
  auto cfg = config::LoadConfigFile(dir + "config.yaml", registry.Names());
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  simulate::Options options;
  options.explain = true;
  auto out = simulate::Run(*cluster, *cfg, registry, options);
  ASSERT_TRUE(out.ok()) << out.error();
  const std::string json = api::json::ToJson(*out);
  std::map<std::string, Outcome> pods;
  for (const auto& p : out->Find("pods")->AsArray()) {
    auto str = [&](const char* f) {
      const api::Value* v = p.Find(f);
      return v == nullptr || v->IsNull() ? std::string() : v->AsString();
    };
    pods[str("pod")] = {str("status"), str("node"), str("message")};
  }
  ASSERT_EQ(pods.size(), 7u) << json;
  const std::map<std::string, std::string> want = {
      {"db", "node-1"},
      {"cache", "node-2"},  // node-1's 50Gi: 30 held for db, 20 left
      {"app", "node-2"},    // its only diskful replica
      {"thin", "node-1"},
      {"shared", "node-3"}};
  for (const auto& [pod, node] : want) {
    const Outcome& o = pods["default/" + pod];
    EXPECT_EQ(o.status, "Scheduled") << pod << ": " << json;
    EXPECT_EQ(o.node, node) << pod << ": " << json;
  }
  EXPECT_EQ(pods["default/web"].status, "Scheduled") << json;
  const Outcome& big = pods["default/big"];
  EXPECT_EQ(big.status, "Unschedulable") << json;
  for (const char* reason :
       {"2 PVC default/big-data: not enough space in ReplicatedStoragePool rsp-thick on the node "
        "(needs 80Gi)",
        "1 PVC default/big-data: node has no Ready LVMVolumeGroup of ReplicatedStoragePool "
        "rsp-thick",
        "1 node(s) are not replicated storage nodes",
        "1 node(s) had untolerated taint(s)"}) {  // node-5
    EXPECT_NE(big.message.find(reason), std::string::npos) << reason << "\n" << big.message;
  }
}

TEST(ReplicatedStorageExampleTest, BadObjectNamesFileDocumentAndField) {
  auto r = simulate::ParseClusterFile(
      "apiVersion: storage.deckhouse.io/v1alpha1\nkind: LVMVolumeGroup\nmetadata: {name: vg}\n"
      "status: {vgSize: huge}\n",
      "c.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "c.yaml: document 1: LVMVolumeGroup vg: status.vgSize: invalid quantity "
            "\"huge\"");
  auto dup = simulate::ParseClusterFile(
      "apiVersion: storage.deckhouse.io/v1alpha1\nkind: ReplicatedVolume\nmetadata: {name: v}\n"
      "---\napiVersion: storage.deckhouse.io/v1alpha1\nkind: ReplicatedVolume\n"
      "metadata: {name: v}\n",
      "c.yaml");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error(), "c.yaml: document 2: ReplicatedVolume v: defined twice");
}

}  // namespace
}  // namespace berth::plugins::replicated_storage
