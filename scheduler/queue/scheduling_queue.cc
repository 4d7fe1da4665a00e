#include "scheduler/queue/scheduling_queue.h"

#include <algorithm>
#include <utility>

#include "scheduler/queue/pod_updated.h"

namespace berth::queue {

using framework::QueuedPodInfo;

// ---- SchedulingQueue ----

SchedulingQueue::SchedulingQueue(const framework::Clock& clock, QueueOptions options, LessFn less,
                                 PreEnqueueFn pre_enqueue, EventMap events)
    : SchedulingQueue(
          clock, options, std::move(less),
          ProfileHooksMap{{"", ProfileHooks{std::move(pre_enqueue), std::move(events)}}}) {
  every_pod_ = &profiles_.begin()->second;
}

SchedulingQueue::SchedulingQueue(const framework::Clock& clock, QueueOptions options, LessFn less,
                                 ProfileHooksMap profiles)
    : clock_(clock),
      options_(options),
      metrics_(metrics::OrNoMetrics(options.metrics)),
      less_(std::move(less)),
      profiles_(std::move(profiles)),
      active_([this](const QueuedPodInfo& a, const QueuedPodInfo& b) {
        if (less_) {
          if (less_(a, b)) return true;
          if (less_(b, a)) return false;
        }
        return a.seq < b.seq;
      }),
      backoff_([this](const QueuedPodInfo& a, const QueuedPodInfo& b) {
        auto ea = BackoffExpiry(a);
        auto eb = BackoffExpiry(b);
        if (ea != eb) return ea < eb;
        if (less_) {
          if (less_(a, b)) return true;
          if (less_(b, a)) return false;
        }
        return a.seq < b.seq;
      }) {}

const ProfileHooks* SchedulingQueue::HooksFor(const api::Pod& pod) const {
  if (every_pod_ != nullptr) return every_pod_;
  auto it = profiles_.find(pod.spec.scheduler_name);
  return it == profiles_.end() ? nullptr : &it->second;
}

void SchedulingQueue::CountUnschedulable(const QueuedPodInfo& p, double delta) {
  for (const auto& plugin : p.unschedulable_plugins) {
    metrics_.UnschedulablePods(plugin, p.Pod().spec.scheduler_name, delta);
  }
}

std::string SchedulingQueue::UidOf(const api::Pod& pod) {
  if (!pod.metadata.uid.empty()) return pod.metadata.uid;
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

framework::Duration SchedulingQueue::BackoffDuration(const QueuedPodInfo& p) const {
  // v1.34's calculateBackoffDuration: errors and rejections back off on separate counters.
  int n = p.consecutive_errors_count > 0 ? p.consecutive_errors_count : p.unschedulable_count;
  if (n <= 0) return framework::Duration::zero();
  framework::Duration d = options_.initial_backoff;
  for (int i = 1; i < n; ++i) {
    if (d >= options_.max_backoff) break;
    d *= 2;
  }
  return std::min(d, options_.max_backoff);
}

framework::TimePoint SchedulingQueue::BackoffExpiry(const QueuedPodInfo& p) const {
  return p.timestamp + BackoffDuration(p);
}

bool SchedulingQueue::IsBackingOffLocked(const QueuedPodInfo& p) const {
  if (!p.gating_plugin.empty()) return false;
  return BackoffExpiry(p) > clock_.Now();
}

bool SchedulingQueue::IsGatedLocked(QueuedPodInfo& p) {
  const ProfileHooks* hooks = HooksFor(p.Pod());
  if (hooks == nullptr || !hooks->pre_enqueue) {
    p.gating_plugin.clear();
    return false;
  }
  framework::Status s = hooks->pre_enqueue(*p.pod_info);
  if (s.IsSuccess()) {
    p.gating_plugin.clear();
    return false;
  }
  // A failing PreEnqueue without a plugin name still gates the pod.
  p.gating_plugin = s.plugin().empty() ? std::string("PreEnqueue") : s.plugin();
  return true;
}

void SchedulingQueue::AddToActiveOrGatedLocked(QueuedPodInfoPtr p) {
  if (IsGatedLocked(*p)) {
    PushUnschedulableLocked(std::move(p));
    return;
  }
  std::string uid = UidOf(p->Pod());
  where_[uid] = Location{p, Where::kActive};
  by_key_[p->pod_info->key] = uid;
  active_.Push(std::move(p));
  metrics_.QueueIncomingPods(metrics::kActiveQueue, event_);
  cv_.notify_one();
}

void SchedulingQueue::PushBackoffLocked(QueuedPodInfoPtr p) {
  std::string uid = UidOf(p->Pod());
  where_[uid] = Location{p, Where::kBackoff};
  by_key_[p->pod_info->key] = uid;
  backoff_.Push(std::move(p));
  metrics_.QueueIncomingPods(metrics::kBackoffQueue, event_);
}

void SchedulingQueue::PushUnschedulableLocked(QueuedPodInfoPtr p) {
  std::string uid = UidOf(p->Pod());
  where_[uid] = Location{p, Where::kUnschedulable};
  by_key_[p->pod_info->key] = uid;
  metrics_.QueueIncomingPods(
      p->gating_plugin.empty() ? metrics::kUnschedulableQueue : metrics::kGatedQueue, event_);
  if (p->gating_plugin.empty()) CountUnschedulable(*p, +1);
  unschedulable_[uid] = std::move(p);
}

void SchedulingQueue::MoveToActiveOrBackoffLocked(QueuedPodInfoPtr p, bool to_active) {
  if (!to_active && IsBackingOffLocked(*p)) {
    PushBackoffLocked(std::move(p));
  } else {
    AddToActiveOrGatedLocked(std::move(p));
  }
}

QueuedPodInfoPtr SchedulingQueue::RemoveLocked(const std::string& uid) {
  auto it = where_.find(uid);
  if (it == where_.end()) return nullptr;
  QueuedPodInfoPtr p = std::move(it->second.pod);
  switch (it->second.where) {
    case Where::kActive:
      active_.Remove(uid);
      break;
    case Where::kBackoff:
      backoff_.Remove(uid);
      break;
    case Where::kUnschedulable:
      if (p->gating_plugin.empty()) CountUnschedulable(*p, -1);
      unschedulable_.erase(uid);
      break;
  }
  where_.erase(it);
  auto k = by_key_.find(p->pod_info->key);
  if (k != by_key_.end() && k->second == uid) by_key_.erase(k);
  return p;
}

// ---- informer-facing ----

void SchedulingQueue::Add(framework::PodInfoPtr pod) {
  if (!pod) return;
  if (options_.nominator != nullptr) options_.nominator->Add(pod, std::nullopt);
  std::lock_guard<std::mutex> lock(mu_);
  event_ = "PodAdd";
  std::string uid = UidOf(*pod->pod);
  if (auto it = where_.find(uid); it != where_.end()) {
    // Already queued: an Add for a known pod is an update.
    std::shared_ptr<const api::Pod> old = it->second.pod->pod_info->pod;
    UpdateLocked(*old, std::move(pod));
    return;
  }
  auto p = std::make_shared<QueuedPodInfo>();
  p->pod_info = std::move(pod);
  p->timestamp = clock_.Now();
  p->seq = next_seq_++;
  AddToActiveOrGatedLocked(std::move(p));
}

// Same decisions as upstream's PriorityQueue.Update with queueing hints off.
void SchedulingQueue::Update(const api::Pod& old_pod, framework::PodInfoPtr new_pod) {
  if (!new_pod) return;
  if (options_.nominator != nullptr) options_.nominator->Update(old_pod, new_pod);
  std::lock_guard<std::mutex> lock(mu_);
  event_ = "PodUpdate";
  UpdateLocked(old_pod, std::move(new_pod));
}

void SchedulingQueue::UpdateLocked(const api::Pod& old_pod, framework::PodInfoPtr new_pod) {
  std::string uid = UidOf(old_pod);
  auto it = where_.find(uid);
  if (it == where_.end()) {
    // Not queued (e.g. in flight): queue the new version, as upstream does; a failed in-flight
    // attempt then finds it present and is dropped.
    auto p = std::make_shared<QueuedPodInfo>();
    p->pod_info = std::move(new_pod);
    p->timestamp = clock_.Now();
    p->seq = next_seq_++;
    AddToActiveOrGatedLocked(std::move(p));
    return;
  }
  QueuedPodInfoPtr p = it->second.pod;
  std::string new_key = new_pod->key;
  if (new_key != p->pod_info->key) {
    by_key_.erase(p->pod_info->key);
    by_key_[new_key] = uid;
  }
  switch (it->second.where) {
    case Where::kActive:
      p->pod_info = std::move(new_pod);
      active_.Fix(uid);
      return;
    case Where::kBackoff:
      p->pod_info = std::move(new_pod);
      backoff_.Fix(uid);
      return;
    case Where::kUnschedulable:
      break;
  }
  p->pod_info = std::move(new_pod);
  if (!p->gating_plugin.empty()) {
    // A gated pod is re-checked on every update (e.g. its scheduling gates were removed).
    if (IsGatedLocked(*p)) return;
    RemoveLocked(uid);
    MoveToActiveOrBackoffLocked(std::move(p), false);
    return;
  }
  if (!IsPodUpdated(old_pod, p->Pod()) && !GeneratedResourceClaimsChanged(old_pod, p->Pod())) {
    return;
  }
  RemoveLocked(uid);
  MoveToActiveOrBackoffLocked(std::move(p), false);
}

void SchedulingQueue::Delete(const api::Pod& pod) {
  if (options_.nominator != nullptr) options_.nominator->Delete(pod);
  std::lock_guard<std::mutex> lock(mu_);
  std::string uid = UidOf(pod);
  RemoveLocked(uid);
  if (in_flight_.erase(uid) > 0) deleted_in_flight_.insert(uid);
}

// ---- scheduling-thread-facing ----

QueuedPodInfoPtr SchedulingQueue::PopActiveLocked() {
  QueuedPodInfoPtr p = active_.Pop();
  if (!p) return nullptr;
  std::string uid = UidOf(p->Pod());
  where_.erase(uid);
  auto k = by_key_.find(p->pod_info->key);
  if (k != by_key_.end() && k->second == uid) by_key_.erase(k);
  ++scheduling_cycle_;
  ++p->attempts;
  if (!p->initial_attempt_timestamp) p->initial_attempt_timestamp = clock_.Now();
  // As upstream's Pop: the rejectors of the previous attempt no longer apply.
  p->unschedulable_plugins.clear();
  p->pending_plugins.clear();
  deleted_in_flight_.erase(uid);
  in_flight_[uid] = p;
  return p;
}

QueuedPodInfoPtr SchedulingQueue::Pop() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return closed_ || !active_.empty(); });
  if (closed_) return nullptr;
  return PopActiveLocked();
}

