// docs/examples/volume-binding/cluster.yaml through `berth simulate`, as a user runs it: where each
// pod lands and the reasons VolumeBinding and VolumeZone give (see the comment in the example).

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "api/json/parse.h"
#include "test/cmd/berth/run_berth.h"

namespace {

TEST(VolumeBindingExample, PlacementsAndReasons) {
  const berth::testing::Run r =
      berth::testing::Berth(std::string("simulate --cluster ") + BERTH_SOURCE_DIR +
                            "/docs/examples/volume-binding/cluster.yaml --explain");
  const std::string& out = r.out;
  ASSERT_EQ(r.code, 0) << r.err << out;
  auto doc = berth::api::json::ParseJson(out);
  ASSERT_TRUE(doc.ok()) << doc.error();
  std::map<std::string, const berth::api::Value*> pods;
  for (const auto& pod : doc->Find("pods")->AsArray()) pods[pod.Find("pod")->AsString()] = &pod;
  auto node = [&](const std::string& pod) {
    const berth::api::Value* n = pods.at(pod)->Find("node");
    return n->IsString() ? n->AsString() : std::string("<none>");
  };
  auto filter = [&](const std::string& pod, const std::string& node) {
    const berth::api::Value* r = pods.at(pod)->Find("filter")->Find(node);
    return r == nullptr ? std::string() : r->AsString();
  };
  ASSERT_EQ(pods.size(), 6u) << out;

  EXPECT_EQ(node("default/db-0"), "node-2");
  EXPECT_EQ(filter("default/db-0", "node-1"),
            "node(s) didn't match PersistentVolume's node affinity");
  EXPECT_EQ(node("default/logger"), "node-3");
  EXPECT_EQ(filter("default/logger", "node-1"),
            "node(s) didn't find available persistent volumes to bind");
  EXPECT_EQ(node("default/cache-0"), "node-1");
  EXPECT_EQ(filter("default/cache-0", "node-2"),
            "node(s) didn't find available persistent volumes to bind");
  EXPECT_EQ(node("default/zonal"), "node-3");
  EXPECT_EQ(filter("default/zonal", "node-1"), "node(s) had no available volume zone");

  EXPECT_EQ(node("default/broken"), "<none>");
  EXPECT_EQ(pods.at("default/broken")
                ->Find("message")
                ->AsString()
                .rfind("0/3 nodes are available: persistentvolumeclaim \"missing\" not found.", 0),
            0u)
      << out;
  EXPECT_EQ(
      pods.at("default/waiting")
          ->Find("message")
          ->AsString()
          .rfind("0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.", 0),
      0u)
      << out;
}

}  // namespace
