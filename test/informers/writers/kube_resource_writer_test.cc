// KubeApiWriter's ResourceClaim status update against a scripted KubeClient: the exact PUT
// (path, body with the resourceVersion precondition) and how answers map to error codes.

#include <gtest/gtest.h>

#include <string>

#include "api/json/parse.h"
#include "informers/writers/kube_writer.h"
#include "test/testing/fake_kube_client.h"

namespace berth::writers {
namespace {

constexpr char kPath[] = "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/gpu/status";

api::ResourceClaim Claim() {
  api::ResourceClaim c;
  c.metadata.namespace_ = "team-a";
  c.metadata.name = "gpu";
  c.metadata.uid = "uid-gpu";
  c.metadata.resource_version = "41";
  api::AllocationResult a;
  a.devices.results.push_back({"r", "gpu.example.com", "node-1", "gpu-0"});
  c.status.allocation = a;
  c.status.reserved_for.push_back({"", "pods", "p", "uid-p"});
  return c;
}

TEST(KubeResourceWriterTest, PutsTheStatusAndReturnsTheStoredClaim) {
  testing::FakeKubeClient kc;
  kc.PushResponse("PUT", kPath, 200,
                  R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":)"
                  R"({"name":"gpu","namespace":"team-a","uid":"uid-gpu","resourceVersion":"42"},)"
                  R"("status":{"reservedFor":[{"resource":"pods","name":"p","uid":"uid-p"}]}})");
  KubeApiWriter w(kc);
  auto stored = w.UpdateResourceClaimStatus(Claim());
  ASSERT_TRUE(stored.ok()) << stored.error();
  EXPECT_EQ(stored->metadata.resource_version, "42");
  EXPECT_EQ(stored->status.reserved_for.size(), 1u);
  auto reqs = kc.Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].request.method, "PUT");
  EXPECT_EQ(reqs[0].request.content_type, "application/json");
  EXPECT_EQ(reqs[0].request.body,
            R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":)"
            R"({"name":"gpu","namespace":"team-a","uid":"uid-gpu","resourceVersion":"41"},)"
            R"("status":{"allocation":{"devices":{"results":[{"request":"r",)"
            R"("driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}},)"
            R"("reservedFor":[{"resource":"pods","name":"p","uid":"uid-p"}]}})");
}

TEST(KubeResourceWriterTest, AnswersMapToCodesAndNameTheClaim) {
  struct Case {
    int status;
    ErrorCode code;
  };
  for (const Case& c : {Case{409, ErrorCode::kConflict}, Case{404, ErrorCode::kNotFound},
                        Case{422, ErrorCode::kInvalid}, Case{403, ErrorCode::kInvalid},
                        Case{503, ErrorCode::kUnavailable}, Case{429, ErrorCode::kUnavailable}}) {
    testing::FakeKubeClient kc;
    kc.PushResponse("PUT", kPath, c.status, R"({"kind":"Status","message":"nope"})");
    KubeApiWriter w(kc);
    auto r = w.UpdateResourceClaimStatus(Claim());
    ASSERT_FALSE(r.ok()) << c.status;
    EXPECT_EQ(r.code(), c.code) << c.status;
    EXPECT_EQ(r.error(),
              "PUT resourceclaims team-a/gpu/status: HTTP " + std::to_string(c.status) + ": nope");
  }
  testing::FakeKubeClient down;
  down.PushError("PUT", kPath, "connection refused");
  KubeApiWriter w(down);
  auto r = w.UpdateResourceClaimStatus(Claim());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::kUnavailable);
  EXPECT_EQ(r.error(), "PUT resourceclaims team-a/gpu/status: connection refused");

  testing::FakeKubeClient garbled;
  garbled.PushResponse("PUT", kPath, 200, "{not json");
  KubeApiWriter g(garbled);
  auto bad = g.UpdateResourceClaimStatus(Claim());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), ErrorCode::kInternal);
}

