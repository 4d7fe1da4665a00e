#include "plugins/dynamic_resources/structured/pools.h"

#include <algorithm>
#include <set>

#include "api/selector.h"

namespace berth::plugins::dynamic_resources::structured {
namespace {

// Compatibility groups (DRADeviceCompatibilityGroups) are alpha and off in v1.37: a slice using
// them is left out, so its pool looks incomplete.
bool UsesCompatibilityGroups(const api::ResourceSlice& slice) {
  for (const auto& device : slice.spec.devices) {
    for (const auto& consumption : device.consumes_counters) {
      if (!consumption.compatibility_groups.empty()) return true;
    }
  }
  return false;
}

bool HasBindingConditions(const Pool& pool) {
  for (const auto* slice : pool.slices_targeting_node) {
    for (const auto& device : slice->spec.devices) {
      if (!device.binding_conditions.empty()) return true;
    }
  }
  return false;
}

// Keeps, per pool, only the slices of the newest generation seen so far.
void AddSlice(std::map<PoolId, std::vector<const api::ResourceSlice*>>& pools,
              const api::ResourceSlice* slice) {
  const PoolId id{slice->spec.driver, slice->spec.pool.name};
  auto& list = pools[id];
  if (list.empty()) {
    list.push_back(slice);
    return;
  }
  const int64_t generation = list.front()->spec.pool.generation;
  if (slice->spec.pool.generation < generation) return;
  if (slice->spec.pool.generation > generation) list.clear();
  list.push_back(slice);
}

std::optional<std::string> DuplicateDeviceName(
    const std::vector<const api::ResourceSlice*>& slices) {
  std::set<std::string_view> names;
  for (const auto* slice : slices) {
    for (const auto& device : slice->spec.devices) {
      if (!names.insert(device.name).second) return "duplicate device name " + device.name;
    }
  }
  return std::nullopt;
}

std::optional<std::string> UnknownCounter(const std::map<std::string, const api::CounterSet*>& sets,
                                          const std::vector<const api::ResourceSlice*>& slices) {
  for (const auto* slice : slices) {
    for (const auto& device : slice->spec.devices) {
      for (const auto& consumption : device.consumes_counters) {
        auto it = sets.find(consumption.counter_set);
        if (it == sets.end()) return "counter set " + consumption.counter_set + " not found";
        for (const auto& [name, value] : consumption.counters) {
          if (!it->second->counters.contains(name)) {
            return "counter " + name + " not found in counter set " + it->second->name;
          }
        }
      }
    }
  }
  return std::nullopt;
}

// Upstream's buildPool: `slices` target the node; `all_for_pool` (empty when all do) is the
// whole generation.
Pool BuildPool(const PoolId& id, std::vector<const api::ResourceSlice*> slices,
               const Features& features,
               const std::vector<const api::ResourceSlice*>& all_for_pool) {
  std::sort(slices.begin(), slices.end(),
            [](const auto* a, const auto* b) { return a->metadata.name < b->metadata.name; });
  Pool pool;
  pool.id = id;
  std::vector<const api::ResourceSlice*> counter_slices;
  for (const auto* slice : slices) {
    if (features.partitionable_devices && !slice->spec.shared_counters.empty()) {
      counter_slices.push_back(slice);
    } else {
      pool.slices_targeting_node.push_back(slice);
    }
  }
  if (slices.size() < all_for_pool.size()) {
    std::set<std::string_view> targeting;
    for (const auto* slice : slices) targeting.insert(slice->metadata.name);
    for (const auto* slice : all_for_pool) {
      if (targeting.contains(slice->metadata.name)) continue;
      if (features.partitionable_devices && !slice->spec.shared_counters.empty()) {
        counter_slices.push_back(slice);
      } else {
        pool.slices_not_targeting_node.push_back(slice);
      }
    }
  }
  auto invalid = [&](std::string reason) {
    Pool bad;
    bad.id = id;
    bad.invalid = true;
    bad.invalid_reason = std::move(reason);
    return bad;
  };
  if (auto dup = DuplicateDeviceName(pool.slices_targeting_node)) return invalid(*dup);
  if (!features.partitionable_devices) {
    pool.slices_not_targeting_node.clear();
    return pool;
  }
  for (const auto* slice : counter_slices) {
    for (const auto& set : slice->spec.shared_counters) {
      if (!pool.counter_sets.emplace(set.name, &set).second) {
        return invalid("duplicate counter set name " + set.name);
      }
    }
  }
  if (auto bad = UnknownCounter(pool.counter_sets, pool.slices_targeting_node))
    return invalid(*bad);
  if (auto bad = UnknownCounter(pool.counter_sets, pool.slices_not_targeting_node)) {
    return invalid(*bad);
  }
  return pool;
}

}  // namespace

bool NodeMatches(const api::Node& node, const std::optional<std::string>& node_name, bool all_nodes,
                 const std::optional<api::NodeSelector>& selector) {
  if (node_name && !node_name->empty()) return node.metadata.name == *node_name;
  if (all_nodes) return true;
  if (selector) return api::Matches(*selector, node.metadata.labels, node.metadata.name);
  return false;
}

std::vector<Pool> GatherPools(const std::vector<const api::ResourceSlice*>& slices_for_node,
                              const api::Node& node, const Features& features,
                              const std::vector<const api::ResourceSlice*>& all_slices) {
  std::map<PoolId, std::vector<const api::ResourceSlice*>> by_pool;
  for (const auto* slice : slices_for_node) {
    const auto& spec = slice->spec;
    if (!features.partitionable_devices &&
        (spec.per_device_node_selection.has_value() || !spec.shared_counters.empty())) {
      continue;
    }
    if (UsesCompatibilityGroups(*slice)) continue;
    bool relevant = false;
    const bool all_nodes = spec.all_nodes.value_or(false);
    if ((spec.node_name && !spec.node_name->empty()) || all_nodes || spec.node_selector) {
      relevant = NodeMatches(node, spec.node_name, all_nodes, spec.node_selector);
    } else if (spec.per_device_node_selection.value_or(false)) {
      for (const auto& device : spec.devices) {
        if (NodeMatches(node, device.node_name, device.all_nodes.value_or(false),
                        device.node_selector)) {
          relevant = true;
          break;
        }
      }
    } else {
      continue;  // a slice without any node selection (e.g. only shared counters)
    }
    if (relevant) AddSlice(by_pool, slice);
  }

  std::vector<Pool> result;
  std::vector<Pool> with_binding_conditions;
  auto add = [&](Pool pool) {
    (HasBindingConditions(pool) ? with_binding_conditions : result).push_back(std::move(pool));
  };
  for (auto& [id, slices] : by_pool) {
    const auto& pool_meta = slices.front()->spec.pool;
    if (static_cast<int64_t>(slices.size()) == pool_meta.resource_slice_count) {
      add(BuildPool(id, slices, features, {}));
      continue;
    }
    // Some slices of the pool are missing here: either they target other nodes, they are not
    // published yet, or a newer generation replaces this one.
    std::vector<const api::ResourceSlice*> all_for_pool;
    bool obsolete = false;
    for (const auto* slice : all_slices) {
      if (slice->spec.driver != id.driver || slice->spec.pool.name != id.pool) continue;
      if (slice->spec.pool.generation == pool_meta.generation) {
        if (!UsesCompatibilityGroups(*slice)) all_for_pool.push_back(slice);
      } else if (slice->spec.pool.generation > pool_meta.generation) {
        obsolete = true;
        break;
      }
    }
    if (obsolete) continue;
    if (static_cast<int64_t>(all_for_pool.size()) != pool_meta.resource_slice_count) {
      Pool pool;
      pool.id = id;
      pool.incomplete = true;
      result.push_back(std::move(pool));
      continue;
    }
    add(BuildPool(id, slices, features, all_for_pool));
  }
  // by_pool is ordered by (driver, pool) already; the two groups keep that order.
  for (auto& pool : with_binding_conditions) result.push_back(std::move(pool));
  return result;
}

}  // namespace berth::plugins::dynamic_resources::structured
