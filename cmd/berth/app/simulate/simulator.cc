#include "cmd/berth/app/simulate/simulator.h"

#include <algorithm>
#include <charconv>
#include <mutex>

#include "cmd/berth/app/simulate/claim_controller.h"
#include "cmd/berth/app/simulate/instant_volumes.h"
#include "scheduler/binder/binder.h"
#include "scheduler/diagnosis/json.h"
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
  // The last FailedScheduling message, kept once the pod is scheduled (a preemptor's nomination).
  std::string last_failure;
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
    r.last_failure = message;
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
  SimWriter(InstantVolumes* volumes, api::Store<api::ResourceClaim>* claims)
      : volumes_(volumes), claims_(claims) {}
  // ResourceClaim status updates, applied to the store as the API server would: the stored
  // claim's resourceVersion must match (kConflict otherwise; kNotFound when it is gone), the
  // status is replaced and the resourceVersion bumped. Delivered as ResourceClaim Update events.
  Result<api::ResourceClaim> UpdateResourceClaimStatus(const api::ResourceClaim& claim) override {
    std::lock_guard lock(mu_);
    BERTH_ASSIGN_OR_RETURN(auto current, CurrentLocked(claim, true));
    api::ResourceClaim updated = *current;
    updated.status = claim.status;
    return StoreLocked(current, std::move(updated));
  }
  Result<api::ResourceClaim> GetResourceClaim(const std::string& ns,
                                              const std::string& name) override {
    auto current = claims_->Get(ns, name);
    if (current == nullptr) {
      return Error{"resourceclaims \"" + ns + "/" + name + "\" not found", ErrorCode::kNotFound};
    }
    return *current;
  }
  Result<api::ResourceClaim> SetResourceClaimFinalizers(const api::ResourceClaim& claim) override {
    std::lock_guard lock(mu_);
    BERTH_ASSIGN_OR_RETURN(auto current, CurrentLocked(claim, true));
    api::ResourceClaim updated = *current;
    updated.finalizers = claim.finalizers;
    return StoreLocked(current, std::move(updated));
  }
  Ok RemoveResourceClaimReservation(const api::ResourceClaim& claim,
                                    const std::string& pod_uid) override {
    std::lock_guard lock(mu_);
    auto current = CurrentLocked(claim, false);
    if (!current.ok()) return {};  // gone: nothing to take back
    api::ResourceClaim updated = **current;
    std::erase_if(updated.status.reserved_for, [&](const auto& r) { return r.uid == pod_uid; });
    auto stored = StoreLocked(*current, std::move(updated));
    if (!stored.ok()) return stored.status();
    return {};
  }
  // DRA-backed extended resources: the claim PreBind creates gets its name from generateName
  // (a deterministic suffix here), a uid and resourceVersion "1"; delivered as an Add event.
  Result<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) override {
    std::lock_guard lock(mu_);
    api::ResourceClaim created = claim;
    if (created.metadata.name.empty()) {
      if (created.metadata.generate_name.empty()) {
        return Error{"ResourceClaim: metadata.name or metadata.generateName is required",
                     ErrorCode::kInvalid};
      }
      // Like the API server's five characters from "bcdfghjklmnpqrstvwxz2456789".
      static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
      uint64_t n = ++created_;
      std::string suffix;
      for (int i = 0; i < 5; ++i, n /= 27) suffix += kAlphabet[n % 27];
      created.metadata.name = created.metadata.generate_name + suffix;
    }
    if (claims_->Get(created.metadata.namespace_, created.metadata.name)) {
      return Error{"resourceclaims \"" + created.metadata.name + "\" already exists",
                   ErrorCode::kConflict};
    }
    created.metadata.uid = "simulated-claim-" + std::to_string(++created_);
    created.metadata.resource_version = "1";
    auto stored = std::make_shared<const api::ResourceClaim>(created);
    claims_->Upsert(stored);
    claim_updates_.emplace_back(nullptr, stored);
    return created;
  }
  Ok DeleteResourceClaim(const std::string& ns, const std::string& name) override {
    std::lock_guard lock(mu_);
    auto current = claims_->Get(ns, name);
    if (current == nullptr) return {};
    claims_->Remove(ns + "/" + name);
    claim_updates_.emplace_back(current, nullptr);
    return {};
  }
  // Kept until the pod's binding is delivered, which then carries it.
  Ok SetPodExtendedResourceClaimStatus(const api::Pod& pod,
                                       const api::PodExtendedResourceClaimStatus& status) override {
    std::lock_guard lock(mu_);
    pod_extended_status_[pod.metadata.uid] = status;
    return {};
  }
  std::optional<api::PodExtendedResourceClaimStatus> TakePodExtendedStatus(const std::string& uid) {
    std::lock_guard lock(mu_);
    auto it = pod_extended_status_.find(uid);
    if (it == pod_extended_status_.end()) return std::nullopt;
    auto out = std::move(it->second);
    pod_extended_status_.erase(it);
    return out;
  }
  using ClaimUpdate = std::pair<std::shared_ptr<const api::ResourceClaim>,
                                std::shared_ptr<const api::ResourceClaim>>;  // old, new
  // The stored claim `claim` names; with `check_version`, its resourceVersion must be the one
  // `claim` carries (when it carries one), as the API server's precondition.
  Result<std::shared_ptr<const api::ResourceClaim>> CurrentLocked(const api::ResourceClaim& claim,
                                                                  bool check_version) {
    const std::string key = claim.metadata.namespace_ + "/" + claim.metadata.name;
    auto current = claims_->Get(key);
    if (current == nullptr) {
      return Error{"resourceclaims \"" + key + "\" not found", ErrorCode::kNotFound};
    }
    if (check_version && !claim.metadata.resource_version.empty() &&
        claim.metadata.resource_version != current->metadata.resource_version) {
      return Error{"ResourceClaim " + key + ": the object has been modified (resourceVersion " +
                       claim.metadata.resource_version + ", stored " +
                       current->metadata.resource_version + ")",
                   ErrorCode::kConflict};
    }
    return current;
  }
  // Stores `updated` with the next resourceVersion, as an Update event for the simulation.
  Result<api::ResourceClaim> StoreLocked(std::shared_ptr<const api::ResourceClaim> current,
                                         api::ResourceClaim updated) {
    uint64_t rv = 0;
    const std::string& old_rv = current->metadata.resource_version;
    std::from_chars(old_rv.data(), old_rv.data() + old_rv.size(), rv);
    updated.metadata.resource_version = std::to_string(rv + 1);
    auto stored = std::make_shared<const api::ResourceClaim>(updated);
    claims_->Upsert(stored);
    claim_updates_.emplace_back(std::move(current), stored);
    return updated;
  }
  std::vector<ClaimUpdate> TakeClaimUpdates() {
    std::lock_guard lock(mu_);
    return std::exchange(claim_updates_, {});
  }
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
  InstantVolumes* volumes_;                 // not owned
  api::Store<api::ResourceClaim>* claims_;  // not owned
  std::mutex mu_;                           // guards everything below
  std::vector<ClaimUpdate> claim_updates_;  // old null: created; new null: deleted
  uint64_t created_ = 0;                    // claims created (their names and uids)
  std::map<std::string, api::PodExtendedResourceClaimStatus> pod_extended_status_;  // by uid
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

