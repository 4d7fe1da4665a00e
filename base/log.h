#pragma once
// Minimal leveled logging to stderr: `BERTH_LOG(0) << "..."` prints at the default level,
// `BERTH_LOG(2)` only with -v=2 or more. Lines are prefixed with an RFC 3339 UTC timestamp and
// written whole (one write per line), so threads do not interleave within a line.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <string>

#include "base/strings.h"

namespace berth::log {

inline std::atomic<int>& Verbosity() {
  static std::atomic<int> v{0};
  return v;
}

class Line {
 public:
  explicit Line(const char* level) {
    auto now = std::chrono::system_clock::now();
    std::time_t t = std::chrono::system_clock::to_time_t(now);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms.count()));
    out_ << buf << level << " ";
  }
  ~Line() {
    // One record, one line: a newline or terminal escape in a logged value is escaped.
    std::string s = OneLine(out_.str());
    s.push_back('\n');
    std::fwrite(s.data(), 1, s.size(), stderr);
  }
  template <typename T>
  Line& operator<<(const T& v) {
    out_ << v;
    return *this;
  }

 private:
  std::ostringstream out_;
};

}  // namespace berth::log

#define BERTH_LOG(level)                            \
  if ((level) > ::berth::log::Verbosity().load()) { \
  } else                                            \
    ::berth::log::Line((level) == 0 ? "I" : "V")
#define BERTH_WARN() ::berth::log::Line("W")
#define BERTH_ERROR() ::berth::log::Line("E")
