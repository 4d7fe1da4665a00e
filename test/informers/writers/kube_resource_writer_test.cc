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

}  // namespace
}  // namespace berth::writers
