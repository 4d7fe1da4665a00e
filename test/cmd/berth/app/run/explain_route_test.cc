#include "cmd/berth/app/run/explain_route.h"

#include <gtest/gtest.h>

namespace berth::run {
namespace {

diagnosis::Record Failure(const std::string& key) {
  diagnosis::Record r;
  r.pod = key;
  r.uid = "u";
  r.status = "Unschedulable";
  r.message = "0/1 nodes are available: 1 Insufficient cpu.";
  r.filter.push_back({"n1", "NodeResourcesFit", "Insufficient cpu"});
  return r;
}

const ExplainRouteState kLeader{true, "berth-0_1234"};

TEST(ExplainRouteTest, TheLeaderAnswersWithThePodsDiagnosis) {
  diagnosis::Store store;
  store.RecordFailure(Failure("shop/web-1"));
  auto reply = ExplainRoute("GET", "/debug/explain/shop/web-1", store, kLeader);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->content_type, "application/json");
  EXPECT_NE(reply->body.find(R"("filter":{"n1":"Insufficient cpu"})"), std::string::npos)
      << reply->body;
  EXPECT_NE(reply->body.find(R"("pod":"shop/web-1")"), std::string::npos);
}

TEST(ExplainRouteTest, UnknownPodIs404WithAStatus) {
  diagnosis::Store store;
  auto reply = ExplainRoute("GET", "/debug/explain/shop/web-2", store, kLeader);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->status, 404);
  EXPECT_EQ(reply->body,
            R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"berth has no )"
            R"(diagnosis of pod shop/web-2: it was not attempted yet, was placed, or is gone",)"
            R"("reason":"NotFound","code":404})"
            "\n");
}

TEST(ExplainRouteTest, AStandbyNamesTheLeader) {
  diagnosis::Store store;
  store.RecordFailure(Failure("shop/web-1"));  // left from when it led
  auto reply = ExplainRoute("GET", "/debug/explain/shop/web-1", store, {false, "berth-1_abcd"});
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->status, 404);
  EXPECT_NE(reply->body.find("this berth is not the leader and has no diagnoses; the leader is "
                             "berth-1_abcd"),
            std::string::npos)
      << reply->body;
}

TEST(ExplainRouteTest, MethodsAndPaths) {
  diagnosis::Store store;
  store.RecordFailure(Failure("shop/web-1"));
  EXPECT_FALSE(ExplainRoute("GET", "/metrics", store, kLeader).has_value());
  auto post = ExplainRoute("POST", "/debug/explain/shop/web-1", store, kLeader);
  ASSERT_TRUE(post.has_value());
  EXPECT_EQ(post->status, 405);
  for (const char* bad : {"/debug/explain/shop", "/debug/explain/shop/", "/debug/explain//web",
                          "/debug/explain/a/b/c"}) {
    auto reply = ExplainRoute("GET", bad, store, kLeader);
    ASSERT_TRUE(reply.has_value()) << bad;
    EXPECT_EQ(reply->status, 404) << bad;
    EXPECT_NE(reply->body.find("expected /debug/explain/<namespace>/<pod>"), std::string::npos);
  }
  auto query = ExplainRoute("GET", "/debug/explain/shop/web-1?pretty=1", store, kLeader);
  ASSERT_TRUE(query.has_value());
  EXPECT_EQ(query->status, 200);
}

}  // namespace
}  // namespace berth::run
