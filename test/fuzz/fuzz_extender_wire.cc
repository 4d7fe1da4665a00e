// The scheduler-extender wire format (cmd/berth/app/extender/wire.h): the first byte picks the
// decoder (ExtenderArgs as `berth extender` reads them, or the three answers `berth run` reads
// from an extender); an ExtenderArgs that decodes is encoded back into a filter answer.
#include "cmd/berth/app/extender/wire.h"
#include "test/fuzz/fuzz_common.h"

using namespace berth::extenders;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view body = berth::fuzz::AsView(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      (void)DecodeExtenderArgs(body);
      break;
    case 1:
      (void)DecodeFilterResult(body);
      break;
    case 2:
      (void)DecodeHostPriorityList(body);
      break;
    default:
      (void)DecodeBindingResult(body);
      break;
  }
  return 0;
}
