// BeastClient against a real kube-apiserver + etcd started by test/cluster/up (TLS with the
// server's self-signed CA, static bearer token). Needs the binaries test/cluster/build.sh
// builds; when `up` fails, every test fails with its output.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "informers/client/beast_client.h"
#include "informers/client/config.h"
#include "test/informers/client/temp_dir.h"

#ifndef BERTH_SOURCE_DIR
#error "BERTH_SOURCE_DIR must point at the repository root"
#endif

namespace berth::client {
namespace {

using std::chrono::milliseconds;

// Runs a shell command; returns its exit status and combined output.
std::pair<int, std::string> RunShell(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

class ApiServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    auto [status, out] =
        RunShell(std::string(BERTH_SOURCE_DIR) + "/test/cluster/up " + dir_->path());
    if (status != 0) {
      up_error_ = "test/cluster/up failed (exit " + std::to_string(status) +
                  "); it needs Go and the module proxy to build kube-apiserver and etcd the first "
                  "time (see test/cluster/build.sh). Output:\n" +
                  out;
      return;
    }
    auto cfg = LoadKubeconfig(dir_->path() + "/kubeconfig");
    if (!cfg.ok()) {
      up_error_ = "kubeconfig written by test/cluster/up: " + cfg.error();
      return;
    }
    cfg_ = new ClientConfig(std::move(*cfg));
    // A CA that did not sign the server's certificate.
    auto [s2, out2] = RunShell(
        "openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=wrong-ca -days 1 "
        "-keyout " +
        dir_->path() + "/wrong.key -out " + dir_->path() + "/wrong.crt");
    if (s2 != 0) up_error_ = "openssl req failed: " + out2;
  }

  static void TearDownTestSuite() {
    if (dir_ != nullptr) {
      RunShell(std::string(BERTH_SOURCE_DIR) + "/test/cluster/down " + dir_->path());
      delete dir_;
      dir_ = nullptr;
    }
    delete cfg_;
    cfg_ = nullptr;
  }

  void SetUp() override {
    if (!up_error_.empty()) FAIL() << up_error_;
  }

  static ClientOptions FastRetries() {
    ClientOptions o;
    o.initial_backoff = milliseconds(10);
    return o;
  }

  static BeastClient Client(const ClientConfig& cfg) { return BeastClient(cfg, 0, 0); }

  static Request Get(const std::string& path) {
    Request r;
    r.path = path;
    return r;
  }

  static Result<Response> Post(KubeClient& c, const std::string& path, const std::string& body) {
    Request r;
    r.method = "POST";
    r.path = path;
    r.body = body;
    return c.Do(r);
  }

  static inline testing::TempDir* dir_ = nullptr;
  static inline ClientConfig* cfg_ = nullptr;
  static inline std::string up_error_;
};

TEST_F(ApiServerTest, ListNamespacesWithCaVerification) {
  ASSERT_FALSE(cfg_->ca_pem.empty());
  ASSERT_FALSE(cfg_->insecure_skip_tls_verify);
  auto client = Client(*cfg_);
  ASSERT_TRUE(client.InitStatus().ok()) << client.InitStatus().error();
  auto res = client.Do(Get("/api/v1/namespaces"));
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_NE(res->body.find("\"kind\":\"NamespaceList\""), std::string::npos) << res->body;
  EXPECT_NE(res->body.find("\"name\":\"default\""), std::string::npos);
  EXPECT_EQ(res->headers["content-type"], "application/json");
}

TEST_F(ApiServerTest, TlsServerNameMatchingADnsSan) {
  ClientConfig cfg = *cfg_;
  cfg.tls_server_name = "kubernetes.default.svc";
  auto client = Client(cfg);
  auto res = client.Do(Get("/api/v1/namespaces/default"));
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->status, 200);
}

TEST_F(ApiServerTest, WrongCaFailsVerificationWithoutRetrying) {
  ClientConfig cfg = *cfg_;
  auto ca = ReadFileToString(dir_->path() + "/wrong.crt");
  ASSERT_TRUE(ca.ok()) << ca.error();
  cfg.ca_pem = *ca;
  BeastClient client(cfg, 0, 0);
  auto res = client.Do(Get("/api/v1/namespaces"));
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.error().find("certificate verify failed"), std::string::npos) << res.error();
  EXPECT_EQ(client.Stats().retries, 0u);
}

