#pragma once
// SimulatedExtender: how `berth simulate` calls a configured scheduler extender. It decorates
// the real one (cmd/berth/app/extender/http_extender.h) with two differences:
//  - it is never a binder: the simulation's recording binder stands in for bindVerb;
//  - once the extender cannot be reached (a call fails with ErrorCode::kUnavailable: connection
//    failure or timeout), every later call fails at once with that error, since the simulation
//    retries failed pods for a virtual day.
//
// Thread-safe as the extender it wraps.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/framework/extender.h"

namespace berth::simulate {

class SimulatedExtender final : public framework::Extender {
 public:
  explicit SimulatedExtender(std::unique_ptr<framework::Extender> next) : next_(std::move(next)) {}

  const std::string& Name() const override { return next_->Name(); }
  bool IsIgnorable() const override { return next_->IsIgnorable(); }
  bool IsFilter() const override { return next_->IsFilter(); }
  bool IsPrioritizer() const override { return next_->IsPrioritizer(); }
  bool IsBinder() const override { return false; }
  bool IsInterested(const api::Pod& pod) const override { return next_->IsInterested(pod); }
  int64_t Weight() const override { return next_->Weight(); }

  Result<framework::ExtenderFilterOutcome> Filter(
      const api::Pod& pod, const std::vector<const framework::NodeInfo*>& nodes) override;
  Result<std::vector<int64_t>> Prioritize(
      const api::Pod& pod, const std::vector<const framework::NodeInfo*>& nodes) override;
  Ok Bind(const api::Pod& pod, const std::string& node) override;

 private:
  // The latched transport error, if any.
  std::optional<Error> Unreachable();
  // Latches `e` when it says the extender could not be reached.
  void Observe(const Error& e);

  std::unique_ptr<framework::Extender> next_;
  std::mutex mu_;  // guards unreachable_
  std::optional<Error> unreachable_;
};

// Wraps every extender in a SimulatedExtender (order kept).
std::vector<std::unique_ptr<framework::Extender>> ForSimulation(
    std::vector<std::unique_ptr<framework::Extender>> extenders);

}  // namespace berth::simulate
