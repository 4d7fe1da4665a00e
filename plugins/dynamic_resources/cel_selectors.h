#pragma once
// The allocator's CEL seam backed by berth's CEL library (cel/): each distinct expression is
// compiled once and kept (upstream keeps an LRU of compiled selectors); a device is converted to
// CEL's view of it per evaluation. Runtime errors are worded as upstream's EnhanceRuntimeError
// words them. Thread-safe.

#include <map>
#include <mutex>
#include <string>

#include "cel/cel.h"
#include "plugins/dynamic_resources/structured/types.h"

namespace berth::plugins::dynamic_resources {

class CelSelectors final : public structured::SelectorEvaluator {
 public:
  Outcome Evaluate(const std::string& expression, const std::string& driver,
                   const api::Device& device) const override;

 private:
  // Compiled programs by expression (bounded: cleared when it grows past kMaxEntries).
  static constexpr size_t kMaxEntries = 4096;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::shared_ptr<const Result<cel::Program>>, std::less<>> cache_;
};

// CEL's view of a ResourceSlice device of `driver`.
cel::Device ToCelDevice(const std::string& driver, const api::Device& device);

}  // namespace berth::plugins::dynamic_resources
