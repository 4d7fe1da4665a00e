// Asking a running berth: the proxy paths, the Lease, and which answers are the scheduler's own
// (found, 404) and which mean it could not be reached (the fallback to --offline).

#include "cmd/berth/app/explain/ask.h"

#include <gtest/gtest.h>

#include "scheduler/diagnosis/text.h"
#include "test/testing/fake_kube_client.h"

namespace berth::explain {
namespace {

using berth::testing::FakeKubeClient;

constexpr char kLeasePath[] =
    "/apis/coordination.k8s.io/v1/namespaces/berth-system/leases/berth-scheduler";
constexpr char kDiagnosis[] =
    R"({"pod":"shop/web-1","uid":"u1","profile":"berth-scheduler","status":"Unschedulable",
        "message":"0/2 nodes are available: 2 Insufficient cpu.",
        "filter":{"n1":"Insufficient cpu","n2":"Insufficient cpu"},"nearest":[]})";
constexpr char kOwnNotFound[] =
    R"({"kind":"Status","status":"Failure","reason":"NotFound","code":404,
        "message":"berth has no diagnosis of pod shop/web-1"})";

std::string LeaderPath(const std::string& pod) {
  return "/api/v1/namespaces/berth-system/pods/https:" + pod +
         ":10259/proxy/debug/explain/shop/web-1";
}

ExplainOptions Defaults() { return ExplainOptions{}; }

TEST(AskTest, Paths) {
  EXPECT_EQ(ExplainPath("shop", "web-1"), "/debug/explain/shop/web-1");
  EXPECT_EQ(PodProxyPrefix("berth-system", "berth-7d9f-abc", 10259),
            "/api/v1/namespaces/berth-system/pods/https:berth-7d9f-abc:10259/proxy");
  EXPECT_EQ(ServiceProxyPrefix("berth-system", "berth-metrics", "https-metrics"),
            "/api/v1/namespaces/berth-system/services/https:berth-metrics:https-metrics/proxy");
  EXPECT_EQ(PodOfIdentity("berth-7d9f-abc_0123456789abcdef0123456789abcdef"), "berth-7d9f-abc");
  EXPECT_EQ(PodOfIdentity("my_host_0123"), "my_host");
  EXPECT_EQ(PodOfIdentity("plain"), "plain");
  EXPECT_EQ(LeaderInMessage("this berth is not the leader; the leader is b-1_ab12"), "b-1_ab12");
  EXPECT_EQ(LeaderInMessage("berth has no diagnosis of pod shop/web-1"), "");
}

TEST(AskTest, LeaseHolderAndItsErrors) {
  FakeKubeClient kc;
  kc.PushResponse("GET", kLeasePath, 200,
                  R"({"spec":{"holderIdentity":"berth-0_ab","leaseDurationSeconds":15}})");
  auto h = LeaseHolder(kc, "berth-system", "berth-scheduler");
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ(*h, "berth-0_ab");
  kc.PushResponse("GET", kLeasePath, 200, R"({"spec":{"holderIdentity":""}})");
  EXPECT_EQ(LeaseHolder(kc, "berth-system", "berth-scheduler").error(),
            "lease berth-system/berth-scheduler: no holder (no berth is leading)");
  kc.PushResponse("GET", kLeasePath, 404, R"({"kind":"Status","code":404})");
  EXPECT_EQ(LeaseHolder(kc, "berth-system", "berth-scheduler").error(),
            "lease berth-system/berth-scheduler not found; set --lease-namespace, --lease-name");
  kc.PushResponse("GET", kLeasePath, 403,
                  R"({"kind":"Status","code":403,"message":"leases is forbidden"})");
  EXPECT_EQ(LeaseHolder(kc, "berth-system", "berth-scheduler").error(),
            "lease berth-system/berth-scheduler: HTTP 403: leases is forbidden");
}

