// The diagnosis of a failed attempt (berth explain): per-node statuses, PreFilter's and
// preemption's verdicts, and the nearest nodes with what each would need.

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "scheduler/scheduler.h"

namespace berth::scheduler {

using framework::Code;
using framework::Status;

namespace {

// How many nearest nodes a diagnosis lists, and how many rejected nodes (ranked by their
// rejecting plugin's gap alone) are run through every Filter plugin to find them.
constexpr size_t kNearest = 5;
constexpr size_t kNearestCandidates = 3 * kNearest;

std::string PriorityText(int32_t p) { return std::to_string(p); }

// Numbers the distinct (plugin, reasons) of the node statuses, appending each new one to `out`,
// without building a string per node.
class StatusDeduper {
 public:
  explicit StatusDeduper(std::vector<diagnosis::Record::NodeStatus>* out) : out_(out) {}
  uint32_t Index(const Status& s) {
    // Most diagnoses have a handful of distinct statuses: compare with those before hashing.
    for (size_t i = 0; i < seen_.size() && i < 8; ++i) {
      if (seen_[i]->reasons() == s.reasons() && seen_[i]->plugin() == s.plugin()) {
        return static_cast<uint32_t>(i);
      }
    }
    size_t h = std::hash<std::string_view>{}(s.plugin());
    for (const auto& r : s.reasons()) h = h * 31 + std::hash<std::string_view>{}(r);
    auto& bucket = by_hash_[h];
    for (uint32_t i : bucket) {
      if (seen_[i]->plugin() == s.plugin() && seen_[i]->reasons() == s.reasons()) return i;
    }
    const auto i = static_cast<uint32_t>(seen_.size());
    seen_.push_back(&s);
    out_->push_back({std::string(), s.plugin(), s.Message()});
    bucket.push_back(i);
    return i;
  }

