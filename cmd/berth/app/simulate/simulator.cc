#include "cmd/berth/app/simulate/simulator.h"

#include <algorithm>
#include <mutex>

#include "cmd/berth/app/simulate/instant_volumes.h"
#include "scheduler/binder/binder.h"
#include "scheduler/housekeeping.h"
#include "scheduler/scheduler.h"

namespace berth::simulate {
namespace {

struct PodRecord {
  std::shared_ptr<const api::Pod> pod;
  int first_attempt = -1;
  std::string node;
  std::string status;
  std::string message;
  bool explained = false;
  framework::Explanation explanation;
};

// Collects outcomes per pod uid.
class Recorder final : public framework::OutcomeSink {
 public:
  void Track(const std::shared_ptr<const api::Pod>& pod) {
    std::lock_guard lock(mu_);
    order_.push_back(pod->metadata.uid);
    records_[pod->metadata.uid].pod = pod;
  }
  void Attempted(const framework::PodInfo& pod) override {
    std::lock_guard lock(mu_);
    auto& r = records_[pod.Uid()];
    if (r.first_attempt < 0) r.first_attempt = next_attempt_++;
  }
  void Scheduled(const framework::PodInfo& pod, const std::string& node,
                 const std::string& profile) override {
    std::lock_guard lock(mu_);
    auto& r = records_[pod.Uid()];
    r.status = "Scheduled";
    r.node = node;
    r.message.clear();
  }
  void Failed(const framework::PodInfo& pod, const std::string& reason, const std::string& message,
              const std::string& profile) override {
    std::lock_guard lock(mu_);
    auto& r = records_[pod.Uid()];
    r.status = reason == "SchedulerError" ? "Error" : "Unschedulable";
    r.node.clear();
    r.message = message;
  }
  void Explain(const framework::PodInfo& pod, const framework::Explanation& e) override {
    std::lock_guard lock(mu_);
    auto& r = records_[pod.Uid()];
    r.explained = true;
    r.explanation = e;
  }

  // Records in order of first attempt, then never-attempted pods in file order.
  std::vector<PodRecord*> Ordered() {
    std::vector<PodRecord*> out;
    for (const auto& uid : order_) out.push_back(&records_[uid]);
    std::stable_sort(out.begin(), out.end(), [](const PodRecord* a, const PodRecord* b) {
      auto key = [](const PodRecord* r) {
        return r->first_attempt < 0 ? std::numeric_limits<int>::max() : r->first_attempt;
      };
      return key(a) < key(b);
    });
    return out;
  }

 private:
  std::mutex mu_;  // guards everything below
  std::map<std::string, PodRecord> records_;
  std::vector<std::string> order_;
  int next_attempt_ = 0;
};

// Binds by recording; the simulation then delivers the bound pod as the informer would.
class SimWriter final : public framework::ApiWriter {
 public:
  explicit SimWriter(InstantVolumes* volumes) : volumes_(volumes) {}
  // Volume binding: the instant provisioner / PV controller of simulate (instant_volumes.h).
  framework::Status PatchPersistentVolumeClaimAnnotations(const api::PersistentVolumeClaim& pvc,
                                                          const api::Labels& annotations,
                                                          std::string* rv) override {
    return volumes_->AnnotateClaim(pvc, annotations, rv);
  }
  framework::Status PatchPersistentVolumeClaimRef(const api::PersistentVolume& pv,
                                                  const api::ObjectReference& claim,
                                                  const api::Labels& annotations,
                                                  std::string* rv) override {
    return volumes_->BindVolume(pv, claim, annotations, rv);
  }
  framework::Status Bind(const api::Pod& pod, const std::string& node) override {
    std::lock_guard lock(mu_);
    bound_.emplace_back(pod, node);
    return {};
  }
  std::vector<std::pair<api::Pod, std::string>> Take() {
    std::lock_guard lock(mu_);
    return std::exchange(bound_, {});
  }
  // Preemption: nominations and deletions are delivered like bindings (see `deliver`).
  framework::Status SetNominatedNodeName(const api::Pod& pod, const std::string& node) override {
    std::lock_guard lock(mu_);
    nominations_.emplace_back(pod, node);
    return {};
  }
  framework::Status DeletePod(const api::Pod& pod) override {
    std::lock_guard lock(mu_);
    deletions_.push_back(pod);
    return {};
  }
  void RecordPreemptedEvent(const api::Pod& victim, const api::Pod& preemptor,
                            const std::string& node) override {
    std::lock_guard lock(mu_);
    preempted_.push_back({victim.Key(), preemptor.Key(), node});
  }
  std::vector<std::pair<api::Pod, std::string>> TakeNominations() {
    std::lock_guard lock(mu_);
    return std::exchange(nominations_, {});
  }
  std::vector<api::Pod> TakeDeletions() {
    std::lock_guard lock(mu_);
    return std::exchange(deletions_, {});
  }
  struct Preempted {
    std::string victim, preemptor, node;
  };
  std::vector<Preempted> preempted() {
    std::lock_guard lock(mu_);
    return preempted_;
  }

