#pragma once
// Recursive-descent parser for CEL (cel-go's CEL.g4 precedence) with cel-go's standard
// macros expanded in place: has, all, exists, exists_one, map (2 and 3 arguments), filter,
// and the bindings extension's cel.bind.

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "cel/ast.h"

namespace berth::cel {

struct ParseError {
  std::string message;  // e.g. "Syntax error: mismatched input ..." (texts differ from ANTLR's)
  int32_t offset = 0;
};

// The expanded tree, or nullptr with the errors (lexical first, then the first syntax error;
// ANTLR's texts: "mismatched input '<EOF>' expecting {...}", "missing ')' at '<EOF>'",
// "extraneous input '2' expecting <EOF>", "no viable alternative at input '.'").
ExprPtr Parse(std::string_view src, std::vector<ParseError>* errors);
// The same, keeping only the first error.
ExprPtr Parse(std::string_view src, ParseError* error);

}  // namespace berth::cel
