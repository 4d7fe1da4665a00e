#pragma once
// WatchLineSplitter: cuts a watch response body into its newline-delimited JSON events as the
// bytes arrive. Each byte is scanned once (the scan resumes where the previous chunk's stopped),
// so one event sent in many small reads costs time linear in its size; rescanning the buffer
// from its start on every read was quadratic (a 16 MB event in 4 KB reads: 32 GB of scanning).
// A line longer than `max_line` bytes is refused (kTooLong) before more is buffered, so a server
// that sends an endless line cannot grow memory without bound.
//
// Not thread-safe: one splitter per stream, fed by the reading thread.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace berth::client {

// client-go's limit on one watch event: apimachinery's streaming decoder refuses an object over
// 16 MiB with "object to decode was longer than maximum allowed size". The API server stores
// objects of at most ~1.5 MiB (etcd's --max-request-bytes) and takes request bodies of at most
// 3 MiB (MaxRequestBodyBytes); the JSON of a large Node or ResourceSlice stays well under this.
inline constexpr size_t kMaxWatchLine = 16 << 20;

class WatchLineSplitter {
 public:
  enum class Status {
    kOk,       // every complete line was delivered; a partial one is kept for the next Feed
    kStopped,  // on_line returned false
    kTooLong,  // a line (complete or not) is longer than max_line; the splitter is spent
  };

  explicit WatchLineSplitter(size_t max_line = kMaxWatchLine) : max_line_(max_line) {}

  // Appends `data` and calls on_line for each line it completes, in order, without its "\n" or
  // a "\r" before it; empty lines are skipped.
  Status Feed(std::string_view data, const std::function<bool(std::string_view line)>& on_line);

  // The bytes after the last newline (a final line the server did not end).
  std::string_view Rest() const { return pending_; }
  size_t max_line() const { return max_line_; }

 private:
  const size_t max_line_;
  std::string pending_;
  size_t scanned_ = 0;  // leading bytes of pending_ known to hold no '\n'
};

}  // namespace berth::client
