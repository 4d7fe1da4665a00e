#pragma once
// Shared framework types: queued pods, cluster events and queueing hints, scores, PreFilter and
// PostFilter results, per-node statuses and the FitError message format.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/types.h"
#include "api/types_resource.h"
#include "scheduler/framework/clock.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/framework/status.h"

namespace berth::framework {

class NodeInfo;

inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;

// A pod in the scheduling queue (upstream's QueuedPodInfo).
struct QueuedPodInfo {
  PodInfoPtr pod_info;
  TimePoint timestamp{};  // last time it was added to the queue
  int attempts = 0;
  int unschedulable_count = 0;
  int consecutive_errors_count = 0;
  std::optional<TimePoint> initial_attempt_timestamp;
  std::set<std::string, std::less<>> unschedulable_plugins;
  std::set<std::string, std::less<>> pending_plugins;
  std::string gating_plugin;  // PreEnqueue plugin that gated it; empty when not gated
  uint64_t seq = 0;           // insertion order (file order in simulate)
  size_t heap_slot = 0;       // its position in the queue's heap that holds it (queue internal)

  const api::Pod& Pod() const { return *pod_info->pod; }
};

// ---- cluster events and queueing hints ----

enum class EventResource : uint8_t {
  kPod,
  kAssignedPod,     // internal: a pod bound to a node (registered kPod matches it)
  kUnscheduledPod,  // internal: a pending pod (registered kPod matches it)
  kNode,
  kPersistentVolume,
  kPersistentVolumeClaim,
  kStorageClass,
  kCSINode,
  kService,
  kNamespace,
  kPodGroup,
  // Any storage.deckhouse.io object (ReplicatedStorageClass, ReplicatedStoragePool,
  // LVMVolumeGroup, LVMLogicalVolume, ReplicatedVolume); the event carries no object.
  kReplicatedStorage,
  // resource.k8s.io/v1 (upstream's framework.ResourceClaim, ResourceSlice, DeviceClass).
  kResourceClaim,
  kResourceSlice,
  kDeviceClass,
  kWildcard,
};

namespace action {
inline constexpr uint32_t kAdd = 1;
inline constexpr uint32_t kDelete = 1 << 1;
inline constexpr uint32_t kUpdateNodeAllocatable = 1 << 2;
inline constexpr uint32_t kUpdateNodeLabel = 1 << 3;
inline constexpr uint32_t kUpdateNodeTaint = 1 << 4;
inline constexpr uint32_t kUpdateNodeCondition = 1 << 5;
inline constexpr uint32_t kUpdateNodeAnnotation = 1 << 6;
inline constexpr uint32_t kUpdatePodLabel = 1 << 7;
inline constexpr uint32_t kUpdatePodScaleDown = 1 << 8;
inline constexpr uint32_t kUpdatePodToleration = 1 << 9;
inline constexpr uint32_t kUpdatePodSchedulingGatesEliminated = 1 << 10;
inline constexpr uint32_t kUpdatePodOther = 1 << 11;
inline constexpr uint32_t kUpdateNodeDeclaredFeature = 1 << 12;  // status.declaredFeatures
inline constexpr uint32_t kUpdate =
    kUpdateNodeAllocatable | kUpdateNodeLabel | kUpdateNodeTaint | kUpdateNodeCondition |
    kUpdateNodeAnnotation | kUpdateNodeDeclaredFeature | kUpdatePodLabel | kUpdatePodScaleDown |
    kUpdatePodToleration | kUpdatePodSchedulingGatesEliminated | kUpdatePodOther;
inline constexpr uint32_t kAll = kAdd | kDelete | kUpdate;
}  // namespace action

struct ClusterEvent {
  EventResource resource = EventResource::kWildcard;
  uint32_t action_type = action::kAll;
  std::string label;  // for metrics and logs, e.g. "NodeAdd", "AssignedPodDelete"

