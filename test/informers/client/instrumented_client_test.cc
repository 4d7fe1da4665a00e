#include "informers/client/instrumented_client.h"

#include <gtest/gtest.h>

#include <vector>

namespace berth::client {
namespace {

class StubClient final : public KubeClient {
 public:
  Result<Response> Do(const Request&) override { return Response{201, "", {}}; }
  Result<int> Stream(const Request&, const std::function<bool(std::string_view)>&,
                     const std::atomic<bool>*, std::string*) override {
    return Error{"refused", ErrorCode::kUnavailable};
  }
  std::string Server() const override { return "https://stub"; }
};

TEST(InstrumentedClientTest, ResourceAndVerbLabels) {
  struct Case {
    std::string method, path, verb, resource;
  };
  const Case cases[] = {
      {"POST", "/api/v1/namespaces/ns/pods/p/binding", "POST", "pods/binding"},
      {"GET", "/api/v1/pods?limit=500", "LIST", "pods"},
      {"GET", "/api/v1/namespaces/ns/pods/p", "GET", "pods"},
      {"GET", "/apis/storage.k8s.io/v1/csinodes", "LIST", "csinodes"},
      {"PATCH", "/api/v1/namespaces/ns/pods/p/status", "PATCH", "pods/status"},
      {"GET", "/api", "GET", "unknown"},
  };
  for (const auto& c : cases) {
    Request req;
    req.method = c.method;
    req.path = c.path;
    EXPECT_EQ(InstrumentedClient::Verb(req), c.verb) << c.path;
    EXPECT_EQ(InstrumentedClient::Resource(c.path), c.resource) << c.path;
  }
}

TEST(InstrumentedClientTest, ReportsEveryRequest) {
  StubClient stub;
  std::vector<RequestRecord> seen;
  InstrumentedClient client(stub, [&](const RequestRecord& r) { seen.push_back(r); });
  Request post;
  post.method = "POST";
  post.path = "/api/v1/namespaces/ns/pods/p/binding";
  ASSERT_TRUE(client.Do(post).ok());
  Request watch;
  watch.path = "/api/v1/pods?watch=true";
  EXPECT_FALSE(client.Stream(watch, nullptr, nullptr, nullptr).ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].verb, "POST");
  EXPECT_EQ(seen[0].resource, "pods/binding");
  EXPECT_EQ(seen[0].code, 201);
  EXPECT_EQ(seen[1].verb, "WATCH");
  EXPECT_EQ(seen[1].resource, "pods");
  EXPECT_EQ(seen[1].code, 0);  // no response
  EXPECT_EQ(client.Server(), "https://stub");
}

}  // namespace
}  // namespace berth::client