QueuedPodInfoPtr SchedulingQueue::TryPop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_ || active_.empty()) return nullptr;
  return PopActiveLocked();
}

void SchedulingQueue::Done(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  in_flight_.erase(uid);
  deleted_in_flight_.erase(uid);
}

// Upstream's AddUnschedulableIfNotPresent with queueing hints off.
void SchedulingQueue::AddUnschedulableIfNotPresent(QueuedPodInfoPtr pod,
                                                   int64_t pod_scheduling_cycle) {
  if (!pod) return;
  std::lock_guard<std::mutex> lock(mu_);
  event_ = "ScheduleAttemptFailure";
  std::string uid = UidOf(pod->Pod());
  in_flight_.erase(uid);
  if (deleted_in_flight_.erase(uid) > 0) return;  // deleted while it was being scheduled
  if (where_.count(uid)) return;                  // a newer version is already queued
  pod->timestamp = clock_.Now();
  pod->gating_plugin.clear();
  if (pod->unschedulable_plugins.empty() && pod->pending_plugins.empty()) {
    // No plugin rejected it: an error; errors back off on their own counter.
    ++pod->consecutive_errors_count;
    PushBackoffLocked(std::move(pod));
    return;
  }
  ++pod->unschedulable_count;
  pod->consecutive_errors_count = 0;
  if (move_request_cycle_ >= pod_scheduling_cycle) {
    // A cluster event arrived while it was in flight: it may fit now.
    MoveToActiveOrBackoffLocked(std::move(pod), false);
    return;
  }
  PushUnschedulableLocked(std::move(pod));
}

