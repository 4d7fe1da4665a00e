#pragma once
// Shared set-up for the InterPodAffinity tests: a FakeHandle whose snapshot holds `nodes` with
// `pods` placed by spec.nodeName (pods on unknown nodes are dropped, as upstream's snapshot keeps
// them on a node-less NodeInfo that every phase skips), upstream's test namespaces, and the plugin.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::inter_pod_affinity::test {

using api::SelectorOperator;
using testing::MakeNode;
using testing::MakePod;

inline constexpr SelectorOperator kIn = SelectorOperator::kIn;
inline constexpr SelectorOperator kNotIn = SelectorOperator::kNotIn;
inline constexpr SelectorOperator kExists = SelectorOperator::kExists;
inline constexpr SelectorOperator kDoesNotExist = SelectorOperator::kDoesNotExist;

inline api::PodAffinityTerm Term(std::string key, SelectorOperator op,
                                 std::vector<std::string> values, std::string topology_key) {
  return MakePod::AffinityTerm(std::move(key), op, std::move(values), std::move(topology_key));
}

// A node with exactly these labels (no hostname label unless given).
inline api::Node NodeWith(const std::string& name, api::Labels labels) {
  api::Node n = MakeNode(name).Obj();
  n.metadata.labels = std::move(labels);
  return n;
}

inline api::Pod WithLabels(api::Pod p, api::Labels labels) {
  p.metadata.labels = std::move(labels);
  return p;
}

struct Env {
  std::unique_ptr<testing::FakeHandle> handle;
  std::shared_ptr<framework::Plugin> plugin;

  const framework::NodeInfo& Node(const std::string& name) const {
    return *handle->snapshot().Get(name);
  }
  std::vector<const framework::NodeInfo*> Nodes() const { return handle->snapshot().List(); }
  template <typename T>
  const T& As() const {
    return dynamic_cast<const T&>(*plugin);
  }
};

inline Env SetUpEnv(const std::vector<api::Node>& nodes, const std::vector<api::Pod>& pods,
                    const api::Value* args = nullptr) {
  std::vector<framework::NodeInfo> infos;
  for (const auto& n : nodes) {
    framework::NodeInfo ni(std::make_shared<api::Node>(n));
    for (const auto& p : pods) {
      if (p.spec.node_name == n.metadata.name) {
        ni.AddPod(framework::MakePodInfo(std::make_shared<api::Pod>(p)));
      }
    }
    infos.push_back(std::move(ni));
  }
  Env env;
  env.handle = std::make_unique<testing::FakeHandle>(std::move(infos));
  // upstream's test namespaces.
  for (const auto& [name, team] :
       std::vector<std::pair<std::string, std::string>>{{"subteam1.team1", "team1"},
                                                        {"subteam2.team1", "team1"},
                                                        {"subteam1.team2", "team2"},
                                                        {"subteam2.team2", "team2"}}) {
    auto ns = std::make_shared<api::Namespace>();
    ns->metadata.name = name;
    ns->metadata.labels["team"] = team;
    env.handle->mutable_objects().namespaces.Upsert(ns);
  }
  framework::PluginContext ctx;
  ctx.args = args;
  ctx.args_path = "args";
  ctx.handle = env.handle.get();
  auto p = New(ctx);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error());
  if (p.ok()) env.plugin = *p;
  return env;
}

// "Success" or "<code>: <message>" for compact expectations.
inline std::string Describe(const framework::Status& s) {
  if (s.IsSuccess()) return "Success";
  return std::string(framework::CodeName(s.code())) + ": " + s.Message();
}

inline std::string Unschedulable(const std::string& reason) { return "Unschedulable: " + reason; }
inline std::string Unresolvable(const std::string& reason) {
  return "UnschedulableAndUnresolvable: " + reason;
}

}  // namespace berth::plugins::inter_pod_affinity::test
