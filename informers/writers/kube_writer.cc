#include "informers/writers/kube_writer.h"

#include <cstdio>
#include <random>

#include "api/decode.h"
#include "api/json/parse.h"
#include "base/fault_counters.h"
#include "base/log.h"
#include "scheduler/framework/types.h"

namespace berth::writers {

// Upstream's maxTriesPerEvent (client-go tools/events).
constexpr int kMaxTriesPerEvent = 12;

using api::Value;

namespace {

std::string PodPath(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/pods/" + name;
}
std::string PodPath(const api::Pod& pod) {
  return PodPath(pod.metadata.namespace_, pod.metadata.name);
}

// The API server's Status message, or the raw body.
std::string ApiMessage(const client::Response& r) {
  auto v = api::json::ParseJson(r.body);
  if (v.ok()) {
    if (const Value* m = v->Find("message"); m && m->IsString()) return m->AsString();
  }
  return r.body.substr(0, 512);
}

Value Str(const std::string& s) { return Value::String(s); }

// An event's regarding/related object reference to a pod.
Value PodReference(const PodRef& pod) {
  Value ref = Value::MakeObject();
  ref.Set("kind", Str("Pod"));
  ref.Set("apiVersion", Str("v1"));
  ref.Set("namespace", Str(pod.namespace_));
  ref.Set("name", Str(pod.name));
  ref.Set("uid", Str(pod.uid));
  return ref;
}

// PATCH pods/{name}/status with {"status": status} (strategic merge).
Result<client::Response> PatchPodStatus(client::KubeClient& client, const std::string& pod_path,
                                        Value status) {
  Value patch = Value::MakeObject();
  patch.Set("status", std::move(status));
  client::Request req;
  req.method = "PATCH";
  req.path = pod_path + "/status";
  req.content_type = "application/strategic-merge-patch+json";
  req.body = api::json::ToJson(patch);
  return client.Do(req);
}

}  // namespace

PodRef PodRef::Of(const api::Pod& pod) {
  return PodRef{pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid,
                pod.metadata.resource_version};
}

KubeApiWriter::KubeApiWriter(client::KubeClient& client) : client_(client) {}

framework::Status KubeApiWriter::Bind(const api::Pod& pod, const std::string& node) {
  Value meta = Value::MakeObject();
  meta.Set("name", Str(pod.metadata.name));
  meta.Set("namespace", Str(pod.metadata.namespace_));
  meta.Set("uid", Str(pod.metadata.uid));
  Value target = Value::MakeObject();
  target.Set("kind", Str("Node"));
  target.Set("name", Str(node));
  Value body = Value::MakeObject();
  body.Set("apiVersion", Str("v1"));
  body.Set("kind", Str("Binding"));
  body.Set("metadata", std::move(meta));
  body.Set("target", std::move(target));
  client::Request req;
  req.method = "POST";
  req.path = PodPath(pod) + "/binding";
  req.body = api::json::ToJson(body);
  auto resp = client_.Do(req);
  if (!resp.ok()) return framework::Status::Error(resp.error());
  if (resp->status == 201 || resp->status == 200) return {};
  const std::string msg = ApiMessage(*resp);
  if (resp->status == 404) {
    // The API server's message alone, as client-go's error reads (`pods "p" not found`).
    return framework::Status::PodGone(msg);
  }
  if (resp->status == 409) {
    // Read the pod back: a replayed request may already have bound it to this node.
    client::Request get;
    get.path = PodPath(pod);
    auto cur = client_.Do(get);
    const std::string& rejected = msg;
    if (cur.ok() && cur->status == 200) {
      auto v = api::json::ParseJson(cur->body);
      if (v.ok()) {
        auto p = api::DecodePod(*v);
        if (p.ok()) {
          if (p->spec.node_name == node && p->metadata.uid == pod.metadata.uid) return {};
          // Bound elsewhere or replaced (an unbound pod of the same uid would not be a 409).
          if (p->metadata.uid != pod.metadata.uid || !p->spec.node_name.empty()) {
            return framework::Status::PodGone(rejected);
          }
        }
      }
    } else if (cur.ok() && cur->status == 404) {
      return framework::Status::PodGone(rejected);
    }
    return framework::Status::Error(rejected);
  }
  return framework::Status::Error("binding failed (HTTP " + std::to_string(resp->status) +
                                  "): " + msg);
}

framework::Status KubeApiWriter::SetNominatedNodeName(const api::Pod& pod,
                                                      const std::string& node) {
  Value status = Value::MakeObject();
  status.Set("nominatedNodeName", node.empty() ? Value() : Str(node));
  auto resp = PatchPodStatus(client_, PodPath(pod), std::move(status));
  if (!resp.ok()) return framework::Status::Error(resp.error());
  if (resp->status < 300 || resp->status == 404) return {};
  const std::string msg = ApiMessage(*resp);
  BERTH_LOG(1) << "setting nominatedNodeName of " << pod.Key() << " failed: HTTP " << resp->status
               << " " << msg;
  return framework::Status::Error("setting nominatedNodeName of " + pod.Key() + " failed (HTTP " +
                                  std::to_string(resp->status) + "): " + msg);
}

framework::Status KubeApiWriter::DeletePod(const api::Pod& pod) {
  Value pre = Value::MakeObject();
  pre.Set("uid", Str(pod.metadata.uid));
  Value body = Value::MakeObject();
  body.Set("apiVersion", Str("v1"));
  body.Set("kind", Str("DeleteOptions"));
  body.Set("preconditions", std::move(pre));
  client::Request req;
  req.method = "DELETE";
  req.path = PodPath(pod);
  req.body = api::json::ToJson(body);
  auto resp = client_.Do(req);
  if (!resp.ok()) {
    BERTH_WARN() << "preemption: deleting victim " << pod.Key() << " failed: " << resp.error();
    return framework::Status::Error(resp.error());
  }
  if (resp->status < 300 || resp->status == 404 || resp->status == 409) {
    BERTH_LOG(1) << "preemption: deleted victim " << pod.Key() << " (HTTP " << resp->status << ")";
    return {};
  }
  const std::string msg = ApiMessage(*resp);
  BERTH_WARN() << "preemption: deleting victim " << pod.Key() << " failed: HTTP " << resp->status
               << " " << msg;
  return framework::Status::Error("deleting " + pod.Key() + " failed (HTTP " +
                                  std::to_string(resp->status) + "): " + msg);
}

namespace {

// An events.k8s.io/v1 event on `regarding` (and `related`, when given) from `controller`, at
// `micros` (microseconds since the epoch). The name is the pod's plus a unique suffix, and the
// reference carries the pod's resourceVersion, as upstream's recorder writes them.
Value PodEvent(const PodRef& regarding, const PodRef* related, const std::string& controller,
               const std::string& instance, uint64_t seq, int64_t micros, const std::string& type,
               const std::string& reason, const std::string& action, const std::string& note) {
  char suffix[40];
  std::snprintf(suffix, sizeof(suffix), ".%llx%llx", static_cast<unsigned long long>(micros),
                static_cast<unsigned long long>(seq & 0xff));
  Value meta = Value::MakeObject();
  meta.Set("name", Str(regarding.name + suffix));
  meta.Set("namespace", Str(regarding.namespace_));
  Value ev = Value::MakeObject();
  ev.Set("apiVersion", Str("events.k8s.io/v1"));
  ev.Set("kind", Str("Event"));
  ev.Set("metadata", std::move(meta));
  ev.Set("eventTime", Str(api::FormatTime(api::Time{micros})));
  ev.Set("reportingController", Str(controller));
  ev.Set("reportingInstance", Str(instance));
  ev.Set("action", Str(action));
  ev.Set("reason", Str(reason));
  ev.Set("type", Str(type));
  ev.Set("note", Str(note));
  Value reference = PodReference(regarding);
  if (!regarding.resource_version.empty()) {
    reference.Set("resourceVersion", Str(regarding.resource_version));
  }
  ev.Set("regarding", std::move(reference));
  if (related != nullptr) ev.Set("related", PodReference(*related));
  return ev;
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void KubeApiWriter::PostEvent(const api::Pod& pod, const Value& ev, const std::string& reason) {
  client::Request req;
  req.method = "POST";
  req.path = "/apis/events.k8s.io/v1/namespaces/" + pod.metadata.namespace_ + "/events";
  req.body = api::json::ToJson(ev);
  auto r = client_.Do(req);
  if (!r.ok() || r->status >= 300) {
    BERTH_LOG(1) << "writing " << reason << " event for " << pod.Key()
                 << " failed: " << (r.ok() ? "HTTP " + std::to_string(r->status) : r.error());
  }
}

void KubeApiWriter::RecordPreemptedEvent(const api::Pod& victim, const api::Pod& preemptor,
                                         const std::string& node) {
  // Upstream's note: "Preempted by pod <uid> on node <node>".
  const PodRef related = PodRef::Of(preemptor);
  PostEvent(victim,
            PodEvent(PodRef::Of(victim), &related, preemptor.spec.scheduler_name, instance_,
                     event_seq_.fetch_add(1), NowMicros(), "Normal", "Preempted", "Preempting",
                     "Preempted by pod " + preemptor.metadata.uid + " on node " + node),
            "Preempted");
}

void KubeApiWriter::RecordPodEvent(const api::Pod& pod, const std::string& type,
                                   const std::string& reason, const std::string& action,
                                   const std::string& note) {
  PostEvent(pod,
            PodEvent(PodRef::Of(pod), nullptr, pod.spec.scheduler_name, instance_,
                     event_seq_.fetch_add(1), NowMicros(), type, reason, action, note),
            reason);
}

KubeOutcomeSink::KubeOutcomeSink(client::KubeClient& client, const framework::Clock& clock,
                                 std::string reporting_instance, int threads,
                                 std::chrono::milliseconds event_retry_delay)
    : client_(client),
      clock_(clock),
      instance_(std::move(reporting_instance)),
      event_retry_delay_(event_retry_delay) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { Loop(); });
}

KubeOutcomeSink::~KubeOutcomeSink() {
  Flush(std::chrono::seconds(2));
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    queue_.clear();
    delayed_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void KubeOutcomeSink::Enqueue(std::function<void()> write) {
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    queue_.push_back(std::move(write));
  }
  cv_.notify_one();
}

void KubeOutcomeSink::EnqueueAfter(std::chrono::milliseconds delay, std::function<void()> write) {
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    delayed_.emplace(std::chrono::steady_clock::now() + delay, std::move(write));
  }
  cv_.notify_one();
}