// DRA-backed extended resources: the claim PreBind creates, its deletion, and the pod status
// patch naming it.
TEST(KubeResourceWriterTest, CreatesDeletesAndRecordsTheExtendedResourceClaim) {
  testing::FakeKubeClient kc;
  kc.PushResponse("POST", "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims", 201,
                  R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":)"
                  R"({"name":"p-extended-resources-x7k2q","namespace":"team-a","uid":"u1",)"
                  R"("resourceVersion":"7"},"spec":{"devices":{"requests":[{"name":)"
                  R"("container-0-request-0","exactly":{"deviceClassName":"gpu",)"
                  R"("allocationMode":"ExactCount","count":2}}]}}})");
  kc.PushResponse("DELETE",
                  "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/"
                  "p-extended-resources-x7k2q",
                  404, R"({"kind":"Status","message":"not found"})");
  kc.PushResponse("PATCH", "/api/v1/namespaces/team-a/pods/p/status", 200, "{}");
  KubeApiWriter w(kc);
  api::ResourceClaim c;
  c.metadata.namespace_ = "team-a";
  c.metadata.generate_name = "p-extended-resources-";
  c.metadata.annotations["resource.kubernetes.io/extended-resource-claim"] = "true";
  c.metadata.owner_references.push_back({"v1", "Pod", "p", "uid-p", true});
  api::DeviceRequest r;
  r.name = "container-0-request-0";
  r.exactly.emplace();
  r.exactly->device_class_name = "gpu";
  r.exactly->count = 2;
  c.spec.devices.requests.push_back(r);
  auto created = w.CreateResourceClaim(c);
  ASSERT_TRUE(created.ok()) << created.error();
  EXPECT_EQ(created->metadata.name, "p-extended-resources-x7k2q");
  EXPECT_EQ(created->metadata.uid, "u1");
  EXPECT_TRUE(w.DeleteResourceClaim("team-a", "p-extended-resources-x7k2q").ok());
  api::Pod pod;
  pod.metadata.namespace_ = "team-a";
  pod.metadata.name = "p";
  api::PodExtendedResourceClaimStatus st;
  st.request_mappings.push_back({"c", "example.com/gpu", "container-0-request-0"});
  st.resource_claim_name = "p-extended-resources-x7k2q";
  EXPECT_TRUE(w.SetPodExtendedResourceClaimStatus(pod, st).ok());
  auto reqs = kc.Requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].request.method, "POST");
  EXPECT_EQ(reqs[0].request.body,
            R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":)"
            R"({"generateName":"p-extended-resources-","namespace":"team-a","annotations":)"
            R"({"resource.kubernetes.io/extended-resource-claim":"true"},"ownerReferences":)"
            R"([{"apiVersion":"v1","kind":"Pod","name":"p","uid":"uid-p","controller":true}]},)"
            R"("spec":{"devices":{"requests":[{"name":"container-0-request-0","exactly":)"
            R"({"deviceClassName":"gpu","allocationMode":"ExactCount","count":2}}]}}})");
  EXPECT_EQ(reqs[1].request.method, "DELETE");
  EXPECT_EQ(reqs[2].request.method, "PATCH");
  EXPECT_EQ(reqs[2].request.content_type, "application/strategic-merge-patch+json");
  EXPECT_EQ(reqs[2].request.body,
            R"({"status":{"extendedResourceClaimStatus":{"requestMappings":[{"containerName":)"
            R"("c","resourceName":"example.com/gpu","requestName":"container-0-request-0"}],)"
            R"("resourceClaimName":"p-extended-resources-x7k2q"}}})");

  // A refused create names the claim by its generateName.
  testing::FakeKubeClient refused;
  refused.PushResponse("POST", "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims", 403,
                       R"({"kind":"Status","message":"forbidden"})");
  KubeApiWriter w2(refused);
  auto err = w2.CreateResourceClaim(c);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.code(), ErrorCode::kInvalid);
  EXPECT_EQ(err.error(), "POST resourceclaims team-a/p-extended-resources-*: HTTP 403: forbidden");
}

}  // namespace
}  // namespace berth::writers
