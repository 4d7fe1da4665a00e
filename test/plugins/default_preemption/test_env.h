#pragma once
// Shared set-up for the DefaultPreemption tests: the real runtime::Framework (so the Filter
// plugins and PreFilterExtensions that preemption re-runs are the real ones) over a snapshot built
// by the real cache, a nominator, a recording API writer, and the plugin. As upstream's tests, the
// profile holds PrioritySort, NodeResourcesFit (and any extra plugins asked for), DefaultPreemption
// and DefaultBinder.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "config/load.h"
#include "plugins/default_preemption/default_preemption.h"
#include "plugins/default_preemption/preemption.h"
#include "plugins/registry.h"
#include "scheduler/cache/cache.h"
#include "scheduler/queue/nominator.h"
#include "scheduler/runtime/framework.h"
#include "test/testing/builders.h"

namespace berth::plugins::default_preemption::test {

using testing::MakeNode;
using testing::MakePod;

inline constexpr int32_t kNegPriority = -100, kLowPriority = 0, kMidPriority = 100,
                         kHighPriority = 1000, kVeryHighPriority = 10000;

// Upstream's smallRes / mediumRes / largeRes / veryLargeRes (brace lists, hence macros).
#define BERTH_SMALL_RES                  \
  {                                      \
    {"cpu", "100m"}, { "memory", "100" } \
  }
#define BERTH_MEDIUM_RES                 \
  {                                      \
    {"cpu", "200m"}, { "memory", "200" } \
  }
#define BERTH_LARGE_RES                  \
  {                                      \
    {"cpu", "300m"}, { "memory", "300" } \
  }
#define BERTH_VERY_LARGE_RES             \
  {                                      \
    {"cpu", "500m"}, { "memory", "500" } \
  }

// Records preemption's API calls.
class Writer final : public framework::ApiWriter {
 public:
  framework::Status Bind(const api::Pod&, const std::string&) override { return {}; }
  framework::Status SetNominatedNodeName(const api::Pod& pod, const std::string& node) override {
    nominations.emplace_back(pod.Key(), node);
    return {};
  }
  framework::Status DeletePod(const api::Pod& pod) override {
    deleted.push_back(pod.Key());
    return {};
  }
  void RecordPreemptedEvent(const api::Pod& victim, const api::Pod& preemptor,
                            const std::string& node) override {
    events.push_back(victim.Key() + " by " + preemptor.Key() + " on " + node);
  }
  std::vector<std::pair<std::string, std::string>> nominations;
  std::vector<std::string> deleted;
  std::vector<std::string> events;
};

inline api::Time Micros(int64_t us) { return api::Time{us}; }

inline api::Pod StartedAt(api::Pod p, int64_t us) {
  p.status.start_time = api::Time{us};
  return p;
}

inline std::shared_ptr<const api::PodDisruptionBudget> Pdb(const std::string& name,
                                                           const std::string& ns,
                                                           api::Labels match_labels,
                                                           int32_t disruptions_allowed) {
  auto pdb = std::make_shared<api::PodDisruptionBudget>();
  pdb->metadata.name = name;
  pdb->metadata.namespace_ = ns;
  pdb->selector = api::LabelSelector{std::move(match_labels), {}};
  pdb->disruptions_allowed = disruptions_allowed;
  return pdb;
}

class Env {
 public:
  // extra_plugins are enabled through multiPoint after NodeResourcesFit (e.g. "PodTopologySpread",
  // "InterPodAffinity", "TaintToleration").
  Env(const std::vector<api::Node>& nodes, const std::vector<api::Pod>& pods,
      std::vector<std::string> extra_plugins = {}, const api::Value* args = nullptr)
      : registry_(NewInTreeRegistry()), parallelizer_(2) {
    for (const auto& n : nodes) cache_.AddNode(std::make_shared<api::Node>(n));
    for (const auto& p : pods) {
      auto ptr = std::make_shared<api::Pod>(p);
      objects_.pods.Upsert(ptr);
      if (!p.spec.node_name.empty()) cache_.AddPod(framework::MakePodInfo(ptr));
    }
    cache_.UpdateSnapshot(snapshot_);
    config::Profile profile;
    profile.scheduler_name = "berth-scheduler";
    auto& mp = profile.plugins.multi_point.enabled;
    mp.push_back({"PrioritySort", 0});
    mp.push_back({"NodeResourcesFit", 1});
    for (auto& name : extra_plugins) mp.push_back({name, 1});
    mp.push_back({"DefaultPreemption", 0});
    mp.push_back({"DefaultBinder", 0});
    if (args != nullptr) {
      profile.plugin_config.push_back(
          {"DefaultPreemption", *args, "profiles[0].pluginConfig[0].args"});
    }
    runtime::Deps deps;
    deps.snapshot = &snapshot_;
    deps.objects = &objects_;
    deps.clock = &clock_;
    deps.parallelizer = &parallelizer_;
    deps.api_writer = &writer_;
    deps.nominator = &nominator_;
    auto f = runtime::Framework::Create(profile, 0, 0, registry_, deps);
    if (!f.ok()) {
      ADD_FAILURE() << f.error();
      return;
    }
    fwk_ = std::move(*f);
  }