void KubeOutcomeSink::Loop() {
  for (;;) {
    std::function<void()> w;
    {
      std::unique_lock lock(mu_);
      for (;;) {
        if (stop_ && queue_.empty()) return;
        // Delayed writes whose time has come join the queue.
        const auto now = std::chrono::steady_clock::now();
        while (!delayed_.empty() && delayed_.begin()->first <= now) {
          queue_.push_back(std::move(delayed_.begin()->second));
          delayed_.erase(delayed_.begin());
        }
        if (!queue_.empty()) break;
        if (delayed_.empty()) {
          cv_.wait(lock);
        } else {
          cv_.wait_until(lock, delayed_.begin()->first);
        }
      }
      w = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
    }
    try {
      w();
    } catch (const std::exception& e) {
      // Nothing may escape the writer thread (std::terminate): log and go on with the next write.
      BERTH_ERROR() << "writer: " << e.what();
      CountFault(Fault::kRecoveredException, "writer");
    }
    {
      std::lock_guard lock(mu_);
      --busy_;
    }
    idle_cv_.notify_all();
  }
}

size_t KubeOutcomeSink::Pending() const {
  std::lock_guard lock(mu_);
  return queue_.size() + static_cast<size_t>(busy_);
}

bool KubeOutcomeSink::Flush(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return idle_cv_.wait_for(lock, timeout, [&] { return queue_.empty() && busy_ == 0; });
}

