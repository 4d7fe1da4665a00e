#include "cmd/berth/app/run/podgroup_controller.h"

#include <algorithm>

#include "api/decode.h"
#include "api/json/parse.h"
#include "base/fault_counters.h"
#include "base/log.h"

namespace berth::run {

api::PodGroupStatus DesiredPodGroupStatus(const api::PodGroup& group,
                                          const std::vector<const api::Pod*>& pods, api::Time now) {
  api::PodGroupStatus s = group.status;
  const int32_t min = group.spec.min_member;
  const auto n = static_cast<int32_t>(pods.size());
  if (s.phase == "Finished" || s.phase == "Failed") return s;  // terminal
  if (s.phase.empty()) {
    s.phase = "Pending";
    return s;
  }
  if (s.phase == "Pending") {
    if (n >= min && n > 0) {
      s.phase = "Scheduling";
      if (!s.schedule_start_time) s.schedule_start_time = now;
      // occupiedBy: "<ns>/<owner>" of the first pod's owners, sorted (scheduler-plugins).
      const api::Pod* first = pods.front();
      std::vector<std::string> refs;
      for (const auto& o : first->metadata.owner_references) {
        refs.push_back(first->metadata.namespace_ + "/" + o.name);
      }
      std::sort(refs.begin(), refs.end());
      std::string occupied;
      for (const auto& r : refs) occupied += (occupied.empty() ? "" : ",") + r;
      if (!occupied.empty()) s.occupied_by = occupied;
    }
    return s;
  }
  s.running = s.succeeded = s.failed = 0;
  for (const auto* p : pods) {
    if (p->status.phase == "Running") ++s.running;
    if (p->status.phase == "Succeeded") ++s.succeeded;
    if (p->status.phase == "Failed") ++s.failed;
  }
  if (n < min) {
    s.phase = "Pending";
  } else if (s.running + s.succeeded < min) {
    s.phase = "Scheduling";
  } else {
    s.phase = "Running";
  }
  if (s.failed != 0 && s.failed + s.running + s.succeeded >= min) s.phase = "Failed";
  if (s.succeeded >= min) s.phase = "Finished";
  return s;
}

PodGroupController::PodGroupController(client::KubeClient& client,
                                       const api::ClusterObjects& objects,
                                       const framework::Clock& clock, std::function<bool()> active)
    : client_(client), objects_(objects), clock_(clock), active_(std::move(active)) {}

PodGroupController::~PodGroupController() { Stop(); }

void PodGroupController::Start() {
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
}

void PodGroupController::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string PodGroupController::GroupKeyOf(const api::Pod& pod) {
  auto it = pod.metadata.labels.find(api::kPodGroupLabel);
  if (it == pod.metadata.labels.end() || it->second.empty()) return "";
  return pod.metadata.namespace_ + "/" + it->second;
}

void PodGroupController::Enqueue(const std::string& key) {
  if (key.empty()) return;
  {
    std::lock_guard lock(mu_);
    if (!queued_.insert(key).second) return;
    queue_.push_back(key);
  }
  cv_.notify_one();
}

void PodGroupController::EnqueueAll() {
  for (const auto& g : objects_.pod_groups.List()) {
    Enqueue(g->metadata.namespace_ + "/" + g->metadata.name);
  }
}

void PodGroupController::Loop() {
  for (;;) {
    std::string key;
    {
      std::unique_lock lock(mu_);
      // Also wake periodically: a standby that becomes leader re-checks what it skipped.
      cv_.wait_for(lock, std::chrono::seconds(30), [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      if (queue_.empty()) {
        lock.unlock();
        try {
          EnqueueAll();
        } catch (const std::exception& e) {
          BERTH_ERROR() << "podgroup controller: " << e.what();
          CountFault(Fault::kRecoveredException, "podgroup_controller");
        }
        continue;
      }
      key = std::move(queue_.front());
      queue_.pop_front();
      queued_.erase(key);
    }
    if (active_ && !active_()) continue;
    try {
      Reconcile(key);
    } catch (const std::exception& e) {
      // Nothing may escape the thread (std::terminate); the periodic re-check retries the group.
      BERTH_ERROR() << "podgroup controller: " << key << ": " << e.what()
                    << "; retrying with the next periodic check";
      CountFault(Fault::kRecoveredException, "podgroup_controller");
    }
  }
}

void PodGroupController::Reconcile(const std::string& key) {
  auto group = objects_.pod_groups.Get(key);
  if (!group) return;
  std::vector<std::shared_ptr<const api::Pod>> owned;
  objects_.pods.ForEach([&](const api::Pod& p) {
    if (GroupKeyOf(p) == key) owned.push_back(std::make_shared<api::Pod>(p));
  });
  std::sort(owned.begin(), owned.end(),
            [](const auto& a, const auto& b) { return a->metadata.name < b->metadata.name; });
  std::vector<const api::Pod*> pods;
  for (const auto& p : owned) pods.push_back(p.get());
  const api::Time now{clock_.Now().time_since_epoch().count()};
  api::PodGroupStatus want = DesiredPodGroupStatus(*group, pods, now);
  const api::PodGroupStatus& have = group->status;
  if (want.phase == have.phase && want.running == have.running &&
      want.succeeded == have.succeeded && want.failed == have.failed &&
      want.occupied_by == have.occupied_by &&
      want.schedule_start_time.has_value() == have.schedule_start_time.has_value()) {
    return;
  }
  api::Value status = api::Value::MakeObject();
  status.Set("phase", api::Value::String(want.phase));
  status.Set("running", api::Value::Int(want.running));
  status.Set("succeeded", api::Value::Int(want.succeeded));
  status.Set("failed", api::Value::Int(want.failed));
  if (!want.occupied_by.empty()) status.Set("occupiedBy", api::Value::String(want.occupied_by));
  if (want.schedule_start_time) {
    // metav1.Time: whole seconds.
    api::Time t{want.schedule_start_time->unix_micros / 1000000 * 1000000};
    std::string text = api::FormatTime(t);
    if (auto dot = text.find('.'); dot != std::string::npos) text = text.substr(0, dot) + "Z";
    status.Set("scheduleStartTime", api::Value::String(text));
  }
  api::Value patch = api::Value::MakeObject();
  patch.Set("status", std::move(status));
  client::Request req;
  req.method = "PATCH";
  req.path = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/" + group->metadata.namespace_ +
             "/podgroups/" + group->metadata.name + "/status";
  req.content_type = "application/merge-patch+json";
  req.body = api::json::ToJson(patch);
  auto r = client_.Do(req);
  if (!r.ok() || r->status >= 300) {
    BERTH_WARN() << "updating status of PodGroup " << key << " failed: "
                 << (r.ok() ? "HTTP " + std::to_string(r->status) + " " + r->body.substr(0, 200)
                            : r.error());
    return;
  }
  BERTH_LOG(1) << "PodGroup " << key << " phase " << (have.phase.empty() ? "\"\"" : have.phase)
               << " -> " << want.phase;
}

}  // namespace berth::run
