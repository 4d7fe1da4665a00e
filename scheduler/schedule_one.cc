// The scheduling cycle and the binding cycle, mirroring upstream's pkg/scheduler/schedule_one.go.

#include <algorithm>

#include "base/log.h"
#include "base/strings.h"
#include "scheduler/scheduler.h"

namespace berth::scheduler {

using framework::Code;
using framework::Status;

namespace {

// Upstream's minFeasibleNodesToFind / minFeasibleNodesPercentageToFind.
constexpr int kMinFeasibleNodesToFind = 100;
constexpr int kMinFeasibleNodesPercentageToFind = 5;

void AddPluginStatus(framework::Diagnosis* d, const Status& s) {
  if (s.plugin().empty()) return;
  if (s.IsRejected()) d->unschedulable_plugins.insert(s.plugin());
  if (s.code() == Code::kPending) d->pending_plugins.insert(s.plugin());
}

// A rejection at Reserve / Permit / WaitOnPermit is reported as a FitError over the one chosen
// node, as upstream does: "0/1 nodes are available: 1 <reason>."
Status RejectionOnHost(const Status& s, const std::string& host, framework::Diagnosis* diag) {
  *diag = framework::Diagnosis();
  diag->node_to_status.Set(host, s);
  AddPluginStatus(diag, s);
  if (!s.plugin().empty()) diag->unschedulable_plugins.insert(s.plugin());
  return Status(s.code(), framework::FitErrorMessage(1, *diag)).WithPlugin(s.plugin());
}

// Upstream logs a failed ForgetPod and carries on: the pod is requeued (or dropped) either way,
// and the cache no longer counts it on the node unless the informer confirmed it meanwhile.
void ForgetOrLog(cache::Cache& cache, const api::Pod& pod) {
  if (auto ok = cache.ForgetPod(pod); !ok) {
    BERTH_ERROR() << "scheduler cache ForgetPod failed: " << ok.error();
  }
}

}  // namespace

bool Scheduler::ScheduleOne(bool block) {
  queue::QueuedPodInfoPtr qpi = block ? queue_->Pop() : queue_->TryPop();
  if (!qpi) return false;
  const framework::PodInfo& pod = *qpi->pod_info;
  runtime::Framework* fwk = FrameworkFor(pod.Pod());
  if (fwk == nullptr) {
    // The profile disappeared (config reload is not supported, so this is a pod whose
    // schedulerName changed while queued). Leave it alone.
    queue_->Done(pod.Uid());
    return true;
  }
  if (pod.Pod().metadata.deletion_timestamp) {
    deps_.sink->Failed(pod, "FailedScheduling",
                       "skip schedule deleting pod: " + pod.Namespace() + "/" + pod.Name(),
                       fwk->scheduler_name());
    queue_->Done(pod.Uid());
    return true;
  }
  if (cache_.IsAssumedPod(pod.Pod())) {
    queue_->Done(pod.Uid());
    return true;
  }
  deps_.sink->Attempted(pod);
  const SteadyTime started = std::chrono::steady_clock::now();
  const int64_t cycle = queue_->SchedulingCycle();
  auto state = std::make_shared<framework::CycleState>();
  // Plugin execution times are recorded in ~10% of cycles, as upstream samples them.
  state->record_plugin_metrics = metrics_.SamplePluginMetrics();
  ScheduleResult result;
  framework::PodInfoPtr assumed;
  framework::Diagnosis diag;
  Status s = SchedulingCycle(*fwk, *state, qpi, &result, &assumed, &diag);
  if (!s.IsSuccess() && !s.IsWait()) {
    FailureHandler(*fwk, qpi, s, &diag, cycle, started, result.nominated_node, state.get(),
                   &result);
    return true;
  }
  queue_->Done(pod.Uid());
  // The placement's diagnosis, kept once the pod is bound when the store keeps placements.
  std::shared_ptr<diagnosis::Record> placed;
  if (deps_.diagnoses != nullptr && deps_.diagnoses->KeepsPlaced()) {
    placed = std::make_shared<diagnosis::Record>(
        Diagnose(*fwk, nullptr, pod, Status(), &diag, nullptr, std::string()));
    placed->OwnFilter();  // recorded after the binding cycle, when diag is gone
    placed->status = "Scheduled";
    placed->node = result.host;
    placed->evaluated_nodes = result.evaluated_nodes;
    placed->feasible_nodes = result.feasible_nodes;
  }
  state->DropSchedulingCycleOnly();
  binder::BindingTask task;
  task.waiting = fwk->WaitingPodFor(pod.Uid());
  task.may_block = state->binding_may_block;
  task.run = [this, fwk, state, qpi, assumed, host = result.host, cycle, started,
              waited = task.waiting != nullptr, placed = std::move(placed)]() mutable {
    BindingCycle(fwk, std::move(state), std::move(qpi), std::move(assumed), std::move(host), cycle,
                 started, waited, std::move(placed));
  };
  deps_.executor->Submit(std::move(task));
  return true;
}

Status Scheduler::SchedulingCycle(runtime::Framework& fwk, framework::CycleState& state,
                                  const queue::QueuedPodInfoPtr& qpi, ScheduleResult* result,
                                  framework::PodInfoPtr* assumed, framework::Diagnosis* diag) {
  const framework::PodInfo& pod = *qpi->pod_info;
  const SteadyTime algo_start = std::chrono::steady_clock::now();
  Status s = SchedulePod(fwk, state, pod, result, diag);
  metrics_.SchedulingAlgorithm(metrics::Since(algo_start));
  // Upstream's clearNominatedNode: every failure but a PostFilter's verdict clears the pod's
  // nomination (the nominator and status.nominatedNodeName).
  result->nominated_node = std::string();
  if (!s.IsSuccess()) {
    if (s.code() == Code::kError) return s;
    if (!s.Message().empty()) return s;  // "no nodes available to schedule pods"
    // A FitError: give PostFilter (preemption) its chance, then format the message.
    if (fwk.HasPostFilterPlugins()) {
      framework::PostFilterResult pf;
      Status ps = fwk.RunPostFilterPlugins(state, pod, diag->node_to_status, &pf);
      // As upstream's schedulingAlgorithm, even a PostFilter Error leaves the pod Unschedulable
      // (its message is appended like any other); only a result in override mode changes the
      // nomination, otherwise the pod keeps the one it has.
      if (ps.code() == Code::kError) {
        BERTH_ERROR() << "status after running PostFilter plugins for pod " << pod.Pod().Key()
                      << ": " << ps.Message();
      }
      diag->post_filter_msg = ps.Message();
      result->nominated_node.reset();
      result->post_filter_ran = true;
      if (ps.code() != Code::kError && pf.mode == framework::PostFilterResult::Mode::kOverride) {
        result->nominated_node = pf.nominated_node_name;
        result->victims = std::move(pf.victims);
      }
    }
    return Status(Code::kUnschedulable,
                  framework::FitErrorMessage(static_cast<int>(snapshot_.NumNodes()), *diag));
  }

  // Assume: the cache counts the pod on the host from now on.
  auto pod_copy = std::make_shared<api::Pod>(pod.Pod());
  pod_copy->spec.node_name = result->host;
  auto assumed_info = std::make_shared<framework::PodInfo>(pod);
  assumed_info->pod = pod_copy;
  *assumed = assumed_info;
  if (auto ok = cache_.AssumePod(*assumed); !ok) {
    return Status::Error(ok.error());
  }
  // As upstream's assume: an assumed pod holds its node for real, not as a nomination.
  nominator_.Delete(pod.Pod());

  Status rs = fwk.RunReservePluginsReserve(state, **assumed, result->host);
  if (!rs.IsSuccess()) {
    fwk.RunReservePluginsUnreserve(state, **assumed, result->host);
    ForgetOrLog(cache_, *pod_copy);
    if (rs.IsRejected()) return RejectionOnHost(rs, result->host, diag);
    return rs;
  }

  Status ps = fwk.RunPermitPlugins(state, *assumed, result->host);
  if (!ps.IsSuccess() && !ps.IsWait()) {
    fwk.RunReservePluginsUnreserve(state, **assumed, result->host);
    ForgetOrLog(cache_, *pod_copy);
    if (ps.IsRejected()) return RejectionOnHost(ps, result->host, diag);
    return ps;
  }

  if (!state.pods_to_activate.empty()) {
    queue_->Activate(state.pods_to_activate);
    state.pods_to_activate.clear();
  }
  return ps;
}

Status Scheduler::SchedulePod(runtime::Framework& fwk, framework::CycleState& state,
                              const framework::PodInfo& pod, ScheduleResult* result,
                              framework::Diagnosis* diag) {
  cache_.UpdateSnapshot(snapshot_);
  if (snapshot_.NumNodes() == 0) {
    return Status(Code::kUnschedulableAndUnresolvable, "no nodes available to schedule pods");
  }
  feasible_buf_.clear();
  Status s = FindNodesThatFitPod(fwk, state, pod, &feasible_buf_, diag);
  if (options_.explain && (s.IsSuccess() || s.IsRejected())) {
    Explain(fwk, state, pod, *diag, feasible_buf_);
  }
  if (!s.IsSuccess()) return s;
  if (feasible_buf_.empty()) return Status(Code::kUnschedulable, std::string());
  if (feasible_buf_.size() == 1) {
    result->host = feasible_buf_[0]->name();
    result->evaluated_nodes = 1 + static_cast<int>(diag->node_to_status.Size());
    result->feasible_nodes = 1;
    return Status();
  }
  // prioritizeNodes: without Score plugins every node scores 1 (the first-found tie wins
  // through the PRNG, like upstream).
  if (fwk.HasScorePlugins() || !deps_.extenders.empty()) {
    score_table_.totals.assign(feasible_buf_.size(), 0);
  }
  if (fwk.HasScorePlugins()) {
    Status pre = fwk.RunPreScorePlugins(state, pod, feasible_buf_);
    if (!pre.IsSuccess()) return pre;
    Status sc = fwk.RunScorePlugins(state, pod, feasible_buf_, &score_table_);
    if (!sc.IsSuccess()) return sc;
  } else if (deps_.extenders.empty()) {
    score_table_.totals.assign(feasible_buf_.size(), 1);
  }
  if (!deps_.extenders.empty()) AddExtenderScores(pod, feasible_buf_, &score_table_.totals);
  result->host = SelectHost(feasible_buf_, score_table_.totals);
  result->evaluated_nodes = static_cast<int>(feasible_buf_.size() + diag->node_to_status.Size());
  result->feasible_nodes = static_cast<int>(feasible_buf_.size());
  return Status();
}

Status Scheduler::FindNodesThatFitPod(runtime::Framework& fwk, framework::CycleState& state,
                                      const framework::PodInfo& pod,
                                      std::vector<const framework::NodeInfo*>* feasible,
                                      framework::Diagnosis* diag) {
  const auto& all_nodes = snapshot_.List();
  framework::PreFilterResult pre_result;
  std::vector<std::string> plugins_with_nodes;
  Status s = fwk.RunPreFilterPlugins(state, pod, &pre_result, &plugins_with_nodes);
  for (const auto& p : plugins_with_nodes) diag->unschedulable_plugins.insert(p);
  if (!s.IsSuccess()) {
    if (!s.IsRejected()) return s;
    // Every node carries the same status, so preemption can see it.
    diag->node_to_status.absent_status = s;
    diag->pre_filter_msg = s.Message();
    AddPluginStatus(diag, s);
    return Status(Code::kUnschedulable, std::string());
  }
  // A node nominated by an earlier preemption is likely the only one that fits: try it first.
  if (EvaluateNominatedNode(fwk, state, pod, feasible)) return Status();
  if (pre_result.AllNodes()) {
    s = FindNodesThatPassFilters(fwk, state, pod, all_nodes, feasible, diag);
    return s.IsSuccess() ? FindNodesThatPassExtenders(pod, feasible, diag) : s;
  }
  std::vector<const framework::NodeInfo*> nodes;
  nodes.reserve(pre_result.node_names->size());
  for (const auto& name : *pre_result.node_names) {
    // PreFilter may name nodes that do not exist.
    if (const framework::NodeInfo* ni = snapshot_.Get(name)) nodes.push_back(ni);
  }
  std::vector<std::string> unsched(diag->unschedulable_plugins.begin(),
                                   diag->unschedulable_plugins.end());
  diag->node_to_status.absent_status = Status(
      Code::kUnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) " + GoList(unsched));
  s = FindNodesThatPassFilters(fwk, state, pod, nodes, feasible, diag);
  return s.IsSuccess() ? FindNodesThatPassExtenders(pod, feasible, diag) : s;
}

bool Scheduler::EvaluateNominatedNode(runtime::Framework& fwk, const framework::CycleState& state,
                                      const framework::PodInfo& pod,
                                      std::vector<const framework::NodeInfo*>* feasible) {
  std::string node = pod.Pod().status.nominated_node_name;
  // The status patch may not have come back through the informer yet.
  if (node.empty() && nominator_.HasNominatedPods()) node = nominator_.NominatedNodeOf(pod.Uid());
  if (node.empty()) return false;
  const framework::NodeInfo* ni = snapshot_.Get(node);
  if (ni == nullptr) return false;
  Status s = fwk.HasNominatedPods() ? fwk.RunFilterPluginsWithNominatedPods(state, pod, *ni)
                                    : fwk.RunFilterPlugins(state, pod, *ni);
  if (!s.IsSuccess()) return false;  // the full search reports this node's status
  // As upstream, the extenders judge the nominated node too; a rejection or an error falls back
  // to the full search, which asks them again.
  std::vector<const framework::NodeInfo*> nominated{ni};
  framework::Diagnosis ignored;
  if (!FindNodesThatPassExtenders(pod, &nominated, &ignored).IsSuccess() || nominated.empty()) {
    return false;
  }
  feasible->push_back(ni);
  return true;
}

int Scheduler::NumFeasibleNodesToFind(int32_t percentage, int num_all_nodes) const {
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  if (percentage == 0) {
    percentage = 50 - num_all_nodes / 125;
    if (percentage < kMinFeasibleNodesPercentageToFind) {
      percentage = kMinFeasibleNodesPercentageToFind;
    }
  }
  int n = static_cast<int>(static_cast<int64_t>(num_all_nodes) * percentage / 100);
  return std::max(n, kMinFeasibleNodesToFind);
}

// Filters nodes starting at the rotating start index, in parallel, and keeps the first
// numNodesToFind feasible nodes in walk order. Workers claim chunks in order and stop claiming
// once enough nodes passed, so every node before the last one kept was evaluated: the outcome
// is the same as a sequential walk, whatever the thread timing (simulate is deterministic).
// It stays one ~90-line function (upstream's findNodesThatPassFilters is too): the parallel pass
// and the ordered collection share the per-index buffers, the counters and the error slot, and
// the collection is only correct right after the pass that filled them.
Status Scheduler::FindNodesThatPassFilters(runtime::Framework& fwk,
                                           const framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const std::vector<const framework::NodeInfo*>& nodes,
                                           std::vector<const framework::NodeInfo*>* feasible,
                                           framework::Diagnosis* diag) {
  const int num_all = static_cast<int>(nodes.size());
  if (num_all == 0) return Status();
  int to_find = NumFeasibleNodesToFind(fwk.percentage_of_nodes_to_score(), num_all);
  // Nothing to rank: the first feasible node wins.
  if (!fwk.HasScorePlugins() && deps_.extenders.empty()) to_find = 1;
  const size_t all_nodes = snapshot_.NumNodes();
  const size_t start = all_nodes == 0 ? 0 : next_start_node_index_ % static_cast<size_t>(num_all);

  if (!fwk.HasFilterPlugins()) {
    for (int i = 0; i < to_find; ++i) {
      feasible->push_back(nodes[(start + static_cast<size_t>(i)) % static_cast<size_t>(num_all)]);
    }
    next_start_node_index_ = (next_start_node_index_ + static_cast<size_t>(to_find)) % all_nodes;
    return Status();
  }

  // Per-index outcome: 0 = not evaluated, 1 = passed, 2 = rejected (status in filter_status_).
  // The buffers are members so a cycle allocates nothing; only the evaluated prefix is reset.
  if (filter_state_.size() < static_cast<size_t>(num_all)) {
    filter_state_.resize(static_cast<size_t>(num_all), 0);
    filter_status_.resize(static_cast<size_t>(num_all));
  }
  std::atomic<int> found{0};
  std::atomic<bool> stop{false};
  std::mutex err_mu;
  std::optional<Status> error;
  const SteadyTime filter_start = std::chrono::steady_clock::now();
  // Nominated pods are considered only when there are any (one atomic read per cycle).
  const bool with_nominated = fwk.HasNominatedPods();
  fwk.parallelizer().Until(
      num_all,
      [&](int i) {
        const auto idx = static_cast<size_t>(i);
        const framework::NodeInfo* node = nodes[(start + idx) % static_cast<size_t>(num_all)];
        Status st = with_nominated ? fwk.RunFilterPluginsWithNominatedPods(state, pod, *node)
                                   : fwk.RunFilterPlugins(state, pod, *node);
        if (st.IsSuccess()) {
          filter_state_[idx] = 1;
          if (found.fetch_add(1, std::memory_order_relaxed) + 1 >= to_find) {
            stop.store(true, std::memory_order_relaxed);
          }
          return;
        }
        filter_state_[idx] = 2;
        if (st.code() == Code::kError) {
          std::lock_guard lock(err_mu);
          if (!error) error = std::move(st);
          stop.store(true, std::memory_order_relaxed);
        } else {
          filter_status_[idx] = std::move(st);
        }
      },
      &stop);
  // Chunks are claimed in index order and every claimed chunk completes, so the evaluated
  // nodes form a prefix. Walk it in order, keep up to to_find feasible nodes, record the
  // statuses of rejected nodes before the cut, and reset the buffers.
  int processed = 0;
  int kept = 0;
  // Rejections mostly repeat a plugin's shared Status (status.h): note each plugin once.
  const std::string* last_plugin = nullptr;
  Code last_code = Code::kSuccess;
  for (size_t idx = 0; idx < static_cast<size_t>(num_all) && filter_state_[idx] != 0; ++idx) {
    if (kept < to_find) {
      const framework::NodeInfo* node = nodes[(start + idx) % static_cast<size_t>(num_all)];
      if (filter_state_[idx] == 1) {
        feasible->push_back(node);
        ++kept;
        processed = static_cast<int>(idx) + 1;
      } else if (filter_status_[idx]) {
        const Status& st = *filter_status_[idx];
        if (&st.plugin() != last_plugin || st.code() != last_code) {
          AddPluginStatus(diag, st);
          last_plugin = &st.plugin();
          last_code = st.code();
        }
        diag->node_to_status.Append(node->name(), std::move(*filter_status_[idx]), node);
        processed = static_cast<int>(idx) + 1;
      }
    }
    filter_state_[idx] = 0;
    filter_status_[idx].reset();
  }
  if (all_nodes > 0) {
    next_start_node_index_ = (next_start_node_index_ + static_cast<size_t>(processed)) % all_nodes;
  }
  ObservePoint(metrics::kFilter, error ? *error : Status(), fwk.scheduler_name(), filter_start);
  if (error) return *error;
  return Status();
}

std::string Scheduler::SelectHost(const std::vector<const framework::NodeInfo*>& nodes,
                                  const std::vector<int64_t>& totals) {
  int64_t best = totals[0];
  for (int64_t t : totals) best = std::max(best, t);
  // Reservoir sampling over the nodes tied at the top, as upstream's selectHost.
  size_t count = 0;
  size_t chosen = 0;
  for (size_t i = 0; i < totals.size(); ++i) {
    if (totals[i] != best) continue;
    ++count;
    if (count == 1 || rng_() % count == 0) chosen = i;
  }
  return nodes[chosen]->name();
}

void Scheduler::Explain(runtime::Framework& fwk, framework::CycleState& state,
                        const framework::PodInfo& pod, const framework::Diagnosis& diag,
                        const std::vector<const framework::NodeInfo*>& feasible) {
  framework::Explanation e;
  if (!diag.pre_filter_msg.empty() || !diag.node_to_status.absent_status.IsSuccess()) {
    // Nodes without their own status carry the PreFilter / absent status.
    for (const auto* n : snapshot_.List()) {
      if (!diag.node_to_status.Get(n->name())) {
        e.filter[n->name()] = diag.node_to_status.absent_status.Message();
      }
    }
  }
  for (const auto& [node, st] : diag.node_to_status.statuses()) e.filter[node] = st.Message();
  // Scores are shown for every feasible node, even when one node fits and upstream would skip
  // scoring: scoring has no side effects and users ask "why this node".
  if (!feasible.empty() && fwk.HasScorePlugins()) {
    auto score_state = state.Clone();
    runtime::ScoreTable table;
    if (fwk.RunPreScorePlugins(*score_state, pod, feasible).IsSuccess() &&
        fwk.RunScorePlugins(*score_state, pod, feasible, &table).IsSuccess()) {
      for (auto name : table.plugins) e.score_plugins.emplace_back(name);
      for (size_t i = 0; i < feasible.size(); ++i) {
        std::vector<int64_t> per;
        for (size_t k = 0; k < table.plugins.size(); ++k) {
          per.push_back(table.Score(k, i));
        }
        e.scores.push_back({feasible[i]->name(), {std::move(per), table.totals[i]}});
      }
    }
  }
  deps_.sink->Explain(pod, e);
}

void Scheduler::BindingCycle(runtime::Framework* fwk, std::shared_ptr<framework::CycleState> state,
                             queue::QueuedPodInfoPtr qpi, framework::PodInfoPtr assumed,
                             std::string host, int64_t cycle, SteadyTime started, bool waited,
                             std::shared_ptr<diagnosis::Record> placed) {
  metrics_.Goroutines(metrics::kBinding, +1);
  struct Done {
    metrics::Recorder& m;
    ~Done() { m.Goroutines(metrics::kBinding, -1); }
  } done{metrics_};
  const std::string& profile = fwk->scheduler_name();
  SteadyTime t = std::chrono::steady_clock::now();
  Status s = fwk->WaitOnPermit(*assumed);
  if (waited) metrics_.PermitWait(s.code(), metrics::Since(t));
  if (!s.IsSuccess()) {
    framework::Diagnosis diag;
    if (s.IsRejected()) s = RejectionOnHost(s, host, &diag);
    HandleBindingCycleError(fwk, *state, qpi, assumed, host, s, cycle, started);
    return;
  }
  s = fwk->RunPreBindPlugins(*state, *assumed, host);
  if (!s.IsSuccess()) {
    HandleBindingCycleError(fwk, *state, qpi, assumed, host, s, cycle, started);
    return;
  }
  t = std::chrono::steady_clock::now();
  bool extender_bound = false;
  if (!deps_.extenders.empty()) s = ExtendersBinding(assumed->Pod(), host, &extender_bound);
  if (extender_bound) {
    ObservePoint(metrics::kBind, s, profile, t);  // RunBindPlugins times itself
  } else {
    s = fwk->RunBindPlugins(*state, *assumed, host);
  }
  if (!s.IsSuccess()) {
    HandleBindingCycleError(fwk, *state, qpi, assumed, host, s, cycle, started);
    return;
  }
  cache_.FinishBinding(assumed->Pod());
  metrics_.ScheduleAttempt(metrics::kScheduled, profile, metrics::Since(started));
  double sli = 0;
  if (qpi->initial_attempt_timestamp) {
    sli = framework::Seconds(deps_.clock->Now() - *qpi->initial_attempt_timestamp);
  }
  metrics_.PodScheduled(qpi->attempts, sli);
  if (deps_.diagnoses != nullptr) {
    // A bound pod has nothing left to explain; its placement is kept when asked for.
    if (placed != nullptr) {
      deps_.diagnoses->RecordScheduled(*placed);
    } else {
      deps_.diagnoses->Bound(qpi->pod_info->Namespace(), qpi->pod_info->Name(),
                             qpi->pod_info->Uid());
    }
  }
  deps_.sink->Scheduled(*qpi->pod_info, host, fwk->scheduler_name());
  fwk->RunPostBindPlugins(*state, *assumed, host);
  if (!state->pods_to_activate.empty()) queue_->Activate(state->pods_to_activate);
}

void Scheduler::HandleBindingCycleError(runtime::Framework* fwk, framework::CycleState& state,
                                        const queue::QueuedPodInfoPtr& qpi,
                                        const framework::PodInfoPtr& assumed,
                                        const std::string& host, const Status& status,
                                        int64_t cycle, SteadyTime started) {
  fwk->RunReservePluginsUnreserve(state, *assumed, host);
  ForgetOrLog(cache_, assumed->Pod());
  // The resources the pod held are free again: pods waiting for them may fit now.
  framework::ClusterEvent event{framework::EventResource::kAssignedPod, framework::action::kDelete,
                                "AssignedPodDelete"};
  framework::Diagnosis diag;
  if (status.IsRejected()) {
    diag.unschedulable_plugins.insert(status.plugin());
    // Requeue the pod first so that this event, which it caused itself, does not move it.
    FailureHandler(*fwk, qpi, status, &diag, cycle, started, std::string());
    queue_->MoveAllToActiveOrBackoffQueue(event, &assumed->Pod(), std::monostate{}, assumed->Uid());
  } else {
    queue_->MoveAllToActiveOrBackoffQueue(event, &assumed->Pod(), std::monostate{}, "");
    FailureHandler(*fwk, qpi, status, &diag, cycle, started, std::string());
  }
}

void Scheduler::ObservePoint(std::string_view point, const Status& s, const std::string& profile,
                             SteadyTime start) {
  metrics_.ExtensionPoint(point, s.code(), profile, metrics::Since(start));
}

void Scheduler::FailureHandler(runtime::Framework& fwk, const queue::QueuedPodInfoPtr& qpi,
                               const Status& status, const framework::Diagnosis* diag,
                               int64_t cycle, SteadyTime started,
                               const std::optional<std::string>& nominated_node,
                               const framework::CycleState* state, const ScheduleResult* result) {
  const bool rejected = status.IsRejected();
  metrics_.ScheduleAttempt(rejected ? metrics::kUnschedulable : metrics::kError,
                           fwk.scheduler_name(), metrics::Since(started));
  qpi->unschedulable_plugins.clear();
  qpi->pending_plugins.clear();
  if (rejected && diag != nullptr) {
    qpi->unschedulable_plugins = diag->unschedulable_plugins;
    qpi->pending_plugins = diag->pending_plugins;
  }
  // As upstream's handleSchedulingFailure, the pod is re-read from the informer: one deleted
  // meanwhile or bound by someone else is not requeued, yet still gets its event and its
  // condition patch (which then fails for a deleted pod, and is logged); only a pod recreated
  // under the same name (another uid) is left alone entirely.
  framework::PodInfoPtr report = qpi->pod_info;
  const framework::PodInfo& pod = *qpi->pod_info;
  auto current = deps_.objects->pods.Get(pod.Namespace(), pod.Name());
  if (current == nullptr || status.IsPodGone()) {
    // A Bind that found the pod gone says so before the informer has caught up.
    BERTH_LOG(2) << "pod " << pod.Pod().Key() << " doesn't exist in informer cache";
    queue_->Done(pod.Uid());
    current = nullptr;
  } else if (!current->spec.node_name.empty()) {
    BERTH_LOG(2) << "pod " << pod.Pod().Key() << " has been assigned to node "
                 << current->spec.node_name << "; not requeued";
    queue_->Done(pod.Uid());
  } else if (current->metadata.uid != pod.Uid()) {
    BERTH_LOG(2) << "pod " << pod.Pod().Key()
                 << " was recreated while handling its scheduling failure";
    queue_->Done(pod.Uid());
    return;
  } else {
    if (current != pod.pod) report = framework::MakePodInfo(current);
    queue_->AddUnschedulableIfNotPresent(qpi, cycle);
  }
  if (deps_.diagnoses != nullptr) {
    // Only a pod that waits has a diagnosis to keep; one gone or bound loses its old one.
    if (current != nullptr && current->spec.node_name.empty()) {
      const std::string& nominated =
          nominated_node ? *nominated_node : current->status.nominated_node_name;
      deps_.diagnoses->RecordFailure(
          Diagnose(fwk, state, pod, status, rejected ? diag : nullptr, result, nominated));
    } else {
      deps_.diagnoses->Forget(pod.Namespace() + "/" + pod.Name(), pod.Uid());
    }
  }
  // Upstream's AddNominatedPod: without an override the pod keeps the node in its status; the
  // nominator itself ignores pods that are gone or bound.
  if (current != nullptr && current->spec.node_name.empty()) {
    nominator_.Add(report, nominated_node);
  } else {
    nominator_.Delete(pod.Pod());
  }
  // updatePod: nominatedNodeName is patched only when overridden to a different value.
  const api::Pod& patched = current != nullptr ? *current : pod.Pod();
  if (nominated_node && patched.status.nominated_node_name != *nominated_node) {
    fwk.RunAsync([writer = deps_.api_writer, target = report->pod, node = *nominated_node] {
      // As upstream's updatePod: logged, not retried (the next attempt nominates again).
      Status s = writer->SetNominatedNodeName(*target, node);
      if (!s.IsSuccess()) {
        BERTH_ERROR() << "setting nominatedNodeName of pod " << target->Key() << " to \"" << node
                      << "\": " << s.Message();
      }
    });
  }
  // The full message: the sink truncates the event's note, not the condition's message.
  deps_.sink->Failed(*report, rejected ? "Unschedulable" : "SchedulerError", status.Message(),
                     fwk.scheduler_name());
}

}  // namespace berth::scheduler
