#include "scheduler/metrics/reason_metrics.h"

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

namespace berth::metrics {

PendingReasonMetrics::PendingReasonMetrics(prometheus::Registry& registry)
    : family_(prometheus::BuildGauge()
                  .Name("berth_pending_pod_reasons")
                  .Help("[ALPHA] Number of pending pods whose last scheduling attempt failed, by "
                        "profile, rejecting plugin and reason (node and object names left out). "
                        "A pod counts once per distinct plugin and reason on any node.")
                  .Register(registry)) {}

PendingReasonMetrics::~PendingReasonMetrics() = default;

void PendingReasonMetrics::Set(const ReasonCounts& counts) {
  std::lock_guard lock(mu_);
  for (auto it = series_.begin(); it != series_.end();) {
    if (counts.count(it->first) == 0) {
      family_.Remove(it->second);
      it = series_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [key, n] : counts) {
    auto it = series_.find(key);
    if (it == series_.end()) {
      const auto& [profile, plugin, reason] = key;
      prometheus::Gauge& g =
          family_.Add({{"profile", profile}, {"plugin", plugin}, {"reason", reason}});
      it = series_.emplace(key, &g).first;
    }
    it->second->Set(static_cast<double>(n));
  }
}

}  // namespace berth::metrics
