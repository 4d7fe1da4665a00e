#pragma once
// The node and pod informer wiring shared by `berth run` (feeding the Scheduler's event handlers)
// and `berth extender` (feeding the extender's cache): every Node and Pod event goes to the
// sink's AddNode / UpdateNode / DeleteNode / AddPod / UpdatePod / DeletePod (the Scheduler's
// signatures), timed into scheduler_event_handling_duration_seconds{event} when metrics are given.
// Other kinds reach the sink's users through the factory's object stores; for `berth run`,
// ConnectRequeueEvents turns their changes into the cluster events that requeue pods a plugin
// rejected for them (the informer -> requeue table).
//
// Handlers run on the informer threads; the sink must be thread-safe and outlive the factory's
// informers (Stop() them first).

#include <chrono>
#include <memory>
#include <string>
#include <variant>

#include "informers/informer.h"
#include "scheduler/framework/types.h"
#include "scheduler/metrics/metrics.h"

namespace berth::run {

template <typename Sink>
void ConnectNodesAndPods(informers::InformerFactory& factory, Sink& sink,
                         metrics::SchedulerMetrics* metrics) {
  auto timed = [metrics](const char* event, auto&& fn) {
    if (metrics == nullptr) return fn();
    auto start = std::chrono::steady_clock::now();
    fn();
    metrics->EventHandling(event, metrics::Since(start));
  };
  factory.nodes().AddEventHandlers({
      [&sink, timed](const auto& n) { timed("NodeAdd", [&] { sink.AddNode(n); }); },
      [&sink, timed](const auto& o, const auto& n) {
        timed("NodeUpdate", [&] { sink.UpdateNode(*o, n); });
      },
      [&sink, timed](const auto& n) { timed("NodeDelete", [&] { sink.DeleteNode(*n); }); },
  });
  factory.pods().AddEventHandlers({
      [&sink, timed](const auto& p) { timed("PodAdd", [&] { sink.AddPod(p); }); },
      [&sink, timed](const auto& o, const auto& n) {
        timed("PodUpdate", [&] { sink.UpdatePod(*o, n); });
      },
      [&sink, timed](const auto& p) { timed("PodDelete", [&] { sink.DeletePod(*p); }); },
  });
}

// Whether a kind's events carry the object (framework::EventObject has an alternative for it).
enum class EventPayload { kObject, kNone };

// Add / Update / Delete of T's informer -> sink.OnClusterEvent with `resource` and the labels
// "<kind>Add", "<kind>Update", "<kind>Delete". Nothing when the factory does not run T's kind.
template <typename T, EventPayload payload, typename Sink>
void RequeueOn(informers::InformerFactory& factory, framework::EventResource resource, Sink& sink) {
  informers::Informer<T>* informer = factory.Find<T>();
  if (informer == nullptr) return;
  namespace action = framework::action;
  using Ptr = std::shared_ptr<const T>;
  auto obj = [](const Ptr& p) -> framework::EventObject {
    if constexpr (payload == EventPayload::kObject) {
      return framework::EventObject(p.get());
    } else {
      return std::monostate{};
    }
  };
  const std::string& label = informer->kind();
  const framework::ClusterEvent add{resource, action::kAdd, label + "Add"};
  const framework::ClusterEvent update{resource, action::kUpdate, label + "Update"};
  const framework::ClusterEvent del{resource, action::kDelete, label + "Delete"};
  informer->AddEventHandlers({
      [&sink, add, obj](const Ptr& o) { sink.OnClusterEvent(add, std::monostate{}, obj(o)); },
      [&sink, update, obj](const Ptr& o, const Ptr& n) {
        sink.OnClusterEvent(update, obj(o), obj(n));
      },
      [&sink, del, obj](const Ptr& o) { sink.OnClusterEvent(del, obj(o), std::monostate{}); },
  });
}

// A DeviceTaintRule changes the taints of the devices it selects as if their ResourceSlices had
// changed; upstream's DRA manager reports it as a ResourceSlice update, and so does berth (for
// every rule change, without the slices: DynamicResources' slice hint requeues regardless).
inline void RequeueOnDeviceTaintRules(informers::InformerFactory& factory, auto& sink) {
  auto* informer = factory.Find<api::DeviceTaintRule>();
  if (informer == nullptr) return;
  const framework::ClusterEvent update{framework::EventResource::kResourceSlice,
                                       framework::action::kUpdate, "ResourceSliceUpdate"};
  auto requeue = [&sink, update] {
    sink.OnClusterEvent(update, std::monostate{}, std::monostate{});
  };
  informer->AddEventHandlers({
      [requeue](const auto&) { requeue(); },
      [requeue](const auto&, const auto&) { requeue(); },
      [requeue](const auto&) { requeue(); },
  });
}

// The informer -> requeue table of `berth run`: kinds other than Node and Pod only requeue pods
// that a plugin rejected for them (the Scheduler's OnClusterEvent). Namespaces,
// PodDisruptionBudgets and ResourceClaimTemplates requeue nothing (no plugin registers for them);
// DeviceTaintRules requeue as ResourceSlice updates. A new kind is one row here besides its row in
// the informers' kind table (informers/informer.cc).
template <typename Sink>
void ConnectRequeueEvents(informers::InformerFactory& factory, Sink& sink) {
  using framework::EventResource;
  constexpr auto kObject = EventPayload::kObject;
  // storage.deckhouse.io objects carry no event object (EventObject has no such alternative).
  constexpr auto kNone = EventPayload::kNone;
  RequeueOn<api::PersistentVolumeClaim, kObject>(factory, EventResource::kPersistentVolumeClaim,
                                                 sink);
  RequeueOn<api::PersistentVolume, kObject>(factory, EventResource::kPersistentVolume, sink);
  RequeueOn<api::StorageClass, kObject>(factory, EventResource::kStorageClass, sink);
  RequeueOn<api::CSINode, kObject>(factory, EventResource::kCSINode, sink);
  RequeueOn<api::Service, kObject>(factory, EventResource::kService, sink);
  RequeueOn<api::PodGroup, kObject>(factory, EventResource::kPodGroup, sink);
  RequeueOn<api::ResourceClaim, kObject>(factory, EventResource::kResourceClaim, sink);
  RequeueOn<api::ResourceSlice, kObject>(factory, EventResource::kResourceSlice, sink);
  RequeueOn<api::DeviceClass, kObject>(factory, EventResource::kDeviceClass, sink);
  RequeueOnDeviceTaintRules(factory, sink);
  RequeueOn<api::ReplicatedStorageClass, kNone>(factory, EventResource::kReplicatedStorage, sink);
  RequeueOn<api::ReplicatedStoragePool, kNone>(factory, EventResource::kReplicatedStorage, sink);
  RequeueOn<api::LVMVolumeGroup, kNone>(factory, EventResource::kReplicatedStorage, sink);
  RequeueOn<api::LVMLogicalVolume, kNone>(factory, EventResource::kReplicatedStorage, sink);
  RequeueOn<api::ReplicatedVolume, kNone>(factory, EventResource::kReplicatedStorage, sink);
}

}  // namespace berth::run
