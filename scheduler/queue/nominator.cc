#include "scheduler/queue/nominator.h"

#include <algorithm>

namespace berth::queue {

namespace {

std::string UidOf(const api::Pod& pod) {
  return pod.metadata.uid.empty() ? pod.Key() : pod.metadata.uid;
}

}  // namespace

void Nominator::Add(framework::PodInfoPtr pod, const std::optional<std::string>& override_node) {
  if (!pod) return;
  std::lock_guard lock(mu_);
  AddLocked(std::move(pod), override_node);
}

void Nominator::AddLocked(framework::PodInfoPtr pod,
                          const std::optional<std::string>& override_node) {
  const std::string uid = UidOf(pod->Pod());
  DeleteLocked(uid);
  const std::string node = override_node ? *override_node : pod->Pod().status.nominated_node_name;
  // A bound pod is no longer nominated anywhere.
  if (node.empty() || !pod->Pod().spec.node_name.empty()) return;
  node_of_[uid] = node;
  by_node_[node].push_back(std::move(pod));
  count_.store(node_of_.size(), std::memory_order_relaxed);
}

void Nominator::Update(const api::Pod& old_pod, framework::PodInfoPtr new_pod) {
  if (!new_pod) return;
  std::lock_guard lock(mu_);
  std::optional<std::string> keep;
  if (old_pod.status.nominated_node_name.empty() &&
      new_pod->Pod().status.nominated_node_name.empty()) {
    auto it = node_of_.find(UidOf(old_pod));
    if (it != node_of_.end()) keep = it->second;
  }
  DeleteLocked(UidOf(old_pod));
  AddLocked(std::move(new_pod), keep);
}

void Nominator::Delete(const api::Pod& pod) {
  if (count_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mu_);
  DeleteLocked(UidOf(pod));
}

void Nominator::DeleteLocked(const std::string& uid) {
  auto it = node_of_.find(uid);
  if (it == node_of_.end()) return;
  auto node_it = by_node_.find(it->second);
  if (node_it != by_node_.end()) {
    auto& pods = node_it->second;
    pods.erase(
        std::remove_if(pods.begin(), pods.end(),
                       [&](const framework::PodInfoPtr& p) { return UidOf(p->Pod()) == uid; }),
        pods.end());
    if (pods.empty()) by_node_.erase(node_it);
  }
  node_of_.erase(it);
  count_.store(node_of_.size(), std::memory_order_relaxed);
}

std::vector<framework::PodInfoPtr> Nominator::NominatedPodsForNode(const std::string& node) const {
  std::shared_lock lock(mu_);
  auto it = by_node_.find(node);
  return it == by_node_.end() ? std::vector<framework::PodInfoPtr>{} : it->second;
}

std::string Nominator::NominatedNodeOf(const std::string& uid) const {
  std::shared_lock lock(mu_);
  auto it = node_of_.find(uid);
  return it == node_of_.end() ? std::string() : it->second;
}

}  // namespace berth::queue