TEST_F(ApiServerTest, WrongServerNameFailsVerification) {
  ClientConfig cfg = *cfg_;
  cfg.tls_server_name = "not-the-apiserver.example.com";
  auto client = Client(cfg);
  auto res = client.Do(Get("/api/v1/namespaces"));
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.error().find("certificate verify failed"), std::string::npos) << res.error();
  EXPECT_NE(res.error().find("not-the-apiserver.example.com"), std::string::npos) << res.error();
}

TEST_F(ApiServerTest, InsecureSkipTlsVerify) {
  ClientConfig cfg = *cfg_;
  cfg.ca_pem.clear();
  cfg.insecure_skip_tls_verify = true;
  auto client = Client(cfg);
  auto res = client.Do(Get("/api/v1/namespaces"));
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->status, 200);
}

TEST_F(ApiServerTest, ClientCertificateIsLoadedAndPresented) {
  // The test server has no --client-ca-file, so the certificate authenticates nobody; this checks
  // that a PEM pair loads, the handshake with it succeeds and the token still authenticates.
  ClientConfig cfg = *cfg_;
  cfg.client_cert_pem = *ReadFileToString(dir_->path() + "/wrong.crt");
  cfg.client_key_pem = *ReadFileToString(dir_->path() + "/wrong.key");
  auto client = Client(cfg);
  ASSERT_TRUE(client.InitStatus().ok()) << client.InitStatus().error();
  auto res = client.Do(Get("/api/v1/namespaces/default"));
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->status, 200);

  cfg.client_key_pem = *ReadFileToString(dir_->path() + "/sa.key");  // not the cert's key
  auto mismatched = Client(cfg);
  ASSERT_FALSE(mismatched.InitStatus().ok());
  EXPECT_EQ(mismatched.InitStatus().error(), "client-key: key values mismatch");
}

TEST_F(ApiServerTest, BadTokenIs401Response) {
  ClientConfig cfg = *cfg_;
  cfg.token = "not-a-valid-token";
  auto client = Client(cfg);
  auto res = client.Do(Get("/api/v1/namespaces"));
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(res->status, 401);
  EXPECT_NE(res->body.find("Unauthorized"), std::string::npos) << res->body;
  EXPECT_EQ(client.Stats().retries, 0u);
}

TEST_F(ApiServerTest, RotatedTokenFileIsPickedUp) {
  std::string file = dir_->Write("rotating-token", "stale-token\n");
  ClientConfig cfg = *cfg_;
  cfg.token.clear();
  cfg.token_file = file;
  auto client = Client(cfg);
  auto before = client.Do(Get("/api/v1/namespaces"));
  ASSERT_TRUE(before.ok()) << before.error();
  EXPECT_EQ(before->status, 401);
  dir_->Write("rotating-token", cfg_->token + "\n");
  std::filesystem::last_write_time(
      file, std::filesystem::last_write_time(file) + std::chrono::seconds(5));
  auto after = client.Do(Get("/api/v1/namespaces"));
  ASSERT_TRUE(after.ok()) << after.error();
  EXPECT_EQ(after->status, 200);
}

TEST_F(ApiServerTest, PostNodeThenGetIt) {
  auto client = Client(*cfg_);
  const std::string node = R"({"apiVersion":"v1","kind":"Node",
    "metadata":{"name":"client-test-n1","labels":{"kubernetes.io/hostname":"client-test-n1"}},
    "status":{"capacity":{"cpu":"4","memory":"32Gi","pods":"110"},
              "allocatable":{"cpu":"4","memory":"32Gi","pods":"110"}}})";
  auto created = Post(client, "/api/v1/nodes", node);
  ASSERT_TRUE(created.ok()) << created.error();
  EXPECT_EQ(created->status, 201) << created->body;
  auto got = client.Do(Get("/api/v1/nodes/client-test-n1"));
  ASSERT_TRUE(got.ok()) << got.error();
  EXPECT_EQ(got->status, 200);
  EXPECT_NE(got->body.find("\"name\":\"client-test-n1\""), std::string::npos) << got->body;
  // Creating it again conflicts; 409 is returned, not retried.
  auto again = Post(client, "/api/v1/nodes", node);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->status, 409);
  Request del = Get("/api/v1/nodes/client-test-n1");
  del.method = "DELETE";
  auto deleted = client.Do(del);
  ASSERT_TRUE(deleted.ok()) << deleted.error();
  EXPECT_EQ(deleted->status, 200);
  auto gone = client.Do(Get("/api/v1/nodes/client-test-n1"));
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->status, 404);
  EXPECT_NE(gone->body.find("\"reason\":\"NotFound\""), std::string::npos) << gone->body;
}

