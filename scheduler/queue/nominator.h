#pragma once
// Nominator: pods that preemption nominated to a node (status.nominatedNodeName), by node —
// upstream's nominator inside the PriorityQueue. The scheduling queue keeps it current on pod
// add / update / delete; the scheduler adds a pod when its PostFilter nominates a node and drops
// it when the pod is assumed. The node search reads it (RunFilterPluginsWithNominatedPods) so
// later pods do not take the room preemption freed for a higher-priority pod.
//
// Thread-safe: one reader/writer mutex (Filter workers read concurrently); HasNominatedPods() is a
// lock-free read for the hot path.

#include <atomic>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/handle.h"

namespace berth::queue {

class Nominator final : public framework::PodNominator {
 public:
  // Upstream's AddNominatedPod: with `override_node` the pod is nominated there (an empty
  // string only removes its nomination); without it, status.nominatedNodeName is used. A pod
  // already nominated elsewhere moves.
  void Add(framework::PodInfoPtr pod, const std::optional<std::string>& override_node);
  // Upstream's UpdateNominatedPod: an update that carries no nominatedNodeName (old and new)
  // keeps the nomination made in memory; otherwise the new pod's field decides.
  void Update(const api::Pod& old_pod, framework::PodInfoPtr new_pod);
  // Forgets the pod's nomination, if any.
  void Delete(const api::Pod& pod);

  bool HasNominatedPods() const override { return count_.load(std::memory_order_relaxed) > 0; }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(const std::string& node) const override;
  // The node the pod (by uid) is nominated to; empty when none.
  std::string NominatedNodeOf(const std::string& uid) const;

 private:
  void AddLocked(framework::PodInfoPtr pod, const std::optional<std::string>& override_node);
  void DeleteLocked(const std::string& uid);

  mutable std::shared_mutex mu_;  // guards by_node_ and node_of_
  std::unordered_map<std::string, std::vector<framework::PodInfoPtr>> by_node_;
  std::unordered_map<std::string, std::string> node_of_;  // pod uid -> node
  std::atomic<size_t> count_{0};                          // node_of_.size()
};

}  // namespace berth::queue
