#include "plugins/volume_zone/volume_zone.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::volume_zone {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

constexpr const char kZone[] = "topology.kubernetes.io/zone";
constexpr const char kRegion[] = "topology.kubernetes.io/region";
constexpr const char kBetaZone[] = "failure-domain.beta.kubernetes.io/zone";
constexpr const char kBetaRegion[] = "failure-domain.beta.kubernetes.io/region";

api::Pod PodWithClaim(const std::string& claim) {
  MakePod b("pod");
  b.Namespace("default");
  api::Volume v;
  v.name = "data";
  v.pvc_claim_name = claim;
  b.Mutable().spec.volumes.push_back(v);
  return b.Obj();
}

// Upstream's TestSingleZone/TestMultiZone fixtures: PVs Vol_1 (zone us-west1-a), Vol_2 (region
// us-west1-b, zone us-west1-b), Vol_3 (region us-west1-c), Vol_Stable_1 / Vol_Stable_2 with the
// GA labels, Vol_multi (zone us-west1-a__us-west1-b); PVC_<n> bound to them.
class VolumeZoneTest : public ::testing::Test {
 protected:
  void AddPv(const std::string& name, api::Labels labels) {
    auto pv = std::make_shared<api::PersistentVolume>();
    pv->metadata.name = name;
    pv->metadata.labels = std::move(labels);
    objects().pvs.Upsert(pv);
  }
  void AddClaim(const std::string& name, const std::string& pv, std::string sc = "") {
    auto c = std::make_shared<api::PersistentVolumeClaim>();
    c->metadata.namespace_ = "default";
    c->metadata.name = name;
    c->spec.volume_name = pv;
    if (!sc.empty()) c->spec.storage_class_name = sc;
    objects().pvcs.Upsert(c);
  }
  api::ClusterObjects& objects() { return handle_.mutable_objects(); }

  void SetUp() override {
    AddPv("Vol_1", {{kBetaZone, "us-west1-a"}});
    AddPv("Vol_2", {{kBetaRegion, "us-west1-b"}, {kBetaZone, "us-west1-b"}});
    AddPv("Vol_3", {{kBetaRegion, "us-west1-c"}});
    AddPv("Vol_Stable_1", {{kZone, "us-west1-a"}});
    AddPv("Vol_Stable_2", {{kRegion, "us-west1-b"}, {kZone, "us-west1-b"}});
    AddPv("Vol_multi", {{kZone, "us-west1-a__us-west1-b"}});
    AddPv("Vol_bad", {{kZone, "us-west1-a____us-west1-b"}});
    AddClaim("PVC_1", "Vol_1");
    AddClaim("PVC_2", "Vol_2");
    AddClaim("PVC_3", "Vol_3");
    AddClaim("PVC_Stable_1", "Vol_Stable_1");
    AddClaim("PVC_Stable_2", "Vol_Stable_2");
    AddClaim("PVC_multi", "Vol_multi");
    AddClaim("PVC_bad", "Vol_bad");
    AddClaim("PVC_no_pv", "Vol_missing");
    AddClaim("PVC_unbound_no_class", "");
    AddClaim("PVC_wait", "", "wait");
    AddClaim("PVC_immediate", "", "immediate");
    AddClaim("PVC_missing_class", "", "nope");
    auto wait = std::make_shared<api::StorageClass>();
    wait->metadata.name = "wait";
    wait->volume_binding_mode = "WaitForFirstConsumer";
    objects().storage_classes.Upsert(wait);
    auto immediate = std::make_shared<api::StorageClass>();
    immediate->metadata.name = "immediate";
    objects().storage_classes.Upsert(immediate);
  }

  // "" = fits; "skip"; or "<Code>: <message>".
  std::string Check(const std::string& claim, api::Labels node_labels) {
    MakeNode n("host1");
    for (const auto& [k, v] : node_labels) n.Label(k, v);
    handle_.SetNodes({n.Info()});
    framework::PluginContext ctx;
    ctx.handle = &handle_;
    auto p = New(ctx);
    EXPECT_TRUE(p.ok());
    auto info = framework::MakePodInfo(std::make_shared<api::Pod>(PodWithClaim(claim)));
    framework::CycleState state;
    framework::PreFilterResult r;
    auto s = dynamic_cast<framework::PreFilterPlugin&>(**p).PreFilter(
        state, *info, handle_.snapshot().List(), &r);
    if (s.IsSkip()) return "skip";
    if (!s.IsSuccess()) return std::string(framework::CodeName(s.code())) + ": " + s.Message();
    auto f = dynamic_cast<framework::FilterPlugin&>(**p).Filter(state, *info,
                                                                *handle_.snapshot().List()[0]);
    if (f.IsSuccess()) return "";
    return std::string(framework::CodeName(f.code())) + ": " + f.Message();
  }

