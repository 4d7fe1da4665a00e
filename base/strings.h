#pragma once
// Small string helpers shared by every layer. Header-only; no allocation beyond the result.

#include <string>
#include <string_view>
#include <vector>

namespace berth {

// The parts separated by `sep` (default ", "): Join({"a","b"}) == "a, b".
inline std::string Join(const std::vector<std::string>& parts, std::string_view sep = ", ") {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

// Go's %v of a []string, as upstream's messages print it: GoList({"a","b"}) == "[a b]".
inline std::string GoList(const std::vector<std::string>& parts) {
  return "[" + Join(parts, " ") + "]";
}

// The text in double quotes, as Go's %q prints plain strings: Quote("x") == "\"x\"".
inline std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace berth
