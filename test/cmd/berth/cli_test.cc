// The `berth` command line as a user runs it: exit codes, stdout JSON, one-line errors.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <tuple>

#include "api/json/parse.h"
#include "test/cmd/berth/run_berth.h"

namespace {

using berth::testing::Berth;
using berth::testing::Run;

std::string Write(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(CliTest, VersionAndUsage) {
  auto v = Berth("version");
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out.rfind("berth ", 0), 0u);
  auto bad = Berth("frobnicate");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("unknown command \"frobnicate\""), std::string::npos);
}

TEST(CliTest, EveryExampleRunsAndListsEachPendingPodOnce) {
  int examples = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(BERTH_SOURCE_DIR) + "/docs/examples")) {
    if (e.path().extension() != ".yaml" ||
        e.path().filename().string().find("config") != std::string::npos) {
      continue;
    }
    ++examples;
    std::string args = "simulate --cluster " + e.path().string() + " --explain";
    // An example may come with its own config: name.config.yaml.
    auto cfg = e.path();
    cfg.replace_extension(".config.yaml");
    if (std::filesystem::exists(cfg)) args += " --config " + cfg.string();
    auto r = Berth(args);
    ASSERT_EQ(r.code, 0) << e.path() << ": " << r.err;
    auto doc = berth::api::json::ParseJson(r.out);
    ASSERT_TRUE(doc.ok()) << doc.error();
    std::set<std::string> seen;
    for (const auto& p : doc->Find("pods")->AsArray()) {
      std::string key = p.Find("pod")->AsString();
      EXPECT_TRUE(seen.insert(key).second) << key << " listed twice in " << e.path();
      std::string status = p.Find("status")->AsString();
      EXPECT_TRUE(status == "Scheduled" || status == "Unschedulable" || status == "Error" ||
                  status == "Gated")
          << key << ": " << status;
    }
    EXPECT_FALSE(seen.empty()) << e.path();
  }
  EXPECT_GT(examples, 0);
}

TEST(CliTest, BadInputExitsTwoWithOneLineNamingTheField) {
  std::string path =
      Write("bad.yaml",
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: default}\n"
            "spec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: "
            "1.5.3}}\n");
  auto r = Berth("simulate --cluster " + path);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "berth simulate: " + path +
                       ": document 2: Pod default/web-1: spec.containers[0].resources.requests.cpu:"
                       " invalid quantity \"1.5.3\"\n");
}

TEST(CliTest, BadConfigExitsTwoNamingTheField) {
  std::string cluster = Write("ok.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n");
  std::string cfg = Write("cfg.yaml",
                          "apiVersion: kubescheduler.config.k8s.io/v1\n"
                          "kind: KubeSchedulerConfiguration\n"
                          "profiles:\n- schedulerName: x\n  plugins:\n    filter:\n"
                          "      enabled: [{name: NoSuchPlugin}]\n");
  auto r = Berth("simulate --cluster " + cluster + " --config " + cfg);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("profiles[0].plugins.filter.enabled[0]: unknown plugin \"NoSuchPlugin\""),
            std::string::npos)
      << r.err;
  // The sorted list of every registered plugin follows.
  EXPECT_NE(r.err.find("known plugins: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("DefaultBinder, DefaultPreemption, DynamicResources, ImageLocality"),
            std::string::npos)
      << r.err;
}

