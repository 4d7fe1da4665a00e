#pragma once
// The allocator's CEL seam backed by berth's CEL library (cel/): each distinct expression is
// compiled once and kept (upstream keeps an LRU of compiled selectors), and each device of the
// slices the plugin retains is converted to CEL's view of it once (cel::Prepare) and kept until its
// slice goes away; a device of any other slice is converted per evaluation. Runtime errors are
// worded as upstream's EnhanceRuntimeError words them. Thread-safe.

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cel/cel.h"
#include "plugins/dynamic_resources/structured/types.h"

namespace berth::plugins::dynamic_resources {

class CelSelectors final : public structured::SelectorEvaluator {
 public:
  using structured::SelectorEvaluator::Evaluate;
  // An evaluation cut short by `stop` has Outcome::interrupted set.
  Outcome Evaluate(const std::string& expression, const std::string& driver,
                   const api::Device& device, const structured::Interruption& stop) const override;

  // The slices of this scheduling cycle: their devices' prepared forms are cached (the slices
  // are kept alive, so a device's address names it), and those of slices no longer in the list
  // are dropped. Called once per cycle that allocates, before any Evaluate of that cycle.
  void Retain(const std::vector<std::shared_ptr<const api::ResourceSlice>>& slices) const;

  // How many devices have a cached prepared form (for tests).
  size_t PreparedCount() const;

 private:
  using Prepared = std::shared_ptr<const Result<cel::PreparedDevice>>;
  std::shared_ptr<const Result<cel::Program>> Program(const std::string& expression) const;
  Prepared PreparedFor(const std::string& driver, const api::Device& device) const;

  // Compiled programs by expression (bounded: cleared when it grows past kMaxEntries).
  static constexpr size_t kMaxEntries = 4096;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::shared_ptr<const Result<cel::Program>>, std::less<>> cache_;

  // Retained slices and the prepared form of their devices (null until first evaluated).
  mutable std::shared_mutex devices_mu_;
  mutable std::unordered_map<const api::ResourceSlice*, std::shared_ptr<const api::ResourceSlice>>
      slices_;
  mutable std::unordered_map<const api::Device*, Prepared> devices_;
};

// CEL's view of a ResourceSlice device of `driver`.
cel::Device ToCelDevice(const std::string& driver, const api::Device& device);

}  // namespace berth::plugins::dynamic_resources
