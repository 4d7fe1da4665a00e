// JSON bytes -> api::Value -> typed object (DecodeObject dispatches on `kind`), and the Value's
// own JSON must parse again.
#include <cstdlib>

#include "api/decode.h"
#include "api/json/parse.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto v = berth::api::json::ParseJson(berth::fuzz::AsView(data, size));
  if (!v.ok()) return 0;
  (void)berth::api::DecodeObject(*v);
  (void)berth::api::DescribeObject(*v);
  auto again = berth::api::json::ParseJson(berth::api::json::ToJson(*v));
  if (!again.ok()) abort();  // ToJson wrote something ParseJson refuses
  return 0;
}