TEST_F(ApiServerTest, KeepAliveReusesOneConnection) {
  auto client = Client(*cfg_);
  for (int i = 0; i < 25; ++i) {
    auto res = client.Do(Get("/api/v1/namespaces/default"));
    ASSERT_TRUE(res.ok()) << res.error();
    ASSERT_EQ(res->status, 200);
  }
  EXPECT_EQ(client.Stats().connections_opened, 1u);
  EXPECT_EQ(client.Stats().attempts, 25u);
}

TEST_F(ApiServerTest, ConcurrentRequestsShareThePool) {
  auto client = Client(*cfg_);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        auto res = client.Do(Get("/api/v1/namespaces"));
        if (res.ok() && res->status == 200) ok.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 40);
  EXPECT_LE(client.Stats().connections_opened, 4u);
}

TEST_F(ApiServerTest, WatchSeesAddedConfigMap) {
  auto client = Client(*cfg_);
  std::atomic<bool> stop{false};
  std::string error_body;
  std::vector<std::string> lines;
  std::mutex mu;
  Result<int> result = Error{"not run"};
  std::thread watcher([&] {
    result = client.Stream(
        Get("/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true"),
        [&](std::string_view line) {
          std::lock_guard<std::mutex> lock(mu);
          lines.emplace_back(line);
          if (line.find("\"type\":\"ADDED\"") != std::string_view::npos &&
              line.find("watched-cm") != std::string_view::npos) {
            stop = true;
          }
          return true;
        },
        &stop, &error_body);
  });
  std::this_thread::sleep_for(milliseconds(300));
  auto created = Post(client, "/api/v1/namespaces/default/configmaps",
                      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"watched-cm"},
                          "data":{"k":"v"}})");
  ASSERT_TRUE(created.ok()) << created.error();
  EXPECT_EQ(created->status, 201) << created->body;
  // The watch ends itself on the ADDED line; give it 10 s before forcing it.
  for (int i = 0; i < 100 && !stop; ++i) std::this_thread::sleep_for(milliseconds(100));
  bool seen = stop.load();
  stop = true;
  watcher.join();
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(*result, 200);
  EXPECT_TRUE(seen);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("\"kind\":\"ConfigMap\""), std::string::npos) << lines.back();
}

TEST_F(ApiServerTest, StopEndsAnIdleWatchQuickly) {
  auto client = Client(*cfg_);
  std::atomic<bool> stop{false};
  std::string error_body;
  int lines = 0;
  Result<int> result = Error{"not run"};
  std::chrono::steady_clock::time_point stopped_at;
  std::thread watcher([&] {
    // A namespace nothing is in: the server sends nothing after the head.
    result = client.Stream(
        Get("/api/v1/namespaces/client-test-empty/configmaps?watch=true"),
        [&](std::string_view) {
          ++lines;
          return true;
        },
        &stop, &error_body);
  });
  std::this_thread::sleep_for(milliseconds(1000));
  stopped_at = std::chrono::steady_clock::now();
  stop = true;
  watcher.join();
  double took = Seconds(std::chrono::steady_clock::now() - stopped_at);
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(*result, 200);
  EXPECT_EQ(lines, 0);
  EXPECT_LT(took, 3.0);
}

TEST_F(ApiServerTest, StreamOfUnknownResourceReturns404WithStatusBody) {
  auto client = Client(*cfg_);
  std::atomic<bool> stop{false};
  std::string error_body;
  auto res = client.Stream(
      Get("/api/v1/namespaces/default/nosuchthings?watch=true"),
      [](std::string_view) { return true; }, &stop, &error_body);
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(*res, 404);
  EXPECT_NE(error_body.find("\"kind\":\"Status\""), std::string::npos) << error_body;
  EXPECT_NE(error_body.find("\"code\":404"), std::string::npos) << error_body;
}

TEST_F(ApiServerTest, UnauthorizedStreamReturns401WithBody) {
  ClientConfig cfg = *cfg_;
  cfg.token = "nope";
  auto client = Client(cfg);
  std::atomic<bool> stop{false};
  std::string error_body;
  auto res = client.Stream(
      Get("/api/v1/configmaps?watch=true"), [](std::string_view) { return true; }, &stop,
      &error_body);
  ASSERT_TRUE(res.ok()) << res.error();
  EXPECT_EQ(*res, 401);
  EXPECT_NE(error_body.find("Unauthorized"), std::string::npos) << error_body;
}