// ---- events ----

bool SchedulingQueue::IsEventOfInterest(const framework::ClusterEvent& e) const {
  if (e.resource == framework::EventResource::kWildcard) return true;
  for (const auto& [profile, hooks] : profiles_) {
    for (const auto& [plugin, registered] : hooks.events) {
      for (const auto& r : registered) {
        if (r.event.Matches(e)) return true;
      }
    }
  }
  return false;
}

namespace {

framework::QueueingHint RunHint(const framework::ClusterEventWithHint& r, const api::Pod& pod,
                                const framework::EventObject& old_obj,
                                const framework::EventObject& new_obj) {
  if (!r.hint) return framework::QueueingHint::kQueue;
  return r.hint(pod, old_obj, new_obj);
}

}  // namespace

bool SchedulingQueue::WorthRequeuing(const QueuedPodInfo& p, const framework::ClusterEvent& e,
                                     const framework::EventObject& old_obj,
                                     const framework::EventObject& new_obj, bool* to_active) const {
  *to_active = false;
  if (p.unschedulable_plugins.empty() && p.pending_plugins.empty()) return true;
  if (e.resource == framework::EventResource::kWildcard) {
    // A wildcard event that names a pod is meant for that pod only (upstream's ForceActivate).
    if (const auto* target = std::get_if<const api::Pod*>(&new_obj); target && *target) {
      return UidOf(**target) == UidOf(p.Pod());
    }
    return true;
  }
  const ProfileHooks* hooks = HooksFor(p.Pod());
  if (hooks == nullptr) return false;
  bool worth = false;
  auto consider = [&](const std::string& plugin, bool pending) {
    auto it = hooks->events.find(plugin);
    if (it == hooks->events.end()) return;
    for (const auto& r : it->second) {
      if (!r.event.Matches(e)) continue;
      if (RunHint(r, p.Pod(), old_obj, new_obj) != framework::QueueingHint::kQueue) continue;
      worth = true;
      if (pending) *to_active = true;
      return;
    }
  };
  // Pending plugins first: a Queue from one of them sends the pod straight to activeQ.
  for (const auto& plugin : p.pending_plugins) {
    consider(plugin, true);
    if (*to_active) return true;
  }
  for (const auto& plugin : p.unschedulable_plugins) {
    if (p.pending_plugins.count(plugin)) continue;
    consider(plugin, false);
    if (worth) return true;
  }
  return worth;
}

