#include "cel/regex.h"

namespace berth::cel {

std::optional<std::regex> CompileRegex(std::string_view re2, std::string* error) {
  auto flags = std::regex::ECMAScript;
  std::string_view p = re2;
  if (p.starts_with("(?i)")) {
    flags |= std::regex::icase;
    p.remove_prefix(4);
  }
  std::string out;
  out.reserve(p.size());
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      char n = p[i + 1];
      if (!in_class && n == 'A') {
        out += '^';
      } else if (!in_class && n == 'z') {
        out += '$';
      } else {
        out += c;
        out += n;
      }
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // A leading ']' or '^]' is literal inside a class.
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];
      continue;
    }
    if (c == '(' && p.substr(i).starts_with("(?P<")) {
      size_t close = p.find('>', i);
      if (close != std::string_view::npos) {
        out += '(';
        i = close;
        continue;
      }
    }
    out += c;
  }
  try {
    return std::regex(out, flags);
  } catch (const std::regex_error& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

}  // namespace berth::cel
