#include "informers/client/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "test/informers/client/temp_dir.h"

namespace berth::client {
namespace {

using testing::TempDir;

// base64("CA PEM"), base64("CERT PEM"), base64("KEY PEM")
constexpr char kCaB64[] = "Q0EgUEVN";
constexpr char kCertB64[] = "Q0VSVCBQRU0=";
constexpr char kKeyB64[] = "S0VZIFBFTQ==";

TEST(DecodeBase64Test, Table) {
  struct Case {
    const char* in;
    std::optional<std::string> want;
  } cases[] = {
      {"", std::string()},
      {"Zg==", std::string("f")},
      {"Zm8=", std::string("fo")},
      {"Zm9v", std::string("foo")},
      {"Zm9vYg", std::string("foob")},  // padding optional
      {"Zm9v\nYmFy\n", std::string("foobar")},
      {"Zm9v!", std::nullopt},
      {"Zg==Zg", std::nullopt},
      {"Z", std::nullopt},
  };
  for (const auto& c : cases) EXPECT_EQ(DecodeBase64(c.in), c.want) << c.in;
}

TEST(LoadKubeconfigTest, DataFieldsAndCurrentContext) {
  TempDir dir;
  std::string path = dir.Write("config", std::string(R"(apiVersion: v1
kind: Config
clusters:
- name: other
  cluster: {server: "https://other:1"}
- name: c1
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: )") + kCaB64 +
                                             R"(
    tls-server-name: kubernetes.default
users:
- name: u1
  user:
    token: " abc "
    client-certificate-data: )" + kCertB64 + R"(
    client-key-data: )" + kKeyB64 + R"(
contexts:
- name: ctx1
  context: {cluster: c1, user: u1, namespace: team-a}
current-context: ctx1
)");
  auto cfg = LoadKubeconfig(path);
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  EXPECT_EQ(cfg->server, "https://10.0.0.1:6443");
  EXPECT_EQ(cfg->ca_pem, "CA PEM");
  EXPECT_EQ(cfg->tls_server_name, "kubernetes.default");
  EXPECT_FALSE(cfg->insecure_skip_tls_verify);
  EXPECT_EQ(cfg->token, "abc");
  EXPECT_EQ(cfg->client_cert_pem, "CERT PEM");
  EXPECT_EQ(cfg->client_key_pem, "KEY PEM");
  EXPECT_EQ(cfg->default_namespace, "team-a");
}

TEST(LoadKubeconfigTest, FilePathsRelativeToKubeconfig) {
  TempDir dir;
  dir.Write("kube/pki/ca.crt", "CA FROM FILE");
  dir.Write("kube/pki/client.crt", "CERT FROM FILE");
  std::string key = dir.Write("elsewhere/client.key", "KEY FROM FILE");
  std::string path = dir.Write("kube/config", R"(
clusters:
- name: c
  cluster: {server: "https://h:443", certificate-authority: pki/ca.crt}
users:
- name: u
  user:
    client-certificate: ./pki/client.crt
    client-key: )" + key + R"(
    tokenFile: tokens/t
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
)");
  auto cfg = LoadKubeconfig(path);
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  EXPECT_EQ(cfg->ca_pem, "CA FROM FILE");
  EXPECT_EQ(cfg->client_cert_pem, "CERT FROM FILE");
  EXPECT_EQ(cfg->client_key_pem, "KEY FROM FILE");
  EXPECT_EQ(cfg->token_file, dir.path() + "/kube/tokens/t");
  EXPECT_EQ(cfg->default_namespace, "default");
}

TEST(LoadKubeconfigTest, NamedContextOverridesCurrent) {
  TempDir dir;
  std::string path = dir.Write("config", R"(
clusters:
- {name: a, cluster: {server: "https://a:1", insecure-skip-tls-verify: true}}
- {name: b, cluster: {server: "http://b:2"}}
users:
- {name: ua, user: {token: ta}}
contexts:
- {name: ca, context: {cluster: a, user: ua}}
- {name: cb, context: {cluster: b, namespace: nb}}
current-context: ca
)");
  auto a = LoadKubeconfig(path);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->server, "https://a:1");
  EXPECT_TRUE(a->insecure_skip_tls_verify);
  EXPECT_EQ(a->token, "ta");
  auto b = LoadKubeconfig(path, "cb");
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ(b->server, "http://b:2");
  EXPECT_EQ(b->token, "");
  EXPECT_EQ(b->default_namespace, "nb");
}

TEST(LoadKubeconfigTest, Errors) {
  TempDir dir;
  const std::string base = R"(
clusters:
- {name: c, cluster: {server: "https://h:1"}}
contexts:
- {name: x, context: {cluster: c, user: u}}
current-context: x
)";
  struct Case {
    const char* name;
    std::string yaml;
    std::string context;
    std::string want;  // after "<path>: "
  } cases[] = {
      {"context missing", base, "nope", "context \"nope\" not found"},
      {"no current context", "clusters: []\n", "", "no current-context set and no context given"},
      {"user missing", base, "", "user \"u\" (of context \"x\") not found"},
      {"cluster missing", "contexts:\n- {name: x, context: {cluster: gone}}\ncurrent-context: x\n",
       "", "cluster \"gone\" (of context \"x\") not found"},
      {"server missing",
       "clusters:\n- {name: c, cluster: {}}\ncontexts:\n- {name: x, context: {cluster: c}}\n"
       "current-context: x\n",
       "", "clusters[0].cluster.server: server is required"},
      {"cert file missing",
       base +
           "users:\n- {name: u, user: {client-certificate: /nonexistent/c.crt, client-key: k}}\n",
       "",
       "users[0].user.client-certificate: cannot read \"/nonexistent/c.crt\": No such file or "
       "directory"},
      {"exec plugin", base + "users:\n- {name: u, user: {exec: {command: aws}}}\n", "",
       "users[0].user.exec: exec credential plugins are not supported; use token, tokenFile or a "
       "client certificate"},
      {"auth provider", base + "users:\n- {name: u, user: {auth-provider: {name: gcp}}}\n", "",
       "users[0].user.auth-provider: auth-provider plugins are not supported; use token, "
       "tokenFile or a client certificate"},
      {"bad base64",
       "clusters:\n- {name: c, cluster: {server: s, certificate-authority-data: '!!'}}\n"
       "contexts:\n- {name: x, context: {cluster: c}}\ncurrent-context: x\n",
       "", "clusters[0].cluster.certificate-authority-data: invalid base64"},
      {"impersonated user", base + "users:\n- {name: u, user: {token: t, as: admin}}\n", "",
       "users[0].user.as: impersonation is not supported"},
      {"impersonated groups",
       base + "users:\n- {name: u, user: {token: t, as-groups: [system:masters]}}\n", "",
       "users[0].user.as-groups: impersonation is not supported"},
      {"impersonated uid", base + "users:\n- {name: u, user: {as-uid: '1'}}\n", "",
       "users[0].user.as-uid: impersonation is not supported"},
      {"impersonated extra", base + "users:\n- {name: u, user: {as-user-extra: {a: [b]}}}\n", "",
       "users[0].user.as-user-extra: impersonation is not supported"},
      {"proxy",
       "clusters:\n- {name: c, cluster: {server: s, proxy-url: 'http://proxy:3128'}}\n"
       "contexts:\n- {name: x, context: {cluster: c}}\ncurrent-context: x\n",
       "",
       "clusters[0].cluster.proxy-url: proxies are not supported; berth connects to the server "
       "directly"},
      {"token not a string", base + "users:\n- {name: u, user: {token: [1]}}\n", "",
       "users[0].user.token: expected string, got array"},
      {"cert without key", base + "users:\n- {name: u, user: {client-certificate-data: Zg==}}\n",
       "", "users[0].user: client-certificate given without client-key"},
  };
  for (const auto& c : cases) {
    std::string path = dir.Write("config", c.yaml);
    auto cfg = LoadKubeconfig(path, c.context);
    ASSERT_FALSE(cfg.ok()) << c.name;
    EXPECT_EQ(cfg.error(), path + ": " + c.want) << c.name;
  }
}

