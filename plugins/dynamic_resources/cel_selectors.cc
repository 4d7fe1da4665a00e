#include "plugins/dynamic_resources/cel_selectors.h"

namespace berth::plugins::dynamic_resources {

cel::Device ToCelDevice(const std::string& driver, const api::Device& device) {
  cel::Device d;
  d.driver = driver;
  d.allow_multiple_allocations = device.allow_multiple_allocations.value_or(false);
  for (const auto& [name, a] : device.attributes) {
    if (a.int_value) {
      d.attributes.emplace(name, *a.int_value);
    } else if (a.bool_value) {
      d.attributes.emplace(name, *a.bool_value);
    } else if (a.string_value) {
      d.attributes.emplace(name, *a.string_value);
    } else if (a.version_value) {
      d.attributes.emplace(name, cel::VersionText{*a.version_value});
    }
    // List-typed attributes (DRAListTypeAttributes, alpha and off) are not visible to CEL.
  }
  for (const auto& [name, c] : device.capacity) d.capacity.emplace(name, c.value);
  return d;
}

void CelSelectors::Retain(
    const std::vector<std::shared_ptr<const api::ResourceSlice>>& slices) const {
  std::unique_lock lock(devices_mu_);
  size_t current = 0;
  for (const auto& slice : slices) {
    auto [it, inserted] = slices_.try_emplace(slice.get(), slice);
    if (!inserted) {
      ++current;
      continue;
    }
    ++current;
    for (const auto& device : slice->spec.devices) devices_.try_emplace(&device, nullptr);
  }
  if (slices_.size() == current) return;
  // Some retained slices are gone: forget them and their devices.
  std::unordered_map<const api::ResourceSlice*, bool> now;
  now.reserve(slices.size());
  for (const auto& slice : slices) now.emplace(slice.get(), true);
  for (auto it = slices_.begin(); it != slices_.end();) {
    if (now.count(it->first)) {
      ++it;
      continue;
    }
    for (const auto& device : it->second->spec.devices) devices_.erase(&device);
    it = slices_.erase(it);
  }
}

size_t CelSelectors::PreparedCount() const {
  std::shared_lock lock(devices_mu_);
  size_t n = 0;
  for (const auto& [device, prepared] : devices_) n += prepared != nullptr;
  return n;
}

std::shared_ptr<const Result<cel::Program>> CelSelectors::Program(
    const std::string& expression) const {
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(expression);
    if (it != cache_.end()) return it->second;
  }
  // Compiled outside the lock; a concurrent compile of the same text is harmless.
  auto program = std::make_shared<const Result<cel::Program>>(cel::Compile(expression));
  std::lock_guard lock(mu_);
  if (cache_.size() >= kMaxEntries) cache_.clear();
  cache_.emplace(expression, program);
  return program;
}

CelSelectors::Prepared CelSelectors::PreparedFor(const std::string& driver,
                                                 const api::Device& device) const {
  bool retained = false;
  {
    std::shared_lock lock(devices_mu_);
    auto it = devices_.find(&device);
    if (it != devices_.end()) {
      if (it->second) return it->second;
      retained = true;
    }
  }
  auto prepared = std::make_shared<const Result<cel::PreparedDevice>>(
      cel::Prepare(ToCelDevice(driver, device)));
  if (retained) {
    std::unique_lock lock(devices_mu_);
    auto it = devices_.find(&device);
    if (it != devices_.end() && !it->second) it->second = prepared;
  }
  return prepared;
}

structured::SelectorEvaluator::Outcome CelSelectors::Evaluate(
    const std::string& expression, const std::string& driver, const api::Device& device,
    const structured::Interruption& stop) const {
  std::shared_ptr<const Result<cel::Program>> program = Program(expression);
  Outcome out;
  if (!program->ok()) {
    out.compile_error = program->error();
    return out;
  }
  Prepared prepared = PreparedFor(driver, device);
  cel::Interrupt interrupt{stop.deadline, stop.stopping};
  cel::EvalStats stats;
  Result<bool> matched = prepared->ok() ? (*program)->Evaluate(**prepared, interrupt, &stats)
                                        : Result<bool>(prepared->status());
  if (!stats.interrupted.empty()) {
    out.interrupted = stats.interrupted;
    return out;
  }
  if (!matched.ok()) {
    std::string message = matched.error();
    if (message.find("no such key:") != std::string::npos) {
      message +=
          ". consider using CEL optional chaining (.? followed by orValue()) or guarding the "
          "check with has() for optional fields";
    }
    out.runtime_error = std::move(message);
    return out;
  }
  out.matches = *matched;
  return out;
}

}  // namespace berth::plugins::dynamic_resources
