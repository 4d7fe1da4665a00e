#include "cmd/berth/app/serving/delegated_auth.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "api/json/parse.h"
#include "test/testing/fake_kube_client.h"

namespace berth::serving {
namespace {

using testing::FakeKubeClient;
using Clock = std::chrono::steady_clock;

constexpr char kTokenReviews[] = "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr char kAccessReviews[] = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

RequestCredentials Get(const std::string& path, const std::string& token = "") {
  RequestCredentials r;
  r.method = "GET";
  r.target = path;
  r.path = path.substr(0, path.find('?'));
  if (!token.empty()) r.headers.emplace_back("authorization", "Bearer " + token);
  return r;
}

// An API server that knows token "good" (user "alice", group "readers") and lets group
// "readers" get /metrics. Counts reviews; `down` makes every call fail.
class FakeApiServer {
 public:
  FakeApiServer() {
    kc.SetHandler([this](const client::Request& req) -> std::optional<Result<client::Response>> {
      if (down) return Result<client::Response>(Error{"connection refused"});
      auto body = api::json::ParseJson(req.body);
      if (!body.ok()) return Result<client::Response>(client::Response{400, "bad json", {}});
      const api::Value* spec = body->Find("spec");
      if (req.path == kTokenReviews) {
        const std::string token = spec->Find("token")->AsString();
        if (token == "good") {
          return Ok201(R"({"status":{"authenticated":true,"user":{"username":"alice",)"
                       R"("uid":"u1","groups":["readers"],"extra":{"k":["v"]}}}})");
        }
        if (token == "admin") {
          return Ok201(R"({"status":{"authenticated":true,"user":{"username":"root",)"
                       R"("groups":["system:masters"]}}})");
        }
        return Ok201(R"({"status":{"authenticated":false,"error":"token unknown"}})");
      }
      if (req.path == kAccessReviews) {
        last_sar = req.body;
        bool reader = false;
        for (const auto& g : spec->Find("groups")->AsArray()) reader |= g.AsString() == "readers";
        const api::Value* attrs = spec->Find("nonResourceAttributes");
        bool ok = reader && attrs->Find("path")->AsString() == "/metrics" &&
                  attrs->Find("verb")->AsString() == "get";
        return Ok201(ok ? R"({"status":{"allowed":true}})"
                        : R"({"status":{"allowed":false,"reason":"no RBAC policy matched"}})");
      }
      return std::nullopt;
    });
  }
  static Result<client::Response> Ok201(std::string body) {
    return client::Response{201, std::move(body), {}};
  }
  int Calls(const std::string& path) const {
    int n = 0;
    for (const auto& r : kc.Requests()) n += r.request.path == path;
    return n;
  }

  FakeKubeClient kc;
  std::atomic<bool> down{false};
  std::string last_sar;
};

class DelegatedAuthTest : public ::testing::Test {
 protected:
  std::unique_ptr<DelegatedAuth> Make(DelegatedAuthConfig cfg = {}) {
    cfg.authn_client = &api_.kc;
    cfg.authz_client = &api_.kc;
    cfg.now = [this] { return now_; };
    auto a = DelegatedAuth::Create(std::move(cfg));
    EXPECT_TRUE(a.ok()) << a.error();
    return std::move(*a);
  }

