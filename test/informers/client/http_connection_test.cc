#include "informers/client/http_connection.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace berth::client::internal {
namespace {

TEST(ParseServerTest, Table) {
  struct Case {
    const char* in;
    bool tls;
    const char* host;
    const char* port;
    const char* host_header;
  } cases[] = {
      {"https://127.0.0.1:6443", true, "127.0.0.1", "6443", "127.0.0.1:6443"},
      {"https://kubernetes.default.svc", true, "kubernetes.default.svc", "443",
       "kubernetes.default.svc:443"},
      {"http://localhost:8080/", false, "localhost", "8080", "localhost:8080"},
      {"http://localhost", false, "localhost", "80", "localhost:80"},
      {"https://[::1]:6443", true, "::1", "6443", "[::1]:6443"},
      {"https://[fd00::1]", true, "fd00::1", "443", "[fd00::1]:443"},
  };
  for (const auto& c : cases) {
    auto a = ParseServer(c.in);
    ASSERT_TRUE(a.ok()) << c.in << ": " << a.error();
    EXPECT_EQ(a->tls, c.tls) << c.in;
    EXPECT_EQ(a->host, c.host) << c.in;
    EXPECT_EQ(a->port, c.port) << c.in;
    EXPECT_EQ(a->host_header, c.host_header) << c.in;
  }
}

TEST(ParseServerTest, Errors) {
  for (const char* bad : {"ftp://x", "127.0.0.1:6443", "https://", "https://h:0", "https://h:99999",
                          "https://h:8x", "https://[::1"}) {
    auto a = ParseServer(bad);
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_EQ(a.error().rfind(std::string("invalid server URL \"") + bad + "\": ", 0), 0u)
        << a.error();
  }
}

TEST(MakeTlsContextTest, BadPemIsNamed) {
  ClientConfig cfg;
  cfg.ca_pem = "not a certificate";
  auto ctx = MakeTlsContext(cfg);
  ASSERT_FALSE(ctx.ok());
  EXPECT_EQ(ctx.error().rfind("certificate-authority: ", 0), 0u) << ctx.error();

  ClientConfig client;
  client.insecure_skip_tls_verify = true;
  client.client_cert_pem = "garbage";
  client.client_key_pem = "garbage";
  auto ctx2 = MakeTlsContext(client);
  ASSERT_FALSE(ctx2.ok());
  EXPECT_EQ(ctx2.error().rfind("client-certificate: ", 0), 0u) << ctx2.error();
}

// With every file descriptor in use, Connect fails with a retryable error naming the cause
// instead of throwing out of the calling thread (which aborted the process: std::terminate); once
// descriptors are free again, the next Connection gets as far as the network.
TEST(ConnectionTest, OutOfFileDescriptorsIsARetryableErrorNotAnAbort) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    rlimit rl{};
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = 128;
    setrlimit(RLIMIT_NOFILE, &rl);
    std::vector<int> fds;
    for (int fd; (fd = open("/dev/null", O_RDONLY)) >= 0;) fds.push_back(fd);
    int code = 10;
    // On a thread of its own, as the reflectors call it: an escaping exception terminates.
    std::thread t([&] {
      auto addr = ParseServer("http://127.0.0.1:1");
      if (!addr.ok()) return;
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      Connection exhausted(*addr, nullptr, "127.0.0.1");
      auto err = exhausted.Connect(deadline);
      if (!err) {
        code = 11;
        return;
      }
      std::fprintf(stderr, "out of descriptors: %s\n", err->message.c_str());
      if (!err->retryable || err->message.find("Too many open files") == std::string::npos) {
        code = 12;
        return;
      }
      for (int i = 0; i < 8 && !fds.empty(); ++i) {
        close(fds.back());
        fds.pop_back();
      }
      Connection again(*addr, nullptr, "127.0.0.1");
      auto refused = again.Connect(deadline);
      std::fprintf(stderr, "descriptors back: %s\n", refused ? refused->message.c_str() : "ok");
      code = refused && refused->message == "connect 127.0.0.1:1: Connection refused" ? 0 : 13;
    });
    t.join();
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace berth::client::internal
