#include "scheduler/scheduler.h"

namespace berth::scheduler {

Scheduler::Scheduler(const config::SchedulerConfiguration& cfg, const SchedulerDeps& deps,
                     SchedulerOptions options)
    : cfg_(cfg),
      deps_(deps),
      metrics_(metrics::OrNoMetrics(deps.metrics)),
      options_(options),
      parallelizer_(cfg.parallelism),
      rng_(options.seed) {}

Scheduler::~Scheduler() {
  if (queue_) queue_->Close();
}

Result<std::unique_ptr<Scheduler>> Scheduler::Create(const config::SchedulerConfiguration& cfg,
                                                     const framework::Registry& registry,
                                                     const SchedulerDeps& deps,
                                                     SchedulerOptions options) {
  std::unique_ptr<Scheduler> s(new Scheduler(cfg, deps, options));
  runtime::Deps fdeps;
  fdeps.snapshot = &s->snapshot_;
  fdeps.objects = deps.objects;
  fdeps.clock = deps.clock;
  fdeps.parallelizer = &s->parallelizer_;
  fdeps.api_writer = deps.api_writer;
  fdeps.metrics = deps.metrics;
  fdeps.nominator = &s->nominator_;
  fdeps.stopping = deps.stopping;
  // Preemption's API calls (victim deletion) run on the binding workers, never on the
  // scheduling thread (upstream's async preemption).
  if (deps.executor != nullptr) {
    binder::BindingExecutor* executor = deps.executor;
    fdeps.run_async = [executor](std::function<void()> fn) {
      executor->Submit(binder::BindingTask{nullptr, std::move(fn)});
    };
  }
  for (size_t i = 0; i < cfg.profiles.size(); ++i) {
    auto fwk = runtime::Framework::Create(cfg.profiles[i], static_cast<int>(i),
                                          cfg.percentage_of_nodes_to_score, registry, fdeps);
    if (!fwk.ok()) return fwk.status();
    s->profiles_[cfg.profiles[i].scheduler_name] = std::move(*fwk);
  }
  if (s->profiles_.empty()) return Error{"no profiles configured"};

  // One queue for all profiles: QueueSort is the same in every profile (config validation).
  // PreEnqueue and the queueing hints are each profile's own (upstream's
  // QueueingHintMapPerProfile): the queue calls the profile's Framework, never the Scheduler.
  runtime::Framework* first = s->profiles_.begin()->second.get();
  queue::ProfileHooksMap hooks;
  for (const auto& [name, fwk] : s->profiles_) {
    const runtime::Framework* profile = fwk.get();
    hooks[name] = queue::ProfileHooks{
        [profile](const framework::PodInfo& pod) { return profile->RunPreEnqueuePlugins(pod); },
        profile->Events()};
  }
  queue::QueueOptions qopts;
  qopts.metrics = deps.metrics;
  qopts.nominator = &s->nominator_;
  qopts.initial_backoff = std::chrono::seconds(cfg.pod_initial_backoff_seconds);
  qopts.max_backoff = std::chrono::seconds(cfg.pod_max_backoff_seconds);
  s->queue_ = std::make_unique<queue::SchedulingQueue>(
      *deps.clock, qopts,
      [first](const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) {
        return first->Less(a, b);
      },
      std::move(hooks));
  return s;
}

runtime::Framework* Scheduler::FrameworkFor(const api::Pod& pod) const {
  auto it = profiles_.find(pod.spec.scheduler_name);
  return it == profiles_.end() ? nullptr : it->second.get();
}

bool Scheduler::Responsible(const api::Pod& pod) const { return FrameworkFor(pod) != nullptr; }

std::optional<framework::TimePoint> Scheduler::ExpireWaitingPods() {
  std::optional<framework::TimePoint> next;
  const auto now = deps_.clock->Now();
  for (const auto& [name, fwk] : profiles_) {
    auto d = fwk->ExpireWaitingPods(now);
    if (d && (!next || *d < *next)) next = d;
  }
  return next;
}

size_t Scheduler::NumWaitingPods() const {
  size_t n = 0;
  for (const auto& [name, fwk] : profiles_) n += fwk->NumWaitingPods();
  return n;
}

}  // namespace berth::scheduler
