#pragma once
// LoggingSink: wraps the daemon's API writer sink with one log line per decision (pod, node or
// reason, and the time the attempt took), then forwards the outcome to the next sink.
//
// It keeps the start of each pod's attempt from Attempted until that attempt's outcome
// (Scheduled or Failed), so a pod that fails and is then deleted leaves nothing behind. An
// attempt that never reports an outcome (a pod recreated under the same name while its failure
// was handled) is forgotten once more than kMaxPending attempts are open and it is older than
// kForgetAfter. Thread-safe: Attempted and Failed come from the scheduling thread, Scheduled and
// Failed from binding workers.

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

#include "scheduler/framework/outcome_sink.h"

namespace berth::run {

class LoggingSink final : public framework::OutcomeSink {
 public:
  static constexpr size_t kMaxPending = 65536;
  static constexpr std::chrono::minutes kForgetAfter{10};

  explicit LoggingSink(framework::OutcomeSink& next) : next_(next) {}

  void Attempted(const framework::PodInfo& pod) override;
  void Scheduled(const framework::PodInfo& pod, const std::string& node,
                 const std::string& profile) override;
  void Failed(const framework::PodInfo& pod, const std::string& reason, const std::string& message,
              const std::string& profile) override;

  // How many attempts have started and not yet reported an outcome.
  size_t pending() const;

 private:
  // The attempt's duration as "12.3ms" ("?" when its start is unknown); its entry is dropped.
  std::string Took(const std::string& uid);

  framework::OutcomeSink& next_;
  mutable std::mutex mu_;  // guards started_
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> started_;
};

}  // namespace berth::run
