// BeastClient against a scripted local HTTP server: retries, keep-alive, chunked bodies, streams.
// The TLS paths are covered by beast_client_integration_test.cc against the real API server.
#include "informers/client/beast_client.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "test/informers/client/fake_http_server.h"
#include "test/informers/client/temp_dir.h"

namespace berth::client {
namespace {

using std::chrono::milliseconds;
using testing::Chunk;
using testing::FakeHttpServer;
using testing::RawResponse;
using testing::Reply;

ClientOptions FastRetries() {
  ClientOptions o;
  o.initial_backoff = milliseconds(1);
  o.max_backoff = milliseconds(4);
  return o;
}

BeastClient MakeClient(const FakeHttpServer& server, ClientOptions opts = FastRetries()) {
  ClientConfig cfg;
  cfg.server = server.url();
  cfg.token = "tok";
  return BeastClient(cfg, 0, 0, std::move(opts));
}

Request Get(const std::string& path) {
  Request r;
  r.path = path;
  return r;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

TEST(BeastClientTest, SendsHeadersAndReadsResponse) {
  FakeHttpServer server([](const std::string&, int) {
    return Reply{{RawResponse(201, "{\"ok\":true}", "X-Thing: a\r\n")}};
  });
  auto client = MakeClient(server);
  Request req;
  req.method = "POST";
  req.path = "/api/v1/nodes?x=1";
  req.body = "{\"kind\":\"Node\"}";
  req.headers["X-Extra"] = "e";
  auto res = client.Do(req);
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->status, 201);
  EXPECT_EQ(res->body, "{\"ok\":true}");
  EXPECT_EQ(res->headers["x-thing"], "a");
  ASSERT_EQ(server.requests().size(), 1u);
  const std::string sent = server.requests()[0];
  EXPECT_EQ(sent.rfind("POST /api/v1/nodes?x=1 HTTP/1.1\r\n", 0), 0u) << sent;
  for (const char* h : {"Authorization: Bearer tok\r\n", "User-Agent: berth/0.1\r\n",
                        "Content-Type: application/json\r\n", "Accept: application/json\r\n",
                        "X-Extra: e\r\n", "Content-Length: 15\r\n"}) {
    EXPECT_NE(sent.find(h), std::string::npos) << h << " missing in " << sent;
  }
  EXPECT_NE(sent.find("Host: 127.0.0.1:"), std::string::npos);
  EXPECT_EQ(sent.substr(sent.size() - 15), "{\"kind\":\"Node\"}");
}

TEST(BeastClientTest, ChunkedBody) {
  FakeHttpServer server([](const std::string&, int) {
    return Reply{
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + Chunk("hello ") + Chunk("world"),
         "0\r\n\r\n"},
        milliseconds(20)};
  });
  auto client = MakeClient(server);
  auto res = client.Do(Get("/x"));
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->body, "hello world");
  // And the connection is still usable.
  auto again = client.Do(Get("/x"));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(client.Stats().connections_opened, 1u);
}

TEST(BeastClientTest, BodyLargerThanBeastsDefaultLimit) {
  const std::string big(9 << 20, 'x');  // Beast's default response limit is 8 MiB
  FakeHttpServer server([&](const std::string&, int) { return Reply{{RawResponse(200, big)}}; });
  auto client = MakeClient(server);
  auto res = client.Do(Get("/api/v1/pods"));
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->body.size(), big.size());
}

// A list page announcing more than the client's bound (1 GiB by default) is refused from its
// Content-Length, not read, and not retried; the connection is dropped. (It was read, or waited
// for, whatever its size.)
TEST(BeastClientTest, BodyOverTheDefaultBoundIsRefusedUnreadAndNotRetried) {
  FakeHttpServer server([](const std::string&, int) {
    return Reply{
        {"HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\n\r\n{\"items\":["}, {}, false, true};
  });
  auto client = MakeClient(server);
  Request req = Get("/api/v1/pods?limit=500");
  req.timeout = std::chrono::seconds(20);
  const auto start = std::chrono::steady_clock::now();
  auto res = client.Do(req);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error(), "GET " + server.url() + "/api/v1/pods?limit=500: read response from " +
                             server.url().substr(7) + ": body larger than 1073741824 bytes");
  EXPECT_LT(Seconds(std::chrono::steady_clock::now() - start), 10.0);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(BeastClientTest, KeepAliveReusesOneConnection) {
  FakeHttpServer server(
      [](const std::string&, int i) { return Reply{{RawResponse(200, std::to_string(i))}}; });
  auto client = MakeClient(server);
  for (int i = 0; i < 20; ++i) {
    auto res = client.Do(Get("/x"));
    ASSERT_TRUE(res.ok()) << res.error();
    EXPECT_EQ(res->body, std::to_string(i));
  }
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(client.Stats().connections_opened, 1u);
  EXPECT_EQ(client.Stats().attempts, 20u);
}

