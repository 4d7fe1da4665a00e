#include "cmd/berth/app/simulate/simulated_extender.h"

namespace berth::simulate {

std::optional<Error> SimulatedExtender::Unreachable() {
  std::lock_guard lock(mu_);
  return unreachable_;
}

void SimulatedExtender::Observe(const Error& e) {
  if (e.code != ErrorCode::kUnavailable) return;
  std::lock_guard lock(mu_);
  unreachable_ = e;
}

Result<framework::ExtenderFilterOutcome> SimulatedExtender::Filter(
    const api::Pod& pod, const std::vector<const framework::NodeInfo*>& nodes) {
  if (!IsFilter()) return next_->Filter(pod, nodes);  // passes every node without a call
  if (auto e = Unreachable()) return *e;
  auto r = next_->Filter(pod, nodes);
  if (!r.ok()) Observe(r.status());
  return r;
}

Result<std::vector<int64_t>> SimulatedExtender::Prioritize(
    const api::Pod& pod, const std::vector<const framework::NodeInfo*>& nodes) {
  if (!IsPrioritizer()) return next_->Prioritize(pod, nodes);  // zeros without a call
  if (auto e = Unreachable()) return *e;
  auto r = next_->Prioritize(pod, nodes);
  if (!r.ok()) Observe(r.status());
  return r;
}

Ok SimulatedExtender::Bind(const api::Pod& pod, const std::string& node) {
  return Error{"extender " + Name() + " does not bind in a simulation"};
}

std::vector<std::unique_ptr<framework::Extender>> ForSimulation(
    std::vector<std::unique_ptr<framework::Extender>> extenders) {
  std::vector<std::unique_ptr<framework::Extender>> out;
  out.reserve(extenders.size());
  for (auto& e : extenders) out.push_back(std::make_unique<SimulatedExtender>(std::move(e)));
  return out;
}

}  // namespace berth::simulate