void KubeOutcomeSink::Scheduled(const framework::PodInfo& pod, const std::string& node,
                                const std::string& profile) {
  Enqueue([this, p = PodRef::Of(pod.Pod()), node, profile] {
    RecordEvent(p, "Normal", "Scheduled", "Binding",
                "Successfully assigned " + p.Key() + " to " + node, profile);
  });
  std::lock_guard lock(series_mu_);
  last_condition_.erase(pod.Uid());
}

void KubeOutcomeSink::Failed(const framework::PodInfo& pod, const std::string& reason,
                             const std::string& message, const std::string& profile) {
  Enqueue([this, p = PodRef::Of(pod.Pod()), reason, message, profile] {
    // As upstream: the event's note is truncated to 1024 bytes, the condition keeps it all.
    RecordEvent(p, "Warning", "FailedScheduling", "Scheduling", framework::TruncateNote(message),
                profile);
    if (reason == "Unschedulable" || reason == "SchedulerError") {
      PatchCondition(p, reason, message);
    }
  });
}

void KubeOutcomeSink::RecordEvent(const PodRef& pod, const std::string& type,
                                  const std::string& reason, const std::string& action,
                                  const std::string& note, const std::string& controller,
                                  int tries) {
  const framework::TimePoint now = clock_.Now();
  const std::string key = pod.uid + "/" + reason + "/" + note;
  const std::string now_text = api::FormatTime(api::Time{now.time_since_epoch().count()});
  {
    std::lock_guard lock(series_mu_);
    auto it = series_.find(key);
    if (it != series_.end() && now - it->second.last_patch < std::chrono::minutes(6)) {
      // A repeat: fold it into the first event's series, patching at most every 10 s.
      SeriesState& st = it->second;
      ++st.count;
      if (now - st.last_patch < std::chrono::seconds(10)) return;
      st.last_patch = now;
      Value series = Value::MakeObject();
      series.Set("count", Value::Int(st.count));
      series.Set("lastObservedTime", Str(now_text));
      Value patch = Value::MakeObject();
      patch.Set("series", std::move(series));
      client::Request req;
      req.method = "PATCH";
      req.path = "/apis/events.k8s.io/v1/namespaces/" + pod.namespace_ + "/events/" + st.event_name;
      req.content_type = "application/merge-patch+json";
      req.body = api::json::ToJson(patch);
      auto r = client_.Do(req);
      if (!r.ok() || r->status >= 300) {
        BERTH_LOG(2) << "event series update for " << pod.Key()
                     << " failed: " << (r.ok() ? std::to_string(r->status) : r.error());
      }
      return;
    }
    if (series_.size() > 20000) {
      for (auto s = series_.begin(); s != series_.end();) {
        s = now - s->second.last_patch > std::chrono::minutes(6) ? series_.erase(s) : std::next(s);
      }
    }
  }
  Value ev = PodEvent(pod, nullptr, controller, instance_, seq_.fetch_add(1),
                      now.time_since_epoch().count(), type, reason, action, note);
  const std::string name = ev.Find("metadata")->Find("name")->AsString();
  client::Request req;
  req.method = "POST";
  req.path = "/apis/events.k8s.io/v1/namespaces/" + pod.namespace_ + "/events";
  req.body = api::json::ToJson(ev);
  auto r = client_.Do(req);
  if (!r.ok() && tries + 1 < kMaxTriesPerEvent) {
    // The API server could not be reached (the client's own retries are spent): try again
    // later, as upstream's broadcaster, instead of losing the event to a restart.
    BERTH_LOG(1) << "writing event " << reason << " for pod " << pod.Key() << " failed ("
                 << r.error() << "); trying again in " << event_retry_delay_.count()
                 << "ms or a little more";
    thread_local std::minstd_rand rng(std::random_device{}());
    std::uniform_int_distribution<int64_t> jitter(0, event_retry_delay_.count() / 4);
    const auto delay = event_retry_delay_ + std::chrono::milliseconds(jitter(rng));
    EnqueueAfter(delay, [this, pod, type, reason, action, note, controller, tries] {
      RecordEvent(pod, type, reason, action, note, controller, tries + 1);
    });
    return;
  }
  if (!r.ok() || r->status >= 300) {
    BERTH_WARN() << "writing event " << reason << " for pod " << pod.Key() << " failed: "
                 << (r.ok() ? "HTTP " + std::to_string(r->status) + " " + r->body.substr(0, 200)
                            : r.error() + " (" + std::to_string(tries + 1) + " tries)");
    return;
  }
  std::lock_guard lock(series_mu_);
  series_[key] = SeriesState{name, 1, now};
}