// The devices allocated to a scheduled pod's claims: {"<claim>": [{request, driver, pool,
// device}, ...]}, the claim generated for its DRA-backed extended resources included; null when
// the pod has neither.
api::Value ClaimsJson(const api::Pod& pod, const api::ClusterObjects& objects) {
  // Written by PreBind: the pod object as bound has it.
  std::optional<api::PodExtendedResourceClaimStatus> ext;
  if (auto cur = objects.pods.Get(pod.metadata.namespace_, pod.metadata.name);
      cur && cur->metadata.uid == pod.metadata.uid) {
    ext = cur->status.extended_resource_claim_status;
  }
  if (pod.spec.resource_claims.empty() && !ext) return api::Value();
  std::vector<std::string> names;
  for (const auto& pc : pod.spec.resource_claims) {
    std::string name = pc.resource_claim_name;
    for (const auto& s : pod.status.resource_claim_statuses) {
      if (s.name == pc.name && s.resource_claim_name) name = *s.resource_claim_name;
    }
    names.push_back(std::move(name));
  }
  // The claim DynamicResources generated for DRA-backed extended resources.
  if (ext) names.push_back(ext->resource_claim_name);
  api::Value out = api::Value::MakeObject();
  for (const auto& name : names) {
    auto claim = objects.resource_claims.Get(pod.metadata.namespace_, name);
    if (!claim || !claim->status.allocation) continue;
    api::Value devices = api::Value::MakeArray();
    for (const auto& r : claim->status.allocation->devices.results) {
      api::Value d = api::Value::MakeObject();
      d.Set("request", api::Value::String(r.request));
      d.Set("driver", api::Value::String(r.driver));
      d.Set("pool", api::Value::String(r.pool));
      d.Set("device", api::Value::String(r.device));
      devices.Push(std::move(d));
    }
    out.Set(name, std::move(devices));
  }
  return out;
}