TEST(AskTest, LeaderThroughThePodProxy) {
  FakeKubeClient kc;
  kc.PushResponse("GET", kLeasePath, 200, R"({"spec":{"holderIdentity":"berth-0_ab"}})");
  kc.PushResponse("GET", LeaderPath("berth-0"), 200, kDiagnosis);
  Answer a = AskThroughApiServer(kc, Defaults(), "shop", "web-1");
  ASSERT_EQ(a.kind, Answer::Kind::kFound) << a.message;
  EXPECT_EQ(a.source, "the scheduler berth-0_ab");
  EXPECT_EQ(a.record.pod, "shop/web-1");
  EXPECT_EQ(a.record.filter.size(), 2u);
  // An unreachable scheduler is reported at once, never retried.
  for (const auto& r : kc.Requests()) EXPECT_FALSE(r.request.retry && r.request.path != kLeasePath);
}

// The Lease holder identity and the diagnosis are text others control: `berth explain`'s text
// form escapes their control characters and invalid UTF-8 instead of sending them to the
// operator's terminal.
TEST(AskTest, HostileLeaseHolderAndDiagnosisPrintEscaped) {
  FakeKubeClient kc;
  kc.PushResponse("GET", kLeasePath, 200,
                  R"({"spec":{"holderIdentity":"berth-0_\u001b[31mab\r\u0007"}})");
  kc.PushResponse("GET", LeaderPath("berth-0"), 200,
                  R"({"pod":"shop/web-1","uid":"u1","status":"Unschedulable",
                      "message":"0/1 nodes are available: no such key: \u001b]0;x\u0007",
                      "filter":{"n\u001b[2J1":"cannot allocate all claims: no such key: a\nb"},
                      "nearest":[]})");
  Answer a = AskThroughApiServer(kc, Defaults(), "shop", "web-1");
  ASSERT_EQ(a.kind, Answer::Kind::kFound) << a.message;
  EXPECT_EQ(a.source, "the scheduler berth-0_\x1b[31mab\r\x07");
  const std::string text = diagnosis::RenderText(a.record, a.source);
  for (char c : text) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << int(c) << "\n" << text;
  EXPECT_NE(text.find("Source: the scheduler berth-0_\\x1b[31mab\\r\\x07\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Message: 0/1 nodes are available: no such key: \\x1b]0;x\\x07\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  n\\x1b[2J1  cannot allocate all claims: no such key: a\\nb\n"),
            std::string::npos)
      << text;
}

// The Lease holder identity is written by whoever may update the Lease: a pod part that is not a
// pod name ('/', "..", '?') would change which path the operator's credentials request.
TEST(AskTest, ALeaseHolderThatIsNoPodNameIsNotFollowed) {
  for (const char* holder : {"../../../api/v1/secrets_x", "berth-0/../../secrets_x",
                             "berth-0?x=1_ab", "Berth-0_ab", "_ab", "-berth_ab"}) {
    FakeKubeClient kc;
    kc.PushResponse("GET", kLeasePath, 200,
                    std::string(R"({"spec":{"holderIdentity":")") + holder + "\"}}");
    Answer a = AskThroughApiServer(kc, Defaults(), "shop", "web-1");
    EXPECT_EQ(a.kind, Answer::Kind::kUnreachable) << holder;
    EXPECT_NE(a.message.find("does not name a pod (not a DNS-1123 subdomain)"), std::string::npos)
        << a.message;
    EXPECT_EQ(kc.Requests().size(), 1u) << holder << ": only the Lease was read";
  }
}

TEST(AskTest, TheSchedulersOwn404IsNotFound) {
  FakeKubeClient kc;
  kc.PushResponse("GET", kLeasePath, 200, R"({"spec":{"holderIdentity":"berth-0_ab"}})");
  kc.PushResponse("GET", LeaderPath("berth-0"), 404, kOwnNotFound);
  Answer a = AskThroughApiServer(kc, Defaults(), "shop", "web-1");
  EXPECT_EQ(a.kind, Answer::Kind::kNotFound);
  EXPECT_EQ(a.message, "berth has no diagnosis of pod shop/web-1");
}

