#pragma once
// SchedulerHarness: a real Scheduler over in-memory seams, for tests of the scheduling cycle and
// the event handlers (upstream's schedule_one_test.go / eventhandlers_test.go set-up):
//   - a registry with the real PrioritySort and DefaultBinder plus ScriptedPlugins the test adds
//     with Plugin("Name") and enables per point with Enable(&config::Plugins::filter, "Name");
//   - a fake clock, an object store (the informer's pods: the failure path re-reads them), a
//     RecordingWriter as the ApiWriter (bindings; on_bind scripts failures), a RecordingSink,
//     and a DeferredExecutor: binding cycles run on the test's thread in RunBindings().
//
//   SchedulerHarness h;
//   h.Plugin("F").filter = [](auto&, const framework::NodeInfo& n) { ... };
//   h.Enable(&config::Plugins::filter, "F");
//   h.Start();
//   h.AddNodes({"n1", "n2"});
//   h.Submit(MakePod("p"));
//   h.ScheduleOne();  // a scheduling cycle, then the binding cycles that can run

#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/types.h"
#include "plugins/default_binder/default_binder.h"
#include "plugins/priority_sort/priority_sort.h"
#include "scheduler/binder/binder.h"
#include "scheduler/scheduler.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"
#include "test/testing/fake_plugin.h"
#include "test/testing/recording_sink.h"

namespace berth::testing {

inline constexpr const char kSchedulerName[] = "berth-scheduler";

class SchedulerHarness {
 public:
  SchedulerHarness() {
    config::Profile profile;
    profile.scheduler_name = kSchedulerName;
    profile.plugins.queue_sort.enabled.push_back({plugins::priority_sort::kName, 0});
    profile.plugins.bind.enabled.push_back({plugins::default_binder::kName, 0});
    cfg_.parallelism = 2;
    cfg_.profiles.push_back(std::move(profile));
  }

  // The scripted plugin `name`, created on first use (before Start()).
  ScriptedPlugin& Plugin(const std::string& name) {
    auto& p = plugins_[name];
    if (!p) p = std::make_shared<ScriptedPlugin>(name, &log_);
    return *p;
  }
  // Enables `name` at one point of profile `profile` (0 = kSchedulerName).
  void Enable(config::PluginSet config::Plugins::*point, const std::string& name,
              int32_t weight = 0, size_t profile = 0) {
    (cfg_.profiles.at(profile).plugins.*point).enabled.push_back({name, weight});
  }
  // A second profile, with only the queue sort and the binder.
  void AddProfile(const std::string& scheduler_name) {
    config::Profile p = cfg_.profiles.at(0);
    p.scheduler_name = scheduler_name;
    p.plugins = config::Plugins();
    p.plugins.queue_sort.enabled.push_back({plugins::priority_sort::kName, 0});
    p.plugins.bind.enabled.push_back({plugins::default_binder::kName, 0});
    cfg_.profiles.push_back(std::move(p));
  }
  config::SchedulerConfiguration& cfg() { return cfg_; }
  // Keeps diagnoses (berth explain) in diagnoses(), as the daemon does (before Start()).
  void UseDiagnoses(diagnosis::StoreOptions options = {}) {
    diagnoses_ = std::make_unique<diagnosis::Store>(options);
  }
  diagnosis::Store& diagnoses() { return *diagnoses_; }

  void Start(uint64_t seed = 1) {
    (void)registry_.Register(plugins::priority_sort::kName, plugins::priority_sort::New);
    (void)registry_.Register(plugins::default_binder::kName, plugins::default_binder::New);
    for (auto& [name, plugin] : plugins_) {
      std::shared_ptr<framework::Plugin> p = plugin;
      (void)registry_.Register(name, [p](const framework::PluginContext&) {
        return Result<std::shared_ptr<framework::Plugin>>(p);
      });
    }
    scheduler::SchedulerDeps deps;
    deps.clock = &clock_;
    deps.objects = &objects_;
    deps.api_writer = &writer_;
    deps.executor = &executor_;
    deps.sink = &sink_;
    deps.diagnoses = diagnoses_.get();
    auto created = scheduler::Scheduler::Create(cfg_, registry_, deps, {seed, false});
    ASSERT_TRUE(created.ok()) << created.error();
    sched_ = std::move(*created);
  }

  void AddNodes(std::initializer_list<std::string> names) {
    for (const auto& n : names) sched_->AddNode(MakeNode(n).Ptr());
  }
  // The pod as the informer delivers it: into the object store, then the event handler.
  std::shared_ptr<const api::Pod> Submit(const MakePod& pod) { return Submit(pod.Ptr()); }
  std::shared_ptr<const api::Pod> Submit(std::shared_ptr<const api::Pod> pod) {
    objects_.pods.Upsert(pod);
    sched_->AddPod(pod);
    return pod;
  }
  // One scheduling cycle (non-blocking pop), then every binding cycle that can run now.
  // Returns false when no pod was ready.
  bool ScheduleOne() {
    const bool popped = sched_->ScheduleOne(false);
    RunBindings();
    return popped;
  }
  int RunBindings() { return executor_.RunReady(); }

  // The node the pod was bound to through the ApiWriter; empty when none.
  std::string BoundNode(const std::string& key) const {
    std::string node;
    for (const auto& [pod, n] : writer_.Bindings()) {
      if (pod == key) node = n;
    }
    return node;
  }
  std::shared_ptr<framework::WaitingPod> WaitingPod(const std::string& uid) {
    return sched_->profiles().at(kSchedulerName)->GetWaitingPod(uid);
  }

  scheduler::Scheduler& sched() { return *sched_; }
  queue::SchedulingQueue& queue() { return sched_->queue(); }
  framework::FakeClock& clock() { return clock_; }
  api::ClusterObjects& objects() { return objects_; }
  RecordingWriter& writer() { return writer_; }
  RecordingSink& sink() { return sink_; }
  CallLog& log() { return log_; }

 private:
  config::SchedulerConfiguration cfg_;
  framework::Registry registry_;
  std::map<std::string, std::shared_ptr<ScriptedPlugin>> plugins_;
  CallLog log_;
  framework::FakeClock clock_;
  api::ClusterObjects objects_;
  RecordingWriter writer_;
  RecordingSink sink_;
  binder::DeferredExecutor executor_;
  std::unique_ptr<diagnosis::Store> diagnoses_;
  std::unique_ptr<scheduler::Scheduler> sched_;  // last: destroyed first
};

}  // namespace berth::testing