api::Value RecordJson(PodRecord& r, const scheduler::Scheduler& sched, bool explain,
                      const api::ClusterObjects& objects, const diagnosis::Store* diagnoses) {
  api::Value o = api::Value::MakeObject();
  o.Set("pod", api::Value::String(r.pod->Key()));
  if (r.status.empty() && !r.pod->spec.scheduling_gates.empty()) {
    // Never attempted, held by scheduling gates: the scheduler writes nothing for such a pod; what
    // a user sees is the PodScheduled condition the API server set at creation.
    r.status = "Gated";
    r.message = "Scheduling is blocked due to non-empty scheduling gates";
  } else if (r.status.empty()) {
    // Never attempted: held back by another PreEnqueue plugin.
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
  if (r.status == "Scheduled" && !r.last_failure.empty()) {
    o.Set("failedScheduling", api::Value::String(r.last_failure));
  }
  if (r.status == "Scheduled") {
    if (api::Value claims = ClaimsJson(*r.pod, objects); !claims.IsNull()) {
      o.Set("claims", std::move(claims));
    }
  }
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
    // The nearest nodes and preemption's verdict of the pod's last failure, as the daemon's
    // /debug/explain reports them (scheduler/diagnosis/json.h).
    if (r.status != "Scheduled" && diagnoses != nullptr) {
      if (auto d = diagnoses->Get(r.pod->Key()); d && d->uid == r.pod->metadata.uid) {
        api::Value dv = diagnosis::ToValue(*d);
        if (const api::Value* n = dv.Find("nearest")) o.Set("nearest", *n);
        if (const api::Value* p = dv.Find("preemption")) o.Set("preemption", *p);
      }
    }
  }
  return o;
}

// The preempted list of the output: victims in eviction order.
api::Value PreemptedJson(const std::vector<SimWriter::Preempted>& preempted) {
  api::Value list = api::Value::MakeArray();
  for (const auto& p : preempted) {
    api::Value o = api::Value::MakeObject();
    o.Set("pod", api::Value::String(p.victim));
    o.Set("node", api::Value::String(p.node));
    o.Set("preemptor", api::Value::String(p.preemptor));
    list.Push(std::move(o));
  }
  return list;
}

