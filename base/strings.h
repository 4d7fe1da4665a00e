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

namespace strings_internal {

// Length of the valid UTF-8 sequence at s[i] (1..4), or 0 when the bytes there are not one.
inline size_t Utf8Length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid too.
  if (n == 2 && c < 0xc2) return 0;
  if (n == 3 && ((c == 0xe0 && b(i + 1) < 0xa0) || (c == 0xed && b(i + 1) >= 0xa0))) return 0;
  if (n == 4 && ((c == 0xf0 && b(i + 1) < 0x90) || c > 0xf4 || (c == 0xf4 && b(i + 1) >= 0x90))) {
    return 0;
  }
  return n;
}

// Appends s with control characters and invalid UTF-8 escaped as Go's strconv.Quote does
// (\n, \t, \x1b, ...); with `quotes`, '"' and '\\' are escaped as well.
inline void AppendEscaped(std::string_view s, bool quotes, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = Utf8Length(s, i);
    if (n > 1) {
      out->append(s.substr(i, n));
      i += n;
      continue;
    }
    ++i;
    switch (c) {
      case '\n':
        out->append("\\n");
        continue;
      case '\r':
        out->append("\\r");
        continue;
      case '\t':
        out->append("\\t");
        continue;
      case '"':
      case '\\':
        if (quotes) out->push_back('\\');
        out->push_back(static_cast<char>(c));
        continue;
      default:
        break;
    }
    if (n == 1 && c >= 0x20 && c != 0x7f) {
      out->push_back(static_cast<char>(c));
    } else {  // a control character, or a byte that is not valid UTF-8
      out->append("\\x");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xf]);
    }
  }
}

}  // namespace strings_internal

// The text in double quotes, as Go's %q prints strings: Quote("x") == "\"x\"", and a newline,
// a control character or a byte of invalid UTF-8 inside is escaped, so user input quoted in a
// message never breaks it over lines.
inline std::string Quote(std::string_view s) {
  std::string out = "\"";
  strings_internal::AppendEscaped(s, true, &out);
  out.push_back('"');
  return out;
}

// A message on one line: control characters and invalid UTF-8 escaped (\n, \x1b, \xff), the rest
// as is. Every error berth prints goes through it.
inline std::string OneLine(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  strings_internal::AppendEscaped(s, false, &out);
  return out;
}

// Percent-encodes a query parameter value (continue tokens are base64, resourceVersions opaque),
// as Go's url.QueryEscape does for the unreserved characters.
inline std::string QueryEscape(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    const bool unreserved = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                            (c >= 'A' && c <= 'Z') || c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace berth
