#include "cmd/berth/app/serving/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
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

#include "base/log.h"
#include "cmd/berth/app/serving/debug_flags.h"

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

// A TCP connection to 127.0.0.1:port, or -1. Reads time out after 5 s.
int Dial(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Reads until the server closes the connection (or 5 s pass); "" after a reset or timeout with
// nothing read.
std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Sends `request` as raw bytes over plain HTTP and returns everything the server answers before
// closing the connection.
std::string RawExchange(int port, const std::string& request) {
  int fd = Dial(port);
  if (fd < 0) return "";
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string out = ReadAll(fd);
  close(fd);
  return out;
}

// The status code of a raw HTTP response ("HTTP/1.1 413 ..."), 0 when there is none.
int StatusOf(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return 0;
  return std::atoi(response.substr(9, 3).c_str());
}

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

// A request the parser refuses gets a status and "Connection: close" before the connection is
// closed, as from any HTTP server, rather than a silently dropped connection.
TEST_F(HttpServerTest, MalformedAndOversizedRequestsGetAStatus) {
  HttpServerOptions o = LocalOptions();
  o.max_request_body = 1000;
  auto server = HttpServer::Start(o, HttpHandlers{});
  ASSERT_TRUE(server.ok()) << server.error();
  const int port = (*server)->plain_port();
  const std::string big(70 * 1024, 'a');
  struct Case {
    const char* name;
    std::string request;
    int status;
  } cases[] = {
      {"bad Content-Length", "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
       400},
      {"duplicate Content-Length",
       "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde",
       400},
      {"bad chunk size",
       "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
       "chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
       400},
      {"bad request line", "GET\x01/healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"body over the limit (Content-Length)",
       "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" + std::string(5000, 'b'),
       413},
      {"body over the limit (chunked)",
       "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" +
           std::string(0x800, 'b') + "\r\n0\r\n\r\n",
       413},
      {"oversized header", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + big + "\r\n\r\n", 431},
      {"oversized URI", "GET /healthz?" + big + " HTTP/1.1\r\nHost: x\r\n\r\n", 431},
  };
  for (const auto& c : cases) {
    std::string res = RawExchange(port, c.request);
    EXPECT_EQ(StatusOf(res), c.status) << c.name << ": " << res.substr(0, 200);
    EXPECT_NE(res.find("Connection: close"), std::string::npos) << c.name << ": " << res;
  }
  // A body within the limit is fine, and the server is still serving.
  std::string ok = RawExchange(port,
                               "POST /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                               "Content-Length: 900\r\n\r\n" +
                                   std::string(900, 'c'));
  EXPECT_EQ(StatusOf(ok), 405) << ok;
  EXPECT_EQ(Get(port, "/healthz", false).status, 200);
  // The same over TLS, through curl.
  EXPECT_EQ(Get((*server)->secure_port(), "/healthz", true,
                "-X POST --data-binary @/dev/null -H 'Content-Length: 5000'")
                .status,
            413);
}

// 404 for a path nobody serves, whatever the method; 405 with Allow only for a known path.
TEST_F(HttpServerTest, UnknownPathIs404WrongMethodOnAKnownPathIs405) {
  HttpHandlers h;
  h.routes = [](std::string_view method, std::string_view path,
                const std::string&) -> std::optional<HttpReply> {
    if (path != "/filter") return std::nullopt;
    if (method != "POST") return HttpReply{405, "text/plain", "use POST\n", {{"Allow", "POST"}}};
    return HttpReply{200, "application/json", "{}", {}};
  };
  auto server = HttpServer::Start(LocalOptions(), h);
  ASSERT_TRUE(server.ok()) << server.error();
  const int port = (*server)->plain_port();
  EXPECT_EQ(Get(port, "/nope", false, "-X POST").status, 404);
  EXPECT_EQ(Get(port, "/nope", false, "-X DELETE").status, 404);
  EXPECT_EQ(Get(port, "/metrics", false, "-X POST").status, 404);  // no metrics callback
  auto healthz = Get(port, "/healthz", false, "-X PUT");
  EXPECT_EQ(healthz.status, 405);
  EXPECT_NE(healthz.headers.find("Allow: GET, HEAD"), std::string::npos) << healthz.headers;
  auto filter = Get(port, "/filter", false);
  EXPECT_EQ(filter.status, 405);
  EXPECT_NE(filter.headers.find("Allow: POST"), std::string::npos) << filter.headers;
  EXPECT_EQ(Get(port, "/filter", false, "-X POST").status, 200);
}

TEST(AcceptBackoffTest, FiveMillisecondsDoublingToOneSecond) {
  using std::chrono::milliseconds;
  std::vector<int64_t> got;
  milliseconds d{0};
  for (int i = 0; i < 10; ++i) {
    d = NextAcceptBackoff(d);
    got.push_back(d.count());
  }
  EXPECT_EQ(got, (std::vector<int64_t>{5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000}));
  EXPECT_EQ(NextAcceptBackoff(milliseconds(0)).count(), 5);  // reset after a success
}

// Beyond max_connections a connection is closed at once (not left waiting); once one of the
// open ones goes, the server answers again.
TEST_F(HttpServerTest, ConnectionsOverTheCapAreRefusedNotQueued) {
  HttpServerOptions o = LocalOptions();
  o.max_connections = 2;
  auto server = HttpServer::Start(o, HttpHandlers{});
  ASSERT_TRUE(server.ok()) << server.error();
  const int port = (*server)->plain_port();
  int idle1 = Dial(port), idle2 = Dial(port);
  ASSERT_GE(idle1, 0);
  ASSERT_GE(idle2, 0);
  // The cap counts connections the server has accepted: wait until it has refused one.
  int extra = -1;
  for (int i = 0; i < 100 && (*server)->refused_connections() == 0; ++i) {
    if (extra >= 0) close(extra);
    extra = Dial(port);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE((*server)->refused_connections(), 1u);
  if (extra >= 0) close(extra);
  // A refused connection sees the close at once: a request on it gets no answer, and the read
  // ends (EOF or reset) long before the server's 60 s idle timeout.
  auto start = std::chrono::steady_clock::now();
  std::string refused = RawExchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(refused, "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4)) << "queued";
  close(idle1);
  int status = 0;
  for (int i = 0; i < 50 && status != 200; ++i) {
    status = Get(port, "/healthz", false).status;
    if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(status, 200);
  close(idle2);
}

// CPU seconds (user + system) the process has used.
double CpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close_paren + 2));
  std::string f;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14) utime = std::stod(f);
    if (i == 15) stime = std::stod(f);
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Out of file descriptors (the `ulimit -n` scenario): connections keep coming that the server
// cannot accept (EMFILE). The server must neither abort nor spin a core re-trying accept, and
// answers again once the load goes.
TEST_F(HttpServerTest, OutOfFileDescriptorsBacksOffAndRecovers) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    HttpServerOptions o;
    o.secure_address.clear();
    o.plain_address = "127.0.0.1:0";
    auto server = HttpServer::Start(o, HttpHandlers{});
    if (!server.ok()) _exit(3);
    // Leave room for a few connections only (new descriptors take the lowest free numbers).
    int open_fds = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++open_fds;
    rlimit rl{};
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = static_cast<rlim_t>(open_fds + 5);
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) _exit(4);
    int port = (*server)->plain_port();
    if (write(ready[1], &port, sizeof(port)) != sizeof(port)) _exit(5);
    for (;;) pause();
  }
  close(ready[1]);
  int port = 0;
  ASSERT_EQ(read(ready[0], &port, sizeof(port)), static_cast<ssize_t>(sizeof(port)));
  close(ready[0]);

  // 40 connections that send nothing: a few are accepted, the rest wait in the backlog while
  // accept fails with EMFILE.
  std::vector<int> idle;
  for (int i = 0; i < 40; ++i) {
    int fd = Dial(port);
    if (fd >= 0) idle.push_back(fd);
  }
  EXPECT_GE(idle.size(), 10u);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the back-off reaches 1 s steps
  const double before = CpuSeconds(pid);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const double used = CpuSeconds(pid) - before;
  // A spinning accept loop uses the whole 2 s of a core; backing off, almost nothing.
  EXPECT_LT(used, 0.5) << "CPU seconds used in 2 s while out of descriptors";
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), 0) << "the server process died";

  for (int fd : idle) close(fd);
  int status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    status = Get(port, "/healthz", false).status;
    if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, 200);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST(HttpServerTlsOptionsTest, CertDirKeepsTheGeneratedPair) {
  HttpServerOptions o = LocalOptions();
  o.cert_dir = ::testing::TempDir() + "/certdir_" + std::to_string(getpid());
  auto server = HttpServer::Start(o, HttpHandlers{});
  ASSERT_TRUE(server.ok()) << server.error();
  std::ifstream crt(o.cert_dir + "/kube-scheduler.crt");
  std::stringstream pem;
  pem << crt.rdbuf();
  EXPECT_EQ(pem.str(), (*server)->certificate_pem());
  EXPECT_TRUE(std::filesystem::exists(o.cert_dir + "/kube-scheduler.key"));
}