// Fills the informer caches with every object of the cluster file except nodes and pods, which
// also go to the scheduler (Simulation::Load).
void StoreObjects(const ClusterFile& cluster, api::ClusterObjects& objects) {
  for (const auto& o : cluster.namespaces) objects.namespaces.Upsert(o);
  for (const auto& o : cluster.pvcs) objects.pvcs.Upsert(o);
  for (const auto& o : cluster.pvs) objects.pvs.Upsert(o);
  for (const auto& o : cluster.storage_classes) objects.storage_classes.Upsert(o);
  for (const auto& o : cluster.csi_nodes) objects.csi_nodes.Upsert(o);
  for (const auto& o : cluster.csi_drivers) objects.csi_drivers.Upsert(o);
  for (const auto& o : cluster.services) objects.services.Upsert(o);
  for (const auto& o : cluster.replication_controllers) objects.replication_controllers.Upsert(o);
  for (const auto& o : cluster.replica_sets) objects.replica_sets.Upsert(o);
  for (const auto& o : cluster.stateful_sets) objects.stateful_sets.Upsert(o);
  for (const auto& o : cluster.pod_groups) objects.pod_groups.Upsert(o);
  for (const auto& o : cluster.device_classes) objects.device_classes.Upsert(o);
  for (const auto& o : cluster.resource_slices) objects.resource_slices.Upsert(o);
  for (const auto& o : cluster.resource_claims) objects.resource_claims.Upsert(o);
  for (const auto& o : cluster.resource_claim_templates) {
    objects.resource_claim_templates.Upsert(o);
  }
  for (const auto& o : cluster.device_taint_rules) objects.device_taint_rules.Upsert(o);
  for (const auto& o : cluster.replicated_storage_classes) {
    objects.replicated_storage_classes.Upsert(o);
  }
  for (const auto& o : cluster.replicated_storage_pools) objects.replicated_storage_pools.Upsert(o);
  for (const auto& o : cluster.lvm_volume_groups) objects.lvm_volume_groups.Upsert(o);
  for (const auto& o : cluster.lvm_logical_volumes) objects.lvm_logical_volumes.Upsert(o);
  for (const auto& o : cluster.replicated_volumes) objects.replicated_volumes.Upsert(o);
  for (const auto& o : cluster.pdbs) objects.pdbs.Upsert(o);
}

std::map<std::string, api::Labels> NodeLabels(const ClusterFile& cluster) {
  std::map<std::string, api::Labels> labels;
  for (const auto& n : cluster.nodes) labels[n->metadata.name] = n->metadata.labels;
  return labels;
}

// One run of `berth simulate`: the scheduler and, in place of the daemon's surroundings, the
// informer caches (objects_), the binder (executor_, writer_) and the volume controllers
// (volumes_), all on a virtual clock. Phases, in order: CreateScheduler, Load, RunToHorizon,
// Output. Members are declared in dependency order, so the scheduler is destroyed first.
class Simulation {
 public:
  Simulation(const ClusterFile& cluster, const Options& options)
      : start_(StartTime(cluster)),
        horizon_(start_ + options.horizon),
        clock_(start_),
        node_labels_(NodeLabels(cluster)),
        volumes_(&objects_,
                 [this](const std::string& node) {
                   auto it = node_labels_.find(node);
                   return it == node_labels_.end() ? api::Labels() : it->second;
                 }),
        writer_(&volumes_, &objects_.resource_claims) {}

  // Error when the configuration cannot be instantiated (Scheduler::Create's error).
  Ok CreateScheduler(const config::SchedulerConfiguration& cfg, const framework::Registry& registry,
                     const Options& options) {
    scheduler::SchedulerDeps deps{&clock_, &objects_, &writer_, &executor_, &recorder_};
    deps.extenders = options.extenders;
    diagnoses_ = options.diagnoses;
    if (diagnoses_ == nullptr && options.explain) {
      own_diagnoses_ = std::make_unique<diagnosis::Store>(diagnosis::StoreOptions{0});
      diagnoses_ = own_diagnoses_.get();
    }
    deps.diagnoses = diagnoses_;
    // The node search is deterministic whatever the parallelism (see FindNodesThatPassFilters),
    // so the configured parallelism is kept.
    auto created =
        scheduler::Scheduler::Create(cfg, registry, deps, {options.seed, options.explain});
    if (!created.ok()) return Error{created.error()};
    sched_ = std::move(*created);
    return Ok();
  }

