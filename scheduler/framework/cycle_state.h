#pragma once
// CycleState: per-scheduling-cycle storage for plugins (upstream's framework.CycleState).
// Plugins keep per-pod data here, never in members. Keys are interned once at start-up
// (`static const StateKey kKey("PreFilterNodeResourcesFit")`) so a read in the per-node hot path
// is an array index, not a map lookup.
//
// Threading: Write/Delete only from the scheduling thread between parallel phases; Read may be
// called concurrently from Filter/Score workers.

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace berth::framework {

class StateData {
 public:
  virtual ~StateData() = default;
  virtual std::unique_ptr<StateData> Clone() const = 0;
  // True for data only the scheduling cycle reads (PreFilter/Filter/PreScore/Score state, no
  // Reserve/Permit/PreBind/Bind/Unreserve use): the scheduler drops it before the binding cycle,
  // so the pods waiting for a binding worker do not each hold, say, a cluster-wide topology count.
  virtual bool SchedulingCycleOnly() const { return false; }
};

class StateKey {
 public:
  explicit StateKey(std::string_view name);  // interns name; same name -> same id
  int id() const { return id_; }
  const std::string& name() const;

 private:
  int id_;
};

class CycleState {
 public:
  CycleState() = default;
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;

  void Write(const StateKey& key, std::unique_ptr<StateData> data);
  void Delete(const StateKey& key);
  // Drops every slot whose data is SchedulingCycleOnly (before the binding cycle).
  void DropSchedulingCycleOnly();
  StateData* ReadRaw(const StateKey& key) const {
    auto i = static_cast<size_t>(key.id());
    return i < slots_.size() ? slots_[i].get() : nullptr;
  }
  // nullptr when absent. The caller knows the type it wrote.
  template <typename T>
  T* Read(const StateKey& key) const {
    return static_cast<T*>(ReadRaw(key));
  }

  // Deep copy (StateData::Clone of every slot) and the skip sets.
  std::unique_ptr<CycleState> Clone() const;

  // Plugins whose PreFilter / PreScore returned Skip.
  std::set<std::string, std::less<>> skip_filter_plugins;
  std::set<std::string, std::less<>> skip_score_plugins;
  // The runtime's per-cycle bitmask of skipped Filter plugins (bit i = i-th Filter plugin), so
  // the per-node loop does no set lookups. Derived from skip_filter_plugins after PreFilter.
  uint64_t skip_filter_mask = 0;
  // Whether plugin execution times are recorded this cycle (sampled).
  bool record_plugin_metrics = false;
  // Set by a Reserve plugin whose PreBind may block for long (VolumeBinding waiting for a
  // provisioner): the binding cycle then runs on the elastic worker pool, not the fixed one.
  bool binding_may_block = false;
  // Pods (by "ns/name") that plugins ask the queue to activate when this cycle succeeds.
  std::set<std::string> pods_to_activate;

 private:
  std::vector<std::unique_ptr<StateData>> slots_;
};

}  // namespace berth::framework
