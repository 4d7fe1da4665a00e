#include "plugins/dynamic_resources/structured/allocator.h"

#include "plugins/dynamic_resources/structured/search.h"

namespace berth::plugins::dynamic_resources::structured {

Allocator::Allocator(Features features, AllocatedState allocated, DeviceClassLookup classes,
                     std::vector<const api::ResourceSlice*> slices,
                     const SelectorEvaluator* selectors)
    : features_(features),
      allocated_(std::move(allocated)),
      classes_(std::move(classes)),
      all_slices_(std::move(slices)),
      selectors_(selectors) {
  for (const auto* slice : all_slices_) {
    const std::string node = slice->spec.node_name.value_or("");
    if (node.empty()) {
      slices_shared_.push_back(slice);
    } else {
      slices_on_node_[node].push_back(slice);
    }
  }
}

Result<Allocator::Outcome> Allocator::Allocate(const api::Node& node,
                                               const std::vector<const api::ResourceClaim*>& claims,
                                               const Interruption& stop) const {
  Search search(*this, node, claims, stop);
  auto outcome = search.Run();
  if (!outcome.ok() && (search.timed_out() || search.stopped())) {
    Outcome cut;
    cut.timed_out = search.timed_out();
    cut.stopped = search.stopped();
    return cut;
  }
  return outcome;
}

int64_t Allocator::AllocateOneInvocations() const {
  std::lock_guard lock(mu_);
  return allocate_one_invocations_;
}

// Upstream computes this lazily per pool and keeps it for the Allocator's lifetime: the pool's
// counter sets minus what its already allocated devices consume.
const Allocator::CounterSets& Allocator::AvailableCounters(const Pool& pool) const {
  std::lock_guard lock(mu_);
  auto& slot = available_counters_[pool.id];
  if (slot) return *slot;
  auto sets = std::make_unique<CounterSets>();
  for (const auto& [name, set] : pool.counter_sets) {
    auto& counters = (*sets)[name];
    for (const auto& [counter, value] : set->counters) counters[counter] = value.milli;
  }
  for (const auto* list : {&pool.slices_targeting_node, &pool.slices_not_targeting_node}) {
    for (const auto* slice : *list) {
      for (const auto& device : slice->spec.devices) {
        const DeviceId id{slice->spec.driver, slice->spec.pool.name, device.name};
        if (!allocated_.IsDeviceAllocated(id)) continue;
        for (const auto& consumption : device.consumes_counters) {
          auto set = sets->find(consumption.counter_set);
          if (set == sets->end()) continue;
          for (const auto& [counter, value] : consumption.counters) {
            auto it = set->second.find(counter);
            if (it != set->second.end()) it->second -= value.milli;
          }
        }
      }
    }
  }
  slot = std::move(sets);
  return *slot;
}

}  // namespace berth::plugins::dynamic_resources::structured