// Compacts etcd up to its current revision through its JSON gateway, so that resourceVersion=1
// is gone; returns an empty string or what went wrong.
std::string CompactEtcd(const std::string& dir) {
  auto env = ReadFileToString(dir + "/env");
  if (!env.ok()) return env.error();
  auto at = env->find("ETCD_PORT=");
  if (at == std::string::npos) return "no ETCD_PORT in " + dir + "/env";
  std::string port = env->substr(at + 10, env->find('\n', at) - at - 10);
  ClientConfig cfg;
  cfg.server = "http://127.0.0.1:" + port;
  BeastClient etcd(cfg, 0, 0);
  Request range;
  range.method = "POST";
  range.path = "/v3/kv/range";
  range.body = R"({"key":"L3JlZ2lzdHJ5"})";  // "/registry"
  auto r = etcd.Do(range);
  if (!r.ok()) return r.error();
  auto rev_at = r->body.find("\"revision\":\"");
  if (r->status != 200 || rev_at == std::string::npos) return "etcd range: " + r->body;
  std::string rev = r->body.substr(rev_at + 12, r->body.find('"', rev_at + 12) - rev_at - 12);
  Request compact = range;
  compact.path = "/v3/kv/compaction";
  compact.body = R"({"revision":")" + rev + R"(","physical":true})";
  auto c = etcd.Do(compact);
  if (!c.ok()) return c.error();
  if (c->status != 200) return "etcd compaction: " + c->body;
  return "";
}

TEST_F(ApiServerTest, ExpiredResourceVersionIs410) {
  ASSERT_EQ(CompactEtcd(dir_->path()), "");
  auto client = Client(*cfg_);
  std::atomic<bool> stop{false};
  // Events bypass the watch cache (upstream's default cache size for them is 0), so an exact
  // read at a compacted revision reaches etcd and comes back as HTTP 410 Gone.
  std::string error_body;
  auto list = client.Stream(
      Get("/api/v1/namespaces/default/events?resourceVersion=1&resourceVersionMatch=Exact"),
      [](std::string_view) { return true; }, &stop, &error_body);
  ASSERT_TRUE(list.ok()) << list.error();
  EXPECT_EQ(*list, 410) << error_body;
  EXPECT_NE(error_body.find("\"code\":410"), std::string::npos) << error_body;
  EXPECT_NE(error_body.find("\"reason\":\"Expired\""), std::string::npos) << error_body;

  // A watch from a compacted revision: the server answers 200 and sends one ERROR event
  // carrying the 410 Status (what the reflector relists on).
  std::vector<std::string> lines;
  std::string watch_error;
  auto watch = client.Stream(
      Get("/api/v1/namespaces/default/events?watch=true&resourceVersion=1"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        return false;
      },
      &stop, &watch_error);
  ASSERT_TRUE(watch.ok()) << watch.error();
  EXPECT_EQ(*watch, 200) << watch_error;
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("\"type\":\"ERROR\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("\"code\":410"), std::string::npos) << lines[0];
}

TEST_F(ApiServerTest, ConnectionRefusedIsAnErrorAfterRetries) {
  // A port nothing listens on: bind one, then let it go.
  auto [status, port] = RunShell(
      "python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\",0)); "
      "print(s.getsockname()[1]); s.close()'");
  ASSERT_EQ(status, 0) << port;
  while (!port.empty() && (port.back() == '\n')) port.pop_back();
  ClientConfig cfg = *cfg_;
  cfg.server = "https://127.0.0.1:" + port;
  BeastClient client(cfg, 0, 0, FastRetries());
  auto start = std::chrono::steady_clock::now();
  auto res = client.Do(Get("/api/v1/namespaces"));
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error(), "GET https://127.0.0.1:" + port +
                             "/api/v1/namespaces: connect 127.0.0.1:" + port +
                             ": Connection refused (after 6 attempts)");
  EXPECT_EQ(client.Stats().retries, 5u);
  // Backoff 10+20+40+80+160 ms.
  EXPECT_GE(Seconds(std::chrono::steady_clock::now() - start), 0.3);
}

}  // namespace
}  // namespace berth::client
