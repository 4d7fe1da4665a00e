#include "cmd/berth/app/serving/client_cert.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cmd/berth/app/serving/delegated_auth.h"

// Certificates come from the openssl CLI (apt-get install openssl).

namespace berth::serving {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The DER of the first certificate in a PEM file.
std::string Der(const fs::path& pem_file) {
  std::string pem = ReadFile(pem_file);
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (!cert) return "";
  unsigned char* buf = nullptr;
  int len = i2d_X509(cert, &buf);
  std::string der(reinterpret_cast<char*>(buf), static_cast<size_t>(len));
  OPENSSL_free(buf);
  X509_free(cert);
  return der;
}

class ClientCertTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(std::system("openssl version > /dev/null 2>&1"), 0)
        << "these tests need the openssl CLI: apt-get install openssl";
    char tmpl[] = "/tmp/berth_client_cert_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    const std::string d = dir_.string();
    auto sh = [&](const std::string& cmd) {
      std::string full = "cd " + d + " && (" + cmd + ") > /dev/null 2>&1";
      ASSERT_EQ(std::system(full.c_str()), 0) << cmd;
    };
    const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    for (const char* ca : {"ca", "proxy-ca", "other-ca"}) {
      sh("openssl req -x509 " + key + " -days 1 -subj /CN=" + ca + " -keyout " + ca + ".key -out " +
         ca + ".crt");
    }
    sh("printf 'extendedKeyUsage=clientAuth\\n' > client.ext");
    sh("printf 'extendedKeyUsage=serverAuth\\n' > server.ext");
    auto issue = [&](const std::string& name, const std::string& subject, const std::string& ca,
                     const std::string& ext) {
      sh("openssl req " + key + " -subj " + subject + " -keyout " + name + ".key -out " + name +
         ".csr");
      sh("openssl x509 -req -in " + name + ".csr -CA " + ca + ".crt -CAkey " + ca +
         ".key -CAcreateserial -days 1 -extfile " + ext + " -out " + name + ".crt");
    };
    issue("alice", "/O=g1/O=g2/CN=alice", "ca", "client.ext");
    issue("server-only", "/CN=srv", "ca", "server.ext");
    issue("proxy", "/CN=front-proxy", "proxy-ca", "client.ext");
    issue("rogue", "/O=system:masters/CN=rogue", "other-ca", "client.ext");
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static fs::path dir_;
};
fs::path ClientCertTest::dir_;

TEST_F(ClientCertTest, VerifiesAgainstTheBundleAndNamesTheSubject) {
  auto v = CertVerifier::FromPem(ReadFile(dir_ / "ca.crt") + ReadFile(dir_ / "proxy-ca.crt"),
                                 "client CA");
  ASSERT_TRUE(v.ok()) << v.error();
  auto id = (*v)->Verify({Der(dir_ / "alice.crt")});
  ASSERT_TRUE(id.ok()) << id.error();
  EXPECT_EQ(id->common_name, "alice");
  EXPECT_EQ(id->organizations, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_TRUE((*v)->Verify({Der(dir_ / "proxy.crt")}).ok());

  auto rogue = (*v)->Verify({Der(dir_ / "rogue.crt")});
  ASSERT_FALSE(rogue.ok());
  EXPECT_EQ(rogue.error(), "x509: unable to get local issuer certificate");
  auto server_only = (*v)->Verify({Der(dir_ / "server-only.crt")});
  ASSERT_FALSE(server_only.ok());
  EXPECT_EQ(server_only.error(), "x509: unsuitable certificate purpose");
  EXPECT_EQ((*v)->Verify({}).error(), "x509: no certificate");
  EXPECT_EQ((*v)->Verify({"junk"}).error(), "x509: the client certificate does not parse");

  auto bad = CertVerifier::FromPem("nothing here", "client CA");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "client CA: no PEM certificate in the bundle");
}

RequestCredentials WithCert(const std::string& der, const std::string& path = "/metrics") {
  RequestCredentials r;
  r.method = "GET";
  r.target = r.path = path;
  r.peer_certificates = {der};
  return r;
}

TEST_F(ClientCertTest, DelegatedAuthUsesClientCertificatesAndTheFrontProxy) {
  DelegatedAuthConfig cfg;
  cfg.client_ca_pem = ReadFile(dir_ / "ca.crt");
  RequestHeaderConfig rh;
  rh.ca_pem = ReadFile(dir_ / "proxy-ca.crt");
  rh.allowed_names = {"front-proxy"};
  cfg.request_header = rh;
  auto auth = DelegatedAuth::Create(cfg);
  ASSERT_TRUE(auth.ok()) << auth.error();

  // Client certificate: user = CN, groups = O (+ system:authenticated).
  auto a = (*auth)->Authenticate(WithCert(Der(dir_ / "alice.crt")));
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(a.user.name, "alice");
  EXPECT_EQ(a.user.groups, (std::vector<std::string>{"g1", "g2", "system:authenticated"}));

  // Front proxy: the headers name the user.
  RequestCredentials proxied = WithCert(Der(dir_ / "proxy.crt"));
  proxied.headers = {{"x-remote-user", "bob"},
                     {"x-remote-group", "team-a"},
                     {"x-remote-group", "team-b"},
                     {"x-remote-extra-scopes", "read"},
                     {"x-remote-extra-acme.com%2fproject", "p1"}};
  a = (*auth)->Authenticate(proxied);
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(a.user.name, "bob");
  EXPECT_EQ(a.user.groups, (std::vector<std::string>{"team-a", "team-b", "system:authenticated"}));
  EXPECT_EQ(a.user.extra["scopes"], (std::vector<std::string>{"read"}));
  EXPECT_EQ(a.user.extra["acme.com/project"], (std::vector<std::string>{"p1"}));

  // The front proxy's certificate without a user header is not a client certificate of the
  // client CA: 401.
  a = (*auth)->Authenticate(WithCert(Der(dir_ / "proxy.crt")));
  EXPECT_FALSE(a.ok);
  // A certificate from another CA is refused even with the system:masters organisation.
  auto r = (*auth)->Decide(WithCert(Der(dir_ / "rogue.crt"), "/healthz"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  // User headers without the proxy's certificate are ignored: anonymous.
  RequestCredentials forged;
  forged.method = "GET";
  forged.target = forged.path = "/metrics";
  forged.headers = {{"x-remote-user", "admin"}, {"x-remote-group", "system:masters"}};
  a = (*auth)->Authenticate(forged);
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(a.user.name, "system:anonymous");
}

TEST_F(ClientCertTest, FrontProxyNotInTheAllowedNamesIsRefused) {
  DelegatedAuthConfig cfg;
  RequestHeaderConfig rh;
  rh.ca_pem = ReadFile(dir_ / "proxy-ca.crt");
  rh.allowed_names = {"someone-else"};
  cfg.request_header = rh;
  auto auth = DelegatedAuth::Create(cfg);
  ASSERT_TRUE(auth.ok()) << auth.error();
  RequestCredentials proxied = WithCert(Der(dir_ / "proxy.crt"));
  proxied.headers = {{"x-remote-user", "bob"}};
  auto a = (*auth)->Authenticate(proxied);
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.error.find("subject with cn=front-proxy is not in the allowed list"),
            std::string::npos)
      << a.error;
}

}  // namespace
}  // namespace berth::serving
