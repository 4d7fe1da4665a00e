#pragma once
// Type-checks a parsed expression against DRA's declared environment: the one variable
// `device` (kubernetes.DRADevice: driver string, allowMultipleAllocations bool, attributes
// map(string, map(string, dyn)), capacity map(string, map(string, kubernetes.Quantity))) and
// the functions of functions.h. Annotates every node's `type` and rewrites namespaced calls
// (optional.of(x)) into global calls. Messages follow cel-go's checker.

#include <string>
#include <vector>

#include "cel/ast.h"

namespace berth::cel {

struct CheckIssue {
  std::string message;  // e.g. "undeclared reference to 'foo' (in container '')"
  int32_t offset = 0;
  // Not a type error: a constant conversion that fails when cel-go plans the program
  // ("program instantiation failed: ..."), reported only when the expression checks.
  bool instantiation = false;
};

// All issues found (empty when the expression is well-typed).
std::vector<CheckIssue> Check(Expr& root);

}  // namespace berth::cel
