#pragma once
// The InterPodAffinity plugin class, shared by filtering.cc (PreFilter, AddPod/RemovePod, Filter),
// explain.cc (ExplainFilter), scoring.cc (PreScore, Score, NormalizeScore) and plugin.cc (events,
// args, factory). Internal to this folder; users include inter_pod_affinity.h.

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "api/value.h"
#include "base/result.h"
#include "scheduler/framework/explain.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/plugin.h"

namespace berth::plugins::inter_pod_affinity {

// InterPodAffinityArgs (v1), defaults applied.
struct Args {
  int32_t hard_pod_affinity_weight = 1;
  bool ignore_preferred_terms_of_existing_pods = false;
};

// Strict decoding and upstream's ValidateInterPodAffinityArgs; nullptr = defaults.
Result<Args> ParseArgs(const api::Value* args, const std::string& path);

class InterPodAffinity final : public framework::PreFilterPlugin,
                               public framework::PreFilterExtensions,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ScorePlugin,
                               public framework::EnqueueExtensions,
                               public framework::FilterExplainer {
 public:
  InterPodAffinity(Args args, framework::Handle* handle) : args_(args), handle_(handle) {}

  std::string_view Name() const override;

  // filtering.cc
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult* result) const override;
  const framework::PreFilterExtensions* Extensions() const override { return this; }
  framework::Status AddPod(framework::CycleState& state, const framework::PodInfo& pod_to_schedule,
                           const framework::PodInfo& pod_to_add,
                           const framework::NodeInfo& node) const override;
  framework::Status RemovePod(framework::CycleState& state,
                              const framework::PodInfo& pod_to_schedule,
                              const framework::PodInfo& pod_to_remove,
                              const framework::NodeInfo& node) const override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  // explain.cc
  void ExplainFilter(const framework::CycleState& state, const framework::PodInfo& pod,
                     const framework::NodeInfo& node, const framework::Status& rejection,
                     framework::ExplainDetail detail,
                     std::vector<framework::FilterNeed>* out) const override;

  // scoring.cc
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             const std::vector<const framework::NodeInfo*>& nodes) const override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) const override;

  // plugin.cc
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  // Labels of namespace `ns` (a copy: the store may change under us); empty when unknown, as
  // upstream's GetNamespaceLabelsSnapshot.
  api::Labels NamespaceLabels(const std::string& ns) const;

 public:
  // One (topology key, node) a PreFilter counter gains 1 at (filtering.cc).
  struct Hit {
    enum Counter : uint8_t { kExistingAntiAffinity, kAffinity, kAntiAffinity };
    uint32_t node;  // index into the visited nodes
    Counter counter;
    uint32_t term;           // kAffinity / kAntiAffinity: the incoming pod's term
    const std::string* key;  // the term's topology key
    std::string_view value;  // the node's label for key
  };

 private:
  // PreFilter's hits per node, kept across cycles while the node is unchanged and the incoming
  // pod has the same signature (namespace, labels, terms): pods of one ReplicaSet or Job are
  // scheduled one after the other, and between two of them only the chosen node changes, so
  // matching every pod of every node again (upstream's cost) is needed for that node only.
  struct NodeHits {
    const framework::NodeInfo* info = nullptr;
    int64_t generation = -1;
    const void* pods = nullptr;
    size_t num_pods = 0;
    std::vector<Hit> hits;  // node index and the incoming terms' keys are set when replayed
    bool Valid(const framework::NodeInfo& ni) const {
      return info == &ni && generation == ni.generation() && pods == ni.pods().data() &&
             num_pods == ni.pods().size();
    }
  };
  mutable std::mutex memo_mu_;  // PreFilter holds it while it uses the memo
  mutable std::string memo_signature_;
  mutable std::vector<NodeHits> memo_;  // by index in the snapshot's node list

  // Runs fn(node, index, out) for every node, on the handle's parallelizer in chunks when there
  // are many; each chunk appends to its own (*outs)[chunk], so nothing is shared while matching.
  template <typename T, typename Fn>
  void ForEachNodeChunk(const std::vector<const framework::NodeInfo*>& nodes,
                        std::vector<std::vector<T>>* outs, Fn fn) const {
    constexpr size_t kNodesPerChunk = 256;
    framework::Parallelizer& par = handle_->parallelizer();
    const size_t n = nodes.size();
    const size_t chunks =
        par.parallelism() <= 1
            ? 1
            : std::clamp(n / kNodesPerChunk, size_t{1}, static_cast<size_t>(par.parallelism()) * 4);
    outs->assign(chunks, {});
    auto run = [&](size_t c) {
      const size_t begin = n * c / chunks;
      const size_t end = n * (c + 1) / chunks;
      for (size_t i = begin; i < end; ++i) fn(*nodes[i], static_cast<uint32_t>(i), (*outs)[c]);
    };
    if (chunks == 1) {
      run(0);
      return;
    }
    par.Until(static_cast<int>(chunks), [&](int c) { run(static_cast<size_t>(c)); });
  }

  // Runs fn(node, acc) over `nodes`, splitting them into chunks on the handle's parallelizer when
  // there are many; every chunk accumulates into its own Acc, merged into `out` afterwards
  // (Acc::Merge). Small inputs run inline on the caller.
  template <typename Acc, typename Fn>
  void Accumulate(const std::vector<const framework::NodeInfo*>& nodes, Acc& out, Fn fn) const {
    constexpr size_t kNodesPerChunk = 256;
    framework::Parallelizer& par = handle_->parallelizer();
    const size_t n = nodes.size();
    if (n < 2 * kNodesPerChunk || par.parallelism() <= 1) {
      for (const auto* node : nodes) fn(*node, out);
      return;
    }
    const size_t chunks = std::min(n / kNodesPerChunk, static_cast<size_t>(par.parallelism()) * 4);
    std::vector<Acc> locals(chunks, out.EmptyLike());
    par.Until(static_cast<int>(chunks), [&](int c) {
      const size_t begin = n * static_cast<size_t>(c) / chunks;
      const size_t end = n * static_cast<size_t>(c + 1) / chunks;
      for (size_t i = begin; i < end; ++i) fn(*nodes[i], locals[static_cast<size_t>(c)]);
    });
    for (const auto& local : locals) out.Merge(local);
  }

  Args args_;
  framework::Handle* handle_;
};

}  // namespace berth::plugins::inter_pod_affinity
