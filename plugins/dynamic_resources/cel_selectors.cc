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

structured::SelectorEvaluator::Outcome CelSelectors::Evaluate(const std::string& expression,
                                                              const std::string& driver,
                                                              const api::Device& device) const {
  std::shared_ptr<const Result<cel::Program>> program;
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(expression);
    if (it != cache_.end()) program = it->second;
  }
  if (!program) {
    // Compiled outside the lock; a concurrent compile of the same text is harmless.
    program = std::make_shared<const Result<cel::Program>>(cel::Compile(expression));
    std::lock_guard lock(mu_);
    if (cache_.size() >= kMaxEntries) cache_.clear();
    cache_.emplace(expression, program);
  }
  Outcome out;
  if (!program->ok()) {
    out.compile_error = program->error();
    return out;
  }
  auto matched = (*program)->Evaluate(ToCelDevice(driver, device));
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
