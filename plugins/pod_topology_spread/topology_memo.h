#pragma once
// Internal to PodTopologySpread: a memo, kept across cycles, of each node's topology value per
// topology key, indexed like the snapshot's node list. api::Node objects are immutable and shared
// (a label change brings a new object); the memo holds a reference to every node it describes,
// so an unchanged pointer proves unchanged labels and the per-cycle work is a pointer compare per
// node instead of a label-map lookup. It holds derived data only, never per-pod state.
//
// Threading: Refresh and Clear from one thread at a time (the scheduling thread, under the
// plugin's mutex); the returned view may be read concurrently until the next Refresh.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/types.h"
#include "scheduler/framework/node_info.h"

namespace berth::plugins::pod_topology_spread {

class TopologyMemo {
 public:
  struct KeyView {
    // Per node index: interned value id, or -1 when the node lacks the key (or is gone).
    const std::vector<int>* domain_of_node;
    // Interned values.
    const std::vector<std::string>* values;
  };

  // Brings the memo of `key` up to date with `nodes` and returns it.
  KeyView Refresh(const std::string& key, const std::vector<const framework::NodeInfo*>& nodes);

  // Matching pods of one node for one selector (SelectorSignature). Snapshot NodeInfos are
  // immutable and every changed node comes as a new copy with a new cache generation, so a slot
  // whose NodeInfo, generation and pod list are unchanged still holds the right count.
  struct CountSlot {
    const framework::NodeInfo* info = nullptr;
    int64_t generation = -1;
    const void* pods = nullptr;
    size_t num_pods = 0;
    int count = 0;
    bool Valid(const framework::NodeInfo& ni) const {
      return info == &ni && generation == ni.generation() && pods == ni.pods().data() &&
             num_pods == ni.pods().size();
    }
  };
  // The count slots of `signature`, one per node index. Workers may fill distinct slots
  // concurrently until the next call.
  std::vector<CountSlot>& Counts(const std::string& signature, size_t num_nodes);

 private:
  struct KeyMemo {
    std::vector<std::shared_ptr<const api::Node>> nodes;
    std::vector<int> domain_of_node;
    std::vector<std::string> values;
    std::unordered_map<std::string, int> ids;
  };
  static constexpr size_t kMaxKeys = 16;
  static constexpr size_t kMaxSignatures = 32;
  std::unordered_map<std::string, KeyMemo> by_key_;
  std::unordered_map<std::string, std::vector<CountSlot>> counts_;
};

}  // namespace berth::plugins::pod_topology_spread
