#pragma once
// RecordingSink: a framework::OutcomeSink that keeps every outcome in order, for tests that
// assert what a user would see (the Scheduled / FailedScheduling events). Thread-safe: binding
// cycles report from the executor's threads.

#include <mutex>
#include <string>
#include <vector>

#include "scheduler/framework/outcome_sink.h"

namespace berth::testing {

class RecordingSink : public framework::OutcomeSink {
 public:
  struct Outcome {
    std::string pod;      // "ns/name"
    std::string kind;     // "Scheduled" or "Failed"
    std::string node;     // Scheduled: the node
    std::string reason;   // Failed: "Unschedulable", "SchedulerError", "FailedScheduling"
    std::string message;  // Failed: the event's note
    std::string profile;
  };

  void Scheduled(const framework::PodInfo& pod, const std::string& node,
                 const std::string& profile) override {
    std::lock_guard lock(mu_);
    outcomes_.push_back({pod.Pod().Key(), "Scheduled", node, "", "", profile});
  }
  void Failed(const framework::PodInfo& pod, const std::string& reason, const std::string& message,
              const std::string& profile) override {
    std::lock_guard lock(mu_);
    outcomes_.push_back({pod.Pod().Key(), "Failed", "", reason, message, profile});
  }
  void Attempted(const framework::PodInfo& pod) override {
    std::lock_guard lock(mu_);
    attempted_.push_back(pod.Pod().Key());
  }

  std::vector<Outcome> Outcomes() const {
    std::lock_guard lock(mu_);
    return outcomes_;
  }
  std::vector<std::string> AttemptedPods() const {
    std::lock_guard lock(mu_);
    return attempted_;
  }
  // The last outcome; a default Outcome (kind empty) when there is none.
  Outcome Last() const {
    std::lock_guard lock(mu_);
    return outcomes_.empty() ? Outcome{} : outcomes_.back();
  }

 private:
  mutable std::mutex mu_;  // guards outcomes_, attempted_
  std::vector<Outcome> outcomes_;
  std::vector<std::string> attempted_;
};

}  // namespace berth::testing