 private:
  std::vector<diagnosis::Record::NodeStatus>* out_;
  std::vector<const Status*> seen_;
  std::unordered_map<size_t, std::vector<uint32_t>> by_hash_;
};

// "would fit if 2 pods of priority ≤ 100 were preempted (shop/batch-1, shop/batch-2)"
std::string PreemptionNeed(const std::vector<std::pair<std::string, int32_t>>& victims) {
  int32_t highest = victims.empty() ? 0 : victims.front().second;
  std::string names;
  for (const auto& [pod, priority] : victims) {
    highest = std::max(highest, priority);
    names += (names.empty() ? "" : ", ") + pod;
  }
  const size_t n = victims.size();
  return "would fit if " + std::to_string(n) + (n == 1 ? " pod" : " pods") + " of priority ≤ " +
         PriorityText(highest) + (n == 1 ? " was" : " were") + " preempted (" + names + ")";
}

}  // namespace

diagnosis::Record Scheduler::Diagnose(runtime::Framework& fwk, const framework::CycleState* state,
                                      const framework::PodInfo& pod, const Status& status,
                                      const framework::Diagnosis* diag,
                                      const ScheduleResult* result,
                                      const std::string& nominated_node) const {
  diagnosis::Record r;
  r.pod = pod.Namespace() + "/" + pod.Name();
  r.uid = pod.Uid();
  r.profile = fwk.scheduler_name();
  r.attempted_unix_micros = deps_.clock->Now().time_since_epoch().count();
  r.status = status.IsRejected() ? "Unschedulable" : "SchedulerError";
  r.message = status.Message();
  r.nominated_node = nominated_node;
  if (diag == nullptr) return r;
  if (!diag->pre_filter_msg.empty()) {
    r.pre_filter = diag->pre_filter_msg;
    r.pre_filter_plugin = diag->node_to_status.absent_status.plugin();
  }
  // The same nodes and texts as simulate's --explain "filter": nodes without their own status
  // carry the PreFilter / absent status. Handed over by reference (Record::filter_refs): the
  // node names live in the snapshot, and thousands of nodes share a few distinct statuses.
  const auto& statuses = diag->node_to_status.statuses();
  StatusDeduper distinct(&r.filter_statuses);
  r.filter_refs.reserve(statuses.size());
  for (const auto& [node, st] : statuses) r.filter_refs.emplace_back(node, distinct.Index(st));
  const Status& absent = diag->node_to_status.absent_status;
  if (!diag->pre_filter_msg.empty() || !absent.IsSuccess()) {
    const uint32_t absent_index = distinct.Index(absent);
    for (const auto* n : snapshot_.List()) {
      if (diag->node_to_status.Get(n->name()) == nullptr) {
        r.filter_refs.emplace_back(n->name(), absent_index);
      }
    }
  }
  if (result != nullptr && result->post_filter_ran) {
    diagnosis::Preemption p;
    p.message = diag->post_filter_msg;
    if (result->nominated_node && !result->nominated_node->empty()) {
      p.node = *result->nominated_node;
      for (const auto& [victim, priority] : result->victims)
        p.victims.push_back({victim, priority});
    }
    r.preemption = std::move(p);
  }
  if (state == nullptr) return r;

  // Nearest nodes: rank every rejected node by its rejecting plugin's gap (cheap), then run every
  // Filter plugin on the best few and rank those by how many plugins reject them and how far.
  struct Ranked {
    const framework::NodeInfo* node;
    double gap;
    size_t reasons;
  };
  // In parallel, like the node search itself: one slot per recorded status.
  std::vector<Ranked> ranked(statuses.size(), Ranked{nullptr, 0, 0});
  fwk.parallelizer().Until(static_cast<int>(statuses.size()), [&](int i) {
    const auto& [name, st] = statuses[static_cast<size_t>(i)];
    if (!st.IsRejected()) return;
    const framework::NodeInfo* ni = diag->node_to_status.InfoAt(static_cast<size_t>(i));
    if (ni == nullptr) ni = snapshot_.Get(name);
    if (ni == nullptr) return;
    ranked[static_cast<size_t>(i)] = {ni, fwk.RejectionGap(*state, pod, *ni, st),
                                      st.reasons().size()};
  });
  std::erase_if(ranked, [](const Ranked& r) { return r.node == nullptr; });
  auto by_gap = [](const Ranked& a, const Ranked& b) {
    if (a.gap != b.gap) return a.gap < b.gap;
    if (a.reasons != b.reasons) return a.reasons < b.reasons;
    return a.node->name() < b.node->name();
  };
  const size_t keep = std::min(ranked.size(), kNearestCandidates);
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep),
                    ranked.end(), by_gap);
  ranked.resize(keep);
  struct Near {
    diagnosis::NearMiss miss;
    size_t plugins;
    double gap;
  };
  auto explain = [&](const framework::NodeInfo& ni) {
    Near n{{ni.name(), {}, {}}, 0, 0};
    for (auto& rej : fwk.ExplainNode(*state, pod, ni)) {
      ++n.plugins;
      for (auto& need : rej.needs) {
        n.gap += need.gap;
        n.miss.failed.push_back({rej.plugin, std::move(need.reason), std::move(need.need)});
      }
    }
    return n;
  };
  std::vector<Near> near;
  for (const Ranked& c : ranked) {
    Near n = explain(*c.node);
    // A node every plugin passes when run without nominated pods was rejected because of them
    // (RunFilterPluginsWithNominatedPods); ExplainNode cannot say more about it.
    if (!n.miss.failed.empty()) near.push_back(std::move(n));
  }
  std::stable_sort(near.begin(), near.end(), [](const Near& a, const Near& b) {
    if (a.plugins != b.plugins) return a.plugins < b.plugins;
    if (a.gap != b.gap) return a.gap < b.gap;
    return a.miss.node < b.miss.node;
  });
  if (near.size() > kNearest) near.resize(kNearest);
  // Preemption's node comes first: it fits once the victims are gone.
  if (r.preemption && !r.preemption->node.empty()) {
    const std::string& pnode = r.preemption->node;
    auto it =
        std::find_if(near.begin(), near.end(), [&](const Near& n) { return n.miss.node == pnode; });
    Near chosen;
    if (it != near.end()) {
      chosen = std::move(*it);
      near.erase(it);
    } else if (const framework::NodeInfo* ni = snapshot_.Get(pnode)) {
      chosen = explain(*ni);
    } else {
      chosen.miss.node = pnode;
    }
    chosen.miss.preemption = PreemptionNeed(result->victims);
    near.insert(near.begin(), std::move(chosen));
    if (near.size() > kNearest) near.resize(kNearest);
  }
  for (auto& n : near) r.nearest.push_back(std::move(n.miss));
  return r;
}

}  // namespace berth::scheduler
