#pragma once
// Splits a CEL expression into tokens (cel-go's grammar: CEL.g4). Literals are decoded here:
// numbers into int64/uint64/double, strings and bytes with their escapes.

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "cel/value.h"

namespace berth::cel {

struct Token {
  enum class Kind { kEnd, kIdent, kLiteral, kPunct };
  Kind kind = Kind::kEnd;
  std::string text;  // identifier name or punctuation ("==", "&&", ".?", "[?" ...)
  Value literal;     // kLiteral
  int32_t offset = 0;
  int32_t length = 0;  // bytes of source text (0 for kEnd)
};

// The tokens, ending with kEnd. Like ANTLR's lexer, an unrecognised character is reported in
// *error ("token recognition error at: '#'") and skipped, and an unterminated string swallows the
// rest of the line; the tokens are still returned. Malformed literals (bad escapes, out-of-range
// numbers) fail the whole call; either way *error has the message and byte offset.
struct LexError {
  std::string message;
  int32_t offset = 0;
};
Result<std::vector<Token>> Lex(std::string_view src, LexError* error);

}  // namespace berth::cel