  testing::FakeHandle handle_;
};

const std::string kConflict = std::string("UnschedulableAndUnresolvable: ") + kErrReasonConflict;

TEST_F(VolumeZoneTest, SingleZone) {
  EXPECT_EQ(Check("PVC_1", {}), "");  // node without zone labels
  EXPECT_EQ(Check("PVC_1", {{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}}), "");
  EXPECT_EQ(Check("PVC_2", {{kBetaRegion, "us-west1-b"}, {"uselessLabel", "none"}}), kConflict);
  EXPECT_EQ(Check("PVC_3", {{kBetaRegion, "us-west1-c"}}), "");
  EXPECT_EQ(Check("PVC_1", {{kBetaZone, "no_us-west1-a"}}), kConflict);
  EXPECT_EQ(Check("PVC_2", {{kBetaRegion, "no_us-west1-b"}, {kBetaZone, "us-west1-b"}}), kConflict);
  EXPECT_EQ(Check("PVC_Stable_1", {{kZone, "us-west1-a"}}), "");
  EXPECT_EQ(Check("PVC_Stable_1", {{kZone, "no_us-west1-a"}}), kConflict);
  EXPECT_EQ(Check("PVC_Stable_2", {{kRegion, "us-west1-b"}, {kZone, "us-west1-b"}}), "");
  EXPECT_EQ(Check("PVC_Stable_2", {{kRegion, "us-west1-b"}, {kZone, "no_us-west1-b"}}), kConflict);
  // The beta labels on the PV need the beta labels on the node.
  EXPECT_EQ(Check("PVC_1", {{kZone, "us-west1-a"}}), kConflict);
}

TEST_F(VolumeZoneTest, MultiZoneLabels) {
  EXPECT_EQ(Check("PVC_multi", {{kZone, "us-west1-b"}}), "");
  EXPECT_EQ(Check("PVC_multi", {{kZone, "us-west1-c"}}), kConflict);
  // A malformed value ("a____b" has an empty element) is ignored: nothing to check.
  EXPECT_EQ(Check("PVC_bad", {{kZone, "us-west1-c"}}), "skip");
}

TEST_F(VolumeZoneTest, UnboundAndMissingObjects) {
  EXPECT_EQ(Check("PVC_wait", {{kZone, "a"}}), "skip");
  EXPECT_EQ(Check("PVC_immediate", {{kZone, "a"}}),
            "UnschedulableAndUnresolvable: PersistentVolume had no name");
  EXPECT_EQ(Check("PVC_unbound_no_class", {{kZone, "a"}}),
            "UnschedulableAndUnresolvable: PersistentVolumeClaim had no pv name and storageClass "
            "name");
  EXPECT_EQ(Check("PVC_missing_class", {{kZone, "a"}}),
            "UnschedulableAndUnresolvable: storageclass.storage.k8s.io \"nope\" not found");
  EXPECT_EQ(Check("PVC_no_pv", {{kZone, "a"}}),
            "UnschedulableAndUnresolvable: persistentvolume \"Vol_missing\" not found");
  EXPECT_EQ(Check("PVC_nope", {{kZone, "a"}}),
            "UnschedulableAndUnresolvable: persistentvolumeclaim \"PVC_nope\" not found");
}

TEST_F(VolumeZoneTest, PodWithoutClaimsIsSkipped) {
  framework::PluginContext ctx;
  ctx.handle = &handle_;
  auto p = New(ctx);
  ASSERT_TRUE(p.ok());
  framework::CycleState state;
  framework::PreFilterResult r;
  auto info = MakePod("plain").Info();
  EXPECT_TRUE(dynamic_cast<framework::PreFilterPlugin&>(**p)
                  .PreFilter(state, *info, handle_.snapshot().List(), &r)
                  .IsSkip());
}

}  // namespace
}  // namespace berth::plugins::volume_zone