  // Same as upstream's ClusterEvent.Match: a plugin that registered Pod hears about assigned and
  // unscheduled pods alike; one that registered kAssignedPod only about assigned ones.
  bool Matches(const ClusterEvent& incoming) const {
    const bool resource_matches =
        resource == EventResource::kWildcard || resource == incoming.resource ||
        (resource == EventResource::kPod && (incoming.resource == EventResource::kAssignedPod ||
                                             incoming.resource == EventResource::kUnscheduledPod));
    return resource_matches && (action_type & incoming.action_type) != 0;
  }
};

// The objects that came with an event (null where not applicable).
using EventObject =
    std::variant<std::monostate, const api::Pod*, const api::Node*, const api::PodGroup*,
                 const api::PersistentVolumeClaim*, const api::PersistentVolume*,
                 const api::StorageClass*, const api::CSINode*, const api::Service*,
                 const api::ResourceClaim*, const api::ResourceSlice*, const api::DeviceClass*>;

enum class QueueingHint : uint8_t { kQueue, kQueueSkip };

// Decides whether an event may make `pod` schedulable. Absent function = always Queue.
using QueueingHintFn = std::function<QueueingHint(const api::Pod& pod, const EventObject& old_obj,
                                                  const EventObject& new_obj)>;

struct ClusterEventWithHint {
  ClusterEvent event;
  QueueingHintFn hint;
};

// ---- scores ----

struct NodeScore {
  const std::string* name = nullptr;  // points into the snapshot's NodeInfo
  int64_t score = 0;
};
using NodeScoreList = std::vector<NodeScore>;

// ---- PreFilter / PostFilter ----

// nullopt node_names = all nodes are eligible.
struct PreFilterResult {
  std::optional<std::set<std::string, std::less<>>> node_names;
  bool AllNodes() const { return !node_names.has_value(); }
};

// What PostFilter can ask for (preemption's nominated node).
struct PostFilterResult {
  enum class Mode { kNoop, kOverride };
  Mode mode = Mode::kNoop;
  std::string nominated_node_name;
  // The pods preemption evicts on that node (namespace/name, priority), most important first:
  // what berth explain reports as the nominated node's need.
  std::vector<std::pair<std::string, int32_t>> victims;
};

// Per-node filter outcome of a cycle. Nodes never evaluated (cut off by a PreFilter result)
// carry absent_status. Entries are kept in insertion order in a flat vector: the node search
// appends one per rejected node, which must stay cheap when thousands of nodes reject a pod;
// lookups by name build an index on first use.
class NodeToStatus {
 public:
  using Entry = std::pair<std::string, Status>;
  // Records a node's status; a node already present is overwritten.
  void Set(const std::string& node, Status s);
  // Records a node that is not present yet (each node once, as the node search does). O(1).
  void Append(std::string node, Status s, const NodeInfo* info = nullptr) {
    entries_.emplace_back(std::move(node), std::move(s));
    infos_.push_back(info);
    indexed_ = false;
  }
  // The NodeInfo the node search gave with entry i (valid for the cycle's snapshot), else null:
  // spares a lookup by name when the diagnosis walks thousands of rejected nodes.
  const NodeInfo* InfoAt(size_t i) const { return i < infos_.size() ? infos_[i] : nullptr; }
  const Status* Get(std::string_view node) const;
  const std::vector<Entry>& statuses() const { return entries_; }
  size_t Size() const { return entries_.size(); }
  Status absent_status;  // Success when every node was evaluated

 private:
  std::vector<Entry> entries_;
  std::vector<const NodeInfo*> infos_;                        // parallel to entries_
  mutable std::map<std::string, size_t, std::less<>> index_;  // built lazily by Get
  mutable bool indexed_ = false;
};

// Why a pod did not fit (upstream's Diagnosis + FitError).
struct Diagnosis {
  NodeToStatus node_to_status;
  std::set<std::string, std::less<>> unschedulable_plugins;
  std::set<std::string, std::less<>> pending_plugins;
  std::string pre_filter_msg;
  std::string post_filter_msg;
};

// Upstream's FitError.Error():
//   "0/N nodes are available: <sorted "count reason" entries>." [+ " " + post_filter_msg]
// or with a PreFilter message: "0/N nodes are available: <msg>." [...]
// num_all_nodes counts every node; nodes without a status count under absent_status's reasons.
std::string FitErrorMessage(int num_all_nodes, const Diagnosis& d);

// Upstream's limit for event notes: longer messages are cut to 1024 chars ending in " ...".
std::string TruncateNote(std::string msg);

}  // namespace berth::framework