  FakeApiServer api_;
  Clock::time_point now_ = Clock::now();
};

TEST(DelegatedAuthReplies, BodiesAreUpstreams) {
  HttpReply u = UnauthorizedReply();
  EXPECT_EQ(u.status, 401);
  EXPECT_EQ(u.content_type, "application/json");
  EXPECT_EQ(u.body,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n");
  HttpReply f = ForbiddenReply("system:anonymous", "get", "/metrics", "");
  EXPECT_EQ(f.status, 403);
  EXPECT_EQ(f.body,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"forbidden: User \\\"system:anonymous\\\" cannot get path "
            "\\\"/metrics\\\"\",\"reason\":\"Forbidden\",\"details\":{},\"code\":403}\n");
  EXPECT_NE(ForbiddenReply("a", "get", "/x<y>", "because")
                .body.find("cannot get path \\\"/x&lt;y&gt;\\\": because"),
            std::string::npos);
  HttpReply e = InternalErrorReply("/metrics?a=1", "SubjectAccessReview: connection refused");
  EXPECT_EQ(e.status, 500);
  EXPECT_EQ(e.body,
            "Internal Server Error: \"/metrics?a=1\": SubjectAccessReview: connection refused\n");
}

TEST_F(DelegatedAuthTest, AnonymousGetsTheAlwaysAllowPathsOnly) {
  auto auth = Make();
  for (const char* p : {"/healthz", "/readyz", "/livez", "/healthz?verbose"}) {
    EXPECT_EQ(auth->Decide(Get(p)), std::nullopt) << p;
  }
  auto r = auth->Decide(Get("/metrics"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("User \\\"system:anonymous\\\" cannot get path \\\"/metrics\\\": no RBAC "
                         "policy matched"),
            std::string::npos)
      << r->body;
  auto sar = api::json::ParseJson(api_.last_sar);
  ASSERT_TRUE(sar.ok());
  EXPECT_EQ(api::json::ToJson(*sar->Find("spec")),
            R"({"nonResourceAttributes":{"path":"/metrics","verb":"get"},)"
            R"("user":"system:anonymous","groups":["system:unauthenticated"]})");
  EXPECT_EQ(api_.Calls(kTokenReviews), 0);
}

TEST_F(DelegatedAuthTest, TokenThenAccessReviewAndBothCached) {
  auto auth = Make();
  EXPECT_EQ(auth->Decide(Get("/metrics", "good")), std::nullopt);
  auto spec = api::json::ParseJson(api_.last_sar);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(api::json::ToJson(*spec->Find("spec")),
            R"({"nonResourceAttributes":{"path":"/metrics","verb":"get"},"user":"alice",)"
            R"("groups":["readers","system:authenticated"],"extra":{"k":["v"]},"uid":"u1"})");
  EXPECT_EQ(auth->Decide(Get("/metrics", "good")), std::nullopt);
  EXPECT_EQ(api_.Calls(kTokenReviews), 1);
  EXPECT_EQ(api_.Calls(kAccessReviews), 1);
  // Another path: the token is cached, the access is not.
  auto r = auth->Decide(Get("/configz", "good"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("User \\\"alice\\\" cannot get path \\\"/configz\\\""), std::string::npos);
  EXPECT_EQ(api_.Calls(kTokenReviews), 1);
  EXPECT_EQ(api_.Calls(kAccessReviews), 2);
  // HEAD is verb "head", as upstream's RequestInfo for non-resource requests.
  auto head = Get("/metrics", "good");
  head.method = "HEAD";
  EXPECT_TRUE(auth->Decide(head));
  EXPECT_NE(api_.last_sar.find(R"("verb":"head")"), std::string::npos);
}

TEST_F(DelegatedAuthTest, CachesExpireAfterTheirTtl) {
  DelegatedAuthConfig cfg;
  cfg.token_ttl = std::chrono::seconds(10);
  cfg.allow_ttl = std::chrono::seconds(10);
  cfg.deny_ttl = std::chrono::seconds(5);
  auto auth = Make(cfg);
  EXPECT_EQ(auth->Decide(Get("/metrics", "good")), std::nullopt);
  EXPECT_TRUE(auth->Decide(Get("/configz", "good")));  // denied
  now_ += std::chrono::seconds(6);
  EXPECT_EQ(auth->Decide(Get("/metrics", "good")), std::nullopt);
  EXPECT_TRUE(auth->Decide(Get("/configz", "good")));
  EXPECT_EQ(api_.Calls(kTokenReviews), 1);
  EXPECT_EQ(api_.Calls(kAccessReviews), 3);  // the deny expired, the allow did not
  now_ += std::chrono::seconds(5);
  EXPECT_EQ(auth->Decide(Get("/metrics", "good")), std::nullopt);
  EXPECT_EQ(api_.Calls(kTokenReviews), 2);
  EXPECT_EQ(api_.Calls(kAccessReviews), 4);
}

// A storm of made-up long tokens (anyone who reaches the port can send them, no credentials
// needed) keeps the token cache within its byte budget, and the tokens themselves are not kept:
// an entry costs its 32-byte HMAC key and the answer, not the 64 KB token.
TEST_F(DelegatedAuthTest, ManyLongBogusTokensStayWithinTheTokenCacheBudget) {
  DelegatedAuthConfig cfg;
  cfg.token_cache_bytes = 64 * 1024;
  auto auth = Make(cfg);
  const std::string filler(64 * 1024 - 16, 'x');
  for (int i = 0; i < 200; ++i) {
    const std::string token = std::to_string(i) + filler;
    auto r = auth->Decide(Get("/metrics", token));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401);
    ASSERT_LE(auth->token_cache().bytes, cfg.token_cache_bytes) << i;
  }
  EXPECT_EQ(api_.Calls(kTokenReviews), 200);
  // Entries of a few hundred bytes: the budget holds many of them...
  EXPECT_GT(auth->token_cache().entries, 50u);
  // ... and the most recent refusal is still served from the cache.
  auto again = auth->Decide(Get("/metrics", "199" + filler));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 401);
  EXPECT_EQ(api_.Calls(kTokenReviews), 200);
}

TEST_F(DelegatedAuthTest, ALongTokenIsCachedUnderItsHashNotItself) {
  auto auth = Make();
  const std::string token(64 * 1024, 'y');
  EXPECT_EQ(auth->Decide(Get("/healthz", token))->status, 401);
  EXPECT_EQ(auth->token_cache().entries, 1u);
  // The key (32 bytes), the refusal's text and the fixed overhead; far less than the token.
  EXPECT_LT(auth->token_cache().bytes, 1024u);
  // Served from the cache the second time: the same answer without a second review.
  EXPECT_EQ(auth->Decide(Get("/healthz", token))->status, 401);
  EXPECT_EQ(api_.Calls(kTokenReviews), 1);
}

TEST_F(DelegatedAuthTest, RefusedTokensExpireAfterTheTokenTtl) {
  DelegatedAuthConfig cfg;
  cfg.token_ttl = std::chrono::seconds(10);
  auto auth = Make(cfg);
  EXPECT_EQ(auth->Decide(Get("/healthz", "bogus"))->status, 401);
  now_ += std::chrono::seconds(9);
  EXPECT_EQ(auth->Decide(Get("/healthz", "bogus"))->status, 401);
  EXPECT_EQ(api_.Calls(kTokenReviews), 1);
  now_ += std::chrono::seconds(1);
  EXPECT_EQ(auth->Decide(Get("/healthz", "bogus"))->status, 401);
  EXPECT_EQ(api_.Calls(kTokenReviews), 2);
  // A TTL of 0 caches nothing, as upstream's.
  DelegatedAuthConfig none;
  none.token_ttl = std::chrono::milliseconds(0);
  auto uncached = Make(none);
  EXPECT_EQ(uncached->Decide(Get("/metrics", "good")), std::nullopt);
  EXPECT_EQ(uncached->Decide(Get("/metrics", "good")), std::nullopt);
  EXPECT_EQ(uncached->token_cache().entries, 0u);
  EXPECT_EQ(api_.Calls(kTokenReviews), 4);
}

// Anonymous requests for made-up paths each need a SubjectAccessReview; their answers stay
// within the access cache's budget, and paths of upstream's 10,000-byte limit are not cached.
TEST_F(DelegatedAuthTest, ManyLongPathsStayWithinTheAccessCacheBudget) {
  DelegatedAuthConfig cfg;
  cfg.access_cache_bytes = 64 * 1024;
  auto auth = Make(cfg);
  const std::string filler(9000, 'p');
  for (int i = 0; i < 100; ++i) {
    auto r = auth->Decide(Get("/" + std::to_string(i) + filler));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403);
    ASSERT_LE(auth->access_cache().bytes, cfg.access_cache_bytes) << i;
  }
  EXPECT_GT(auth->access_cache().entries, 2u);
  EXPECT_EQ(api_.Calls(kAccessReviews), 100);
  EXPECT_TRUE(auth->Decide(Get("/99" + filler)));  // the latest is cached
  EXPECT_EQ(api_.Calls(kAccessReviews), 100);
  const std::string too_long = "/" + std::string(10000, 'q');
  EXPECT_EQ(auth->Decide(Get(too_long))->status, 403);
  EXPECT_EQ(auth->Decide(Get(too_long))->status, 403);
  EXPECT_EQ(api_.Calls(kAccessReviews), 102);
}

TEST_F(DelegatedAuthTest, BadTokenIs401EvenOnAlwaysAllowedPathsAndTheRefusalIsCached) {
  auto auth = Make();
  for (const char* p : {"/metrics", "/healthz"}) {
    auto r = auth->Decide(Get(p, "bad"));
    ASSERT_TRUE(r) << p;
    EXPECT_EQ(r->status, 401) << p;
    EXPECT_EQ(r->body, UnauthorizedReply().body);
  }
  EXPECT_EQ(api_.Calls(kTokenReviews), 1);
  // Not a bearer scheme: anonymous.
  RequestCredentials basic = Get("/healthz");
  basic.headers.emplace_back("authorization", "Basic Zm9vOmJhcg==");
  EXPECT_EQ(auth->Decide(basic), std::nullopt);
}

TEST_F(DelegatedAuthTest, SystemMastersNeedNoAccessReview) {
  auto auth = Make();
  EXPECT_EQ(auth->Decide(Get("/configz", "admin")), std::nullopt);
  EXPECT_EQ(api_.Calls(kAccessReviews), 0);
}

TEST_F(DelegatedAuthTest, FailsClosedWhenTheApiServerIsDown) {
  auto auth = Make();
  EXPECT_EQ(auth->Decide(Get("/metrics", "good")), std::nullopt);  // cached now
  api_.down = true;
  // A new token cannot be reviewed: 401; the error is not cached.
  auto r = auth->Decide(Get("/metrics", "other"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  // A cached token still works while its answers are cached...
  EXPECT_EQ(auth->Decide(Get("/metrics", "good")), std::nullopt);
  // ... and anonymous on a path that needs a review is a 500, never allowed.
  r = auth->Decide(Get("/metrics"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r->body.rfind("Internal Server Error: \"/metrics\": SubjectAccessReview: ", 0), 0u)
      << r->body;
  api_.down = false;
  EXPECT_EQ(auth->Decide(Get("/metrics", "other"))->status, 401);  // reviewed: unknown token
}

TEST_F(DelegatedAuthTest, AlwaysAllowPathsPatterns) {
  DelegatedAuthConfig cfg;
  cfg.always_allow_paths = {"healthz", "/debug/*"};
  auto auth = Make(cfg);
  EXPECT_EQ(auth->Decide(Get("/healthz")), std::nullopt);
  EXPECT_EQ(auth->Decide(Get("/debug/pprof/heap")), std::nullopt);
  EXPECT_TRUE(auth->Decide(Get("/readyz")));
  DelegatedAuthConfig bad;
  bad.always_allow_paths = {"/a*b"};
  auto err = DelegatedAuth::Create(bad);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error(), "always-allow path \"a*b\": only a trailing * is allowed");
}

TEST_F(DelegatedAuthTest, WithoutClientsTokensAreIgnoredAndOnlyAlwaysAllowRulesAllow) {
  DelegatedAuthConfig cfg;
  auto a = DelegatedAuth::Create(cfg);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ((*a)->Decide(Get("/healthz", "whatever")), std::nullopt);
  auto r = (*a)->Decide(Get("/metrics", "whatever"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("system:anonymous"), std::string::npos);
}

TEST_F(DelegatedAuthTest, AuthorizeAnswersCachedRequestsAtOnceAndOthersFromAWorker) {
  auto auth = Make();
  auto wait_for = [&](RequestCredentials req) {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<std::optional<HttpReply>> got;
    std::thread::id where;
    auth->Authorize(std::move(req), [&](std::optional<HttpReply> r) {
      std::lock_guard lock(mu);
      got = std::move(r);
      where = std::this_thread::get_id();
      cv.notify_all();
    });
    std::unique_lock lock(mu);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return got.has_value(); });
    EXPECT_TRUE(got.has_value());
    return std::make_pair(got.value_or(std::nullopt), where == std::this_thread::get_id());
  };
  auto [first, first_inline] = wait_for(Get("/metrics", "good"));
  EXPECT_EQ(first, std::nullopt);
  EXPECT_FALSE(first_inline);
  auto [second, second_inline] = wait_for(Get("/metrics", "good"));
  EXPECT_EQ(second, std::nullopt);
  EXPECT_TRUE(second_inline);
  auto [health, health_inline] = wait_for(Get("/healthz"));
  EXPECT_EQ(health, std::nullopt);
  EXPECT_TRUE(health_inline);
}

}  // namespace
}  // namespace berth::serving
