#include "plugins/default_preemption/default_preemption.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>

#include "base/log.h"
#include "plugins/default_preemption/preemption.h"
#include "scheduler/framework/args.h"

namespace berth::plugins::default_preemption {

using framework::Code;
using framework::Status;

namespace {

constexpr char kNotHelpful[] = "Preemption is not helpful for scheduling";

std::string Invalid(const std::string& path, int64_t value, const std::string& what) {
  return path + ": Invalid value: " + std::to_string(value) + ": " + what;
}

// One dry-run outcome per evaluated node (index into the walk order).
struct NodeOutcome {
  bool evaluated = false;
  std::optional<Candidate> candidate;
  Status status;  // when not a candidate
};

class DefaultPreemption final : public framework::PostFilterPlugin {
 public:
  DefaultPreemption(Args args, framework::Handle* handle) : args_(args), handle_(handle) {}
  std::string_view Name() const override { return kName; }

  Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                    const framework::NodeToStatus& statuses,
                    framework::PostFilterResult* result) const override {
    handle_->RecordPreemptionAttempt();
    Status s = Preempt(state, pod, statuses, result);
    // As upstream, every non-empty message (success and errors too) is prefixed.
    if (s.Message().empty()) return s;
    if (s.IsError()) return Status::Error("preemption: " + s.Message());
    return Status(s.code(), "preemption: " + s.Message());
  }

 private:
  // Upstream's Evaluator.Preempt.
  Status Preempt(framework::CycleState& state, const framework::PodInfo& pod_in,
                 const framework::NodeToStatus& statuses,
                 framework::PostFilterResult* result) const {
    // 0. The latest version of the pod (its nomination may have changed).
    framework::PodInfoPtr latest;
    if (auto cur = handle_->objects().pods.Get(pod_in.Namespace(), pod_in.Name());
        cur != nullptr && cur->metadata.uid == pod_in.Uid() && cur != pod_in.pod) {
      latest = framework::MakePodInfo(cur);
    }
    const framework::PodInfo& pod = latest ? *latest : pod_in;
    const framework::Snapshot& snapshot = handle_->snapshot();

    // 1. Eligibility.
    const std::string& nominated = pod.Pod().status.nominated_node_name;
    const Status* nominated_status = nullptr;
    if (!nominated.empty()) {
      nominated_status = statuses.Get(nominated);
      if (nominated_status == nullptr) nominated_status = &statuses.absent_status;
    }
    std::string msg;
    if (!PodEligibleToPreemptOthers(snapshot, pod.Pod(), nominated_status, &msg)) {
      return Status(Code::kUnschedulable, msg);
    }

    // 2. Candidates among the nodes where removing pods may help.
    std::vector<const framework::NodeInfo*> potential;
    if (statuses.absent_status.code() == Code::kUnschedulable) {
      // Every node without its own status qualifies too (a PreFilter rejection).
      for (const framework::NodeInfo* ni : snapshot.List()) {
        const Status* st = statuses.Get(ni->name());
        if (st == nullptr) st = &statuses.absent_status;
        if (st->code() == Code::kUnschedulable) potential.push_back(ni);
      }
    } else {
      // Only the recorded statuses, in the node search's walk order (no name index to build).
      for (const auto& [name, st] : statuses.statuses()) {
        if (st.code() != Code::kUnschedulable) continue;
        if (const framework::NodeInfo* ni = snapshot.Get(name)) potential.push_back(ni);
      }
    }
    framework::Diagnosis diag;
    diag.node_to_status.absent_status = Status(Code::kUnschedulableAndUnresolvable, kNotHelpful);
    std::vector<Candidate> candidates;
    if (!potential.empty()) {
      Status s = DryRun(state, pod, potential, &candidates, &diag.node_to_status);
      if (s.IsError() && candidates.empty()) return s;
    }
    if (candidates.empty()) {
      // Clear any nomination the pod had: preemption will not make room.
      result->mode = framework::PostFilterResult::Mode::kOverride;
      result->nominated_node_name.clear();
      return Status(Code::kUnschedulable,
                    framework::FitErrorMessage(static_cast<int>(snapshot.NumNodes()), diag));
    }

    // 3. (Extenders are not consulted.) 4. The best candidate.
    const api::Time now{std::chrono::duration_cast<std::chrono::microseconds>(
                            handle_->clock().Now().time_since_epoch())
                            .count()};
    const int best = candidates.size() == 1 ? 0 : PickOneNodeForPreemption(candidates, now);
    if (best < 0) return Status(Code::kUnschedulable, "no candidate node for preemption");
    Candidate chosen = std::move(candidates[static_cast<size_t>(best)]);
    handle_->RecordPreemptionVictims(static_cast<int>(chosen.victims.size()));

    // 5. Evict, off the scheduling thread.
    PrepareCandidate(pod, chosen);
    result->mode = framework::PostFilterResult::Mode::kOverride;
    result->nominated_node_name = chosen.node;
    for (const auto& v : chosen.victims)
      result->victims.emplace_back(v->Pod().Key(), v->Pod().Priority());
    return Status(Code::kSuccess, "found a potential placement for pod on node " + chosen.node +
                                      ", preempting " + std::to_string(chosen.victims.size()) +
                                      " victims");
  }

