// Calls to scheduler extenders from the scheduling and binding cycles, mirroring upstream's
// findNodesThatPassExtenders, prioritizeNodes (extender part) and extendersBinding
// (pkg/scheduler/schedule_one.go). See scheduler/framework/extender.h for the contract.

#include <future>

#include "base/log.h"
#include "scheduler/scheduler.h"

namespace berth::scheduler {

using framework::Code;
using framework::Status;

Status Scheduler::FindNodesThatPassExtenders(const framework::PodInfo& pod,
                                             std::vector<const framework::NodeInfo*>* feasible,
                                             framework::Diagnosis* diag) {
  if (deps_.extenders.empty()) return Status();
  const size_t before = feasible->size();
  for (framework::Extender* ext : deps_.extenders) {
    if (feasible->empty()) break;
    if (!ext->IsFilter() || !ext->IsInterested(pod.Pod())) continue;
    auto out = ext->Filter(pod.Pod(), *feasible);
    if (!out.ok()) {
      if (ext->IsIgnorable()) {
        BERTH_WARN() << "skipping ignorable extender for pod " << pod.key << ": " << out.error();
        continue;
      }
      return Status::Error(out.error());
    }
    // FailedAndUnresolvable takes precedence when the extender names a node in both maps.
    for (const auto& [node, msg] : out->failed_and_unresolvable) {
      diag->node_to_status.Set(
          node,
          Status(Code::kUnschedulableAndUnresolvable, msg).WithPlugin(framework::kExtenderName));
    }
    for (const auto& [node, msg] : out->failed) {
      if (out->failed_and_unresolvable.count(node)) continue;
      diag->node_to_status.Set(
          node, Status(Code::kUnschedulable, msg).WithPlugin(framework::kExtenderName));
    }
    *feasible = std::move(out->passed);
  }
  // An extender cannot tell which cluster events could help: any event requeues the pod.
  if (feasible->size() != before) diag->unschedulable_plugins.insert(framework::kExtenderName);
  return Status();
}

void Scheduler::AddExtenderScores(const framework::PodInfo& pod,
                                  const std::vector<const framework::NodeInfo*>& nodes,
                                  std::vector<int64_t>* totals) {
  std::vector<framework::Extender*> interested;
  for (framework::Extender* ext : deps_.extenders) {
    if (ext->IsPrioritizer() && ext->IsInterested(pod.Pod())) interested.push_back(ext);
  }
  if (interested.empty()) return;
  auto call = [&](framework::Extender* ext) -> std::optional<std::vector<int64_t>> {
    metrics_.Goroutines(metrics::kPrioritizingExtender, +1);
    auto scores = ext->Prioritize(pod.Pod(), nodes);
    metrics_.Goroutines(metrics::kPrioritizingExtender, -1);
    if (!scores.ok()) {
      // As upstream: a prioritize failure only drops this extender's scores.
      BERTH_WARN() << "extender scores ignored for pod " << pod.key << ": " << scores.error();
      return std::nullopt;
    }
    return std::move(*scores);
  };
  // Upstream asks the prioritizers in parallel.
  std::vector<std::future<std::optional<std::vector<int64_t>>>> pending;
  for (size_t i = 1; i < interested.size(); ++i) {
    pending.push_back(std::async(std::launch::async, call, interested[i]));
  }
  std::vector<std::optional<std::vector<int64_t>>> results;
  results.push_back(call(interested[0]));
  for (auto& f : pending) results.push_back(f.get());
  const int64_t scale = framework::kMaxNodeScore / framework::kMaxExtenderPriority;
  for (size_t e = 0; e < interested.size(); ++e) {
    if (!results[e]) continue;
    const int64_t weight = interested[e]->Weight();
    for (size_t i = 0; i < nodes.size() && i < results[e]->size(); ++i) {
      (*totals)[i] += (*results[e])[i] * weight * scale;
    }
  }
}

Status Scheduler::ExtendersBinding(const api::Pod& pod, const std::string& node, bool* bound) {
  *bound = false;
  for (framework::Extender* ext : deps_.extenders) {
    if (!ext->IsBinder() || !ext->IsInterested(pod)) continue;
    Ok ok = ext->Bind(pod, node);
    if (!ok.ok() && ext->IsIgnorable()) {
      BERTH_WARN() << "skipping ignorable extender in bind for pod " << pod.Key() << ": "
                   << ok.error();
      continue;
    }
    *bound = true;
    return ok.ok() ? Status() : Status::Error(ok.error());
  }
  return Status();
}

}  // namespace berth::scheduler