bool SchedulingQueue::GateWorthRechecking(const QueuedPodInfo& p, const framework::ClusterEvent& e,
                                          const framework::EventObject& old_obj,
                                          const framework::EventObject& new_obj) const {
  if (e.resource == framework::EventResource::kWildcard) return true;
  const ProfileHooks* hooks = HooksFor(p.Pod());
  if (hooks == nullptr) return false;
  auto it = hooks->events.find(p.gating_plugin);
  if (it == hooks->events.end()) return false;
  for (const auto& r : it->second) {
    if (!r.event.Matches(e)) continue;
    if (RunHint(r, p.Pod(), old_obj, new_obj) == framework::QueueingHint::kQueue) return true;
  }
  return false;
}

void SchedulingQueue::MoveAllToActiveOrBackoffQueue(const framework::ClusterEvent& event,
                                                    const framework::EventObject& old_obj,
                                                    const framework::EventObject& new_obj,
                                                    const std::string& exclude_uid) {
  std::lock_guard<std::mutex> lock(mu_);
  event_ = event.label;
  if (!IsEventOfInterest(event)) return;
  std::vector<std::pair<QueuedPodInfoPtr, bool>> to_move;
  for (const auto& [uid, p] : unschedulable_) {
    if (!exclude_uid.empty() && uid == exclude_uid) continue;
    if (!p->gating_plugin.empty()) {
      if (GateWorthRechecking(*p, event, old_obj, new_obj) && !IsGatedLocked(*p)) {
        to_move.emplace_back(p, false);
      }
      continue;
    }
    bool to_active = false;
    if (WorthRequeuing(*p, event, old_obj, new_obj, &to_active)) to_move.emplace_back(p, to_active);
  }
  for (auto& [p, to_active] : to_move) {
    RemoveLocked(UidOf(p->Pod()));
    MoveToActiveOrBackoffLocked(std::move(p), to_active);
  }
  move_request_cycle_ = scheduling_cycle_;
}

