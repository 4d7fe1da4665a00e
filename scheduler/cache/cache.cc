#include "scheduler/cache/cache.h"

#include <algorithm>
#include <utility>

namespace berth::cache {

using framework::NodeInfo;
using framework::PodInfoPtr;

namespace {

// Normalised image names of a node (the keys of NodeInfo::image_states()).
std::set<std::string> ImageNames(const api::Node* node) {
  std::set<std::string> out;
  if (!node) return out;
  for (const auto& image : node->status.images) {
    for (const auto& n : image.names) out.insert(framework::NormalizedImageName(n));
  }
  return out;
}

std::string Describe(const api::Pod& pod) {
  return pod.metadata.namespace_ + "/" + pod.metadata.name + "(" + pod.metadata.uid + ")";
}

bool SameAffinityMembership(const NodeInfo& a, const NodeInfo& b) {
  return a.pods_with_affinity().empty() == b.pods_with_affinity().empty() &&
         a.pods_with_required_anti_affinity().empty() ==
             b.pods_with_required_anti_affinity().empty();
}

void AddPVCs(std::unordered_map<std::string, int>& used, const NodeInfo& ni, int sign) {
  for (const auto& [key, count] : ni.pvc_ref_counts()) {
    auto it = used.emplace(key, 0).first;
    it->second += sign * count;
    if (it->second <= 0) used.erase(it);
  }
}

}  // namespace

// Same key as upstream's utilnode.GetZoneKey.
std::string ZoneKey(const api::Node& node) {
  const auto& labels = node.metadata.labels;
  auto get = [&labels](const char* key, const char* beta_key) -> std::string {
    auto it = labels.find(key);
    if (it == labels.end()) it = labels.find(beta_key);
    return it == labels.end() ? std::string() : it->second;
  };
  std::string zone = get("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone");
  std::string region =
      get("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region");
  if (region.empty() && zone.empty()) return "";
  return region + std::string(":\0:", 3) + zone;
}

Cache::Cache() = default;

std::string Cache::PodKey(const api::Pod& pod) {
  if (!pod.metadata.uid.empty()) return pod.metadata.uid;
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

// ---- nodes ----

void Cache::MoveToHead(const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  it->second->info->set_generation(++generation_);
  recent_.splice(recent_.begin(), recent_, it->second);
}

NodeInfo& Cache::NodeInfoFor(const std::string& node) {
  auto it = nodes_.find(node);
  if (it != nodes_.end()) return *it->second->info;
  recent_.push_front(Item{node, std::make_shared<NodeInfo>()});
  nodes_.emplace(node, recent_.begin());
  return *recent_.front().info;
}

void Cache::RemoveNodeInfoIfEmpty(const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  const NodeInfo& info = *it->second->info;
  if (info.node() || !info.pods().empty()) return;
  recent_.erase(it->second);
  nodes_.erase(it);
}

void Cache::AddToZone(const std::string& zone, const std::string& node) {
  for (auto& [z, names] : zones_) {
    if (z != zone) continue;
    // Callers add a node only when it is new to the tree, so no duplicate check (which would
    // make adding N nodes quadratic).
    names.push_back(node);
    return;
  }
  zones_.push_back({zone, {node}});
}

void Cache::RemoveFromZone(const std::string& zone, const std::string& node) {
  for (auto z = zones_.begin(); z != zones_.end(); ++z) {
    if (z->first != zone) continue;
    auto& names = z->second;
    names.erase(std::remove(names.begin(), names.end(), node), names.end());
    // Upstream's nodeTree drops a zone once it has no nodes left.
    if (names.empty()) zones_.erase(z);
    return;
  }
}

void Cache::SetNodeLocked(std::shared_ptr<const api::Node> node) {
  const std::string name = node->metadata.name;
  NodeInfo& info = NodeInfoFor(name);
  std::shared_ptr<const api::Node> old = info.node_ptr();
  std::string new_zone = ZoneKey(*node);
  if (!old) {
    AddToZone(new_zone, name);
    ++num_real_nodes_;
    list_dirty_ = true;
  } else if (std::string old_zone = ZoneKey(*old); old_zone != new_zone) {
    RemoveFromZone(old_zone, name);
    AddToZone(new_zone, name);
    list_dirty_ = true;
  }
  info.SetNode(std::move(node));
  TouchImages(old.get(), info.node());
  MoveToHead(name);
}

void Cache::AddNode(std::shared_ptr<const api::Node> node) {
  if (!node) return;
  std::lock_guard<std::mutex> lock(mu_);
  SetNodeLocked(std::move(node));
}

void Cache::UpdateNode(std::shared_ptr<const api::Node> node) {
  if (!node) return;
  std::lock_guard<std::mutex> lock(mu_);
  SetNodeLocked(std::move(node));
}

void Cache::RemoveNode(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  NodeInfo& info = *it->second->info;
  std::shared_ptr<const api::Node> old = info.node_ptr();
  if (!old) return;
  // Pods stay on a node-less NodeInfo until the informer removes them (as upstream).
  info.RemoveNode();
  RemoveFromZone(ZoneKey(*old), name);
  --num_real_nodes_;
  list_dirty_ = true;
  TouchImages(old.get(), nullptr);
  MoveToHead(name);
  RemoveNodeInfoIfEmpty(name);
}

// Keeps ImageStateSummary::num_nodes right on every node that has an image whose set of nodes
// changed, and fills it on the (re)set node itself, whose SetNode reset the counts.
void Cache::TouchImages(const api::Node* old_node, const api::Node* new_node) {
  const api::Node* any = new_node ? new_node : old_node;
  if (!any) return;
  const std::string& name = any->metadata.name;
  std::set<std::string> old_names = ImageNames(old_node);
  std::set<std::string> new_names = ImageNames(new_node);
  std::vector<std::string> changed;
  for (const auto& n : old_names) {
    if (new_names.count(n)) continue;
    auto it = image_nodes_.find(n);
    if (it != image_nodes_.end()) {
      it->second.erase(name);
      if (it->second.empty()) image_nodes_.erase(it);
    }
    changed.push_back(n);
  }
  for (const auto& n : new_names) {
    if (old_names.count(n)) continue;
    image_nodes_[n].insert(name);
    changed.push_back(n);
  }
  std::set<std::string> touched;
  for (const auto& n : changed) {
    auto it = image_nodes_.find(n);
    if (it == image_nodes_.end()) continue;
    int count = static_cast<int>(it->second.size());
    for (const auto& other : it->second) {
      if (other == name) continue;
      auto node_it = nodes_.find(other);
      if (node_it == nodes_.end()) continue;
      auto& states = node_it->second->info->mutable_image_states();
      auto s = states.find(n);
      if (s != states.end()) s->second.num_nodes = count;
      touched.insert(other);
    }
  }
  for (const auto& other : touched) MoveToHead(other);
  if (new_node) {
    auto node_it = nodes_.find(name);
    if (node_it == nodes_.end()) return;
    for (auto& [n, summary] : node_it->second->info->mutable_image_states()) {
      auto it = image_nodes_.find(n);
      summary.num_nodes = it == image_nodes_.end() ? 0 : static_cast<int>(it->second.size());
    }
  }
}

// ---- pods ----

void Cache::AddPodLocked(PodInfoPtr pod, const std::string& node) {
  NodeInfoFor(node).AddPod(std::move(pod));
  MoveToHead(node);
}

void Cache::RemovePodLocked(const api::Pod& pod, const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  it->second->info->RemovePod(pod);
  MoveToHead(node);
  RemoveNodeInfoIfEmpty(node);
}

void Cache::ReplacePodLocked(PodState& state, PodInfoPtr pod, const std::string& node) {
  PodInfoPtr old = state.pod;
  RemovePodLocked(old->Pod(), state.node);
  AddPodLocked(pod, node);
  state.pod = std::move(pod);
  state.node = node;
}

Ok Cache::AssumePod(PodInfoPtr pod) {
  std::lock_guard<std::mutex> lock(mu_);
  const api::Pod& p = pod->Pod();
  std::string key = PodKey(p);
  if (pods_.count(key)) {
    return Error{"pod " + Describe(p) + " is in the cache, so can't be assumed"};
  }
  if (p.spec.node_name.empty()) {
    return Error{"pod " + Describe(p) + " has no spec.nodeName, so can't be assumed"};
  }
  std::string node = p.spec.node_name;
  AddPodLocked(pod, node);
  pods_[key] = PodState{std::move(pod), node, /*assumed=*/true, /*binding_finished=*/false};
  assumed_.insert(key);
  return {};
}

void Cache::FinishBinding(const api::Pod& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(PodKey(pod));
  if (it != pods_.end() && it->second.assumed) it->second.binding_finished = true;
}

Ok Cache::ForgetPod(const api::Pod& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = PodKey(pod);
  auto it = pods_.find(key);
  if (it != pods_.end() && !pod.spec.node_name.empty() && it->second.node != pod.spec.node_name) {
    return Error{"pod " + Describe(pod) + " was assumed on " + pod.spec.node_name +
                 " but assigned to " + it->second.node};
  }
  if (it == pods_.end() || !it->second.assumed) {
    return Error{"pod " + Describe(pod) + " wasn't assumed so cannot be forgotten"};
  }
  RemovePodLocked(it->second.pod->Pod(), it->second.node);
  pods_.erase(it);
  assumed_.erase(key);
  return {};
}

bool Cache::IsAssumedPod(const api::Pod& pod) const {
  std::lock_guard<std::mutex> lock(mu_);
  return assumed_.count(PodKey(pod)) > 0;
}

PodInfoPtr Cache::GetPod(const api::Pod& pod) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(PodKey(pod));
  return it == pods_.end() ? nullptr : it->second.pod;
}

void Cache::AddPod(PodInfoPtr pod) {
  if (!pod) return;
  std::lock_guard<std::mutex> lock(mu_);
  const std::string node = pod->Pod().spec.node_name;
  if (node.empty()) return;
  std::string key = PodKey(pod->Pod());
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    AddPodLocked(pod, node);
    pods_[key] = PodState{std::move(pod), node, false, false};
    return;
  }
  // Confirms an assumed pod (moving it if the informer says another node). Upstream reports an
  // already-added pod as an error; replacing it keeps the cache right either way.
  ReplacePodLocked(it->second, std::move(pod), node);
  it->second.assumed = false;
  it->second.binding_finished = false;
  assumed_.erase(key);
}

