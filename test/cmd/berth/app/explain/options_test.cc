// `berth explain`'s command line: POD among the flags, -n/-o short forms, the modes and what
// excludes what; and the subcommand moved first for kubectl's plugin calls.

#include "cmd/berth/app/explain/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace berth::explain {
namespace {

app::Flags Parse(std::vector<std::string> args) {
  args.insert(args.begin(), {"berth", "explain"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return app::ParseFlags("explain", "usage", static_cast<int>(argv.size()), argv.data(),
                         ExplainFlagSpecs(), /*keep_positionals=*/true);
}

Result<ExplainOptions> Read(std::vector<std::string> args) {
  app::Flags f = Parse(std::move(args));
  if (!f.error.empty()) return Error{f.error};
  return ReadExplainOptions(f);
}

TEST(ExplainOptionsTest, Defaults) {
  auto o = Read({"web-1"});
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->pod, "web-1");
  EXPECT_EQ(o->pod_namespace, "");  // the kubeconfig's, resolved by Main
  EXPECT_FALSE(o->json);
  EXPECT_EQ(o->mode, Mode::kLeaderPod);
  EXPECT_EQ(o->lease_namespace, "berth-system");
  EXPECT_EQ(o->lease_name, "berth-scheduler");
  EXPECT_EQ(o->scheduler_port, 10259);
  EXPECT_EQ(o->service_name, "berth-metrics");
  EXPECT_EQ(o->service_port, "https-metrics");
}

TEST(ExplainOptionsTest, PodAnywhereAmongFlagsAndShortForms) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"web-1", "-n", "shop", "-o", "json", "--offline"},
           {"-n", "shop", "--offline", "web-1", "-o=json"},
           {"--namespace=shop", "--output", "json", "--offline=true", "web-1"},
           {"-nshop", "-ojson", "--offline", "web-1", "--context", "kind-a", "--kubeconfig",
            "/k"}}) {
    auto o = Read(args);
    ASSERT_TRUE(o.ok()) << o.error() << " for " << args[0];
    EXPECT_EQ(o->pod, "web-1");
    EXPECT_EQ(o->pod_namespace, "shop");
    EXPECT_TRUE(o->json);
    EXPECT_EQ(o->mode, Mode::kOffline);
  }
  app::Flags f = Parse({"p", "--context", "kind-a", "--kubeconfig", "/k"});
  EXPECT_EQ(f.Get("context"), "kind-a");
  EXPECT_EQ(f.Get("kubeconfig"), "/k");
}

TEST(ExplainOptionsTest, Modes) {
  auto url =
      Read({"p", "--scheduler-url", "https://10.0.0.1:10259/", "--insecure-skip-tls-verify"});
  ASSERT_TRUE(url.ok()) << url.error();
  EXPECT_EQ(url->mode, Mode::kUrl);
  EXPECT_EQ(url->scheduler_url, "https://10.0.0.1:10259");
  EXPECT_TRUE(url->insecure_skip_tls_verify);
  auto svc = Read({"p", "--via-service", "--service", "b-metrics", "--lease-namespace", "ops"});
  ASSERT_TRUE(svc.ok()) << svc.error();
  EXPECT_EQ(svc->mode, Mode::kService);
  EXPECT_EQ(svc->service_name, "b-metrics");
  EXPECT_EQ(svc->lease_namespace, "ops");
  auto pod = Read({"p", "--lease-name", "l", "--scheduler-port", "9443"});
  ASSERT_TRUE(pod.ok()) << pod.error();
  EXPECT_EQ(pod->lease_name, "l");
  EXPECT_EQ(pod->scheduler_port, 9443);
}

TEST(ExplainOptionsTest, ErrorsAreOneLineNamingTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{}, "a pod name is required: berth explain POD [-n NS]"},
      {{"a", "b"}, "exactly one pod name expected, got 2: a, b"},
      {{"a/b"}, "pod name \"a/b\": not a valid name"},
      {{"Web"}, "pod name \"Web\": not a valid name"},
      {{"p", "-n", "a?b"}, "--namespace \"a?b\": not a valid namespace"},
      {{"p", "-o", "yaml"}, "-o \"yaml\": want text or json"},
      {{"p", "--scheduler-port", "0"}, "--scheduler-port \"0\": want a port number (1-65535)"},
      {{"p", "--scheduler-port", "x"}, "--scheduler-port \"x\": want a port number (1-65535)"},
      {{"p", "--scheduler-url", "10.0.0.1:10259"},
       "--scheduler-url \"10.0.0.1:10259\": want https://host:port"},
      {{"p", "--offline", "--scheduler-url", "https://h"},
       "--offline, --scheduler-url and --via-service exclude each other"},
      {{"p", "--offline", "--via-service"},
       "--offline, --scheduler-url and --via-service exclude each other"},
      {{"p", "--insecure-skip-tls-verify"},
       "--certificate-authority and --insecure-skip-tls-verify need --scheduler-url"},
      {{"p", "--scheduler-url", "https://h", "--certificate-authority", "ca.crt",
        "--insecure-skip-tls-verify"},
       "--certificate-authority and --insecure-skip-tls-verify exclude each other"},
      {{"p", "--service", "s"}, "--service and --service-port need --via-service"},
      {{"p", "--lease-namespace", "A"}, "lease \"A/berth-scheduler\": not a valid namespace/name"},
      {{"p", "--frobnicate"}, "unknown flag: --frobnicate"},
      {{"p", "--offline=maybe"},
       "invalid argument \"maybe\" for \"--offline\" flag: want true or false"},
  };
  for (const auto& c : cases) {
    auto o = Read(c.args);
    ASSERT_FALSE(o.ok()) << (c.args.empty() ? "(none)" : c.args.back());
    EXPECT_EQ(o.error(), c.error);
  }
}

TEST(SubcommandFirstTest, MovesTheSubcommandAheadOfKubectlsGlobalFlags) {
  const std::vector<std::string> commands = {"simulate", "run", "explain", "version"};
  using V = std::vector<std::string>;
  EXPECT_EQ(app::SubcommandFirst(V{"explain", "p", "-n", "x"}, commands),
            (V{"explain", "p", "-n", "x"}));
  EXPECT_EQ(app::SubcommandFirst(V{"--context", "c", "explain", "p"}, commands),
            (V{"explain", "--context", "c", "p"}));
  EXPECT_EQ(app::SubcommandFirst(V{"--kubeconfig=/k", "explain", "p"}, commands),
            (V{"explain", "--kubeconfig=/k", "p"}));
  // A flag's value that happens to be a command name is left alone.
  EXPECT_EQ(app::SubcommandFirst(V{"-n", "run", "explain", "p"}, commands),
            (V{"explain", "-n", "run", "p"}));
  EXPECT_EQ(app::SubcommandFirst(V{"--help"}, commands), (V{"--help"}));
  EXPECT_EQ(app::SubcommandFirst(V{}, commands), (V{}));
}

}  // namespace
}  // namespace berth::explain