TEST(BeastClientTest, ConnectionCloseIsNotReused) {
  FakeHttpServer server([](const std::string&, int) {
    return Reply{{RawResponse(200, "x", "Connection: close\r\n")}, {}, true};
  });
  auto client = MakeClient(server);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.Do(Get("/x")).ok());
  EXPECT_EQ(client.Stats().connections_opened, 3u);
  EXPECT_EQ(client.Stats().retries, 0u);
}

TEST(BeastClientTest, IdleConnectionClosedByServerIsReplacedTransparently) {
  // The server closes after each reply without saying so, as an idle timeout would.
  FakeHttpServer server([](const std::string&, int) {
    return Reply{{RawResponse(200, "x")}, {}, /*close=*/true};
  });
  auto client = MakeClient(server);
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(milliseconds(20));  // let the close arrive
    auto res = client.Do(Get("/x"));
    ASSERT_TRUE(res.ok()) << res.error();
    EXPECT_EQ(res->status, 200);
  }
  EXPECT_EQ(client.Stats().retries, 0u);
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(BeastClientTest, RetriesServerErrorsThenSucceeds) {
  FakeHttpServer server([](const std::string&, int i) {
    if (i < 2) return Reply{{RawResponse(i == 0 ? 503 : 500, "busy")}};
    return Reply{{RawResponse(200, "ok")}};
  });
  auto client = MakeClient(server);
  auto res = client.Do(Get("/x"));
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(client.Stats().retries, 2u);
}

TEST(BeastClientTest, ReturnsLastResponseWhenRetriesRunOut) {
  FakeHttpServer server([](const std::string&, int) { return Reply{{RawResponse(500, "no")}}; });
  ClientOptions o = FastRetries();
  o.max_retries = 2;
  auto client = MakeClient(server, o);
  auto res = client.Do(Get("/x"));
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->status, 500);
  EXPECT_EQ(res->body, "no");
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(BeastClientTest, NoRetryWhenRequestSaysSo) {
  FakeHttpServer server([](const std::string&, int) { return Reply{{RawResponse(503, "")}}; });
  auto client = MakeClient(server);
  Request req = Get("/x");
  req.retry = false;
  auto res = client.Do(req);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(BeastClientTest, ClientErrorsAreNotRetried) {
  FakeHttpServer server([](const std::string&, int) { return Reply{{RawResponse(409, "c")}}; });
  auto client = MakeClient(server);
  auto res = client.Do(Get("/x"));
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 409);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(BeastClientTest, HonoursRetryAfter) {
  FakeHttpServer server([](const std::string&, int i) {
    if (i == 0) return Reply{{RawResponse(429, "slow down", "Retry-After: 1\r\n")}};
    return Reply{{RawResponse(200, "ok")}};
  });
  auto client = MakeClient(server);
  auto start = std::chrono::steady_clock::now();
  auto res = client.Do(Get("/x"));
  double elapsed = Seconds(std::chrono::steady_clock::now() - start);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 200);
  EXPECT_GE(elapsed, 0.95);
  EXPECT_LT(elapsed, 3.0);
}

TEST(BeastClientTest, CapsRetryAfter) {
  FakeHttpServer server([](const std::string&, int i) {
    if (i == 0) return Reply{{RawResponse(503, "", "Retry-After: 3600\r\n")}};
    return Reply{{RawResponse(200, "ok")}};
  });
  ClientOptions o = FastRetries();
  o.max_retry_after = milliseconds(50);
  auto client = MakeClient(server, o);
  auto start = std::chrono::steady_clock::now();
  auto res = client.Do(Get("/x"));
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 200);
  EXPECT_LT(Seconds(std::chrono::steady_clock::now() - start), 2.0);
}