TEST(HttpServerTlsOptionsTest, BadCipherListIsAnError) {
  HttpServerOptions o = LocalOptions();
  o.cipher_list = "NO-SUCH-CIPHER";
  auto server = HttpServer::Start(o, HttpHandlers{});
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.error().find("TLS cipher suites"), std::string::npos) << server.error();
}

TEST(DebugFlagsTest, PutSetsVerbosityAsUpstream) {
  const int before = log::Verbosity();
  auto ok = DebugFlagsRoute("PUT", "/debug/flags/v", "4");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->content_type, "text/plain");
  EXPECT_EQ(ok->body, "successfully set klog.logging.verbosity to 4\n");
  EXPECT_EQ(log::Verbosity(), 4);
  EXPECT_EQ(DebugFlagsRoute("PUT", "/debug/flags/v", "four")->status, 400);
  EXPECT_EQ(DebugFlagsRoute("PUT", "/debug/flags/v", " 4")->status, 400);
  EXPECT_EQ(DebugFlagsRoute("GET", "/debug/flags/v", "")->status, 406);
  EXPECT_EQ(DebugFlagsRoute("GET", "/debug/flags", "")->status, 200);
  EXPECT_FALSE(DebugFlagsRoute("GET", "/healthz", "").has_value());
  log::Verbosity() = before;
}

}  // namespace
}  // namespace berth::run