TEST(CliTest, MissingAndUnknownFlags) {
  EXPECT_EQ(Berth("simulate").code, 2);
  EXPECT_EQ(Berth("simulate --cluster x --bogus").code, 2);
  auto r = Berth("simulate --cluster /nonexistent.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "berth simulate: /nonexistent.yaml: cannot read file: No such file or directory\n");
}

TEST(CliTest, UnknownFlagsAndHelpPerCommand) {
  for (const std::string cmd : {"run", "simulate", "extender", "explain"}) {
    auto bad = Berth(cmd + " --frobnicate=1");
    EXPECT_EQ(bad.code, 2) << cmd;
    EXPECT_EQ(bad.err, "berth " + cmd + ": unknown flag: --frobnicate\n");
    auto help = Berth(cmd + " --help");
    EXPECT_EQ(help.code, 0) << cmd;
    EXPECT_NE(help.out.find("Usage: berth " + cmd), std::string::npos) << help.out;
  }
  auto run = Berth("run --help");
  for (const char* flag : {"--leader-elect-resource-namespace", "--kube-api-qps", "--vmodule",
                           "--logging-format", "--authentication-kubeconfig", "--cert-dir"}) {
    EXPECT_NE(run.out.find(flag), std::string::npos) << flag;
  }
  auto lock = Berth("run --leader-elect-resource-lock=endpoints");
  EXPECT_EQ(lock.code, 2);
  EXPECT_NE(lock.err.find("berth supports only \"leases\""), std::string::npos) << lock.err;
}

// The live snapshot's flags, and berth explain's command line as kubectl's plugin runs it.
TEST(CliTest, SimulateLiveFlagsAndExplainThroughKubectlBerth) {
  auto both = Berth("simulate --cluster x --kubeconfig y");
  EXPECT_EQ(both.code, 2);
  EXPECT_EQ(both.err, "berth simulate: --cluster and --kubeconfig exclude each other\n");
  auto save = Berth("simulate --cluster x --save y");
  EXPECT_EQ(save.code, 2);
  EXPECT_EQ(save.err, "berth simulate: --save needs --kubeconfig\n");
  auto missing = Berth("simulate --kubeconfig /nonexistent/kubeconfig");
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err.rfind("berth simulate: /nonexistent/kubeconfig: ", 0), 0u) << missing.err;

  const std::string plugin =
      std::filesystem::path(BERTH_BINARY).parent_path().string() + "/kubectl-berth";
  ASSERT_TRUE(std::filesystem::is_symlink(plugin)) << plugin << " (the build makes it)";
  EXPECT_EQ(std::filesystem::read_symlink(plugin).string(), "berth");
  auto run = [&](const std::string& args) {
    const std::string err = ::testing::TempDir() + "/kubectl_berth_err";
    const int status = std::system((plugin + " " + args + " >/dev/null 2>" + err).c_str());
    std::ifstream in(err);
    return std::make_pair(WEXITSTATUS(status), std::string(std::istreambuf_iterator<char>(in), {}));
  };
  // kubectl passes global flags where they were typed, before the subcommand too.
  auto [code, err] = run("--kubeconfig /nonexistent/kubeconfig explain web-1 -n shop");
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err.rfind("berth explain: /nonexistent/kubeconfig: ", 0), 0u) << err;
  std::tie(code, err) = run("explain");
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err, "berth explain: a pod name is required: berth explain POD [-n NS]\n");
  std::tie(code, err) = run("explain a b --offline");
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err, "berth explain: exactly one pod name expected, got 2: a, b\n");
}

TEST(CliTest, ServerLimitFlagsWantPositiveIntegers) {
  auto ext = Berth("extender --config x --listen 127.0.0.1:0 --max-request-bytes 0");
  EXPECT_EQ(ext.code, 2);
  EXPECT_NE(ext.err.find("--max-request-bytes wants a positive integer, not \"0\""),
            std::string::npos)
      << ext.err;
  auto conns = Berth("run --max-connections lots");
  EXPECT_EQ(conns.code, 2);
  EXPECT_NE(conns.err.find("--max-connections wants a positive integer, not \"lots\""),
            std::string::npos)
      << conns.err;
  auto help = Berth("help");
  EXPECT_NE(help.out.find("--max-request-bytes"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--max-connections"), std::string::npos) << help.out;
}

}  // namespace

namespace {

// The legacy Policy (seed 003) through --policy-config-file: web-2 must stay in web-1's region
// (ServiceAffinity), skip the node without a zone label (NodeLabel) and spread away from web-1
// (SelectorSpread, rack anti-affinity).
TEST(CliTest, PolicyConfigFileExample) {
  const std::string dir = std::string(BERTH_SOURCE_DIR) + "/docs/examples/policy/";
  auto r = Berth("simulate --cluster " + dir + "cluster.yaml --policy-config-file " + dir +
                 "policy.yaml --explain");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("SelectorSpread"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NodeLabel"), std::string::npos) << r.out;
  auto doc = berth::api::json::ParseJson(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error();
  bool found = false;
  for (const auto& p : doc->Find("pods")->AsArray()) {
    if (p.Find("pod")->AsString() != "default/web-2") continue;
    found = true;
    EXPECT_EQ(p.Find("status")->AsString(), "Scheduled") << r.out;
    ASSERT_NE(p.Find("node"), nullptr) << r.out;
    EXPECT_EQ(p.Find("node")->AsString(), "r1-b1") << r.out;
  }
  EXPECT_TRUE(found) << r.out;
  auto bad = Berth("simulate --cluster " + dir + "cluster.yaml --policy-config-file " +
                   Write("bad-policy.yaml", "kind: Policy\npredicates: [{name: NoSuch}]\n"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("predicates[0].name: unknown predicate \"NoSuch\""), std::string::npos)
      << bad.err;
}

}  // namespace
