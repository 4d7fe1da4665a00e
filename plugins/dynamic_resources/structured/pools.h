#pragma once
// Resource pools as the allocator sees them from one node: upstream's GatherPools (incubating
// variant, the one v1.37's default features select). A pool is the set of ResourceSlices of one
// driver and pool name at the newest generation; it is usable only when all of its
// resourceSliceCount slices are known, and invalid when its devices or counters contradict each
// other. Pure functions; safe from any thread.

#include <map>
#include <string>
#include <vector>

#include "api/types.h"
#include "api/types_resource.h"
#include "base/result.h"
#include "plugins/dynamic_resources/structured/types.h"

namespace berth::plugins::dynamic_resources::structured {

struct Pool {
  PoolId id;
  // Some slices of the newest generation are not published yet: nothing in the pool may be
  // allocated, and a request for "all" devices fails.
  bool incomplete = false;
  // The pool's slices contradict each other (duplicate device names, unknown counter sets).
  bool invalid = false;
  std::string invalid_reason;
  // Slices whose devices this node can use, sorted by name.
  std::vector<const api::ResourceSlice*> slices_targeting_node;
  // The pool's other slices (only kept when counters are shared across them).
  std::vector<const api::ResourceSlice*> slices_not_targeting_node;
  // Shared counter sets by name (DRAPartitionableDevices).
  std::map<std::string, const api::CounterSet*> counter_sets;
};

// Upstream's NodeMatches: a slice or device pinned to `node_name`, for all nodes, or selected by
// `selector`. False when none of the three is set.
bool NodeMatches(const api::Node& node, const std::optional<std::string>& node_name, bool all_nodes,
                 const std::optional<api::NodeSelector>& selector);

// The pools this node may allocate from, sorted by driver then pool name, pools whose devices
// carry binding conditions last. `slices_for_node` are the slices published for this node and
// those not tied to a node name; `all_slices` every slice (to tell an incomplete pool from one
// whose other slices target other nodes).
std::vector<Pool> GatherPools(const std::vector<const api::ResourceSlice*>& slices_for_node,
                              const api::Node& node, const Features& features,
                              const std::vector<const api::ResourceSlice*>& all_slices);

}  // namespace berth::plugins::dynamic_resources::structured