  void AddPdb(std::shared_ptr<const api::PodDisruptionBudget> pdb) { objects_.pdbs.Upsert(pdb); }
  // Adds a pending pod to the object store (as the informer would) and nominates it to `node`.
  void Nominate(const api::Pod& pod, const std::string& node) {
    auto ptr = std::make_shared<api::Pod>(pod);
    objects_.pods.Upsert(ptr);
    nominator_.Add(framework::MakePodInfo(ptr), node);
  }

  // PreFilter (populating the state) then PostFilter with `statuses`.
  framework::Status PostFilter(const api::Pod& pod, const framework::NodeToStatus& statuses,
                               framework::PostFilterResult* result) {
    auto ptr = std::make_shared<api::Pod>(pod);
    if (!objects_.pods.Get(pod.Key())) objects_.pods.Upsert(ptr);
    auto pi = framework::MakePodInfo(ptr);
    framework::CycleState state;
    framework::PreFilterResult pre;
    std::vector<std::string> with_nodes;
    (void)fwk_->RunPreFilterPlugins(state, *pi, &pre, &with_nodes);
    return fwk_->RunPostFilterPlugins(state, *pi, statuses, result);
  }

  // PreFilter, then SelectVictimsOnNode on a copy of `node`.
  framework::Status SelectVictims(const api::Pod& pod, const std::string& node,
                                  std::vector<std::string>* victims, int64_t* violations,
                                  api::Time now = api::Time{1000000}) {
    auto pi = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
    framework::CycleState state;
    framework::PreFilterResult pre;
    std::vector<std::string> with_nodes;
    (void)fwk_->RunPreFilterPlugins(state, *pi, &pre, &with_nodes);
    framework::NodeInfo copy(*snapshot_.Get(node));
    std::vector<framework::PodInfoPtr> out;
    auto s =
        SelectVictimsOnNode(*fwk_, state, *pi, copy, objects_.pdbs.List(), now, &out, violations);
    victims->clear();
    for (const auto& v : out) victims->push_back(v->Name());
    return s;
  }

  runtime::Framework& fwk() { return *fwk_; }
  const framework::Snapshot& snapshot() const { return snapshot_; }
  Writer& writer() { return writer_; }
  queue::Nominator& nominator() { return nominator_; }

 private:
  framework::Registry registry_;
  cache::Cache cache_;
  framework::Snapshot snapshot_;
  api::ClusterObjects objects_;
  framework::FakeClock clock_{framework::TimePoint(std::chrono::seconds(1))};
  framework::Parallelizer parallelizer_;
  Writer writer_;
  queue::Nominator nominator_;
  std::unique_ptr<runtime::Framework> fwk_;
};

// Upstream's NewNodeToStatus(map, absent UU).
inline framework::NodeToStatus Statuses(
    const std::vector<std::pair<std::string, framework::Code>>& entries) {
  framework::NodeToStatus m;
  for (const auto& [node, code] : entries) m.Set(node, framework::Status(code, std::string()));
  m.absent_status =
      framework::Status(framework::Code::kUnschedulableAndUnresolvable, std::string());
  return m;
}

}  // namespace berth::plugins::default_preemption::test