void Cache::UpdatePod(const api::Pod& old_pod, PodInfoPtr new_pod) {
  if (!new_pod) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(PodKey(old_pod));
  // An assumed pod gets an Add (confirm) before any Update; upstream rejects this as an error.
  if (it == pods_.end() || it->second.assumed) return;
  std::string node = new_pod->Pod().spec.node_name;
  if (node.empty()) node = it->second.node;
  ReplacePodLocked(it->second, std::move(new_pod), node);
}

void Cache::RemovePod(const api::Pod& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = PodKey(pod);
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  RemovePodLocked(it->second.pod->Pod(), it->second.node);
  pods_.erase(it);
  assumed_.erase(key);
}

// ---- snapshots ----

// Same order as upstream's nodeTree.list(): one node of each zone in turn, zones in first-seen
// order, until every zone is exhausted.
void Cache::RebuildLists(framework::Snapshot& snapshot) {
  auto& by_name = ByName(snapshot);
  auto& list = List(snapshot);
  list.clear();
  list.reserve(by_name.size());
  list_index_.clear();
  for (size_t i = 0;; ++i) {
    bool any = false;
    for (const auto& [zone, names] : zones_) {
      if (i >= names.size()) continue;
      any = true;
      auto it = by_name.find(names[i]);
      if (it == by_name.end()) continue;
      list_index_[names[i]] = list.size();
      list.push_back(it->second.get());
    }
    if (!any) break;
  }
  auto& used = UsedPVCs(snapshot);
  used.clear();
  for (const NodeInfo* ni : list) AddPVCs(used, *ni, +1);
  RebuildAffinityLists(snapshot);
}