TEST(BeastClientTest, ConnectionRefusedIsAnErrorAfterRetries) {
  int port;
  {
    FakeHttpServer closed([](const std::string&, int) { return Reply{}; });
    port = std::stoi(closed.url().substr(closed.url().rfind(':') + 1));
  }
  ClientConfig cfg;
  cfg.server = "http://127.0.0.1:" + std::to_string(port);
  ClientOptions o = FastRetries();
  o.max_retries = 2;
  BeastClient client(cfg, 0, 0, o);
  auto res = client.Do(Get("/api"));
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error(), "GET " + cfg.server + "/api: connect 127.0.0.1:" + std::to_string(port) +
                             ": Connection refused (after 3 attempts)");
  EXPECT_EQ(client.Stats().retries, 2u);
}

TEST(BeastClientTest, TimeoutWhenServerSendsNothing) {
  FakeHttpServer server([](const std::string&, int) { return Reply{{}, {}, false, true}; });
  auto client = MakeClient(server);
  Request req = Get("/slow");
  req.timeout = milliseconds(200);
  req.retry = false;
  auto start = std::chrono::steady_clock::now();
  auto res = client.Do(req);
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.error().find("timed out"), std::string::npos) << res.error();
  EXPECT_LT(Seconds(std::chrono::steady_clock::now() - start), 1.5);
}

// A server that accepts and never answers: each attempt times out and is retried, so without a
// deadline Do took 6 attempts × the attempt timeout (6 × 30 s by default, 6-7 minutes for
// `berth simulate --kubeconfig`). ClientOptions::deadline bounds the whole call.
TEST(BeastClientTest, DeadlineBoundsEveryAttemptAndRetryTogether) {
  FakeHttpServer server([](const std::string&, int) { return Reply{{}, {}, false, true}; });
  ClientOptions o = FastRetries();
  o.deadline = std::chrono::steady_clock::now() + milliseconds(1500);
  o.deadline_source = "--request-timeout 1.5s";
  auto client = MakeClient(server, o);
  Request req = Get("/api/v1/pods?limit=500");
  req.timeout = std::chrono::seconds(30);  // per attempt, as the lister asks
  const auto start = std::chrono::steady_clock::now();
  auto res = client.Do(req);
  const double took = Seconds(std::chrono::steady_clock::now() - start);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.code(), ErrorCode::kUnavailable);
  EXPECT_EQ(res.error(), "GET " + server.url() + "/api/v1/pods?limit=500: read response from " +
                             server.url().substr(7) +
                             ": timed out; deadline passed (--request-timeout 1.5s)");
  EXPECT_GE(took, 1.3);
  EXPECT_LT(took, 15.0);  // one attempt's own timeout is 30 s
  // Past the deadline, no attempt is made at all.
  const int before = server.connections();
  auto again = client.Do(req);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().find("deadline passed (--request-timeout 1.5s)"), std::string::npos)
      << again.error();
  EXPECT_EQ(server.connections(), before);
}

TEST(BeastClientTest, DeadlineStopsRetriesOfServerErrors) {
  FakeHttpServer server([](const std::string&, int) {
    return Reply{{RawResponse(503, "busy", "Retry-After: 5\r\n")}};
  });
  ClientOptions o = FastRetries();
  o.deadline = std::chrono::steady_clock::now() + milliseconds(1000);
  auto client = MakeClient(server, o);
  const auto start = std::chrono::steady_clock::now();
  auto res = client.Do(Get("/api"));
  // The retry would start after the deadline: the last answer is the answer.
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->status, 503);
  EXPECT_LT(Seconds(std::chrono::steady_clock::now() - start), 4.0);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(BeastClientTest, RateLimited) {
  FakeHttpServer server([](const std::string&, int) { return Reply{{RawResponse(200, "")}}; });
  ClientConfig cfg;
  cfg.server = server.url();
  BeastClient client(cfg, /*qps=*/20, /*burst=*/2);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(client.Do(Get("/x")).ok());
  // 2 from the burst, then 4 × 50 ms. The limiter waited for some of it (all of it on an idle
  // machine; on a loaded one slow requests use up part of the 50 ms themselves).
  EXPECT_GE(Seconds(std::chrono::steady_clock::now() - start), 0.18);
  EXPECT_GT(client.Stats().rate_limit_wait, milliseconds(0));
}