void SchedulingQueue::Activate(const std::set<std::string>& pod_keys) {
  if (pod_keys.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  event_ = "ForceActivate";
  for (const auto& key : pod_keys) {
    auto k = by_key_.find(key);
    if (k == by_key_.end()) continue;
    std::string uid = k->second;
    auto it = where_.find(uid);
    if (it == where_.end() || it->second.where == Where::kActive) continue;
    if (!it->second.pod->gating_plugin.empty()) continue;
    QueuedPodInfoPtr p = RemoveLocked(uid);
    AddToActiveOrGatedLocked(std::move(p));
  }
}

void SchedulingQueue::FlushBackoffCompleted() {
  std::lock_guard<std::mutex> lock(mu_);
  event_ = "BackoffComplete";
  const framework::TimePoint now = clock_.Now();
  while (!backoff_.empty() && BackoffExpiry(*backoff_.Top()) <= now) {
    QueuedPodInfoPtr p = RemoveLocked(UidOf(backoff_.Top()->Pod()));
    AddToActiveOrGatedLocked(std::move(p));
  }
}

// Upstream's flushUnschedulablePodsLeftover (event UnschedulableTimeout, a wildcard).
void SchedulingQueue::FlushUnschedulableLeftover() {
  std::lock_guard<std::mutex> lock(mu_);
  event_ = "UnschedulableTimeout";
  const framework::TimePoint now = clock_.Now();
  std::vector<QueuedPodInfoPtr> to_move;
  for (const auto& [uid, p] : unschedulable_) {
    if (!p->gating_plugin.empty()) continue;
    if (now - p->timestamp >= options_.max_in_unschedulable) to_move.push_back(p);
  }
  if (to_move.empty()) return;
  for (auto& p : to_move) {
    RemoveLocked(UidOf(p->Pod()));
    MoveToActiveOrBackoffLocked(std::move(p), false);
  }
  move_request_cycle_ = scheduling_cycle_;
}

std::optional<framework::TimePoint> SchedulingQueue::NextBackoffExpiry() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (backoff_.empty()) return std::nullopt;
  return BackoffExpiry(*backoff_.Top());
}

std::optional<framework::TimePoint> SchedulingQueue::NextLeftoverExpiry() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<framework::TimePoint> out;
  for (const auto& [uid, p] : unschedulable_) {
    if (!p->gating_plugin.empty()) continue;
    framework::TimePoint t = p->timestamp + options_.max_in_unschedulable;
    if (!out || t < *out) out = t;
  }
  return out;
}

int64_t SchedulingQueue::SchedulingCycle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return scheduling_cycle_;
}

PendingCounts SchedulingQueue::Counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  PendingCounts c;
  c.active = static_cast<int>(active_.size());
  c.backoff = static_cast<int>(backoff_.size());
  for (const auto& [uid, p] : unschedulable_) {
    if (p->gating_plugin.empty()) {
      ++c.unschedulable;
    } else {
      ++c.gated;
    }
  }
  return c;
}

bool SchedulingQueue::Has(const std::string& pod_key) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (by_key_.count(pod_key)) return true;
  for (const auto& [uid, p] : in_flight_) {
    if (p->pod_info->key == pod_key) return true;
  }
  return false;
}

void SchedulingQueue::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

}  // namespace berth::queue
