// EncodeConfig / RenderConfigz against what the real kube-scheduler v1.37.2 serves on /configz
// for the same configuration (testdata/upstream_configz_*.json, recorded from the binary the test
// cluster builds). The only fields patched before comparing are the ones where berth's defaults
// differ on purpose: the default profile's name and the lease's name.

#include "config/encode.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "api/json/parse.h"
#include "config/defaults.h"
#include "config/load.h"

namespace berth::config {
namespace {

using api::Value;

std::string Read(const std::string& name) {
  std::ifstream f(std::string(BERTH_SOURCE_DIR) + "/test/config/testdata/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// JSON with object keys sorted, so that two documents compare by content.
std::string Canonical(const Value& v) {
  if (v.IsObject()) {
    std::vector<std::pair<std::string, std::string>> members;
    for (const auto& [k, m] : v.AsObject()) members.emplace_back(k, Canonical(m));
    std::sort(members.begin(), members.end());
    std::string out = "{";
    for (const auto& [k, m] : members) {
      if (out.size() > 1) out += ",\n";
      out += "\"" + k + "\":" + m;
    }
    return out + "}";
  }
  if (v.IsArray()) {
    std::string out = "[";
    for (const auto& m : v.AsArray()) {
      if (out.size() > 1) out += ",\n";
      out += Canonical(m);
    }
    return out + "]";
  }
  return api::json::ToJson(v);
}

std::vector<std::string> Known() {
  std::vector<std::string> names;
  for (const PluginRef& p : UpstreamDefaultPlugins()) names.push_back(p.name);
  return names;
}

Value Upstream(const std::string& file) {
  auto v = api::json::ParseJson(Read(file));
  EXPECT_TRUE(v.ok()) << file;
  return v.ok() ? *v : Value();
}

TEST(EncodeConfigTest, DefaultConfigMatchesKubeSchedulersConfigz) {
  SchedulerConfiguration cfg = DefaultConfig(Known());
  // What the recording's command line and cluster gave kube-scheduler.
  cfg.client_connection.kubeconfig = "/tmp/ks/kubeconfig";
  cfg.leader_election.leader_elect = false;
  cfg.leader_election.resource_namespace = "kube-system";
  // berth's own defaults, where upstream's would collide with kube-scheduler's.
  cfg.profiles[0].scheduler_name = "default-scheduler";
  cfg.leader_election.resource_name = "kube-scheduler";
  auto ours = api::json::ParseJson(RenderConfigz(cfg));
  ASSERT_TRUE(ours.ok());
  EXPECT_EQ(Canonical(*ours), Canonical(Upstream("upstream_configz_default.json")));
}

TEST(EncodeConfigTest, CustomConfigMatchesKubeSchedulersConfigz) {
  auto cfg = LoadConfigFile(
      std::string(BERTH_SOURCE_DIR) + "/test/config/testdata/configz_custom.yaml", Known());
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  cfg->leader_election.resource_namespace = "kube-system";
  cfg->leader_election.resource_name = "kube-scheduler";
  auto ours = api::json::ParseJson(RenderConfigz(*cfg));
  ASSERT_TRUE(ours.ok());
  EXPECT_EQ(Canonical(*ours), Canonical(Upstream("upstream_configz_custom.json")));
}

TEST(EncodeConfigTest, PluginConfigKeepsGivenEntriesFirstAndDefaultsTheRest) {
  auto cfg = ParseConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: a
  pluginConfig:
  - name: NodeResourcesBalancedAllocation
    args:
      resources:
      - name: cpu
      - name: example.com/gpu
        weight: 3
)",
                         "cfg.yaml", Known());
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  Value doc = EncodeConfig(*cfg);
  const Value& pcs = *doc.Find("profiles")->AsArray()[0].Find("pluginConfig");
  ASSERT_GE(pcs.AsArray().size(), 2u);
  EXPECT_EQ(api::json::ToJson(pcs.AsArray()[0]),
            R"({"name":"NodeResourcesBalancedAllocation","args":{"resources":[{"name":"cpu",)"
            R"("weight":1},{"name":"example.com/gpu","weight":3}],)"
            R"("kind":"NodeResourcesBalancedAllocationArgs",)"
            R"("apiVersion":"kubescheduler.config.k8s.io/v1"}})");
  EXPECT_EQ(pcs.AsArray()[1].Find("name")->AsString(), "DefaultPreemption");
}

}  // namespace
}  // namespace berth::config
