#pragma once
// Test helper: the JSON line format shared with test/cel/celgo (the cel-go reference):
//   input:  {"expr": "...", "device": {"driver": "...", "allowMultipleAllocations": true,
//            "attributes": {"<qualified name>": {"int"|"bool"|"string"|"version": ...}},
//            "capacity": {"<qualified name>": {"value": "<quantity>"}}}}
//   output: {"ok": bool, "value": bool, "class": "compile"|"runtime"|"cost", "error": "...",
//            "cost": N}

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "cel/cel.h"

namespace berth::cel::testing {

struct Case {
  std::string expr;
  Device device;
};

struct Outcome {
  bool ok = false;
  bool value = false;
  std::string error_class;  // "", "compile", "runtime", "cost"
  std::string error;
  uint64_t cost = 0;
};

Result<Case> ParseCase(std::string_view line);
Result<Outcome> ParseOutcome(std::string_view line);
std::string OutcomeToJson(const Outcome& o);

// The GPU device the CEL unit tests and fuzz_cel evaluate against (driver gpu.example.com, model
// "a100", 108 cores, mig, driverVersion 1.2.3, rack 7, 40Gi memory).
Device SampleGpu();

// Compiles and evaluates with berth, classifying errors like the reference does.
Outcome RunBerth(const Case& c);

}  // namespace berth::cel::testing