void KubeOutcomeSink::PatchCondition(const PodRef& pod, const std::string& reason,
                                     const std::string& message) {
  {
    // Only when it changes, as upstream's updatePod does.
    std::lock_guard lock(series_mu_);
    std::string& last = last_condition_[pod.uid];
    if (last == reason + "/" + message) return;
    last = reason + "/" + message;
  }
  Value cond = Value::MakeObject();
  cond.Set("type", Str("PodScheduled"));
  cond.Set("status", Str("False"));
  cond.Set("reason", Str(reason));
  cond.Set("message", Str(message));
  cond.Set(
      "lastTransitionTime",
      Str(api::FormatTime(api::Time{clock_.Now().time_since_epoch().count() / 1000000 * 1000000})));
  Value conds = Value::MakeArray();
  conds.Push(std::move(cond));
  Value status = Value::MakeObject();
  status.Set("conditions", std::move(conds));
  auto r = PatchPodStatus(client_, PodPath(pod.namespace_, pod.name), std::move(status));
  if (!r.ok() || r->status >= 300) {
    BERTH_LOG(1) << "updating PodScheduled of " << pod.Key()
                 << " failed: " << (r.ok() ? "HTTP " + std::to_string(r->status) : r.error());
  }
}

}  // namespace berth::writers
