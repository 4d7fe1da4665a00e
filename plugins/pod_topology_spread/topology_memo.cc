#include "plugins/pod_topology_spread/topology_memo.h"

namespace berth::plugins::pod_topology_spread {

TopologyMemo::KeyView TopologyMemo::Refresh(const std::string& key,
                                            const std::vector<const framework::NodeInfo*>& nodes) {
  if (by_key_.size() >= kMaxKeys && !by_key_.contains(key)) by_key_.clear();
  KeyMemo& m = by_key_[key];
  // Interned values only grow; start over when node churn has made them mostly stale.
  if (m.values.size() > 4 * nodes.size() + 64) m = KeyMemo();
  m.nodes.resize(nodes.size());
  m.domain_of_node.resize(nodes.size(), -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const api::Node* node = nodes[i]->node();
    if (m.nodes[i].get() == node && node != nullptr) continue;
    m.nodes[i] = nodes[i]->node_ptr();
    m.domain_of_node[i] = -1;
    if (node == nullptr) continue;
    auto it = node->metadata.labels.find(key);
    if (it == node->metadata.labels.end()) continue;
    auto [id, inserted] = m.ids.try_emplace(it->second, static_cast<int>(m.values.size()));
    if (inserted) m.values.push_back(it->second);
    m.domain_of_node[i] = id->second;
  }
  return KeyView{&m.domain_of_node, &m.values};
}

std::vector<TopologyMemo::CountSlot>& TopologyMemo::Counts(const std::string& signature,
                                                           size_t num_nodes) {
  if (counts_.size() >= kMaxSignatures && !counts_.contains(signature)) counts_.clear();
  auto& slots = counts_[signature];
  slots.resize(num_nodes);
  return slots;
}

}  // namespace berth::plugins::pod_topology_spread
