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
// --request-timeout, as kubectl reads it: seconds, or a duration; 0 for none; 60 s by default.
TEST(KubeFlagsTest, RequestTimeoutBoundsTheCommand) {
  const std::string path = Write("kube_flags_timeout", kKubeconfig);
  using std::chrono::seconds;
  using std::chrono::steady_clock;
  auto deadline_in = [&](const std::map<std::string, std::string>& extra, KubeAccess* a) {
    std::map<std::string, std::string> values = extra;
    values["kubeconfig"] = path;
    const auto before = steady_clock::now();
    EXPECT_TRUE(ReadKubeAccess("explain", With(values), false, a));
    return a->deadline == steady_clock::time_point::max()
               ? -1.0
               : std::chrono::duration<double>(a->deadline - before).count();
  };
  KubeAccess d;
  const double by_default = deadline_in({}, &d);
  EXPECT_GE(by_default, 59.0);
  EXPECT_LE(by_default, 61.0);
  EXPECT_EQ(d.request_timeout_text, "--request-timeout 60s");
  KubeAccess s;
  const double bare = deadline_in({{"request-timeout", "5"}}, &s);
  EXPECT_GE(bare, 4.0);
  EXPECT_LE(bare, 6.0);
  EXPECT_EQ(s.request_timeout_text, "--request-timeout 5");
  KubeAccess m;
  const double minutes = deadline_in({{"request-timeout", "2m"}}, &m);
  EXPECT_GE(minutes, 119.0);
  EXPECT_LE(minutes, 121.0);
  KubeAccess none;
  EXPECT_EQ(deadline_in({{"request-timeout", "0"}}, &none), -1.0);
  KubeAccess huge;
  EXPECT_EQ(deadline_in({{"request-timeout", "99999999999999999999999"}}, &huge), -1.0);
  for (const char* bad : {"2d", "-1s", "1.5", "", "s"}) {
    KubeAccess b;
    EXPECT_FALSE(ReadKubeAccess("explain", With({{"kubeconfig", path}, {"request-timeout", bad}}),
                                false, &b))
        << bad;
  }
}

}  // namespace berth::app