TEST(AskTest, AStandbyNamesTheLeaderAndIsFollowedOnce) {
  FakeKubeClient kc;
  kc.PushResponse(
      "GET",
      "/api/v1/namespaces/berth-system/services/https:berth-metrics:https-metrics/proxy/debug/"
      "explain/shop/web-1",
      404,
      R"({"kind":"Status","status":"Failure","reason":"NotFound","code":404,
          "message":"this berth is not the leader; the leader is berth-1_cd"})");
  kc.PushResponse("GET", LeaderPath("berth-1"), 200, kDiagnosis);
  ExplainOptions o = Defaults();
  o.mode = Mode::kService;
  Answer a = AskThroughApiServer(kc, o, "shop", "web-1");
  ASSERT_EQ(a.kind, Answer::Kind::kFound) << a.message;
  EXPECT_EQ(a.source, "the scheduler berth-1_cd");
}

TEST(AskTest, WhatCountsAsUnreachable) {
  struct Case {
    int status;
    std::string body;
    std::string message;
  };
  const std::string url = "GET https://fake" + LeaderPath("berth-0");
  const std::vector<Case> cases = {
      // The API server's 404 for the pod (it carries details).
      {404,
       R"({"kind":"Status","status":"Failure","reason":"NotFound","code":404,
           "message":"pods \"berth-0\" not found","details":{"name":"berth-0","kind":"pods"}})",
       url + ": HTTP 404: pods \"berth-0\" not found"},
      // A berth without the endpoint.
      {404, "404 page not found\n",
       url + ": HTTP 404: 404 page not found (a berth without /debug/explain?)"},
      {503, R"({"kind":"Status","code":503,"message":"error trying to reach service: dial tcp"})",
       url + ": HTTP 503: error trying to reach service: dial tcp"},
      {403, R"({"kind":"Status","code":403,"message":"forbidden: User \"system:anonymous\""})",
       url + ": HTTP 403: forbidden: User \"system:anonymous\""},
  };
  for (const auto& c : cases) {
    FakeKubeClient kc;
    kc.PushResponse("GET", kLeasePath, 200, R"({"spec":{"holderIdentity":"berth-0_ab"}})");
    kc.PushResponse("GET", LeaderPath("berth-0"), c.status, c.body);
    Answer a = AskThroughApiServer(kc, Defaults(), "shop", "web-1");
    EXPECT_EQ(a.kind, Answer::Kind::kUnreachable) << c.status;
    EXPECT_EQ(a.message, c.message);
  }
  FakeKubeClient refused;
  refused.PushError("GET", "/debug/explain/shop/web-1",
                    "GET https://10.0.0.1:10259/debug/explain/shop/web-1: connection refused");
  Answer a = Fetch(refused, "/debug/explain/shop/web-1", "the scheduler https://10.0.0.1:10259");
  EXPECT_EQ(a.kind, Answer::Kind::kUnreachable);
  EXPECT_EQ(a.message, "GET https://10.0.0.1:10259/debug/explain/shop/web-1: connection refused");
  FakeKubeClient no_lease;
  no_lease.PushResponse("GET", kLeasePath, 404, R"({"kind":"Status","code":404})");
  Answer n = AskThroughApiServer(no_lease, Defaults(), "shop", "web-1");
  EXPECT_EQ(n.kind, Answer::Kind::kUnreachable);
  EXPECT_EQ(n.message,
            "lease berth-system/berth-scheduler not found; set --lease-namespace, --lease-name");
}

TEST(AskTest, AnAnswerThatIsNoDiagnosisIsInvalid) {
  FakeKubeClient kc;
  kc.PushResponse("GET", "/debug/explain/shop/web-1", 200, R"({"status":"Unschedulable"})");
  Answer a = Fetch(kc, "/debug/explain/shop/web-1", "x");
  EXPECT_EQ(a.kind, Answer::Kind::kInvalid);
  EXPECT_EQ(a.message, "GET https://fake/debug/explain/shop/web-1: diagnosis: pod is required");
}

}  // namespace
}  // namespace berth::explain
