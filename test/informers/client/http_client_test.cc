// HttpClient's bound on a response body (HttpRequest::max_body_bytes, HttpClientOptions'
// default): a body over it is an error found without reading the body, and the connection is
// dropped.
#include "informers/client/http_client.h"

#include <gtest/gtest.h>

#include "test/informers/client/fake_http_server.h"

namespace berth::client {
namespace {

using std::chrono::milliseconds;
using testing::Chunk;
using testing::FakeHttpServer;
using testing::RawResponse;
using testing::Reply;

std::unique_ptr<HttpClient> Client(const FakeHttpServer& server, HttpClientOptions o = {}) {
  auto target = ParseTarget(server.url());
  EXPECT_TRUE(target.ok());
  auto c = HttpClient::Create(*target, ClientConfig{}, o);
  EXPECT_TRUE(c.ok());
  return std::move(*c);
}

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

HttpRequest Post(uint64_t max_body) {
  HttpRequest r;
  r.method = "POST";
  r.target = "/filter";
  r.body = "{}";
  r.max_body_bytes = max_body;
  return r;
}

// The server announces 50 MB and sends ten bytes of it, then waits: reading the body would wait
// for the deadline; the bound refuses it from the header.
TEST(HttpClientBodyLimitTest, AnnouncedBodyOverTheLimitIsRefusedUnread) {
  FakeHttpServer server([](const std::string&, int) {
    return Reply{
        {"HTTP/1.1 200 OK\r\nContent-Length: 52428800\r\n\r\n0123456789"}, {}, false, true};
  });
  auto client = Client(server);
  const auto start = std::chrono::steady_clock::now();
  auto res = client->RoundTrip(Post(1 << 20), start + std::chrono::seconds(20), true);
  ASSERT_TRUE(std::holds_alternative<HttpError>(res));
  const HttpError& err = std::get<HttpError>(res);
  EXPECT_TRUE(err.body_too_large);
  EXPECT_FALSE(err.retryable);
  EXPECT_EQ(err.message,
            "read response from " + server.url().substr(7) + ": body larger than 1048576 bytes");
  EXPECT_LT(Since(start), 10.0);  // not the 20 s deadline
  // The connection was dropped, not pooled: the next request opens another.
  auto again = client->RoundTrip(Post(1 << 20), start + std::chrono::seconds(20), true);
  EXPECT_TRUE(std::holds_alternative<HttpError>(again));
  EXPECT_EQ(client->connections_opened(), 2u);
}

// A chunked body that keeps coming is cut off as soon as it passes the bound.
TEST(HttpClientBodyLimitTest, ChunkedBodyIsCutOffAtTheLimit) {
  FakeHttpServer server([](const std::string&, int) {
    Reply r;
    r.parts.push_back("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 64; ++i) r.parts.push_back(Chunk(std::string(64 << 10, 'x')));
    r.hang = true;  // and never the last chunk
    return r;
  });
  auto client = Client(server);
  const auto start = std::chrono::steady_clock::now();
  auto res = client->RoundTrip(Post(1 << 20), start + std::chrono::seconds(20), true);
  ASSERT_TRUE(std::holds_alternative<HttpError>(res));
  EXPECT_TRUE(std::get<HttpError>(res).body_too_large) << std::get<HttpError>(res).message;
  EXPECT_LT(Since(start), 10.0);
}

TEST(HttpClientBodyLimitTest, TheClientsDefaultAppliesUnlessTheRequestSetsOne) {
  FakeHttpServer server(
      [](const std::string&, int) { return Reply{{RawResponse(200, std::string(300, 'x'))}}; });
  HttpClientOptions o;
  o.max_body_bytes = 299;
  auto client = Client(server, o);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto refused = client->RoundTrip(Post(0), deadline, true);
  ASSERT_TRUE(std::holds_alternative<HttpError>(refused));
  EXPECT_TRUE(std::get<HttpError>(refused).body_too_large);
  auto read = client->RoundTrip(Post(300), deadline, true);
  ASSERT_TRUE(std::holds_alternative<Response>(read)) << std::get<HttpError>(read).message;
  EXPECT_EQ(std::get<Response>(read).body.size(), 300u);
  EXPECT_EQ(HttpClientOptions{}.max_body_bytes, kDefaultMaxBodyBytes);
}

}  // namespace
}  // namespace berth::client