TEST(BeastClientTest, TokenFileRotation) {
  testing::TempDir dir;
  std::string file = dir.Write("token", "one\n");
  FakeHttpServer server([](const std::string&, int) { return Reply{{RawResponse(200, "")}}; });
  ClientConfig cfg;
  cfg.server = server.url();
  cfg.token = "static";
  cfg.token_file = file;
  BeastClient client(cfg, 0, 0);
  ASSERT_TRUE(client.Do(Get("/a")).ok());
  dir.Write("token", "two\n");
  std::filesystem::last_write_time(
      file, std::filesystem::last_write_time(file) + std::chrono::seconds(5));
  ASSERT_TRUE(client.Do(Get("/b")).ok());
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_NE(reqs[0].find("Authorization: Bearer one\r\n"), std::string::npos) << reqs[0];
  EXPECT_NE(reqs[1].find("Authorization: Bearer two\r\n"), std::string::npos) << reqs[1];
}

TEST(BeastClientTest, InvalidConfigFailsEveryCall) {
  ClientConfig cfg;
  cfg.server = "ftp://x";
  BeastClient client(cfg, 0, 0);
  ASSERT_FALSE(client.InitStatus().ok());
  auto res = client.Do(Get("/api"));
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error(),
            "GET ftp://x/api: invalid server URL \"ftp://x\": want https://host[:port]");
  std::atomic<bool> stop{false};
  std::string body;
  auto s = client.Stream(
      Get("/api"), [](std::string_view) { return true; }, &stop, &body);
  ASSERT_FALSE(s.ok());

  ClientConfig bad_ca;
  bad_ca.server = "https://127.0.0.1:1";
  bad_ca.ca_pem = "junk";
  auto c2 = NewBeastClient(bad_ca, 0, 0);
  auto r2 = c2->Do(Get("/api"));
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().find("certificate-authority"), std::string::npos) << r2.error();
}

// --- Stream ---

std::string ChunkedHead() { return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"; }

TEST(BeastClientStreamTest, LinesSplitAcrossChunks) {
  FakeHttpServer server([](const std::string&, int) {
    return Reply{{ChunkedHead() + Chunk("{\"a\":1}\n{\"b\""), Chunk(":2}\r\n"),
                  Chunk("{\"c\":3}\n\n") + Chunk("{\"d\":4}"), "0\r\n\r\n"},
                 milliseconds(30)};
  });
  auto client = MakeClient(server);
  std::vector<std::string> lines;
  std::atomic<bool> stop{false};
  std::string error_body;
  auto res = client.Stream(
      Get("/w?watch=true"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      &stop, &error_body);
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(*res, 200);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}", "{\"d\":4}"}));
}

TEST(BeastClientStreamTest, EachLineArrivesWithoutWaitingForMore) {
  std::atomic<bool> stop{false};
  FakeHttpServer server([](const std::string&, int) {
    return Reply{{ChunkedHead() + Chunk("{\"first\":1}\n")}, {}, false, /*hang=*/true};
  });
  auto client = MakeClient(server);
  std::vector<std::string> lines;
  std::string error_body;
  auto start = std::chrono::steady_clock::now();
  auto res = client.Stream(
      Get("/w"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        stop = true;  // seen: end the stream
        return true;
      },
      &stop, &error_body);
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(*res, 200);
  EXPECT_EQ(lines, std::vector<std::string>{"{\"first\":1}"});
  EXPECT_LT(Seconds(std::chrono::steady_clock::now() - start), 1.0);
}

TEST(BeastClientStreamTest, StopEndsAnIdleStream) {
  FakeHttpServer server([](const std::string&, int) {
    return Reply{{ChunkedHead()}, {}, false, /*hang=*/true};
  });
  auto client = MakeClient(server);
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(300));
    stop = true;
  });
  auto start = std::chrono::steady_clock::now();
  std::string error_body;
  auto res = client.Stream(
      Get("/w"), [](std::string_view) { return true; }, &stop, &error_body);
  double elapsed = Seconds(std::chrono::steady_clock::now() - start);
  stopper.join();
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(*res, 200);
  EXPECT_GE(elapsed, 0.25);
  EXPECT_LT(elapsed, 1.5);
}

TEST(BeastClientStreamTest, OnLineFalseEndsTheStream) {
  FakeHttpServer server([](const std::string&, int) {
    return Reply{{ChunkedHead() + Chunk("1\n2\n3\n")}, {}, false, true};
  });
  auto client = MakeClient(server);
  std::atomic<bool> stop{false};
  std::vector<std::string> lines;
  std::string error_body;
  auto res = client.Stream(
      Get("/w"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        return lines.size() < 2;
      },
      &stop, &error_body);
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(*res, 200);
  EXPECT_EQ(lines, (std::vector<std::string>{"1", "2"}));
}