TEST(LoadKubeconfigTest, MissingFileNamesIt) {
  auto cfg = LoadKubeconfig("/nonexistent/kubeconfig");
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error(),
            "/nonexistent/kubeconfig: cannot read \"/nonexistent/kubeconfig\": No such file or "
            "directory");
}

class InClusterConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  }
  void TearDown() override {
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
  }
  TempDir dir_;
};

TEST_F(InClusterConfigTest, ReadsServiceAccountDir) {
  dir_.Write("token", "sa-token\n");
  dir_.Write("ca.crt", "CLUSTER CA");
  dir_.Write("namespace", "berth-system");
  auto cfg = InClusterConfig(dir_.path());
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  EXPECT_EQ(cfg->server, "https://10.96.0.1:443");
  EXPECT_EQ(cfg->token, "sa-token");
  EXPECT_EQ(cfg->token_file, dir_.path() + "/token");
  EXPECT_EQ(cfg->ca_pem, "CLUSTER CA");
  EXPECT_EQ(cfg->default_namespace, "berth-system");
}

TEST_F(InClusterConfigTest, Ipv6HostAndNoNamespace) {
  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  dir_.Write("token", "t");
  dir_.Write("ca.crt", "CA");
  auto cfg = InClusterConfig(dir_.path());
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  EXPECT_EQ(cfg->server, "https://[fd00::1]:443");
  EXPECT_EQ(cfg->default_namespace, "default");
}

