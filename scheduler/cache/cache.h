#pragma once
// Cache: the scheduler's view of nodes and the pods bound (or assumed) to them, with upstream's
// assume / forget / confirm protocol, and incremental snapshots (upstream's backend/cache).
//
// - Informer handlers call Add/Update/Remove for nodes and for pods that have spec.nodeName.
// - The scheduling thread assumes a pod on its chosen node before Reserve (AssumePod), the
//   binding cycle calls FinishBinding after a successful bind, and ForgetPod on failure.
// - When the informer delivers the bound pod (AddPod with the same uid) the assumption is
//   confirmed; assumed pods never expire (durationToExpireAssumedPod = 0 upstream).
// - Pods may arrive before their node: they are kept on a node-less NodeInfo that the snapshot
//   does not list until the node arrives.
// - UpdateSnapshot copies only NodeInfos whose generation is newer than the snapshot's, and
//   rebuilds the node list (zones interleaved, as upstream's nodeTree) only when the node set
//   or the pods-with-affinity lists changed.
//
// Thread-safe: every method takes the cache mutex.

#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/types.h"
#include "base/result.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/snapshot.h"

namespace berth::cache {

class Cache : private framework::SnapshotBuilder {
 public:
  Cache();

  void AddNode(std::shared_ptr<const api::Node> node);
  void UpdateNode(std::shared_ptr<const api::Node> node);
  void RemoveNode(const std::string& name);

  // A bound pod seen by the informer. If it was assumed (same uid), the assumption is confirmed
  // (moved to the informer's node if that differs).
  void AddPod(framework::PodInfoPtr pod);
  void UpdatePod(const api::Pod& old_pod, framework::PodInfoPtr new_pod);
  void RemovePod(const api::Pod& pod);

  // `pod` must have spec.nodeName set to the chosen node. Error if already in the cache.
  Ok AssumePod(framework::PodInfoPtr pod);
  // Binding finished; the pod stays assumed until the informer confirms it.
  void FinishBinding(const api::Pod& pod);
  // Undo an assumption (binding failed or was rejected). Error if the pod is not assumed.
  Ok ForgetPod(const api::Pod& pod);
  bool IsAssumedPod(const api::Pod& pod) const;
  // The pod as the cache knows it (assumed or bound), or nullptr.
  framework::PodInfoPtr GetPod(const api::Pod& pod) const;

  // Brings `snapshot` up to date; cheap when little changed.
  void UpdateSnapshot(framework::Snapshot& snapshot);

  // Nodes with a Node object (not the node-less infos holding pods of unknown nodes).
  size_t NodeCount() const;
  // Pods in the cache, assumed ones included.
  size_t PodCount() const;
  size_t AssumedPodCount() const;

 private:
  struct Item {
    std::string name;  // kept here too: a node-less NodeInfo has no name of its own
    std::shared_ptr<framework::NodeInfo> info;
  };
  struct PodState {
    framework::PodInfoPtr pod;
    std::string node;
    bool assumed = false;
    bool binding_finished = false;
  };

  // All below guarded by mu_.
  // Sets the node's generation to ++generation_ and moves it to the head of recent_.
  void MoveToHead(const std::string& node);
  void SetNodeLocked(std::shared_ptr<const api::Node> node);
  void ReplacePodLocked(PodState& state, framework::PodInfoPtr pod, const std::string& node);
  void AddToZone(const std::string& zone, const std::string& node);
  void RemoveFromZone(const std::string& zone, const std::string& node);
  // Rebuilds List / WithAffinity / WithRequiredAntiAffinity / UsedPVCs from zones_.
  void RebuildLists(framework::Snapshot& snapshot);
  void RebuildAffinityLists(framework::Snapshot& snapshot);
  framework::NodeInfo& NodeInfoFor(const std::string& node);  // creates a node-less one
  void AddPodLocked(framework::PodInfoPtr pod, const std::string& node);
  void RemovePodLocked(const api::Pod& pod, const std::string& node);
  void RemoveNodeInfoIfEmpty(const std::string& node);
  void TouchImages(const api::Node* old_node, const api::Node* new_node);
  static std::string PodKey(const api::Pod& pod);  // uid, or ns/name when uid is empty

  mutable std::mutex mu_;
  // Node name -> info; plus most-recently-updated-first order for incremental snapshots.
  std::unordered_map<std::string, std::list<Item>::iterator> nodes_;
  std::list<Item> recent_;
  // Zone -> node names, zones in first-seen order (upstream's nodeTree).
  std::vector<std::pair<std::string, std::vector<std::string>>> zones_;
  int num_real_nodes_ = 0;
  std::unordered_map<std::string, PodState> pods_;  // by PodKey
  std::set<std::string> assumed_;
  // image name -> set of nodes having it (for ImageStateSummary::num_nodes)
  std::unordered_map<std::string, std::set<std::string>> image_nodes_;
  // Node name -> position in the List() last built by RebuildLists (re-pointing in O(changed)).
  std::unordered_map<std::string, size_t> list_index_;
  int64_t generation_ = 0;
  // Node set or zones changed since the last snapshot update. Node additions and removals are
  // also detected per snapshot (as upstream does); this flag additionally catches zone changes.
  bool list_dirty_ = true;
};

// Upstream's utilnode.GetZoneKey: "<region>:\x00:<zone>" from topology.kubernetes.io/{region,zone}
// (or the failure-domain.beta.kubernetes.io labels); empty when neither is set.
std::string ZoneKey(const api::Node& node);

}  // namespace berth::cache