  // Upstream's DryRunPreemption: evaluates potential nodes from an offset in parallel; stops once
  // it has enough candidates and at least one without PDB violations. Outcomes are kept in walk
  // order (chunks are claimed in order), so the result does not depend on thread timing.
  Status DryRun(const framework::CycleState& state, const framework::PodInfo& pod,
                const std::vector<const framework::NodeInfo*>& potential,
                std::vector<Candidate>* candidates, framework::NodeToStatus* statuses) const {
    const int n = static_cast<int>(potential.size());
    const int32_t wanted = NumCandidates(args_, n);
    const size_t offset = std::hash<std::string>{}(pod.Uid()) % static_cast<size_t>(n);
    auto pdbs = handle_->objects().pdbs.List();
    const api::Time now{std::chrono::duration_cast<std::chrono::microseconds>(
                            handle_->clock().Now().time_since_epoch())
                            .count()};
    std::vector<NodeOutcome> outcomes(static_cast<size_t>(n));
    std::atomic<int> non_violating{0};
    std::atomic<int> total{0};
    std::atomic<bool> stop{false};
    handle_->parallelizer().Until(
        n,
        [&](int i) {
          const framework::NodeInfo* src =
              potential[(offset + static_cast<size_t>(i)) % static_cast<size_t>(n)];
          framework::NodeInfo node_copy(*src);
          auto state_copy = state.Clone();
          Candidate c;
          c.node = src->name();
          NodeOutcome& out = outcomes[static_cast<size_t>(i)];
          Status s = SelectVictimsOnNode(*handle_, *state_copy, pod, node_copy, pdbs, now,
                                         &c.victims, &c.num_pdb_violations);
          out.evaluated = true;
          if (s.IsSuccess() && !c.victims.empty()) {
            if (c.num_pdb_violations == 0) non_violating.fetch_add(1);
            const int t = total.fetch_add(1) + 1;
            out.candidate = std::move(c);
            if (non_violating.load() > 0 && t >= wanted) stop.store(true);
            return;
          }
          if (s.IsSuccess()) {
            s = Status::Error("expected at least one victim pod on node \"" + src->name() + "\"");
          }
          out.status = std::move(s);
        },
        &stop);
    // Walk in order and stop where a sequential dry run would have stopped.
    std::vector<Candidate> clean, violating;
    std::optional<Status> error;
    for (int i = 0; i < n; ++i) {
      NodeOutcome& out = outcomes[static_cast<size_t>(i)];
      if (!out.evaluated) break;
      if (out.candidate) {
        (out.candidate->num_pdb_violations == 0 ? clean : violating)
            .push_back(std::move(*out.candidate));
        if (!clean.empty() && static_cast<int32_t>(clean.size() + violating.size()) >= wanted) {
          break;
        }
        continue;
      }
      if (out.status.IsError() && !error) error = out.status;
      const framework::NodeInfo* src =
          potential[(offset + static_cast<size_t>(i)) % static_cast<size_t>(n)];
      statuses->Append(src->name(), std::move(out.status));
    }
    *candidates = std::move(clean);
    for (auto& c : violating) candidates->push_back(std::move(c));
    return error ? *error : Status();
  }

