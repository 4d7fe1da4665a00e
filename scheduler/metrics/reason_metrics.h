#pragma once
// berth_pending_pod_reasons{profile,plugin,reason}: how many pods wait, by why (berth's own
// family; upstream's scheduler_unschedulable_pods{plugin,profile} says only which plugin). The
// values come from the diagnosis store (scheduler/diagnosis/store.h, Store::ReasonCounts), whose
// reason labels carry no node or pod names, so the label sets stay few. SchedulerMetrics owns
// one; the daemon sets it before each scrape.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

namespace prometheus {
class Registry;
template <typename T>
class Family;
class Gauge;
}  // namespace prometheus

namespace berth::metrics {

// (profile, plugin, reason) -> pods.
using ReasonCounts = std::map<std::tuple<std::string, std::string, std::string>, int64_t>;

class PendingReasonMetrics {
 public:
  explicit PendingReasonMetrics(prometheus::Registry& registry);
  ~PendingReasonMetrics();
  PendingReasonMetrics(const PendingReasonMetrics&) = delete;
  PendingReasonMetrics& operator=(const PendingReasonMetrics&) = delete;

  // Replaces the family's series with `counts`: label sets no longer present are removed (not
  // left at 0), so a dashboard shows only why pods wait now. Thread-safe.
  void Set(const ReasonCounts& counts);

 private:
  prometheus::Family<prometheus::Gauge>& family_;
  std::mutex mu_;  // guards series_
  std::map<std::tuple<std::string, std::string, std::string>, prometheus::Gauge*> series_;
};

}  // namespace berth::metrics