TEST_F(InClusterConfigTest, Errors) {
  auto no_token = InClusterConfig(dir_.path());
  ASSERT_FALSE(no_token.ok());
  EXPECT_EQ(no_token.error(), "in-cluster config: cannot read \"" + dir_.path() +
                                  "/token\": No such file or directory");
  dir_.Write("token", "t");
  auto no_ca = InClusterConfig(dir_.path());
  ASSERT_FALSE(no_ca.ok());
  EXPECT_NE(no_ca.error().find("ca.crt"), std::string::npos) << no_ca.error();

  unsetenv("KUBERNETES_SERVICE_HOST");
  auto no_env = InClusterConfig(dir_.path());
  ASSERT_FALSE(no_env.ok());
  EXPECT_NE(no_env.error().find("KUBERNETES_SERVICE_HOST"), std::string::npos);
}

// Moves the file's mtime forward so a rewrite is seen even on coarse-mtime file systems.
void Touch(const std::string& path, int seconds_ahead) {
  auto t = std::filesystem::last_write_time(path);
  std::filesystem::last_write_time(path, t + std::chrono::seconds(seconds_ahead));
}

TEST(TokenSourceTest, StaticToken) {
  TokenSource s("static", "");
  auto t = s.Token();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, "static");
}

TEST(TokenSourceTest, FileRotation) {
  TempDir dir;
  std::string file = dir.Write("token", "first\n");
  TokenSource s("static", file);
  EXPECT_EQ(*s.Token(), "first");  // the file wins over the static token
  dir.Write("token", "second");
  Touch(file, 10);
  EXPECT_EQ(*s.Token(), "second");
  EXPECT_EQ(*s.Token(), "second");
  // A failed re-read keeps the last good token.
  std::filesystem::remove(file);
  EXPECT_EQ(*s.Token(), "second");
  dir.Write("token", "third");
  Touch(file, 20);
  EXPECT_EQ(*s.Token(), "third");
}

TEST(TokenSourceTest, UnreadableFileWithoutFallbackIsAnError) {
  TokenSource s("", "/nonexistent/token");
  auto t = s.Token();
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), "token file: cannot read \"/nonexistent/token\": No such file or directory");
  TokenSource with_static("fallback", "/nonexistent/token");
  EXPECT_EQ(*with_static.Token(), "fallback");
}

}  // namespace
}  // namespace berth::client
