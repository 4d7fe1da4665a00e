#pragma once
// CEL's regular expressions are RE2; berth runs them with std::regex (ECMAScript). Compile
// translates the RE2 constructs selectors use that ECMAScript spells differently or lacks: a
// leading (?i) flag group, named groups (?P<name>...), \A and \z. Anything else is passed through,
// so RE2-only features (possessive forms, \p{...} classes) fail to compile here while cel-go
// accepts them.

#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace berth::cel {

// The compiled pattern, or nullopt (with *error set to std::regex's reason) when invalid.
std::optional<std::regex> CompileRegex(std::string_view re2, std::string* error = nullptr);

}  // namespace berth::cel