namespace berth::run {
namespace {

TEST_F(HttpServerTest, AuthorizeGuardsHttpsOnlyAndMayAnswerLaterFromAnotherThread) {
  std::mutex mu;
  std::vector<RequestCredentials> seen;  // guarded by mu
  std::vector<std::thread> answerers;    // guarded by mu
  HttpHandlers h;
  h.metrics = [] { return std::string("m 1\n"); };
  h.authorize = [&](RequestCredentials req, AuthorizeDone done) {
    std::lock_guard lock(mu);
    seen.push_back(req);
    if (req.path == "/healthz") return done(std::nullopt);  // at once, on the I/O thread
    // Later, from another thread: /slow (after 2.5 s) and /nope are refused, others allowed.
    answerers.emplace_back([path = req.path, done = std::move(done)] {
      std::this_thread::sleep_for(std::chrono::milliseconds(path == "/slow" ? 2500 : 50));
      if (path == "/slow" || path == "/nope") {
        return done(HttpReply{403, "application/json", "{\"no\":1}\n", {{"X-Why", "test"}}});
      }
      done(std::nullopt);
    });
  };
  auto server = HttpServer::Start(LocalOptions(), h);
  ASSERT_TRUE(server.ok()) << server.error();
  const int secure = (*server)->secure_port();

  // A request waiting for its answer does not hold up others.
  // (Its own output files: Get's are shared.)
  std::string slow_status;
  std::thread slow_client([&] {
    slow_status =
        RunCommand("curl -sk --max-time 5 -D " + (dir_ / "slow_headers").string() + " -o " +
                   (dir_ / "slow_body").string() +
                   " -w '%{http_code}' https://127.0.0.1:" + std::to_string(secure) + "/slow");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Get(secure, "/healthz", true).status, 200);
  auto m = Get(secure, "/metrics", true, "-H 'Authorization: Bearer abc'");
  EXPECT_EQ(m.status, 200);
  EXPECT_EQ(m.body, "m 1\n");
  // Well before /slow's answer (two curl runs take a few hundred ms on a loaded machine).
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2000));
  slow_client.join();
  EXPECT_EQ(slow_status, "403");
  EXPECT_EQ(ReadFile(dir_ / "slow_body"), "{\"no\":1}\n");
  EXPECT_NE(ReadFile(dir_ / "slow_headers").find("X-Why: test"), std::string::npos);
  // Refused before routing: even a path that does not exist.
  EXPECT_EQ(Get(secure, "/nope", true).status, 403);
  EXPECT_EQ(Get(secure, "/other", true).status, 404);
  // The plain listener is never checked.
  const size_t before = [&] {
    std::lock_guard lock(mu);
    return seen.size();
  }();
  EXPECT_EQ(Get((*server)->plain_port(), "/slow", false).status, 404);
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(seen.size(), before);
    bool saw_token = false;
    for (const auto& r : seen) {
      if (r.path != "/metrics") continue;
      EXPECT_EQ(r.method, "GET");
      for (const auto& [name, value] : r.headers) {
        saw_token |= name == "authorization" && value == "Bearer abc";
      }
      EXPECT_TRUE(r.peer_certificates.empty());
    }
    EXPECT_TRUE(saw_token);
  }
  (*server)->Stop();
  std::lock_guard lock(mu);
  for (auto& t : answerers) t.join();
}

