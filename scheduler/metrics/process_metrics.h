#pragma once
// The standard process metrics of Prometheus' Go client (what kube-scheduler's /metrics has),
// read from /proc at each scrape: process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_virtual_memory_max_bytes, process_start_time_seconds,
// process_open_fds, process_max_fds, process_network_receive_bytes_total and
// process_network_transmit_bytes_total (the network namespace's totals, as the Go client
// reports them). A value that cannot be read is left at its last one.

#include <memory>
#include <mutex>

namespace prometheus {
class Registry;
}

namespace berth::metrics {

class ProcessMetrics {
 public:
  explicit ProcessMetrics(prometheus::Registry& registry);
  ~ProcessMetrics();
  ProcessMetrics(const ProcessMetrics&) = delete;
  ProcessMetrics& operator=(const ProcessMetrics&) = delete;

  // Reads /proc/self and updates the series; call before each scrape. Thread-safe.
  void Sync();

 private:
  struct Series;
  std::mutex mu_;
  std::unique_ptr<Series> s_;
};

}  // namespace berth::metrics
