#include "plugins/image_locality/image_locality.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "scheduler/framework/plugin.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::image_locality {
namespace {

using testing::MakeNode;
using testing::MakePod;

constexpr int64_t mb = kMiB;

using Images = std::vector<api::ContainerImage>;

framework::NodeInfo ImageNode(const std::string& name, const Images& images) {
  MakeNode b(name);
  b.Mutable().status.images = images;
  return b.Info();
}

const Images kNode403002000 = {{{"gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"}, 40 * mb},
                               {{"gcr.io/300:latest", "gcr.io/300:v1"}, 300 * mb},
                               {{"gcr.io/2000:latest"}, 2000 * mb}};
const Images kNode25010 = {{{"gcr.io/250:latest"}, 250 * mb},
                           {{"gcr.io/10:latest", "gcr.io/10:v1"}, 10 * mb}};
const Images kNode60040900 = {{{"gcr.io/600:latest"}, 600 * mb},
                              {{"gcr.io/40:latest"}, 40 * mb},
                              {{"gcr.io/900:latest"}, 900 * mb}};
const Images kNode300600900 = {{{"gcr.io/300:latest"}, 300 * mb},
                               {{"gcr.io/600:latest"}, 600 * mb},
                               {{"gcr.io/900:latest"}, 900 * mb}};
const Images kNode400030 = {{{"gcr.io/4000:latest"}, 4000 * mb}, {{"gcr.io/30:latest"}, 30 * mb}};
const Images kNode203040 = {{{"gcr.io/20:latest"}, 20 * mb},
                            {{"gcr.io/30:latest"}, 30 * mb},
                            {{"gcr.io/40:latest"}, 40 * mb}};
const Images kNoImages = {};

framework::PodInfoPtr PodWithImages(std::vector<std::string> images,
                                    std::vector<std::string> init_images = {}) {
  MakePod b("p");
  for (auto& i : images) b.Image(i);
  for (auto& i : init_images) {
    api::Container c;
    c.name = "init-" + i;
    c.image = i;
    b.Mutable().spec.init_containers.push_back(c);
  }
  return b.Info();
}

framework::PodInfoPtr PodWithImageVolume(const std::string& image, const std::string& reference) {
  MakePod b("p");
  b.Image(image);
  api::Volume v;
  v.name = "imageVolume";
  v.image_reference = reference;
  b.Mutable().spec.volumes.push_back(v);
  return b.Info();
}

// Upstream's TestImageLocalityPriority (v1.37 table), run with and without PreScore.
TEST(ImageLocality, UpstreamTable) {
  struct Case {
    std::string name;
    framework::PodInfoPtr pod;
    std::vector<std::pair<std::string, Images>> nodes;
    std::vector<int64_t> want;
  };
  std::vector<Case> cases = {
      {"two images spread on two nodes, prefer the larger image one",
       PodWithImages({"gcr.io/40", "gcr.io/250"}),
       {{"node1", kNode403002000}, {"node2", kNode25010}},
       {0, 5}},
      {"two images on one node, prefer this node",
       PodWithImages({"gcr.io/40", "gcr.io/300"}),
       {{"node1", kNode403002000}, {"node2", kNode25010}},
       {7, 0}},
      {"if exceed limit, use limit",
       PodWithImages({"gcr.io/10", "gcr.io/4000"}),
       {{"node1", kNode400030}, {"node2", kNode25010}},
       {100, 0}},
      {"if exceed limit, use limit (with node which has no images present)",
       PodWithImages({"gcr.io/10", "gcr.io/4000"}),
       {{"node1", kNode400030}, {"node2", kNode25010}, {"node3", kNoImages}},
       {66, 0, 0}},
      {"pod with multiple large images, node2 is preferred",
       PodWithImages({"gcr.io/300", "gcr.io/600", "gcr.io/900"}),
       {{"node1", kNode60040900}, {"node2", kNode300600900}, {"node3", kNoImages}},
       {32, 36, 0}},
      {"pod with multiple small images",
       PodWithImages({"gcr.io/30", "gcr.io/40"}),
       {{"node1", kNode203040}, {"node2", kNode400030}},
       {1, 0}},
      {"pod with ImageVolume",
       PodWithImageVolume("gcr.io/30", "gcr.io/300"),
       {{"node1", kNode300600900}, {"node2", kNode400030}},
       {6, 0}},
      {"same images as ImageVolume pod but as regular container images",
       PodWithImages({"gcr.io/30", "gcr.io/300"}),
       {{"node1", kNode300600900}, {"node2", kNode400030}},
       {6, 0}},
      {"include InitContainers: two images spread on two nodes, prefer the larger image one",
       PodWithImages({"gcr.io/30"}, {"gcr.io/300"}),
       {{"node1", kNode403002000}, {"node2", kNode203040}},
       {6, 0}},
  };
  for (const auto& c : cases) {
    for (bool run_prescore : {true, false}) {
      SCOPED_TRACE(c.name + (run_prescore ? " (PreScore)" : " (no PreScore)"));
      std::vector<framework::NodeInfo> infos;
      for (const auto& [name, images] : c.nodes) infos.push_back(ImageNode(name, images));
      testing::FakeHandle handle(std::move(infos));
      framework::PluginContext ctx;
      ctx.handle = &handle;
      auto p = New(ctx);
      ASSERT_TRUE(p.ok()) << p.error();
      framework::CycleState state;
      const auto& nodes = handle.snapshot().List();
      if (run_prescore) {
        ASSERT_TRUE(dynamic_cast<framework::PreScorePlugin&>(**p)
                        .PreScore(state, *c.pod, nodes)
                        .IsSuccess());
      }
      for (size_t i = 0; i < c.nodes.size(); ++i) {
        const framework::NodeInfo* node = handle.snapshot().Get(c.nodes[i].first);
        ASSERT_NE(node, nullptr);
        int64_t score = -1;
        auto st = dynamic_cast<framework::ScorePlugin&>(**p).Score(state, *c.pod, *node, &score);
        EXPECT_TRUE(st.IsSuccess()) << st.Message();
        EXPECT_EQ(score, c.want[i]) << c.nodes[i].first;
      }
    }
  }
}

// Upstream's TestNormalizedImageName (the helper lives in the framework).
TEST(ImageLocality, NormalizedImageName) {
  EXPECT_EQ(framework::NormalizedImageName("root"), "root:latest");
  EXPECT_EQ(framework::NormalizedImageName("gcr.io:5000/root"), "gcr.io:5000/root:latest");
  EXPECT_EQ(framework::NormalizedImageName("root:tag"), "root:tag");
  const std::string digest =
      "root@sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2";
  EXPECT_EQ(framework::NormalizedImageName(digest), digest);
}

TEST(ImageLocality, CalculatePriorityBounds) {
  EXPECT_EQ(CalculatePriority(0, 1), 0);
  EXPECT_EQ(CalculatePriority(kMinThreshold, 1), 0);
  EXPECT_EQ(CalculatePriority(kMaxContainerThreshold, 1), 100);
  EXPECT_EQ(CalculatePriority(5 * kMaxContainerThreshold, 2), 100);
  EXPECT_EQ(CalculatePriority(kMaxContainerThreshold, 0), 0);  // no containers
}

TEST(ImageLocality, RejectsUnknownArgs) {
  api::Value args = api::Value::MakeObject();
  args.Set("foo", api::Value::Int(1));
  framework::PluginContext ctx;
  ctx.args = &args;
  ctx.args_path = "profiles[0].pluginConfig[0].args";
  auto p = New(ctx);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error(),
            "strict decoding error: unknown field \"profiles[0].pluginConfig[0].args.foo\"");
}

}  // namespace
}  // namespace berth::plugins::image_locality
