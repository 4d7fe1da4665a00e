// The workstation's way to the API server (berth explain, berth simulate --kubeconfig): which
// kubeconfig is read, its context and namespace, and the QPS flags.

#include "cmd/berth/app/kube_flags.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace berth::app {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

constexpr char kKubeconfig[] = R"(apiVersion: v1
kind: Config
current-context: a
clusters:
- {name: c, cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}}
users:
- {name: u, user: {token: t}}
contexts:
- {name: a, context: {cluster: c, user: u}}
- {name: b, context: {cluster: c, user: u, namespace: shop}}
)";

Flags With(std::map<std::string, std::string> values) {
  Flags f;
  f.values = std::move(values);
  return f;
}

TEST(KubeFlagsTest, ResolvesTheKubeconfigAsKubectl) {
  const std::string dir = ::testing::TempDir() + "/kube_flags_home";
  std::filesystem::create_directories(dir + "/.kube");
  const std::string home_config = dir + "/.kube/config";
  std::ofstream(home_config) << kKubeconfig;
  const std::string env_config = Write("kube_flags_env", kKubeconfig);
  setenv("HOME", dir.c_str(), 1);
  setenv("KUBECONFIG", ("/does/not/exist:" + env_config).c_str(), 1);
  EXPECT_EQ(ResolveKubeconfig(With({{"kubeconfig", "/given"}})), "/given");
  EXPECT_EQ(ResolveKubeconfig(With({})), env_config);
  unsetenv("KUBECONFIG");
  EXPECT_EQ(ResolveKubeconfig(With({})), home_config);
  std::filesystem::remove(home_config);
  EXPECT_EQ(ResolveKubeconfig(With({})), "");
}

TEST(KubeFlagsTest, ContextNamespaceAndQps) {
  const std::string path = Write("kube_flags_config", kKubeconfig);
  KubeAccess a;
  ASSERT_TRUE(ReadKubeAccess("explain", With({{"kubeconfig", path}}), false, &a));
  EXPECT_EQ(a.config.default_namespace, "default");
  EXPECT_EQ(a.qps, kDefaultCliQps);
  EXPECT_EQ(a.burst, kDefaultCliBurst);
  KubeAccess b;
  ASSERT_TRUE(ReadKubeAccess(
      "explain",
      With(
          {{"kubeconfig", path}, {"context", "b"}, {"kube-api-qps", "5"}, {"kube-api-burst", "7"}}),
      false, &b));
  EXPECT_EQ(b.config.default_namespace, "shop");
  EXPECT_EQ(b.config.token, "t");
  EXPECT_EQ(b.qps, 5.0f);
  EXPECT_EQ(b.burst, 7);
  KubeAccess bad;
  EXPECT_FALSE(
      ReadKubeAccess("explain", With({{"kubeconfig", path}, {"context", "zz"}}), false, &bad));
  EXPECT_FALSE(
      ReadKubeAccess("explain", With({{"kubeconfig", path}, {"kube-api-qps", "-1"}}), false, &bad));
  EXPECT_FALSE(ReadKubeAccess("explain", With({{"kubeconfig", path}, {"kube-api-burst", "0"}}),
                              false, &bad));
}

}  // namespace
}  // namespace berth::app
