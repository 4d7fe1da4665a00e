#include "cmd/berth/app/serving/http_server.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

// Requests go through curl (a real, independent HTTP/TLS client); `curl` must be on PATH
// (apt-get install curl), and `openssl` for the provided-certificate test.

namespace berth::run {
namespace {

namespace fs = std::filesystem;

std::string RunCommand(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(std::system("curl --version > /dev/null 2>&1"), 0)
        << "these tests need curl on PATH: apt-get install curl";
    char tmpl[] = "/tmp/berth_http_server_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  struct Response {
    int status = 0;  // 0: no response (connection failed)
    std::string body;
    std::string headers;
  };

  // GET (or `extra` curl flags) https://localhost:port or http://127.0.0.1:port + target.
  // Without `cacert` the certificate is not verified (-k).
  Response Get(int port, const std::string& target, bool tls, const std::string& extra = "",
               const std::string& cacert = "") {
    fs::path body = dir_ / "body", headers = dir_ / "headers";
    fs::remove(body);
    fs::remove(headers);
    std::string p = std::to_string(port);
    std::string url = tls ? "https://localhost:" + p + target : "http://127.0.0.1:" + p + target;
    std::string cmd = "curl -s --max-time 5 --resolve localhost:" + p + ":127.0.0.1 -o " +
                      body.string() + " -D " + headers.string() + " -w '%{http_code}' " +
                      (cacert.empty() ? std::string("-k ") : "--cacert " + cacert + " ") + extra +
                      " '" + url + "'";
    Response r;
    r.status = std::atoi(RunCommand(cmd).c_str());
    r.body = ReadFile(body);
    r.headers = ReadFile(headers);
    return r;
  }

  fs::path dir_;
};

HttpServerOptions LocalOptions() {
  HttpServerOptions o;
  o.secure_address = "127.0.0.1:0";
  o.plain_address = "127.0.0.1:0";
  return o;
}

TEST_F(HttpServerTest, ServesEveryRouteOverHttpsAndHttp) {
  HttpHandlers h;
  h.metrics = [] { return std::string("# TYPE x counter\nx 1\n"); };
  h.configz = [] { return std::string(R"({"profiles":[]})"); };
  auto server = HttpServer::Start(LocalOptions(), h);
  ASSERT_TRUE(server.ok()) << server.error();
  int secure = (*server)->secure_port(), plain = (*server)->plain_port();
  ASSERT_GT(secure, 0);
  ASSERT_GT(plain, 0);
  EXPECT_NE(secure, plain);

  for (bool tls : {true, false}) {
    SCOPED_TRACE(tls ? "https" : "http");
    int port = tls ? secure : plain;
    for (const char* path : {"/healthz", "/livez", "/readyz", "/readyz?verbose"}) {
      auto r = Get(port, path, tls);
      EXPECT_EQ(r.status, 200) << path;
      EXPECT_EQ(r.body, "ok") << path;
    }
    auto m = Get(port, "/metrics", tls);
    EXPECT_EQ(m.status, 200);
    EXPECT_EQ(m.body, "# TYPE x counter\nx 1\n");
    EXPECT_NE(m.headers.find("text/plain; version=0.0.4"), std::string::npos) << m.headers;
    auto c = Get(port, "/configz", tls);
    EXPECT_EQ(c.status, 200);
    EXPECT_EQ(c.body, R"({"profiles":[]})");
    EXPECT_NE(c.headers.find("application/json"), std::string::npos) << c.headers;
    EXPECT_EQ(Get(port, "/nope", tls).status, 404);
    auto post = Get(port, "/metrics", tls, "-X POST");
    EXPECT_EQ(post.status, 405);
    EXPECT_NE(post.headers.find("GET, HEAD"), std::string::npos) << post.headers;
    auto head = Get(port, "/metrics", tls, "-I");
    EXPECT_EQ(head.status, 200);
    EXPECT_NE(head.headers.find("Content-Length: 21"), std::string::npos) << head.headers;
  }
}

TEST_F(HttpServerTest, MissingCallbacksAre404) {
  auto server = HttpServer::Start(LocalOptions(), HttpHandlers{});
  ASSERT_TRUE(server.ok()) << server.error();
  EXPECT_EQ(Get((*server)->plain_port(), "/metrics", false).status, 404);
  EXPECT_EQ(Get((*server)->plain_port(), "/configz", false).status, 404);
  EXPECT_EQ(Get((*server)->plain_port(), "/readyz", false).status, 200);
}

TEST_F(HttpServerTest, ReadyzFlipsWithTheReadinessFunction) {
  std::mutex mu;
  std::vector<std::string> reasons = {"informers not synced: Pod, Node",
                                      "leader election: lease not healthy"};
  HttpHandlers h;
  h.readiness = [&] {
    std::lock_guard lock(mu);
    return reasons;
  };
  auto server = HttpServer::Start(LocalOptions(), h);
  ASSERT_TRUE(server.ok()) << server.error();
  for (bool tls : {true, false}) {
    int port = tls ? (*server)->secure_port() : (*server)->plain_port();
    auto r = Get(port, "/readyz", tls);
    EXPECT_EQ(r.status, 500);
    EXPECT_NE(r.body.find("informers not synced: Pod, Node\n"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find("leader election: lease not healthy\n"), std::string::npos) << r.body;
    // Liveness does not depend on readiness.
    EXPECT_EQ(Get(port, "/livez", tls).status, 200);
  }
  {
    std::lock_guard lock(mu);
    reasons.clear();
  }
  for (bool tls : {true, false}) {
    int port = tls ? (*server)->secure_port() : (*server)->plain_port();
    auto r = Get(port, "/readyz", tls);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "ok");
  }
}

TEST_F(HttpServerTest, LivenessReasonsFailHealthzAndLivez) {
  HttpHandlers h;
  h.liveness = [] { return std::vector<std::string>{"leader election: lease expired"}; };
  auto server = HttpServer::Start(LocalOptions(), h);
  ASSERT_TRUE(server.ok()) << server.error();
  for (const char* path : {"/healthz", "/livez"}) {
    auto r = Get((*server)->plain_port(), path, false);
    EXPECT_EQ(r.status, 500) << path;
    EXPECT_NE(r.body.find("leader election: lease expired"), std::string::npos) << r.body;
  }
}

TEST_F(HttpServerTest, CallbackExceptionIs500AndServerKeepsServing) {
  HttpHandlers h;
  h.metrics = []() -> std::string { throw std::runtime_error("registry exploded"); };
  auto server = HttpServer::Start(LocalOptions(), h);
  ASSERT_TRUE(server.ok()) << server.error();
  auto r = Get((*server)->plain_port(), "/metrics", false);
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("registry exploded"), std::string::npos);
  EXPECT_EQ(Get((*server)->plain_port(), "/healthz", false).status, 200);
}

