#include "plugins/default_preemption/preemption.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "api/selector.h"

namespace berth::plugins::default_preemption {

using framework::Code;
using framework::Status;

namespace {

constexpr char kNoVictims[] = "No preemption victims found for incoming pod";

// Upstream's GetPodStartTime: status.startTime, else now (assumed or not yet started pods).
api::Time StartTime(const api::Pod& pod, api::Time now) {
  return pod.status.start_time ? *pod.status.start_time : now;
}

// A lower-priority pod on its way out because of an earlier preemption (upstream also checks the
// DisruptionTarget condition; berth does not write it, so deletion is the signal).
bool Terminating(const api::Pod& pod) { return pod.metadata.deletion_timestamp.has_value(); }

// Upstream's GetEarliestPodStartTime: the earliest start among the highest-priority victims.
api::Time EarliestStartOfTopVictims(const Candidate& c, api::Time now) {
  api::Time earliest = StartTime(c.victims[0]->Pod(), now);
  int32_t max_priority = c.victims[0]->Pod().Priority();
  for (const auto& v : c.victims) {
    const int32_t p = v->Pod().Priority();
    if (p == max_priority) {
      earliest = std::min(earliest, StartTime(v->Pod(), now));
    } else if (p > max_priority) {
      max_priority = p;
      earliest = StartTime(v->Pod(), now);
    }
  }
  return earliest;
}

}  // namespace

bool MoreImportantPod(const api::Pod& a, const api::Pod& b, api::Time now) {
  const int32_t pa = a.Priority();
  const int32_t pb = b.Priority();
  if (pa != pb) return pa > pb;
  return StartTime(a, now) < StartTime(b, now);
}

bool PodEligibleToPreemptOthers(const framework::Snapshot& snapshot, const api::Pod& pod,
                                const framework::Status* nominated_status, std::string* msg) {
  if (pod.spec.preemption_policy == "Never") {
    *msg = "not eligible due to preemptionPolicy=Never.";
    return false;
  }
  const std::string& nominated = pod.status.nominated_node_name;
  if (nominated.empty()) return true;
  // A nominated node the filters now call unresolvable is no reason to wait: preempt again.
  if (nominated_status != nullptr &&
      nominated_status->code() == Code::kUnschedulableAndUnresolvable) {
    return true;
  }
  if (const framework::NodeInfo* ni = snapshot.Get(nominated)) {
    const int32_t priority = pod.Priority();
    for (const auto& p : ni->pods()) {
      if (p->Pod().Priority() < priority && Terminating(p->Pod())) {
        *msg = "not eligible due to a terminating pod on the nominated node.";
        return false;
      }
    }
  }
  return true;
}

void FilterPodsWithPDBViolation(
    const std::vector<framework::PodInfoPtr>& pods,
    const std::vector<std::shared_ptr<const api::PodDisruptionBudget>>& pdbs,
    std::vector<framework::PodInfoPtr>* violating,
    std::vector<framework::PodInfoPtr>* non_violating) {
  std::vector<int64_t> allowed;
  allowed.reserve(pdbs.size());
  for (const auto& pdb : pdbs) allowed.push_back(pdb->disruptions_allowed);
  for (const auto& pi : pods) {
    const api::Pod& pod = pi->Pod();
    bool violated = false;
    // A pod without labels matches no PDB.
    if (!pod.metadata.labels.empty()) {
      for (size_t i = 0; i < pdbs.size(); ++i) {
        const api::PodDisruptionBudget& pdb = *pdbs[i];
        if (pdb.metadata.namespace_ != pod.metadata.namespace_) continue;
        // A nil or empty selector matches nothing.
        if (!pdb.selector ||
            (pdb.selector->match_labels.empty() && pdb.selector->match_expressions.empty())) {
          continue;
        }
        if (!api::Matches(*pdb.selector, pod.metadata.labels)) continue;
        // Already counted by the disruption controller: not a new violation.
        if (std::find(pdb.disrupted_pods.begin(), pdb.disrupted_pods.end(), pod.metadata.name) !=
            pdb.disrupted_pods.end()) {
          continue;
        }
        if (--allowed[i] < 0) violated = true;
      }
    }
    (violated ? violating : non_violating)->push_back(pi);
  }
}

Status SelectVictimsOnNode(const framework::Handle& handle, framework::CycleState& state,
                           const framework::PodInfo& pod, framework::NodeInfo& node,
                           const std::vector<std::shared_ptr<const api::PodDisruptionBudget>>& pdbs,
                           api::Time now, std::vector<framework::PodInfoPtr>* victims,
                           int64_t* num_pdb_violations) {
  victims->clear();
  *num_pdb_violations = 0;
  auto remove_pod = [&](const framework::PodInfoPtr& p) -> Status {
    node.RemovePod(p->Pod());
    return handle.RunPreFilterExtensionRemovePod(state, pod, *p, node);
  };
  auto add_pod = [&](const framework::PodInfoPtr& p) -> Status {
    node.AddPod(p);
    return handle.RunPreFilterExtensionAddPod(state, pod, *p, node);
  };
  // 1. Remove every lower-priority pod and see whether the pod fits then.
  const int32_t priority = pod.Pod().Priority();
  std::vector<framework::PodInfoPtr> potential;
  for (const auto& p : node.pods()) {
    if (p->Pod().Priority() < priority) potential.push_back(p);
  }
  if (potential.empty()) return Status(Code::kUnschedulableAndUnresolvable, kNoVictims);
  for (const auto& p : potential) {
    if (Status s = remove_pod(p); !s.IsSuccess()) return s;
  }
  // Affinity of the pod to the victims themselves is not considered (as upstream: too costly,
  // and affinity to lower-priority pods is not a recommended setup).
  if (Status s = handle.RunFilterPluginsWithNominatedPods(state, pod, node); !s.IsSuccess()) {
    return s;
  }
  // 2. Reprieve as many as possible, most important first, PDB-violating ones before others.
  std::sort(potential.begin(), potential.end(),
            [now](const framework::PodInfoPtr& a, const framework::PodInfoPtr& b) {
              return MoreImportantPod(a->Pod(), b->Pod(), now);
            });
  std::vector<framework::PodInfoPtr> violating, non_violating;
  FilterPodsWithPDBViolation(potential, pdbs, &violating, &non_violating);
  // Adds p back; keeps it if the pod still fits, otherwise removes it again as a victim.
  auto reprieve = [&](const framework::PodInfoPtr& p, bool* fits) -> Status {
    if (Status s = add_pod(p); !s.IsSuccess()) return s;
    *fits = handle.RunFilterPluginsWithNominatedPods(state, pod, node).IsSuccess();
    if (!*fits) {
      if (Status s = remove_pod(p); !s.IsSuccess()) return s;
      victims->push_back(p);
    }
    return Status();
  };
  for (const auto& p : violating) {
    bool fits = false;
    if (Status s = reprieve(p, &fits); !s.IsSuccess()) return s;
    if (!fits) ++*num_pdb_violations;
  }
  for (const auto& p : non_violating) {
    bool fits = false;
    if (Status s = reprieve(p, &fits); !s.IsSuccess()) return s;
  }
  if (!violating.empty() && !non_violating.empty()) {
    std::sort(victims->begin(), victims->end(),
              [now](const framework::PodInfoPtr& a, const framework::PodInfoPtr& b) {
                return MoreImportantPod(a->Pod(), b->Pod(), now);
              });
  }
  return Status();
}

int PickOneNodeForPreemption(const std::vector<Candidate>& candidates, api::Time now) {
  if (candidates.empty()) return -1;
  using ScoreFn = int64_t (*)(const Candidate&, api::Time);
  static const ScoreFn kScores[] = {
      // Fewest PDB violations.
      [](const Candidate& c, api::Time) -> int64_t { return -c.num_pdb_violations; },
      // Lowest priority of the most important victim.
      [](const Candidate& c, api::Time) -> int64_t {
        return -int64_t{c.victims[0]->Pod().Priority()};
      },
      // Smallest sum of priorities; the offset keeps negative priorities from favouring more
      // victims, as upstream's MaxInt32+1.
      [](const Candidate& c, api::Time) -> int64_t {
        int64_t sum = 0;
        for (const auto& v : c.victims) {
          sum += int64_t{v->Pod().Priority()} + int64_t{std::numeric_limits<int32_t>::max()} + 1;
        }
        return -sum;
      },
      // Fewest victims.
      [](const Candidate& c, api::Time) -> int64_t {
        return -static_cast<int64_t>(c.victims.size());
      },
      // Latest start among the highest-priority victims.
      [](const Candidate& c, api::Time now) -> int64_t {
        return EarliestStartOfTopVictims(c, now).unix_micros;
      },
  };
  std::vector<int> remaining(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) remaining[i] = static_cast<int>(i);
  for (ScoreFn score : kScores) {
    std::vector<int> best;
    int64_t max_score = std::numeric_limits<int64_t>::min();
    for (int i : remaining) {
      const int64_t s = score(candidates[static_cast<size_t>(i)], now);
      if (s > max_score) {
        max_score = s;
        best.clear();
      }
      if (s == max_score) best.push_back(i);
    }
    if (best.size() == 1) return best[0];
    remaining = std::move(best);
  }
  return remaining[0];
}

}  // namespace berth::plugins::default_preemption
