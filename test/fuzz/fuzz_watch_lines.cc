// Watch streams as a hostile API server sends them: the input's first byte picks a chunk size and
// a small line limit, the rest is the body. Fed in chunks, the splitter must deliver exactly the
// lines (and the refusal) that splitting the whole body at once gives, and never buffer more
// than the limit while it accepts the stream.

#include <cstdlib>
#include <string>
#include <vector>

#include "informers/client/watch_lines.h"
#include "test/fuzz/fuzz_common.h"

namespace {

using berth::client::WatchLineSplitter;

struct Split {
  std::vector<std::string> lines;
  WatchLineSplitter::Status status = WatchLineSplitter::Status::kOk;
  std::string rest;
};

Split Run(std::string_view body, size_t chunk, size_t max_line) {
  WatchLineSplitter splitter(max_line);
  Split out;
  for (size_t at = 0; at < body.size() && out.status == WatchLineSplitter::Status::kOk;
       at += chunk) {
    out.status = splitter.Feed(body.substr(at, chunk), [&](std::string_view line) {
      if (line.size() > max_line) std::abort();  // a delivered line over the limit
      out.lines.emplace_back(line);
      return true;
    });
    // While the stream is accepted, no more than one line's limit is held back.
    if (out.status == WatchLineSplitter::Status::kOk && splitter.Rest().size() > max_line) {
      std::abort();
    }
  }
  if (out.status == WatchLineSplitter::Status::kOk) out.rest = std::string(splitter.Rest());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t chunk = 1 + (data[0] & 0x0f);
  const size_t max_line = 8 + (data[0] >> 4) * 16;
  const std::string_view body = berth::fuzz::AsView(data + 1, size - 1);
  const Split whole = Run(body, body.size() + 1, max_line);
  const Split chunked = Run(body, chunk, max_line);
  if (whole.status != chunked.status) std::abort();
  if (whole.status == WatchLineSplitter::Status::kOk &&
      (whole.lines != chunked.lines || whole.rest != chunked.rest)) {
    std::abort();
  }
  return 0;
}
