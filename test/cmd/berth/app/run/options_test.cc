// `berth run`'s command line: CLI11 parsing into app::Flags, and kube-scheduler's precedence
// between flags and the config file (cmd/kube-scheduler/app/options ApplyTo).

#include "cmd/berth/app/run/options.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "plugins/registry.h"

namespace berth::run {
namespace {

app::Flags Parse(std::vector<std::string> args) {
  args.insert(args.begin(), {"berth", "run"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return app::ParseFlags("run", "usage", static_cast<int>(argv.size()), argv.data(),
                         RunFlagSpecs());
}

std::vector<std::string> Known() { return plugins::NewInTreeRegistry().Names(); }

Result<RunSettings> Read(std::vector<std::string> args) {
  app::Flags f = Parse(std::move(args));
  if (!f.error.empty()) return Error{f.error};
  return ReadRunFlags(f, Known());
}

std::string WriteConfig(const std::string& name, const std::string& extra) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                         "kind: KubeSchedulerConfiguration\n"
                      << extra;
  return path;
}

TEST(RunFlagsTest, UnknownFlagIsNamed) {
  EXPECT_EQ(Parse({"--frobnicate=1"}).error, "unknown flag: --frobnicate");
  EXPECT_EQ(Parse({"--leader-elect", "--bogus"}).error, "unknown flag: --bogus");
  EXPECT_EQ(Parse({"stray"}).error, "unexpected argument \"stray\"");
}

TEST(RunFlagsTest, PflagSyntaxes) {
  app::Flags f = Parse({"-v=4", "--config", "c.yaml", "--leader-elect=false", "--profiling"});
  ASSERT_EQ(f.error, "");
  EXPECT_EQ(f.Get("v"), "4");
  EXPECT_EQ(f.Get("config"), "c.yaml");
  EXPECT_TRUE(f.Has("leader-elect"));
  EXPECT_FALSE(f.Bool("leader-elect"));
  EXPECT_TRUE(f.Bool("profiling"));
  EXPECT_EQ(Parse({"-v", "3"}).Get("v"), "3");
  EXPECT_EQ(Parse({"--v=2", "--v=5"}).Get("v"), "5");  // the last one wins, as pflag
  EXPECT_NE(Parse({"--leader-elect=maybe"}).error, "");
  EXPECT_NE(Parse({"--config"}).error, "");
}

TEST(RunFlagsTest, AuthFlagsAreAccepted) {
  auto s = Read({"--authentication-kubeconfig=/k", "--authorization-kubeconfig=/k",
                 "--authentication-skip-lookup", "--authentication-tolerate-lookup-failure=false",
                 "--client-ca-file=/ca", "--authorization-always-allow-paths=/healthz"});
  // Read here; serving::ParseAuthOptions turns them into the secure port's settings
  // (test/cmd/berth/app/serving/delegated_auth_test.cc).
  ASSERT_TRUE(s.ok()) << s.error();
}

TEST(RunFlagsTest, UnsupportedValuesAreErrors) {
  const std::vector<std::vector<std::string>> bad = {
      {"--leader-elect-resource-lock=endpoints"},
      {"--kube-api-content-type=application/vnd.kubernetes.protobuf"},
      {"--feature-gates=SchedulerQueueingHints=true"},
      {"--tls-min-version=VersionTLS11"},
      {"--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA"},
      {"--logging-format=xml"},
      {"--vmodule=foo"},
      {"--leader-elect-lease-duration=soon"},
      {"--secure-port=70000"},
      {"--kube-api-burst=-1"},
  };
  for (const auto& args : bad) {
    auto s = Read(args);
    EXPECT_FALSE(s.ok()) << args[0];
    if (!s.ok()) {
      EXPECT_NE(s.error().find(args[0].substr(0, args[0].find('='))), std::string::npos)
          << s.error();
    }
  }
}

TEST(RunFlagsTest, WithoutConfigDeprecatedFlagsApply) {
  auto s = Read({"--kubeconfig=/etc/k.conf", "--kube-api-qps=7.5", "--kube-api-burst=9",
                 "--kube-api-content-type=application/json", "--profiling=false"});
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->kubeconfig, "/etc/k.conf");
  EXPECT_FLOAT_EQ(s->config.client_connection.qps, 7.5);
  EXPECT_EQ(s->config.client_connection.burst, 9);
  EXPECT_FALSE(s->config.enable_profiling);
  EXPECT_TRUE(s->ignored.empty());
}

TEST(RunFlagsTest, WithConfigDeprecatedFlagsAreIgnored) {
  const std::string cfg = WriteConfig(
      "deprecated.yaml", "clientConnection: {kubeconfig: /from/config, qps: 11, burst: 12}\n");
  auto s = Read({"--config", cfg, "--kubeconfig=/etc/k.conf", "--kube-api-qps=7",
                 "--kube-api-burst=9", "--profiling=false",
                 // Ignored, so not even checked (as upstream).
                 "--kube-api-content-type=application/vnd.kubernetes.protobuf"});
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->kubeconfig, "/from/config");
  EXPECT_FLOAT_EQ(s->config.client_connection.qps, 11);
  EXPECT_EQ(s->config.client_connection.burst, 12);
  EXPECT_TRUE(s->config.enable_profiling);
  EXPECT_EQ(s->ignored,
            (std::vector<std::string>{"--kubeconfig", "--kube-api-qps", "--kube-api-burst",
                                      "--kube-api-content-type", "--profiling"}));
}

TEST(RunFlagsTest, LeaderElectionFlagsOverrideTheConfig) {
  const std::string cfg = WriteConfig("le.yaml",
                                      "leaderElection:\n  leaderElect: true\n"
                                      "  resourceName: from-config\n  leaseDuration: 30s\n"
                                      "  renewDeadline: 20s\n");
  auto s = Read({"--config", cfg, "--leader-elect=false", "--leader-elect-resource-name=flag",
                 "--leader-elect-resource-namespace=kube-system",
                 "--leader-elect-lease-duration=40s", "--leader-elect-retry-period=500ms"});
  ASSERT_TRUE(s.ok()) << s.error();
  const auto& le = s->config.leader_election;
  EXPECT_FALSE(le.leader_elect);
  EXPECT_EQ(le.resource_name, "flag");
  EXPECT_EQ(le.resource_namespace, "kube-system");
  EXPECT_EQ(le.lease_duration, std::chrono::seconds(40));
  EXPECT_EQ(le.renew_deadline, std::chrono::seconds(20));  // from the file
  EXPECT_EQ(le.retry_period, std::chrono::milliseconds(500));
  // Without flags the file's values stay.
  auto plain = Read({"--config", cfg});
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_EQ(plain->config.leader_election.resource_name, "from-config");
  EXPECT_TRUE(plain->config.leader_election.leader_elect);
}

TEST(RunFlagsTest, ServingAndLogging) {
  auto s =
      Read({"--bind-address=127.0.0.1", "--secure-port=10300", "--tls-min-version", "VersionTLS13",
            "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256",
            "--master=https://api:6443", "--v=3", "--vmodule=schedule_one=5",
            "--logging-format=json", "--permit-address-sharing"});
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->http.secure_address, "127.0.0.1:10300");
  EXPECT_EQ(s->http.tls_min_version, 0x0304);
  EXPECT_EQ(s->http.cipher_list, "ECDHE-RSA-AES128-GCM-SHA256");
  EXPECT_EQ(s->master, "https://api:6443");
  EXPECT_EQ(s->verbosity, 3);
  EXPECT_EQ(s->vmodule, "schedule_one=5");
  EXPECT_EQ(s->logging_format, log::Format::kJson);
}

TEST(RunFlagsTest, CertDirReusesAnExistingPair) {
  const std::string dir = ::testing::TempDir() + "/certdir";
  auto fresh = Read({"--cert-dir", dir + "/none"});
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->http.cert_dir, dir + "/none");
  EXPECT_EQ(fresh->http.cert_file, "");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/kube-scheduler.crt") << "x";
  std::ofstream(dir + "/kube-scheduler.key") << "x";
  auto existing = Read({"--cert-dir", dir});
  ASSERT_TRUE(existing.ok());
  EXPECT_EQ(existing->http.cert_file, dir + "/kube-scheduler.crt");
  EXPECT_EQ(existing->http.key_file, dir + "/kube-scheduler.key");
}

TEST(RunFlagsTest, WriteConfigRoundTrips) {
  auto s = Read({"--leader-elect=false", "--kube-api-qps=7"});
  ASSERT_TRUE(s.ok());
  const std::string text = RenderConfigForWrite(s->config);
  EXPECT_NE(text.find("\"leaderElect\":false"), std::string::npos) << text;
  EXPECT_NE(text.find("\"qps\":7"), std::string::npos) << text;
}

}  // namespace
}  // namespace berth::run
