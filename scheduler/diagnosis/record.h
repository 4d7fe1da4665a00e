#pragma once
// Record: the diagnosis of one scheduling attempt, as `berth explain`, /debug/explain and
// `berth simulate --explain` show it. The Scheduler builds it (scheduler/diagnose.cc) from the
// decision it took; the Store (store.h) keeps it compactly; json.h renders it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::diagnosis {

// One plugin's rejection of a node, and what would make the node pass it.
struct Failure {
  std::string plugin;
  std::string reason;
  std::string need;  // empty when the plugin cannot say
};

// A node that came near: every Filter plugin that rejected it (all of them, not only the first,
// so that "need" lists everything the node lacks).
struct NearMiss {
  std::string node;
  std::vector<Failure> failed;
  // Set on the node preemption chose: "would fit if 2 pods of priority ≤ 100 were preempted
  // (shop/batch-1, shop/batch-2)".
  std::string preemption;
};

struct Victim {
  std::string pod;  // namespace/name
  int32_t priority = 0;
};

// PostFilter's verdict (DefaultPreemption): the message it added to FailedScheduling, and the
// node it nominated with the pods it evicts (empty when it found no candidate).
struct Preemption {
  std::string message;
  std::string node;
  std::vector<Victim> victims;
};

struct Record {
  std::string pod;  // namespace/name
  std::string uid;
  std::string profile;
  int64_t attempted_unix_micros = 0;  // wall clock of the attempt
  // "Unschedulable", "SchedulerError" or "Scheduled".
  std::string status;
  std::string message;  // the FailedScheduling text in full (empty when Scheduled)
  std::string node;     // Scheduled: the chosen node
  // PreFilter's verdict when a PreFilter plugin rejected the pod (every node carries it).
  std::string pre_filter_plugin;
  std::string pre_filter;
  // Per rejected node: (node, plugin, reasons as Status::Message() joins them), in node name
  // order. Nodes a PreFilter result cut off carry its status too.
  struct NodeStatus {
    std::string node;
    std::string plugin;
    std::string reasons;
  };
  std::vector<NodeStatus> filter;
  // For writing only (Store::RecordFailure / RecordScheduled): the per-node statuses by
  // reference, each node's name (valid for the call) with an index into filter_statuses (the
  // few distinct statuses; their `node` is unused), so that recording thousands of rejected
  // nodes copies no string per node. When not empty, `filter` is ignored.
  std::vector<std::pair<std::string_view, uint32_t>> filter_refs;
  std::vector<NodeStatus> filter_statuses;
  // Turns filter_refs into `filter` (copies), for a record kept past the names' lifetime.
  void OwnFilter();
  std::vector<NearMiss> nearest;  // nearest first
  std::optional<Preemption> preemption;
  std::string nominated_node;
  int evaluated_nodes = 0;
  int feasible_nodes = 0;
};

// The label value berth_pending_pod_reasons uses for a reason: the reason with quoted names
// (`persistentvolumeclaim "data-0" not found`) replaced by "<name>" so that the label's values
// stay few whatever the pods and objects are called.
std::string ReasonLabel(const std::string& reason);

}  // namespace berth::diagnosis
