#include "informers/client/http_connection.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace berth::client::internal
