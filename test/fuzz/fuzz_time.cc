// RFC 3339 times (api::ParseTime, as in metadata.creationTimestamp) and Go durations
// (config::ParseGoDuration, as in the config's leaseDuration); the first byte picks which.
#include <chrono>
#include <string>

#include "api/decode.h"
#include "config/duration.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string text(berth::fuzz::AsView(data + 1, size - 1));
  if (data[0] & 1) {
    auto t = berth::api::ParseTime(text);
    if (t.ok()) (void)berth::api::FormatTime(*t);
  } else {
    auto d = berth::config::ParseGoDuration(text);
    if (d.ok()) {
      (void)berth::config::FormatGoDuration(
          std::chrono::duration_cast<std::chrono::milliseconds>(*d));
    }
  }
  return 0;
}
