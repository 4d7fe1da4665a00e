#pragma once
// The node and pod informer wiring shared by `berth run` (feeding the Scheduler's event handlers)
// and `berth extender` (feeding the extender's cache): every Node and Pod event goes to the
// sink's AddNode / UpdateNode / DeleteNode / AddPod / UpdatePod / DeletePod (the Scheduler's
// signatures), timed into scheduler_event_handling_duration_seconds{event} when metrics are given.
// Other kinds reach the sink's users through the factory's object stores.
//
// Handlers run on the informer threads; the sink must be thread-safe and outlive the factory's
// informers (Stop() them first).

#include <chrono>
#include <memory>

#include "informers/informer.h"
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

}  // namespace berth::run
