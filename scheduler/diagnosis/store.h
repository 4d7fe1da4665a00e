#pragma once
// Store: the last diagnosis of every pod the scheduler could not place, and of the last N it
// placed, for /debug/explain and berth_pending_pod_reasons. Thread-safe (one mutex): the
// scheduling thread records failures, binding workers record placements, informer threads
// forget deleted pods, HTTP workers read.
//
// Memory: a diagnosis lists a status per rejected node, which with thousands of nodes and
// thousands of pending pods would be gigabytes as strings. The store keeps instead
//  - node names and (plugin, reasons) statuses interned once each, as 32-bit ids;
//  - a pod's node statuses as runs of consecutive node ids with one status id, 12 bytes a run;
//  - identical run tables (pods of one shape fail alike) and identical messages shared
//    (hash-consed; a table or message goes when no entry points at it).
// The intern tables of names and statuses only grow; they are bounded by the distinct node names
// and reason texts the cluster ever had, not by the pods.

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "scheduler/diagnosis/record.h"

namespace berth::diagnosis {

struct StoreOptions {
  size_t placed = 0;  // how many placements are kept (the newest); 0 keeps none
  // Distinct (profile, plugin, reason) label sets of berth_pending_pod_reasons; past this, new
  // ones count under reason "other".
  size_t max_reason_labels = 500;
};

class Store {
 public:
  explicit Store(StoreOptions options = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // A failed attempt: replaces whatever the store had for the pod.
  void RecordFailure(const Record& r);
  // The pod was bound: its failure diagnosis goes, and this one joins the last N placed.
  void RecordScheduled(const Record& r);
  // The pod namespace/name was bound (by berth without a kept placement, or by someone else):
  // its failure diagnosis goes (uid must match; empty uid: any). Called for every binding: with
  // no failure kept it returns without locking or building the key.
  void Bound(std::string_view ns, std::string_view name, std::string_view uid);
  // The pod was deleted: everything about it goes (uid must match; empty uid: any).
  void Forget(std::string_view key, std::string_view uid);

  // The pod's diagnosis (namespace/name): its failure if it has one, else its placement if it
  // is among the last N placed.
  std::optional<Record> Get(std::string_view key) const;

  // Whether placements are kept (options.placed > 0): the scheduler builds their records only
  // then.
  bool KeepsPlaced() const { return options_.placed > 0; }

  size_t NumUnschedulable() const;
  size_t NumPlaced() const;

  // berth_pending_pod_reasons: pods with a failure diagnosis per (profile, plugin, reason
  // label); a pod counts once per distinct pair it has on any node.
  using ReasonKey = std::tuple<std::string, std::string, std::string>;
  std::map<ReasonKey, int64_t> ReasonCounts() const;

 private:
  struct Run {
    uint32_t first_node;
    uint32_t count;
    uint32_t status;
  };
  struct Table {
    std::vector<Run> runs;
    size_t hash = 0;
  };
  struct Entry {
    std::string uid;
    std::string profile;
    int64_t attempted_unix_micros = 0;
    std::string status;
    std::shared_ptr<const std::string> message;
    std::string node;
    std::string pre_filter_plugin;
    std::shared_ptr<const std::string> pre_filter;
    std::shared_ptr<const Table> table;
    std::vector<NearMiss> nearest;
    std::optional<Preemption> preemption;
    std::string nominated_node;
    int evaluated_nodes = 0;
    int feasible_nodes = 0;
    std::vector<std::map<ReasonKey, int64_t>::iterator> reason_keys;  // counted in reasons_
  };

  // All below: mu_ held.
  Entry Compact(const Record& r);
  Record Expand(const std::string& key, const Entry& e) const;
  uint32_t NodeId(std::string_view name);
  uint32_t StatusId(const std::string& plugin, const std::string& reasons);
  std::shared_ptr<const std::string> Intern(const std::string& s);
  std::shared_ptr<const Table> InternTable(Table t);
  void CountReasons(const Record& r, Entry* e);
  void Uncount(Entry* e);
  void EraseFailure(std::string_view key);
  void SweepIfDue();

  const StoreOptions options_;
  mutable std::mutex mu_;  // guards everything below
  std::map<std::string, Entry, std::less<>> failures_;
  std::atomic<size_t> num_failures_{0};  // failures_.size(), readable without mu_
  std::map<std::string, Entry, std::less<>> placed_;
  std::deque<std::string> placed_order_;  // oldest first
  std::vector<std::string> node_names_;
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> node_ids_;
  std::vector<std::pair<std::string, std::string>> statuses_;  // (plugin, reasons)
  std::unordered_map<std::string, uint32_t> status_ids_;       // plugin + '\0' + reasons
  std::string key_buf_;                                        // StatusId's lookup key, reused
  std::unordered_map<size_t, std::vector<std::weak_ptr<const Table>>> tables_;
  std::unordered_map<std::string, std::weak_ptr<const std::string>> strings_;
  std::map<ReasonKey, int64_t> reasons_;
  size_t inserts_since_sweep_ = 0;
};

}  // namespace berth::diagnosis
