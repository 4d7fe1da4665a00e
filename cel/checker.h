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
  // cel-go reports in phases: type errors; then, only when there are none, its AST validators'
  // (homogeneous literals, regex literals); then, only when those pass, a constant conversion
  // that fails as the program is planned ("program instantiation failed: ...").
  enum class Phase { kCheck, kValidate, kInstantiate };
  Phase phase = Phase::kCheck;
};

// All issues found (empty when the expression is well-typed).
std::vector<CheckIssue> Check(Expr& root);

}  // namespace berth::cel