  // Upstream's prepareCandidate (async flavour).
  void PrepareCandidate(const framework::PodInfo& pod, const Candidate& c) const {
    // Victims waiting in Permit are rejected in memory; the rest are deleted through the API.
    std::vector<std::shared_ptr<const api::Pod>> to_delete;
    for (const auto& v : c.victims) {
      if (handle_->GetWaitingPod(v->Uid())) {
        handle_->RejectWaitingPod(v->Uid(), kName, "preempted");
      } else {
        to_delete.push_back(v->pod);
      }
    }
    // Lower-priority pods nominated to this node may no longer fit: drop their nomination so they
    // look elsewhere.
    std::vector<std::shared_ptr<const api::Pod>> to_clear;
    for (const auto& np : handle_->NominatedPodsForNode(c.node)) {
      if (np->Pod().Priority() < pod.Pod().Priority()) to_clear.push_back(np->pod);
    }
    framework::Handle* handle = handle_;
    handle_->RunAsync([handle, preemptor = pod.pod, node = c.node, to_delete = std::move(to_delete),
                       to_clear = std::move(to_clear)] {
      framework::ApiWriter& w = handle->api_writer();
      for (const auto& victim : to_delete) {
        if (w.DeletePod(*victim).IsSuccess()) w.RecordPreemptedEvent(*victim, *preemptor, node);
      }
      for (const auto& p : to_clear) {
        // As upstream: logged, not critical (the pod is nominated again on its next attempt).
        framework::Status s = w.SetNominatedNodeName(*p, "");
        if (!s.IsSuccess()) {
          BERTH_ERROR() << "cannot clear nominatedNodeName of pod " << p->Key() << ": "
                        << s.Message();
        }
      }
    });
  }

  const Args args_;
  framework::Handle* handle_;
};

}  // namespace

Result<Args> ParseArgs(const api::Value* args, const std::string& path) {
  BERTH_ASSIGN_OR_RETURN(api::Reader r, framework::ReadArgs(args, path));
  Args out;
  std::optional<int64_t> percentage, absolute;
  BERTH_RETURN_IF_ERROR(r.OptInt64("minCandidateNodesPercentage", &percentage));
  BERTH_RETURN_IF_ERROR(r.OptInt64("minCandidateNodesAbsolute", &absolute));
  BERTH_RETURN_IF_ERROR(r.Done());
  const std::string p_path = r.PathOf("minCandidateNodesPercentage");
  const std::string a_path = r.PathOf("minCandidateNodesAbsolute");
  if (percentage) {
    if (*percentage < 0 || *percentage > 100) {
      return Error{Invalid(p_path, *percentage, "not in valid range [0, 100]")};
    }
    out.min_candidate_nodes_percentage = static_cast<int32_t>(*percentage);
  }
  if (absolute) {
    if (*absolute < 0 || *absolute > std::numeric_limits<int32_t>::max()) {
      return Error{Invalid(a_path, *absolute, "not in valid range [0, inf)")};
    }
    out.min_candidate_nodes_absolute = static_cast<int32_t>(*absolute);
  }
  if (out.min_candidate_nodes_percentage == 0 && out.min_candidate_nodes_absolute == 0) {
    return Error{
        Invalid(p_path, 0, "cannot be zero at the same time as minCandidateNodesAbsolute") + ", " +
        Invalid(a_path, 0, "cannot be zero at the same time as minCandidateNodesPercentage")};
  }
  return out;
}

int32_t NumCandidates(const Args& args, int32_t num_nodes) {
  int32_t n = static_cast<int32_t>(int64_t{num_nodes} * args.min_candidate_nodes_percentage / 100);
  if (n < args.min_candidate_nodes_absolute) n = args.min_candidate_nodes_absolute;
  if (n > num_nodes) n = num_nodes;
  return n;
}

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  if (ctx.handle == nullptr) return Error{"DefaultPreemption: the plugin needs a framework handle"};
  BERTH_ASSIGN_OR_RETURN(Args args, ParseArgs(ctx.args, ctx.args_path));
  return std::shared_ptr<framework::Plugin>(std::make_shared<DefaultPreemption>(args, ctx.handle));
}

}  // namespace berth::plugins::default_preemption
