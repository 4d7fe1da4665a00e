// Informer event handlers: keep the cache and the queue in step with the cluster (upstream's
// pkg/scheduler/eventhandlers.go).

#include "scheduler/framework/pod_requests.h"
#include "scheduler/scheduler.h"

namespace berth::scheduler {

using framework::ClusterEvent;
using framework::EventResource;
namespace action = framework::action;

namespace {

bool Assigned(const api::Pod& pod) { return !pod.spec.node_name.empty(); }

bool Terminal(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

bool SameTaints(const std::vector<api::Taint>& a, const std::vector<api::Taint>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].value != b[i].value || a[i].effect != b[i].effect) {
      return false;
    }
  }
  return true;
}

bool SameConditions(const std::vector<api::NodeCondition>& a,
                    const std::vector<api::NodeCondition>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].type != b[i].type || a[i].status != b[i].status) return false;
  }
  return true;
}

// Which kinds of node change happened (upstream's nodeSchedulingPropertiesChange).
uint32_t NodeChange(const api::Node& o, const api::Node& n) {
  uint32_t bits = 0;
  if (o.status.allocatable != n.status.allocatable) bits |= action::kUpdateNodeAllocatable;
  if (o.metadata.labels != n.metadata.labels) bits |= action::kUpdateNodeLabel;
  if (!SameTaints(o.spec.taints, n.spec.taints) || o.spec.unschedulable != n.spec.unschedulable) {
    bits |= action::kUpdateNodeTaint;
  }
  if (!SameConditions(o.status.conditions, n.status.conditions)) {
    bits |= action::kUpdateNodeCondition;
  }
  if (o.metadata.annotations != n.metadata.annotations) bits |= action::kUpdateNodeAnnotation;
  // The NodeDeclaredFeatures gate is on (GA) in v1.37; the kubelet keeps the list sorted.
  if (o.status.declared_features != n.status.declared_features) {
    bits |= action::kUpdateNodeDeclaredFeature;
  }
  return bits;
}

}  // namespace

void Scheduler::AddNode(std::shared_ptr<const api::Node> node) {
  const api::Node* raw = node.get();
  cache_.AddNode(std::move(node));
  queue_->MoveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::kNode, action::kAdd, "NodeAdd"},
                                        std::monostate{}, raw);
}

void Scheduler::UpdateNode(const api::Node& old_node, std::shared_ptr<const api::Node> node) {
  const uint32_t bits = NodeChange(old_node, *node);
  const api::Node* raw = node.get();
  cache_.UpdateNode(std::move(node));
  if (bits != 0) {
    queue_->MoveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::kNode, bits, "NodeUpdate"},
                                          &old_node, raw);
  }
}

void Scheduler::DeleteNode(const api::Node& node) { cache_.RemoveNode(node.metadata.name); }

void Scheduler::AddPod(std::shared_ptr<const api::Pod> pod) {
  if (Assigned(*pod)) {
    if (Terminal(*pod)) return;
    const api::Pod* raw = pod.get();
    cache_.AddPod(framework::MakePodInfo(std::move(pod)));
    queue_->MoveAllToActiveOrBackoffQueue(
        ClusterEvent{EventResource::kAssignedPod, action::kAdd, "AssignedPodAdd"}, std::monostate{},
        raw);
    return;
  }
  if (!Responsible(*pod)) return;
  const api::Pod* raw = pod.get();
  queue_->Add(framework::MakePodInfo(pod));
  // A new pending pod may complete a group others wait for (Coscheduling registers Pod/Add).
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{EventResource::kUnscheduledPod, action::kAdd, "UnscheduledPodAdd"},
      std::monostate{}, raw);
}

void Scheduler::UpdatePod(const api::Pod& old_pod, std::shared_ptr<const api::Pod> pod) {
  if (Assigned(*pod)) {
    const api::Pod* raw = pod.get();
    if (!Assigned(old_pod)) {
      // Bound (by us or someone else): it leaves the queue and counts on its node.
      queue_->Delete(old_pod);
      if (deps_.diagnoses != nullptr)
        deps_.diagnoses->Bound(pod->metadata.namespace_, pod->metadata.name, pod->metadata.uid);
      if (Terminal(*pod)) return;
      cache_.AddPod(framework::MakePodInfo(std::move(pod)));
      queue_->MoveAllToActiveOrBackoffQueue(
          ClusterEvent{EventResource::kAssignedPod, action::kAdd, "AssignedPodAdd"},
          std::monostate{}, raw);
      return;
    }
    if (Terminal(*pod)) {
      cache_.RemovePod(old_pod);
      queue_->MoveAllToActiveOrBackoffQueue(
          ClusterEvent{EventResource::kAssignedPod, action::kDelete, "AssignedPodDelete"}, &old_pod,
          std::monostate{});
      return;
    }
    uint32_t bits = action::kUpdatePodOther;
    if (old_pod.metadata.labels != pod->metadata.labels) bits |= action::kUpdatePodLabel;
    if (framework::PodRequestsScaledDown(old_pod, *pod)) bits |= action::kUpdatePodScaleDown;
    cache_.UpdatePod(old_pod, framework::MakePodInfo(std::move(pod)));
    queue_->MoveAllToActiveOrBackoffQueue(
        ClusterEvent{EventResource::kAssignedPod, bits, "AssignedPodUpdate"}, &old_pod, raw);
    return;
  }
  if (Responsible(*pod)) {
    queue_->Update(old_pod, framework::MakePodInfo(std::move(pod)));
  } else {
    queue_->Delete(old_pod);
  }
}

void Scheduler::DeletePod(const api::Pod& pod) {
  if (deps_.diagnoses != nullptr) deps_.diagnoses->Forget(pod.Key(), pod.metadata.uid);
  if (Assigned(pod)) {
    cache_.RemovePod(pod);
    queue_->MoveAllToActiveOrBackoffQueue(
        ClusterEvent{EventResource::kAssignedPod, action::kDelete, "AssignedPodDelete"}, &pod,
        std::monostate{});
    return;
  }
  queue_->Delete(pod);
  // A pod deleted while waiting on Permit is rejected, releasing what it holds.
  if (runtime::Framework* fwk = FrameworkFor(pod)) {
    fwk->RejectWaitingPod(pod.metadata.uid, "", "removed");
  }
}

void Scheduler::OnClusterEvent(const ClusterEvent& event, const framework::EventObject& old_obj,
                               const framework::EventObject& new_obj) {
  queue_->MoveAllToActiveOrBackoffQueue(event, old_obj, new_obj);
}

}  // namespace berth::scheduler
