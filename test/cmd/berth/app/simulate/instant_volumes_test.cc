// InstantVolumes: simulate's stand-in for the API server, PV controller and provisioner.

#include "cmd/berth/app/simulate/instant_volumes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace berth::simulate {
namespace {

std::shared_ptr<api::PersistentVolumeClaim> Claim(const std::string& name) {
  auto c = std::make_shared<api::PersistentVolumeClaim>();
  c->metadata.namespace_ = "default";
  c->metadata.name = name;
  c->metadata.uid = "uid-" + name;
  c->metadata.resource_version = "5";
  c->spec.storage_class_name = "fast";
  c->spec.access_modes = {"ReadWriteOnce"};
  c->spec.resources.requests["storage"] = *api::Quantity::Parse("3Gi");
  return c;
}

TEST(InstantVolumesTest, SelectedNodeProvisionsAndBindsAtOnce) {
  api::ClusterObjects objects;
  objects.pvcs.Upsert(Claim("data"));
  InstantVolumes v(&objects, [](const std::string& node) {
    return api::Labels{{"kubernetes.io/hostname", node + "-host"}};
  });
  std::string rv;
  ASSERT_TRUE(v.AnnotateClaim(*Claim("data"), {{"volume.kubernetes.io/selected-node", "n1"}}, &rv)
                  .IsSuccess());
  auto pvc = objects.pvcs.Get("default/data");
  ASSERT_NE(pvc, nullptr);
  EXPECT_EQ(pvc->spec.volume_name, "pv-default-data");
  EXPECT_EQ(pvc->status.phase, "Bound");
  EXPECT_EQ(pvc->metadata.annotations.at("volume.kubernetes.io/selected-node"), "n1");
  EXPECT_EQ(pvc->metadata.annotations.at("pv.kubernetes.io/bind-completed"), "yes");
  EXPECT_EQ(pvc->metadata.resource_version, rv);
  EXPECT_GT(std::stoull(rv), 5u);
  auto pv = objects.pvs.Get("pv-default-data");
  ASSERT_NE(pv, nullptr);
  EXPECT_EQ(pv->spec.storage_class_name, "fast");
  EXPECT_EQ(pv->spec.capacity.at("storage").Value(), 3LL << 30);
  ASSERT_TRUE(pv->spec.claim_ref.has_value());
  EXPECT_EQ(pv->spec.claim_ref->uid, "uid-data");
  ASSERT_TRUE(pv->spec.node_affinity.has_value());
  EXPECT_EQ(pv->spec.node_affinity->terms.at(0).match_expressions.at(0).values,
            std::vector<std::string>{"n1-host"});

  std::vector<InstantVolumes::ClaimUpdate> claims;
  std::vector<InstantVolumes::VolumeUpdate> volumes;
  v.TakeEvents(&claims, &volumes);
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_EQ(claims[0].old_obj->spec.volume_name, "");
  EXPECT_EQ(claims[0].new_obj->spec.volume_name, "pv-default-data");
  ASSERT_EQ(volumes.size(), 1u);
  EXPECT_EQ(volumes[0].old_obj, nullptr);
}

TEST(InstantVolumesTest, PreBoundVolumeBindsItsClaim) {
  api::ClusterObjects objects;
  objects.pvcs.Upsert(Claim("logs"));
  auto pv = std::make_shared<api::PersistentVolume>();
  pv->metadata.name = "pv-small";
  pv->metadata.resource_version = "9";
  pv->phase = "Available";
  objects.pvs.Upsert(pv);
  InstantVolumes v(&objects, [](const std::string&) { return api::Labels(); });
  std::string rv;
  ASSERT_TRUE(v.BindVolume(*pv, {"PersistentVolumeClaim", "default", "logs", "uid-logs"},
                           {{"pv.kubernetes.io/bound-by-controller", "yes"}}, &rv)
                  .IsSuccess());
  EXPECT_EQ(objects.pvs.Get("pv-small")->phase, "Bound");
  EXPECT_EQ(objects.pvs.Get("pv-small")->metadata.resource_version, rv);
  EXPECT_EQ(objects.pvcs.Get("default/logs")->spec.volume_name, "pv-small");
  EXPECT_EQ(objects.pvcs.Get("default/logs")
                ->metadata.annotations.count("pv.kubernetes.io/bind-completed"),
            1u);
  // A claim that is gone is the API server's 404.
  EXPECT_EQ(v.AnnotateClaim(*Claim("gone"), {{"a", "b"}}, nullptr).Message(),
            "PATCH persistentvolumeclaims default/gone: HTTP 404: not found");
}

}  // namespace
}  // namespace berth::simulate