void Cache::RebuildAffinityLists(framework::Snapshot& snapshot) {
  auto& with_affinity = WithAffinity(snapshot);
  auto& with_anti = WithRequiredAntiAffinity(snapshot);
  with_affinity.clear();
  with_anti.clear();
  for (const NodeInfo* ni : List(snapshot)) {
    if (!ni->pods_with_affinity().empty()) with_affinity.push_back(ni);
    if (!ni->pods_with_required_anti_affinity().empty()) with_anti.push_back(ni);
  }
}

// One function of ~90 lines on purpose: its three phases (copy what changed, drop deleted nodes,
// patch or rebuild the lists) share `replaced` and `retired`, whose copies must stay alive until
// the lists no longer point at the old NodeInfos; split, they would be threaded through every
// helper for no gain in clarity.
void Cache::UpdateSnapshot(framework::Snapshot& snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& by_name = ByName(snapshot);
  auto& used = UsedPVCs(snapshot);
  const int64_t snapshot_generation = snapshot.generation();
  bool rebuild_all = list_dirty_;
  bool rebuild_affinity = false;
  struct Replaced {
    const std::string* name;
    const NodeInfo* old_info;
    const NodeInfo* new_info;
  };
  std::vector<Replaced> replaced;
  // Replaced copies stay alive until the lists no longer point at them, so that a fresh copy
  // can never reuse the address of one still being looked for.
  std::vector<std::shared_ptr<NodeInfo>> retired;

  for (const Item& item : recent_) {
    if (item.info->generation() <= snapshot_generation) break;
    auto existing = by_name.find(item.name);
    if (!item.info->node()) {
      if (existing != by_name.end()) {
        AddPVCs(used, *existing->second, -1);
        retired.push_back(std::move(existing->second));
        by_name.erase(existing);
        rebuild_all = true;
      }
      continue;
    }
    auto copy = std::make_shared<NodeInfo>(*item.info);
    AddPVCs(used, *copy, +1);
    if (existing == by_name.end()) {
      by_name.emplace(item.name, std::move(copy));
      rebuild_all = true;
      continue;
    }
    AddPVCs(used, *existing->second, -1);
    if (!SameAffinityMembership(*existing->second, *copy)) rebuild_affinity = true;
    replaced.push_back(Replaced{&item.name, existing->second.get(), copy.get()});
    retired.push_back(std::move(existing->second));
    existing->second = std::move(copy);
  }

  // Nodes deleted from the cache altogether (no pods left) are no longer in recent_.
  if (by_name.size() > static_cast<size_t>(num_real_nodes_)) {
    for (auto it = by_name.begin(); it != by_name.end();) {
      auto node_it = nodes_.find(it->first);
      if (node_it == nodes_.end() || !node_it->second->info->node()) {
        AddPVCs(used, *it->second, -1);
        retired.push_back(std::move(it->second));
        it = by_name.erase(it);
        rebuild_all = true;
      } else {
        ++it;
      }
    }
  }

  auto& list = List(snapshot);
  if (!rebuild_all) {
    if (list.size() != by_name.size()) rebuild_all = true;
    for (const Replaced& r : replaced) {
      auto idx = list_index_.find(*r.name);
      if (idx == list_index_.end() || idx->second >= list.size() ||
          list[idx->second] != r.old_info) {
        rebuild_all = true;  // the list was not built by this cache; rebuild it
        break;
      }
    }
  }
  if (rebuild_all) {
    RebuildLists(snapshot);
    list_dirty_ = false;
  } else {
    for (const Replaced& r : replaced) list[list_index_[*r.name]] = r.new_info;
    if (rebuild_affinity) {
      RebuildAffinityLists(snapshot);
    } else if (!replaced.empty()) {
      std::unordered_map<const NodeInfo*, const NodeInfo*> moved;
      for (const Replaced& r : replaced) moved.emplace(r.old_info, r.new_info);
      for (auto* l : {&WithAffinity(snapshot), &WithRequiredAntiAffinity(snapshot)}) {
        for (const NodeInfo*& ni : *l) {
          auto m = moved.find(ni);
          if (m != moved.end()) ni = m->second;
        }
      }
    }
  }
  SetGeneration(snapshot, generation_);
}

size_t Cache::NodeCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<size_t>(num_real_nodes_);
}

size_t Cache::PodCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_.size();
}

size_t Cache::AssumedPodCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return assumed_.size();
}

}  // namespace berth::cache
