// docs/examples/dra/cluster.yaml through `berth simulate`, as a user runs it: which GPUs each pod's
// claims get, a claim shared by two pods, and the message of a pod asking for more than any node
// has (see the comment in the example).

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "api/json/parse.h"
#include "test/cmd/berth/run_berth.h"

namespace {

using berth::api::Value;

TEST(DraExample, DevicesPerClaimSharingAndTheMessage) {
  const berth::testing::Run r = berth::testing::Berth(
      std::string("simulate --cluster ") + BERTH_SOURCE_DIR + "/docs/examples/dra/cluster.yaml");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  auto doc = berth::api::json::ParseJson(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error();
  std::map<std::string, const Value*> pods;
  for (const auto& pod : doc->Find("pods")->AsArray()) pods[pod.Find("pod")->AsString()] = &pod;
  ASSERT_EQ(pods.size(), 5u) << r.out;
  auto node = [&](const std::string& pod) {
    const Value* n = pods.at(pod)->Find("node");
    return n->IsString() ? n->AsString() : std::string("<none>");
  };
  // The devices of the pod's only claim, as "pool/device", and that claim's name.
  auto devices = [&](const std::string& pod, std::string* claim_name = nullptr) {
    std::set<std::string> out;
    const Value* claims = pods.at(pod)->Find("claims");
    if (claims == nullptr) return out;
    for (const auto& [name, list] : claims->AsObject()) {
      if (claim_name != nullptr) *claim_name = name;
      for (const auto& d : list.AsArray()) {
        out.insert(d.Find("pool")->AsString() + "/" + d.Find("device")->AsString());
      }
    }
    return out;
  };

  // trainer: one GPU of at least 40Gi, on node-1 or node-4; its claim is named after the pod.
  std::string trainer_claim;
  const auto trainer = devices("default/trainer", &trainer_claim);
  ASSERT_EQ(trainer.size(), 1u);
  EXPECT_TRUE(node("default/trainer") == "node-1" || node("default/trainer") == "node-4");
  EXPECT_EQ(trainer.begin()->substr(0, trainer.begin()->find('/')), node("default/trainer"));
  EXPECT_EQ(trainer_claim.rfind("trainer-gpu-", 0), 0u) << trainer_claim;
  EXPECT_EQ(trainer_claim.size(), std::string("trainer-gpu-").size() + 5);

  // pair: two devices of the same model on one node (node-4's a100 + h100 never qualify).
  const auto pair = devices("default/pair");
  ASSERT_EQ(pair.size(), 2u);
  EXPECT_NE(node("default/pair"), "node-4");
  for (const auto& d : pair) EXPECT_EQ(d.substr(0, d.find('/')), node("default/pair"));
  for (const auto& d : trainer) EXPECT_EQ(pair.count(d), 0u) << "a GPU given twice: " << d;

  // shared-a and shared-b: the same claim, the same device, the same node.
  EXPECT_EQ(node("default/shared-a"), node("default/shared-b"));
  EXPECT_EQ(devices("default/shared-a"), devices("default/shared-b"));
  EXPECT_EQ(devices("default/shared-a").size(), 1u);

  EXPECT_EQ(node("default/quad"), "<none>");
  EXPECT_EQ(pods.at("default/quad")->Find("message")->AsString(),
            "0/4 nodes are available: 4 cannot allocate all claims. preemption: 0/4 nodes are "
            "available: 4 Preemption is not helpful for scheduling.");
}

}  // namespace
