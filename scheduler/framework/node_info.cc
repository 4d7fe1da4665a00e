#include "scheduler/framework/node_info.h"

#include <algorithm>

#include "api/selector.h"
#include "base/saturating.h"

namespace berth::framework {

std::string NormalizedImageName(std::string_view name) {
  // An image reference has a tag when the last ':' comes after the last '/'; a digest has '@'.
  std::string s(name);
  if (s.find('@') != std::string::npos) return s;
  auto colon = s.rfind(':');
  auto slash = s.rfind('/');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) {
    s += ":latest";
  }
  return s;
}

void NodeInfo::SetNode(std::shared_ptr<const api::Node> node) {
  node_ = std::move(node);
  ++generation_;
  if (!node_) return;
  name_ = node_->metadata.name;
  allocatable_ = Resource::FromList(node_->status.allocatable);
  image_states_.clear();
  for (const auto& image : node_->status.images) {
    for (const auto& n : image.names) {
      image_states_[NormalizedImageName(n)] = ImageStateSummary{image.size_bytes, 0};
    }
  }
}

void NodeInfo::RemoveNode() {
  node_.reset();
  ++generation_;
}

void NodeInfo::Update(const PodInfo& pod, int sign) {
  Resource delta = pod.requests;
  if (sign > 0) {
    requested_.Add(delta);
  } else {
    requested_.Sub(delta);
  }
  auto add = sign > 0 ? SatAdd : SatSub;
  non_zero_requested_.milli_cpu = add(non_zero_requested_.milli_cpu, pod.non_zero_cpu);
  non_zero_requested_.memory = add(non_zero_requested_.memory, pod.non_zero_memory);
  for (const auto& hp : pod.host_ports) {
    if (sign > 0) {
      used_ports_.push_back(hp);
    } else {
      auto it = std::find(used_ports_.begin(), used_ports_.end(), hp);
      if (it != used_ports_.end()) used_ports_.erase(it);
    }
  }
  const auto& ns = pod.pod->metadata.namespace_;
  for (const auto& v : pod.pod->spec.volumes) {
    std::string claim;
    if (!v.pvc_claim_name.empty()) {
      claim = v.pvc_claim_name;
    } else if (v.ephemeral) {
      claim = pod.pod->metadata.name + "-" + v.name;
    } else {
      continue;
    }
    std::string key = ns + "/" + claim;
    auto& count = pvc_ref_counts_[key];
    count += sign;
    if (count <= 0) pvc_ref_counts_.erase(key);
  }
  ++generation_;
}

void NodeInfo::AddPod(PodInfoPtr pod) {
  Update(*pod, +1);
  if (pod->has_affinity) pods_with_affinity_.push_back(pod);
  if (pod->has_required_anti_affinity) pods_with_required_anti_affinity_.push_back(pod);
  pods_.push_back(std::move(pod));
}

namespace {

bool SamePod(const api::Pod& a, const api::Pod& b) {
  if (!a.metadata.uid.empty() && !b.metadata.uid.empty()) return a.metadata.uid == b.metadata.uid;
  return a.metadata.namespace_ == b.metadata.namespace_ && a.metadata.name == b.metadata.name;
}

void EraseFrom(std::vector<PodInfoPtr>& v, const api::Pod& pod) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (SamePod(*v[i]->pod, pod)) {
      v[i] = std::move(v.back());
      v.pop_back();
      return;
    }
  }
}

}  // namespace

bool NodeInfo::RemovePod(const api::Pod& pod) {
  for (size_t i = 0; i < pods_.size(); ++i) {
    if (!SamePod(*pods_[i]->pod, pod)) continue;
    PodInfoPtr removed = std::move(pods_[i]);
    pods_[i] = std::move(pods_.back());
    pods_.pop_back();
    if (removed->has_affinity) EraseFrom(pods_with_affinity_, pod);
    if (removed->has_required_anti_affinity) EraseFrom(pods_with_required_anti_affinity_, pod);
    Update(*removed, -1);
    return true;
  }
  return false;
}

bool NodeInfo::PortConflicts(const HostPort& p) const {
  for (const auto& u : used_ports_) {
    if (u.port != p.port || u.protocol != p.protocol) continue;
    if (u.ip == p.ip || u.ip == "0.0.0.0" || p.ip == "0.0.0.0") return true;
  }
  return false;
}

int64_t CountMatchingPods(const NodeInfo& node, const std::string& ns,
                          const std::map<std::string, std::string>& selector) {
  int64_t count = 0;
  for (const auto& p : node.pods()) {
    const api::Pod& existing = p->Pod();
    if (existing.metadata.namespace_ != ns || existing.metadata.deletion_timestamp) continue;
    if (api::MatchesMap(selector, existing.metadata.labels)) ++count;
  }
  return count;
}

}  // namespace berth::framework