TEST_F(HttpServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  auto server = HttpServer::Start(LocalOptions(), HttpHandlers{});
  ASSERT_TRUE(server.ok()) << server.error();
  std::string p = std::to_string((*server)->secure_port());
  std::string out = RunCommand("curl -sk -v --max-time 5 https://127.0.0.1:" + p +
                               "/healthz https://127.0.0.1:" + p + "/livez 2>&1");
  EXPECT_NE(out.find("Re-using existing connection"), std::string::npos) << out;
  size_t oks = 0;
  for (size_t pos = 0; (pos = out.find("< HTTP/1.1 200 OK", pos)) != std::string::npos; ++pos)
    ++oks;
  EXPECT_EQ(oks, 2u) << out;
}

TEST_F(HttpServerTest, GeneratedCertificateIsSelfSignedForLocalhost) {
  auto server = HttpServer::Start(LocalOptions(), HttpHandlers{});
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string& pem = (*server)->certificate_pem();
  ASSERT_NE(pem.find("-----BEGIN CERTIFICATE-----"), std::string::npos);

  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  ASSERT_NE(cert, nullptr);
  char cn[128] = {0};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof(cn));
  EXPECT_STREQ(cn, "berth-scheduler");
  EXPECT_EQ(X509_NAME_cmp(X509_get_subject_name(cert), X509_get_issuer_name(cert)), 0);
  auto* sans =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  ASSERT_NE(sans, nullptr);
  bool dns_localhost = false, ip_loopback = false;
  for (int i = 0; i < sk_GENERAL_NAME_num(sans); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(sans, i);
    if (n->type == GEN_DNS) {
      std::string dns(reinterpret_cast<const char*>(ASN1_STRING_get0_data(n->d.dNSName)),
                      ASN1_STRING_length(n->d.dNSName));
      dns_localhost |= dns == "localhost";
    } else if (n->type == GEN_IPADD && ASN1_STRING_length(n->d.iPAddress) == 4) {
      const unsigned char* ip = ASN1_STRING_get0_data(n->d.iPAddress);
      ip_loopback |= ip[0] == 127 && ip[1] == 0 && ip[2] == 0 && ip[3] == 1;
    }
  }
  GENERAL_NAMES_free(sans);
  X509_free(cert);
  EXPECT_TRUE(dns_localhost);
  EXPECT_TRUE(ip_loopback);

  // A client that trusts exactly this certificate verifies the server as localhost.
  fs::path ca = dir_ / "served.pem";
  std::ofstream(ca) << pem;
  auto r = Get((*server)->secure_port(), "/healthz", true, "", ca.string());
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
}