TEST(BeastClientStreamTest, Non200ReturnsStatusAndBody) {
  const std::string status = R"({"kind":"Status","code":410,"reason":"Expired"})";
  FakeHttpServer server([&](const std::string&, int) { return Reply{{RawResponse(410, status)}}; });
  auto client = MakeClient(server);
  std::atomic<bool> stop{false};
  std::string error_body;
  int lines = 0;
  auto res = client.Stream(
      Get("/w"),
      [&](std::string_view) {
        ++lines;
        return true;
      },
      &stop, &error_body);
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(*res, 410);
  EXPECT_EQ(error_body, status);
  EXPECT_EQ(lines, 0);
}

TEST(BeastClientStreamTest, ServerCloseWithoutChunkedEndIsStillA200) {
  FakeHttpServer server([](const std::string&, int) {
    return Reply{{"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"x\":1}\n"}, {}, /*close=*/true};
  });
  auto client = MakeClient(server);
  std::atomic<bool> stop{false};
  std::vector<std::string> lines;
  std::string error_body;
  auto res = client.Stream(
      Get("/w"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      &stop, &error_body);
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(*res, 200);
  EXPECT_EQ(lines, std::vector<std::string>{"{\"x\":1}"});
}

// One event of 1 MiB sent in 4 KiB chunks arrives whole (the splitter is scanned once per byte:
// see watch_lines_test.cc and parse-bench's BM_WatchLineOneHugeEvent for the scaling).
TEST(BeastClientStreamTest, HugeEventInManyChunksArrivesWhole) {
  const std::string event = "{\"big\":\"" + std::string(1 << 20, 'x') + "\"}";
  FakeHttpServer server([&](const std::string&, int) {
    Reply reply{{ChunkedHead()}};
    for (size_t i = 0; i < event.size(); i += 4096)
      reply.parts.push_back(Chunk(event.substr(i, 4096)));
    reply.parts.push_back(Chunk("\n{\"next\":1}\n") + "0\r\n\r\n");
    return reply;
  });
  auto client = MakeClient(server);
  std::vector<std::string> lines;
  std::atomic<bool> stop{false};
  std::string error_body;
  auto res = client.Stream(
      Get("/w?watch=true"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      &stop, &error_body);
  ASSERT_TRUE(res.ok()) << res.error();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0] == event) << lines[0].size();
  EXPECT_EQ(lines[1], "{\"next\":1}");
}

// A watch line longer than max_watch_line ends the stream with an error naming the URL, before
// the rest of it is buffered (a hostile server's endless line cannot grow memory without bound).
TEST(BeastClientStreamTest, WatchLineOverTheLimitIsAnError) {
  FakeHttpServer server([](const std::string&, int) {
    Reply reply{{ChunkedHead() + Chunk("{\"small\":1}\n")}};
    for (int i = 0; i < 16; ++i) reply.parts.push_back(Chunk(std::string(256, 'x')));
    reply.parts.push_back(Chunk("\n") + "0\r\n\r\n");
    return reply;
  });
  auto opts = FastRetries();
  opts.max_watch_line = 1024;
  auto client = MakeClient(server, opts);
  std::vector<std::string> lines;
  std::atomic<bool> stop{false};
  std::string error_body;
  auto res = client.Stream(
      Get("/api/v1/pods?watch=true"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      &stop, &error_body);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error(), "GET " + server.url() +
                             "/api/v1/pods?watch=true: object to decode was longer than maximum "
                             "allowed size (1024 bytes on one watch line)");
  EXPECT_EQ(lines, std::vector<std::string>{"{\"small\":1}"});
  EXPECT_EQ(ClientOptions{}.max_watch_line, size_t{16} << 20);  // client-go's 16 MiB
}

TEST(BeastClientStreamTest, ConnectionRefusedIsAnError) {
  int port;
  {
    FakeHttpServer closed([](const std::string&, int) { return Reply{}; });
    port = std::stoi(closed.url().substr(closed.url().rfind(':') + 1));
  }
  ClientConfig cfg;
  cfg.server = "http://127.0.0.1:" + std::to_string(port);
  BeastClient client(cfg, 0, 0);
  std::atomic<bool> stop{false};
  std::string error_body;
  auto res = client.Stream(
      Get("/w"), [](std::string_view) { return true; }, &stop, &error_body);
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.error().find("Connection refused"), std::string::npos) << res.error();
}

}  // namespace
}  // namespace berth::client