 private:
  InstantVolumes* volumes_;  // not owned
  std::mutex mu_;            // guards everything below
  std::vector<std::pair<api::Pod, std::string>> bound_;
  std::vector<std::pair<api::Pod, std::string>> nominations_;
  std::vector<api::Pod> deletions_;
  std::vector<Preempted> preempted_;
};

framework::TimePoint StartTime(const ClusterFile& c) {
  int64_t latest = 0;
  auto see = [&](const api::ObjectMeta& m) {
    if (m.creation_timestamp) latest = std::max(latest, m.creation_timestamp->unix_micros);
  };
  for (const auto& p : c.pods) see(p->metadata);
  for (const auto& n : c.nodes) see(n->metadata);
  for (const auto& g : c.pod_groups) see(g->metadata);
  if (latest == 0) latest = int64_t{1704067200} * 1000000;  // 2024-01-01T00:00:00Z
  return framework::TimePoint(framework::Duration(latest));
}

api::Value RecordJson(PodRecord& r, const scheduler::Scheduler& sched, bool explain) {
  api::Value o = api::Value::MakeObject();
  o.Set("pod", api::Value::String(r.pod->Key()));
  if (r.status.empty()) {
    // Never attempted: held back by PreEnqueue (scheduling gates).
    r.status = "Unschedulable";
    auto it = sched.profiles().find(r.pod->spec.scheduler_name);
    if (it != sched.profiles().end()) {
      auto s = it->second->RunPreEnqueuePlugins(*framework::MakePodInfo(r.pod));
      r.message = s.Message();
    }
  }
  o.Set("node", r.status == "Scheduled" ? api::Value::String(r.node) : api::Value());
  o.Set("status", api::Value::String(r.status));
  if (!r.message.empty()) o.Set("message", api::Value::String(r.message));
  if (explain) {
    api::Value filter = api::Value::MakeObject();
    api::Value scores = api::Value::MakeObject();
    if (r.explained) {
      for (const auto& [node, reasons] : r.explanation.filter) {
        filter.Set(node, api::Value::String(reasons));
      }
      for (const auto& [node, sc] : r.explanation.scores) {
        api::Value per = api::Value::MakeObject();
        for (size_t k = 0; k < r.explanation.score_plugins.size(); ++k) {
          per.Set(r.explanation.score_plugins[k], api::Value::Int(sc.first[k]));
        }
        per.Set("total", api::Value::Int(sc.second));
        scores.Set(node, std::move(per));
      }
    }
    o.Set("filter", std::move(filter));
    o.Set("scores", std::move(scores));
  }
  return o;
}

}  // namespace

Result<api::Value> Run(const ClusterFile& cluster, const config::SchedulerConfiguration& cfg,
                       const framework::Registry& registry, const Options& options) {
  const framework::TimePoint start = StartTime(cluster);
  framework::FakeClock clock(start);
  api::ClusterObjects objects;
  binder::DeferredExecutor executor;
  std::map<std::string, api::Labels> node_labels;
  for (const auto& n : cluster.nodes) node_labels[n->metadata.name] = n->metadata.labels;
  InstantVolumes volumes(&objects, [&node_labels](const std::string& node) {
    auto it = node_labels.find(node);
    return it == node_labels.end() ? api::Labels() : it->second;
  });
  SimWriter writer(&volumes);
  Recorder recorder;
  scheduler::SchedulerDeps deps{&clock, &objects, &writer, &executor, &recorder};
  deps.extenders = options.extenders;
  // The node search is deterministic whatever the parallelism (see FindNodesThatPassFilters),
  // so the configured parallelism is kept.
  auto created = scheduler::Scheduler::Create(cfg, registry, deps, {options.seed, options.explain});
  if (!created.ok()) return Error{created.error()};
  scheduler::Scheduler& sched = **created;

  for (const auto& o : cluster.namespaces) objects.namespaces.Upsert(o);
  for (const auto& o : cluster.pvcs) objects.pvcs.Upsert(o);
  for (const auto& o : cluster.pvs) objects.pvs.Upsert(o);
  for (const auto& o : cluster.storage_classes) objects.storage_classes.Upsert(o);
  for (const auto& o : cluster.csi_nodes) objects.csi_nodes.Upsert(o);
  for (const auto& o : cluster.services) objects.services.Upsert(o);
  for (const auto& o : cluster.pod_groups) objects.pod_groups.Upsert(o);
  for (const auto& o : cluster.replicated_storage_classes) {
    objects.replicated_storage_classes.Upsert(o);
  }
  for (const auto& o : cluster.replicated_storage_pools) objects.replicated_storage_pools.Upsert(o);
  for (const auto& o : cluster.lvm_volume_groups) objects.lvm_volume_groups.Upsert(o);
  for (const auto& o : cluster.lvm_logical_volumes) objects.lvm_logical_volumes.Upsert(o);
  for (const auto& o : cluster.replicated_volumes) objects.replicated_volumes.Upsert(o);
  for (const auto& o : cluster.pdbs) objects.pdbs.Upsert(o);
  for (const auto& n : cluster.nodes) sched.AddNode(n);
  std::vector<std::shared_ptr<const api::Pod>> pending;
  for (const auto& p : cluster.pods) {
    objects.pods.Upsert(p);
    if (!p->spec.node_name.empty()) {
      sched.AddPod(p);
    } else if (sched.Responsible(*p)) {
      pending.push_back(p);
    }
  }
  // Pending pods enter the queue in creationTimestamp order (file order when equal or missing).
  std::stable_sort(pending.begin(), pending.end(), [](const auto& a, const auto& b) {
    auto ts = [](const api::Pod& p) {
      return p.metadata.creation_timestamp ? p.metadata.creation_timestamp->unix_micros : 0;
    };
    return ts(*a) < ts(*b);
  });
  for (const auto& p : pending) {
    recorder.Track(p);
    sched.AddPod(p);
  }

  // Delivers recorded writes as the informer would: the pod object now has spec.nodeName (or
  // status.nominatedNodeName), and preemption victims are gone (no kubelet: deletion is
  // immediate, on the virtual clock).
  auto deliver = [&] {
    // Volume objects changed by PreBind (InstantVolumes), as the informers would report them.
    std::vector<InstantVolumes::ClaimUpdate> claim_updates;
    std::vector<InstantVolumes::VolumeUpdate> volume_updates;
    volumes.TakeEvents(&claim_updates, &volume_updates);
    for (const auto& u : volume_updates) {
      const bool added = u.old_obj == nullptr;
      framework::EventObject old_obj = std::monostate{};
      if (!added) old_obj = u.old_obj.get();
      sched.OnClusterEvent(
          framework::ClusterEvent{framework::EventResource::kPersistentVolume,
                                  added ? framework::action::kAdd : framework::action::kUpdate,
                                  added ? "PersistentVolumeAdd" : "PersistentVolumeUpdate"},
          old_obj, u.new_obj.get());
    }
    for (const auto& u : claim_updates) {
      sched.OnClusterEvent(
          framework::ClusterEvent{framework::EventResource::kPersistentVolumeClaim,
                                  framework::action::kUpdate, "PersistentVolumeClaimUpdate"},
          u.old_obj.get(), u.new_obj.get());
    }
    for (auto& victim : writer.TakeDeletions()) {
      auto cur = objects.pods.Get(victim.metadata.namespace_, victim.metadata.name);
      if (cur == nullptr || cur->metadata.uid != victim.metadata.uid) continue;
      objects.pods.Remove(cur->Key());
      sched.DeletePod(*cur);
    }
    for (auto& [pod, node] : writer.TakeNominations()) {
      auto cur = objects.pods.Get(pod.metadata.namespace_, pod.metadata.name);
      if (cur == nullptr || cur->metadata.uid != pod.metadata.uid) continue;
      auto updated = std::make_shared<api::Pod>(*cur);
      updated->status.nominated_node_name = node;
      objects.pods.Upsert(updated);
      sched.UpdatePod(*cur, updated);
    }
    for (auto& [pod, node] : writer.Take()) {
      auto old_pod = objects.pods.Get(pod.metadata.namespace_, pod.metadata.name);
      auto bound = std::make_shared<api::Pod>(old_pod ? *old_pod : pod);
      bound->spec.node_name = node;
      objects.pods.Upsert(bound);
      sched.UpdatePod(old_pod ? *old_pod : pod, bound);
    }
  };
  const framework::TimePoint horizon = start + options.horizon;
  for (;;) {
    while (sched.ScheduleOne(/*block=*/false)) {
      executor.RunReady();
      deliver();
    }
    executor.RunReady();
    deliver();
    if (sched.queue().Counts().active > 0) continue;
    // Nothing can run now: let virtual time pass to the next backoff expiry or Permit deadline.
    std::optional<framework::TimePoint> next = sched.queue().NextBackoffExpiry();
    auto wait_deadline = sched.ExpireWaitingPods();
    if (wait_deadline && (!next || *wait_deadline < *next)) next = wait_deadline;
    if (!next || *next > horizon) break;
    if (*next > clock.Now()) clock.Set(*next);
    scheduler::FlushDue(sched);
    executor.RunReady();
    deliver();
  }
  // Pods still waiting at the horizon time out now, releasing what they hold.
  if (sched.NumWaitingPods() > 0) {
    clock.Set(horizon + framework::kMaxPermitTimeout);
    sched.ExpireWaitingPods();
    executor.RunReady();
    deliver();
  }

  api::Value out = api::Value::MakeObject();
  api::Value pods = api::Value::MakeArray();
  for (PodRecord* r : recorder.Ordered()) pods.Push(RecordJson(*r, sched, options.explain));
  out.Set("pods", std::move(pods));
  // Victims of preemption, in eviction order.
  const auto preempted = writer.preempted();
  if (!preempted.empty()) {
    api::Value list = api::Value::MakeArray();
    for (const auto& p : preempted) {
      api::Value o = api::Value::MakeObject();
      o.Set("pod", api::Value::String(p.victim));
      o.Set("node", api::Value::String(p.node));
      o.Set("preemptor", api::Value::String(p.preemptor));
      list.Push(std::move(o));
    }
    out.Set("preempted", std::move(list));
  }
  return out;
}

}  // namespace berth::simulate
