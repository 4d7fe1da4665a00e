// Quantity::Parse; a parsed quantity prints as a string that parses back to the same value.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "api/quantity.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto q = berth::api::Quantity::Parse(berth::fuzz::AsView(data, size));
  if (!q.ok()) return 0;
  (void)q->Value();
  std::string text = q->ToString();
  auto again = berth::api::Quantity::Parse(text);
  if (!again.ok() || !(*again == *q)) {
    fprintf(stderr, "quantity %lld printed as \"%s\" does not parse back\n",
            static_cast<long long>(q->MilliValue()), text.c_str());
    abort();
  }
  return 0;
}