TEST_F(HttpServerTest, ServesAProvidedCertificate) {
  ASSERT_EQ(std::system("openssl version > /dev/null 2>&1"), 0)
      << "this test needs the openssl CLI: apt-get install openssl";
  fs::path cert = dir_ / "tls.crt", key = dir_ / "tls.key";
  std::string gen =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
      "-days 1 -subj /CN=provided -addext subjectAltName=DNS:localhost -keyout " +
      key.string() + " -out " + cert.string() + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(gen.c_str()), 0) << gen;

  HttpServerOptions o = LocalOptions();
  o.cert_file = cert.string();
  o.key_file = key.string();
  auto server = HttpServer::Start(o, HttpHandlers{});
  ASSERT_TRUE(server.ok()) << server.error();
  EXPECT_EQ((*server)->certificate_pem(), ReadFile(cert));
  auto r = Get((*server)->secure_port(), "/livez", true, "", cert.string());
  EXPECT_EQ(r.status, 200);
}

TEST_F(HttpServerTest, StartErrors) {
  HttpServerOptions only_cert = LocalOptions();
  only_cert.cert_file = "/nonexistent.crt";
  auto a = HttpServer::Start(only_cert, {});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error(), "cert_file and key_file must be given together");

  HttpServerOptions missing = LocalOptions();
  missing.cert_file = "/nonexistent.crt";
  missing.key_file = "/nonexistent.key";
  auto b = HttpServer::Start(missing, {});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().rfind("TLS certificate /nonexistent.crt: ", 0), 0u) << b.error();

  for (const char* bad : {"nonsense", "127.0.0.1:99999", "127.0.0.1:x", "::1:80", "[::1"}) {
    HttpServerOptions o = LocalOptions();
    o.secure_address = bad;
    auto c = HttpServer::Start(o, {});
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.error().rfind(std::string("invalid address \"") + bad + "\"", 0), 0u) << c.error();
  }

  auto first = HttpServer::Start(LocalOptions(), {});
  ASSERT_TRUE(first.ok()) << first.error();
  HttpServerOptions taken = LocalOptions();
  taken.plain_address = "127.0.0.1:" + std::to_string((*first)->plain_port());
  auto d = HttpServer::Start(taken, {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().rfind("listen on " + taken.plain_address + ": ", 0), 0u) << d.error();
}

TEST_F(HttpServerTest, StopIsQuickWithIdleConnectionsAndClosesThePorts) {
  auto server = HttpServer::Start(LocalOptions(), HttpHandlers{});
  ASSERT_TRUE(server.ok()) << server.error();
  int secure = (*server)->secure_port(), plain = (*server)->plain_port();
  ASSERT_EQ(Get(plain, "/healthz", false).status, 200);

  // Idle clients: connected, never sending (one mid-TLS-handshake, one waiting for a request).
  boost::asio::io_context ioc;
  using tcp = boost::asio::ip::tcp;
  auto loopback = boost::asio::ip::make_address("127.0.0.1");
  tcp::socket idle_tls(ioc), idle_plain(ioc);
  idle_tls.connect(tcp::endpoint(loopback, secure));
  idle_plain.connect(tcp::endpoint(loopback, plain));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));

  auto start = std::chrono::steady_clock::now();
  (*server)->Stop();
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::milliseconds(500));
  (*server)->Stop();  // idempotent

  EXPECT_EQ(Get(plain, "/healthz", false).status, 0);
  EXPECT_EQ(Get(secure, "/healthz", true).status, 0);
  // The idle connections were dropped: reading sees EOF or a reset.
  boost::system::error_code ec;
  char c;
  idle_plain.read_some(boost::asio::buffer(&c, 1), ec);
  EXPECT_TRUE(ec);
}

}  // namespace
}  // namespace berth::run
