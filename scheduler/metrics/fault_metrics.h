#pragma once
// The process-wide fault counts of base/fault_counters.h as Prometheus counters. SchedulerMetrics
// owns one (berth run's /metrics); `berth extender` serves one on its own /metrics.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "base/fault_counters.h"

namespace prometheus {
class Registry;
}

namespace berth::metrics {

class FaultMetrics {
 public:
  // Registers berth_recovered_exceptions_total, berth_http_accept_errors_total and
  // berth_http_connections_refused_total in `registry`.
  explicit FaultMetrics(prometheus::Registry& registry);
  ~FaultMetrics();
  FaultMetrics(const FaultMetrics&) = delete;
  FaultMetrics& operator=(const FaultMetrics&) = delete;

  // Brings the counters up to the counts in base/fault_counters.h; call before each scrape.
  void Sync();

 private:
  struct Families;
  std::unique_ptr<Families> f_;
  std::mutex mu_;
  std::map<std::pair<Fault, std::string>, uint64_t> exported_;
};

}  // namespace berth::metrics
