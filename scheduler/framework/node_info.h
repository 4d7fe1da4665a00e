#pragma once
// NodeInfo: one node with the aggregates the plugins need, kept up to date incrementally as pods
// are added and removed (upstream's framework.NodeInfo). The cache owns mutable NodeInfos; each
// scheduling cycle sees immutable copies in a Snapshot.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/framework/resource.h"

namespace berth::framework {

// Per-image info a node carries; num_nodes is filled by the cache (how many nodes have it).
struct ImageStateSummary {
  int64_t size = 0;
  int num_nodes = 0;
};

class NodeInfo {
 public:
  NodeInfo() = default;
  explicit NodeInfo(std::shared_ptr<const api::Node> node) { SetNode(std::move(node)); }

  const api::Node* node() const { return node_.get(); }
  const std::shared_ptr<const api::Node>& node_ptr() const { return node_; }
  const std::string& name() const { return name_; }
  void SetNode(std::shared_ptr<const api::Node> node);
  void RemoveNode();  // keeps pods (a node deleted before its pods)

  const std::vector<PodInfoPtr>& pods() const { return pods_; }
  const std::vector<PodInfoPtr>& pods_with_affinity() const { return pods_with_affinity_; }
  const std::vector<PodInfoPtr>& pods_with_required_anti_affinity() const {
    return pods_with_required_anti_affinity_;
  }
  const Resource& requested() const { return requested_; }
  const Resource& non_zero_requested() const { return non_zero_requested_; }
  const Resource& allocatable() const { return allocatable_; }
  const std::vector<HostPort>& used_ports() const { return used_ports_; }
  // Image name -> summary, for every name of every image on the node.
  const std::map<std::string, ImageStateSummary, std::less<>>& image_states() const {
    return image_states_;
  }
  std::map<std::string, ImageStateSummary, std::less<>>& mutable_image_states() {
    return image_states_;
  }
  // "namespace/claim" -> number of pods on this node using the PVC.
  const std::map<std::string, int, std::less<>>& pvc_ref_counts() const { return pvc_ref_counts_; }

  void AddPod(PodInfoPtr pod);
  // Removes by uid (falling back to namespace/name when uids are empty). False if not found.
  bool RemovePod(const api::Pod& pod);

  // True when a host port conflicts with one in use (0.0.0.0 conflicts with every IP).
  bool PortConflicts(const HostPort& p) const;

  // Bumped on every change; the cache uses it to copy only changed NodeInfos into snapshots.
  int64_t generation() const { return generation_; }
  void set_generation(int64_t g) { generation_ = g; }

 private:
  void Update(const PodInfo& pod, int sign);

  std::shared_ptr<const api::Node> node_;
  std::string name_;
  std::vector<PodInfoPtr> pods_;
  std::vector<PodInfoPtr> pods_with_affinity_;
  std::vector<PodInfoPtr> pods_with_required_anti_affinity_;
  Resource requested_;
  Resource non_zero_requested_;
  Resource allocatable_;
  std::vector<HostPort> used_ports_;
  std::map<std::string, ImageStateSummary, std::less<>> image_states_;
  std::map<std::string, int, std::less<>> pvc_ref_counts_;
  int64_t generation_ = 0;
};

// Pods on `node` in `ns`, not being deleted, whose labels match the matchLabels-only `selector`
// (upstream's helper.countMatchingPods, shared by SelectorSpread and ServiceAffinity).
int64_t CountMatchingPods(const NodeInfo& node, const std::string& ns,
                          const std::map<std::string, std::string>& selector);

// Normalises an image name as upstream does for ImageLocality: adds ":latest" when no tag/digest.
std::string NormalizedImageName(std::string_view name);

}  // namespace berth::framework
