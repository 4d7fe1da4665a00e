#pragma once
// Faults that berth survives but an operator should still see, counted process-wide: the
// top-level handlers of its threads, the HTTP server's accept loop and its connection cap count
// here, and /metrics exports the counts (scheduler/metrics/fault_metrics.h) as
//   berth_recovered_exceptions_total{thread}        an exception reached a thread's top level;
//                                                   the thread logged it and went on
//   berth_http_accept_errors_total{listener}        accept() failed (out of file descriptors, ...)
//   berth_http_connections_refused_total{listener}  a connection was closed unanswered because
//                                                   --max-connections were already open

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {

enum class Fault { kRecoveredException, kAcceptError, kConnectionRefused };

struct FaultCount {
  Fault fault;
  std::string where;  // the thread or listener
  uint64_t count = 0;
};

namespace fault_internal {
struct Table {
  std::mutex mu;
  std::map<std::pair<Fault, std::string>, uint64_t> counts;
};
inline Table& Get() {
  static Table table;
  return table;
}
}  // namespace fault_internal

// Never throws: it is called from catch blocks, where memory may be what ran out (a count lost
// then is better than an exception escaping the handler).
inline void CountFault(Fault fault, std::string_view where) noexcept {
  try {
    auto& t = fault_internal::Get();
    std::lock_guard lock(t.mu);
    ++t.counts[{fault, std::string(where)}];
  } catch (...) {
  }
}

inline std::vector<FaultCount> FaultCounts() {
  auto& t = fault_internal::Get();
  std::lock_guard lock(t.mu);
  std::vector<FaultCount> out;
  out.reserve(t.counts.size());
  for (const auto& [key, n] : t.counts) out.push_back(FaultCount{key.first, key.second, n});
  return out;
}

}  // namespace berth
