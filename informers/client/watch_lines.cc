#include "informers/client/watch_lines.h"

#include <algorithm>

namespace berth::client {

WatchLineSplitter::Status WatchLineSplitter::Feed(
    std::string_view data, const std::function<bool(std::string_view line)>& on_line) {
  pending_.append(data);
  size_t start = 0;
  for (size_t nl; (nl = pending_.find('\n', std::max(start, scanned_))) != std::string::npos;
       start = nl + 1) {
    scanned_ = 0;  // the lines before nl are consumed; the next scan starts after it
    std::string_view line(pending_.data() + start, nl - start);
    if (line.size() > max_line_) return Status::kTooLong;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!on_line(line)) {
      pending_.erase(0, nl + 1);
      return Status::kStopped;
    }
  }
  // Only the partial last line moves: at most what this call appended, or nothing.
  pending_.erase(0, start);
  scanned_ = pending_.size();
  return pending_.size() > max_line_ ? Status::kTooLong : Status::kOk;
}

}  // namespace berth::client
