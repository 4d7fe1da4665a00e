#pragma once
// Go `time.Duration` text, as used by metav1.Duration fields of component configuration
// ("15s", "1m30s", "500ms", "1.5h", "-2s", "0"). Thread-safe, no allocation beyond the result.

#include <chrono>
#include <string>
#include <string_view>

#include "base/result.h"

namespace berth::config {

// Parses like Go's time.ParseDuration: an optional sign, then one or more decimal numbers (with an
// optional fraction) each followed by a unit (ns, us, µs, μs, ms, s, m, h); "0" alone is allowed.
// Errors are worded like Go's: `time: invalid duration "x"`, `time: missing unit in duration
// "1"`, `time: unknown unit "d" in duration "1d"`; values beyond ±292 years are invalid.
Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view text);

// Formats like Go's Duration.String(), at millisecond precision: "0s", "500ms", "1.5s",
// "1m30s", "2h0m0s".
std::string FormatGoDuration(std::chrono::milliseconds d);

}  // namespace berth::config
