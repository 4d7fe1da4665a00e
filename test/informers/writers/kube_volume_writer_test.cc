// KubeApiWriter's volume binding writes against a scripted KubeClient: the exact PATCH requests
// (path, content type, body with the resourceVersion precondition) and how answers map to Status.

#include <gtest/gtest.h>

#include <string>

#include "api/json/parse.h"
#include "informers/writers/kube_writer.h"
#include "test/testing/fake_kube_client.h"

namespace berth::writers {
namespace {

api::PersistentVolumeClaim Claim() {
  api::PersistentVolumeClaim c;
  c.metadata.namespace_ = "shop";
  c.metadata.name = "data";
  c.metadata.uid = "uid-data";
  c.metadata.resource_version = "41";
  return c;
}

TEST(KubeVolumeWriterTest, AnnotatesTheClaimWithAMergePatch) {
  testing::FakeKubeClient kc;
  kc.PushResponse("PATCH", "/api/v1/namespaces/shop/persistentvolumeclaims/data", 200,
                  R"({"metadata":{"name":"data","resourceVersion":"42"}})");
  KubeApiWriter w(kc);
  std::string rv;
  auto s = w.PatchPersistentVolumeClaimAnnotations(
      Claim(), {{"volume.kubernetes.io/selected-node", "node-1"}}, &rv);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(rv, "42");
  auto reqs = kc.Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].request.content_type, "application/merge-patch+json");
  auto body = api::json::ParseJson(reqs[0].request.body);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(api::json::ToJson(*body), R"({"metadata":{"resourceVersion":"41","annotations":)"
                                      R"({"volume.kubernetes.io/selected-node":"node-1"}}})");
}

TEST(KubeVolumeWriterTest, ConflictIsAnErrorNamingTheClaim) {
  testing::FakeKubeClient kc;
  kc.PushResponse("PATCH", "/api/v1/namespaces/shop/persistentvolumeclaims/data", 409,
                  R"({"kind":"Status","message":"the object has been modified"})");
  KubeApiWriter w(kc);
  auto s = w.PatchPersistentVolumeClaimAnnotations(Claim(), {{"k", "v"}}, nullptr);
  EXPECT_EQ(s.code(), framework::Code::kError);
  EXPECT_EQ(s.Message(),
            "PATCH persistentvolumeclaims shop/data: HTTP 409: the object has been modified");
}

TEST(KubeVolumeWriterTest, PreBindsAStaticVolume) {
  testing::FakeKubeClient kc;
  kc.PushResponse("PATCH", "/api/v1/persistentvolumes/pv-1", 200,
                  R"({"metadata":{"name":"pv-1","resourceVersion":"8"}})");
  KubeApiWriter w(kc);
  api::PersistentVolume pv;
  pv.metadata.name = "pv-1";
  pv.metadata.resource_version = "7";
  std::string rv;
  auto s = w.PatchPersistentVolumeClaimRef(
      pv, api::ObjectReference{"PersistentVolumeClaim", "shop", "data", "uid-data"},
      {{"pv.kubernetes.io/bound-by-controller", "yes"}}, &rv);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(rv, "8");
  auto body = api::json::ParseJson(kc.Requests().at(0).request.body);
  ASSERT_TRUE(body.ok());
  const api::Value* ref = body->Find("spec")->Find("claimRef");
  ASSERT_NE(ref, nullptr);
  EXPECT_EQ(ref->Find("namespace")->AsString(), "shop");
  EXPECT_EQ(ref->Find("name")->AsString(), "data");
  EXPECT_EQ(ref->Find("uid")->AsString(), "uid-data");
  EXPECT_EQ(ref->Find("kind")->AsString(), "PersistentVolumeClaim");
  EXPECT_EQ(body->Find("metadata")->Find("resourceVersion")->AsString(), "7");
  EXPECT_EQ(body->Find("metadata")
                ->Find("annotations")
                ->Find("pv.kubernetes.io/bound-by-controller")
                ->AsString(),
            "yes");

  kc.PushError("PATCH", "/api/v1/persistentvolumes/pv-1", "connection refused (after 5 attempts)");
  s = w.PatchPersistentVolumeClaimRef(pv, api::ObjectReference{}, {}, &rv);
  EXPECT_EQ(s.Message(), "PATCH persistentvolumes pv-1: connection refused (after 5 attempts)");
}

}  // namespace
}  // namespace berth::writers
