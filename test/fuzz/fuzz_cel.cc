// CEL device selectors: berth::cel::Compile with the selector cost limit, then Evaluate on a
// device, directly and prepared (the two must agree). Input: the selector, optionally followed by
// a line "---" and the device in test/cel/device_json.h's JSON form, e.g.
//   device.attributes["gpu.example.com"].model.matches("^a[0-9]+$")
//   ---
//   {"driver": "gpu.example.com", "attributes": {"model": {"string": "a100"}}}
// Without a device (or with one that does not parse) a fixed GPU is used.
#include <string>

#include "cel/cel.h"
#include "test/cel/device_json.h"
#include "test/fuzz/fuzz_common.h"

using namespace berth::cel;

namespace {

Device Gpu() { return testing::SampleGpu(); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input = berth::fuzz::AsView(data, size);
  std::string_view expr = input;
  Device device = Gpu();
  if (size_t sep = input.find("\n---\n"); sep != std::string_view::npos) {
    expr = input.substr(0, sep);
    std::string line = "{\"expr\": \"\", \"device\": ";
    line.append(input.substr(sep + 5));
    line += "}";
    auto c = testing::ParseCase(line);
    if (c.ok()) device = std::move(c->device);
  }
  auto program = Compile(expr, kSelectorMaxCost);
  if (!program.ok()) return 0;
  EvalStats direct_stats;
  auto direct = program->Evaluate(device, &direct_stats);
  auto prepared = Prepare(device);
  if (prepared.ok()) {
    EvalStats prepared_stats;
    auto again = program->Evaluate(*prepared, &prepared_stats);
    if (direct.ok() != again.ok() || (direct.ok() && *direct != *again)) __builtin_trap();
  }
  return 0;
}