TEST_F(HttpServerTest, StopDropsRequestsWaitingForAuthorize) {
  AuthorizeDone kept;
  std::mutex mu;
  HttpHandlers h;
  h.authorize = [&](RequestCredentials, AuthorizeDone done) {
    std::lock_guard lock(mu);
    kept = std::move(done);  // never answered before Stop
  };
  auto server = HttpServer::Start(LocalOptions(), h);
  ASSERT_TRUE(server.ok()) << server.error();
  std::thread client([&] { Get((*server)->secure_port(), "/healthz", true); });
  for (int i = 0; i < 100; ++i) {
    {
      std::lock_guard lock(mu);
      if (kept) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto start = std::chrono::steady_clock::now();
  (*server)->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
  client.join();
  std::lock_guard lock(mu);
  ASSERT_TRUE(kept);
  kept(std::nullopt);  // after Stop: dropped, harmlessly
}

TEST_F(HttpServerTest, ClientCertificatesAreAskedForAndPassedOn) {
  ASSERT_EQ(std::system("openssl version > /dev/null 2>&1"), 0)
      << "this test needs the openssl CLI: apt-get install openssl";
  const std::string d = dir_.string();
  std::string gen =
      "cd " + d +
      " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
      "-subj /CN=ca -keyout ca.key -out ca.crt && openssl req -newkey ec -pkeyopt "
      "ec_paramgen_curve:prime256v1 -nodes -subj /CN=client -keyout c.key -out c.csr && "
      "openssl x509 -req -in c.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -out c.crt";
  ASSERT_EQ(std::system((gen + " > /dev/null 2>&1").c_str()), 0) << gen;
  std::mutex mu;
  std::vector<size_t> cert_counts;  // guarded by mu
  HttpHandlers h;
  h.authorize = [&](RequestCredentials req, AuthorizeDone done) {
    {
      std::lock_guard lock(mu);
      cert_counts.push_back(req.peer_certificates.size());
    }
    done(std::nullopt);
  };
  HttpServerOptions o = LocalOptions();
  o.client_ca_pem = ReadFile(dir_ / "ca.crt");
  auto server = HttpServer::Start(o, h);
  ASSERT_TRUE(server.ok()) << server.error();
  const int port = (*server)->secure_port();
  EXPECT_EQ(Get(port, "/livez", true, "--cert " + d + "/c.crt --key " + d + "/c.key").status, 200);
  EXPECT_EQ(Get(port, "/livez", true).status, 200);  // a certificate is not required
  std::lock_guard lock(mu);
  ASSERT_EQ(cert_counts.size(), 2u);
  EXPECT_EQ(cert_counts[0], 1u);
  EXPECT_EQ(cert_counts[1], 0u);

  HttpServerOptions bad = LocalOptions();
  bad.client_ca_pem = "not a PEM";
  auto failed = HttpServer::Start(bad, h);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error(), "client CA: no PEM certificate in the bundle");
}

}  // namespace
}  // namespace berth::run