  // Delivers the cluster file as the informers' initial lists would. Needs CreateScheduler.
  void Load(const ClusterFile& cluster) {
    StoreObjects(cluster, objects_);
    for (const auto& n : cluster.nodes) sched_->AddNode(n);
    std::vector<std::shared_ptr<const api::Pod>> pending;
    for (const auto& from_file : cluster.pods) {
      // Pending pods get the claims of their templates, as the claim controller would make them.
      auto p = from_file->spec.node_name.empty() ? GenerateTemplateClaims(from_file, objects_)
                                                 : from_file;
      objects_.pods.Upsert(p);
      if (!p->spec.node_name.empty()) {
        sched_->AddPod(p);
      } else if (sched_->Responsible(*p)) {
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
      recorder_.Track(p);
      sched_->AddPod(p);
    }
  }

  // Schedules until no pod can make progress before the horizon, then times out the pods still
  // waiting on Permit.
  void RunToHorizon() {
    for (;;) {
      while (sched_->ScheduleOne(/*block=*/false)) Settle();
      Settle();
      if (sched_->queue().Counts().active > 0) continue;
      // Nothing can run now: let virtual time pass to the next backoff expiry or Permit deadline.
      std::optional<framework::TimePoint> next = sched_->queue().NextBackoffExpiry();
      auto wait_deadline = sched_->ExpireWaitingPods();
      if (wait_deadline && (!next || *wait_deadline < *next)) next = wait_deadline;
      if (!next || *next > horizon_) break;
      if (*next > clock_.Now()) clock_.Set(*next);
      scheduler::FlushDue(*sched_);
      Settle();
    }
    // Pods still waiting at the horizon time out now, releasing what they hold.
    if (sched_->NumWaitingPods() > 0) {
      clock_.Set(horizon_ + framework::kMaxPermitTimeout);
      sched_->ExpireWaitingPods();
      Settle();
    }
  }

  // The output document (see Run in simulator.h).
  api::Value Output(bool explain) {
    api::Value out = api::Value::MakeObject();
    api::Value pods = api::Value::MakeArray();
    for (PodRecord* r : recorder_.Ordered()) {
      pods.Push(RecordJson(*r, *sched_, explain, objects_, diagnoses_));
    }
    out.Set("pods", std::move(pods));
    const auto preempted = writer_.preempted();
    if (!preempted.empty()) out.Set("preempted", PreemptedJson(preempted));
    return out;
  }

 private:
  // Runs the binding cycles that are ready, then delivers what they wrote.
  void Settle() {
    executor_.RunReady();
    Deliver();
  }

  // Delivers recorded writes as the informer would: the pod object now has spec.nodeName (or
  // status.nominatedNodeName), and preemption victims are gone (no kubelet: deletion is
  // immediate, on the virtual clock).
  void Deliver() {
    DeliverVolumeUpdates();
    DeliverResourceClaimUpdates();
    DeliverDeletions();
    DeliverNominations();
    DeliverBindings();
  }

  // Volume objects changed by PreBind (InstantVolumes), as the informers would report them.
  void DeliverVolumeUpdates() {
    std::vector<InstantVolumes::ClaimUpdate> claim_updates;
    std::vector<InstantVolumes::VolumeUpdate> volume_updates;
    volumes_.TakeEvents(&claim_updates, &volume_updates);
    for (const auto& u : volume_updates) {
      const bool added = u.old_obj == nullptr;
      framework::EventObject old_obj = std::monostate{};
      if (!added) old_obj = u.old_obj.get();
      sched_->OnClusterEvent(
          framework::ClusterEvent{framework::EventResource::kPersistentVolume,
                                  added ? framework::action::kAdd : framework::action::kUpdate,
                                  added ? "PersistentVolumeAdd" : "PersistentVolumeUpdate"},
          old_obj, u.new_obj.get());
    }
    for (const auto& u : claim_updates) {
      sched_->OnClusterEvent(
          framework::ClusterEvent{framework::EventResource::kPersistentVolumeClaim,
                                  framework::action::kUpdate, "PersistentVolumeClaimUpdate"},
          u.old_obj.get(), u.new_obj.get());
    }
  }

  // ResourceClaim status updates (DynamicResources' writes), as the informer would report them.
  void DeliverResourceClaimUpdates() {
    for (const auto& [old_claim, new_claim] : writer_.TakeClaimUpdates()) {
      framework::EventObject old_obj = std::monostate{};
      framework::EventObject new_obj = std::monostate{};
      if (old_claim) old_obj = old_claim.get();
      if (new_claim) new_obj = new_claim.get();
      const bool added = old_claim == nullptr, deleted = new_claim == nullptr;
      sched_->OnClusterEvent(framework::ClusterEvent{framework::EventResource::kResourceClaim,
                                                     added     ? framework::action::kAdd
                                                     : deleted ? framework::action::kDelete
                                                               : framework::action::kUpdate,
                                                     added     ? "ResourceClaimAdd"
                                                     : deleted ? "ResourceClaimDelete"
                                                               : "ResourceClaimUpdate"},
                             old_obj, new_obj);
    }
  }

  // A victim already gone, or replaced by a pod of the same name, is skipped (uid check).
  void DeliverDeletions() {
    for (auto& victim : writer_.TakeDeletions()) {
      auto cur = objects_.pods.Get(victim.metadata.namespace_, victim.metadata.name);
      if (cur == nullptr || cur->metadata.uid != victim.metadata.uid) continue;
      objects_.pods.Remove(cur->Key());
      sched_->DeletePod(*cur);
    }
  }

  void DeliverNominations() {
    for (auto& [pod, node] : writer_.TakeNominations()) {
      auto cur = objects_.pods.Get(pod.metadata.namespace_, pod.metadata.name);
      if (cur == nullptr || cur->metadata.uid != pod.metadata.uid) continue;
      auto updated = std::make_shared<api::Pod>(*cur);
      updated->status.nominated_node_name = node;
      objects_.pods.Upsert(updated);
      sched_->UpdatePod(*cur, updated);
    }
  }

  void DeliverBindings() {
    for (auto& [pod, node] : writer_.Take()) {
      auto old_pod = objects_.pods.Get(pod.metadata.namespace_, pod.metadata.name);
      auto bound = std::make_shared<api::Pod>(old_pod ? *old_pod : pod);
      bound->spec.node_name = node;
      // DynamicResources' PreBind wrote it before the binding.
      if (auto ext = writer_.TakePodExtendedStatus(pod.metadata.uid)) {
        bound->status.extended_resource_claim_status = std::move(*ext);
      }
      objects_.pods.Upsert(bound);
      sched_->UpdatePod(old_pod ? *old_pod : pod, bound);
    }
  }

  const framework::TimePoint start_;
  const framework::TimePoint horizon_;
  framework::FakeClock clock_;
  api::ClusterObjects objects_;
  binder::DeferredExecutor executor_;
  const std::map<std::string, api::Labels> node_labels_;
  InstantVolumes volumes_;
  SimWriter writer_;
  Recorder recorder_;
  std::unique_ptr<diagnosis::Store> own_diagnoses_;
  diagnosis::Store* diagnoses_ = nullptr;
  std::unique_ptr<scheduler::Scheduler> sched_;
};

}  // namespace

Result<api::Value> Run(const ClusterFile& cluster, const config::SchedulerConfiguration& cfg,
                       const framework::Registry& registry, const Options& options) {
  Simulation sim(cluster, options);
  if (Ok created = sim.CreateScheduler(cfg, registry, options); !created.ok()) {
    return Error{created.error()};
  }
  sim.Load(cluster);
  sim.RunToHorizon();
  return sim.Output(options.explain);
}

}  // namespace berth::simulate
