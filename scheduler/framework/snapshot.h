#pragma once
// Snapshot: the immutable view of nodes one scheduling cycle works on (upstream's
// cache.Snapshot / SharedLister). The cache updates it incrementally between cycles
// (scheduler/cache); plugins read it through Handle::Snapshot(). Not thread-safe for writes;
// reads are safe from Filter/Score workers while no update runs.

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/node_info.h"

namespace berth::framework {

class Snapshot {
 public:
  // Nodes in the order the node search walks them (zones interleaved).
  const std::vector<const NodeInfo*>& List() const { return list_; }
  const std::vector<const NodeInfo*>& HavePodsWithAffinityList() const { return with_affinity_; }
  const std::vector<const NodeInfo*>& HavePodsWithRequiredAntiAffinityList() const {
    return with_required_anti_affinity_;
  }
  const NodeInfo* Get(std::string_view name) const {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : it->second.get();
  }
  size_t NumNodes() const { return list_.size(); }
  // Whether any pod in the snapshot uses the PVC "namespace/claim".
  bool IsPVCUsedByPods(std::string_view key) const;
  int64_t generation() const { return generation_; }

 private:
  friend class SnapshotBuilder;  // scheduler/cache fills snapshots through this seam
  std::unordered_map<std::string, std::shared_ptr<NodeInfo>> by_name_;
  std::vector<const NodeInfo*> list_;
  std::vector<const NodeInfo*> with_affinity_;
  std::vector<const NodeInfo*> with_required_anti_affinity_;
  std::unordered_map<std::string, int> used_pvcs_;
  int64_t generation_ = 0;
};

// The only writer of Snapshot internals (implemented by the cache).
class SnapshotBuilder {
 protected:
  static auto& ByName(Snapshot& s) { return s.by_name_; }
  static auto& List(Snapshot& s) { return s.list_; }
  static auto& WithAffinity(Snapshot& s) { return s.with_affinity_; }
  static auto& WithRequiredAntiAffinity(Snapshot& s) { return s.with_required_anti_affinity_; }
  static auto& UsedPVCs(Snapshot& s) { return s.used_pvcs_; }
  static void SetGeneration(Snapshot& s, int64_t g) { s.generation_ = g; }
};

}  // namespace berth::framework
