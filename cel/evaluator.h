#pragma once
// Evaluates a checked expression tree against one activation (the `device` value), tracking
// cel-go's runtime cost and stopping once it exceeds the limit. One Evaluator per evaluation;
// the tree is only read, so any number of evaluators may share it across threads.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "cel/ast.h"

namespace berth::cel {

class Evaluator {
 public:
  Evaluator(Value device, uint64_t cost_limit) : device_(std::move(device)), limit_(cost_limit) {}

  // The value, or a runtime error with cel-go's message ("no such key: x", "no such overload",
  // "division by zero", ...), or "operation cancelled: actual cost limit exceeded".
  Result<Value> Eval(const Expr& e);

  uint64_t cost() const { return cost_; }
  bool cost_exceeded() const { return cost_exceeded_; }

 private:
  Result<Value> EvalCall(const Expr& e);
  Result<Value> EvalComprehension(const Expr& e);
  Result<Value> EvalConditional(const Expr& e);
  Result<Value> EvalLogical(const Expr& e, bool is_and);
  // A select/index chain ("attribute" in cel-go): its cost is 1 for the root (plus the root's own
  // cost when it is not an identifier) and 1 per constant qualifier.
  Result<Value> EvalAttribute(const Expr& e, bool charge_root);
  Result<Value> Select(const Value& operand, const std::string& field, bool test_only);
  Result<Value> Index(const Value& operand, const Value& key);
  Result<Value> Lookup(const std::string& name) const;
  void Charge(uint64_t c);
  // Evaluation stops for good (no && or || absorbs it) once the cost limit is exceeded or cel-go
  // would have panicked (its "internal error: ..." results).
  bool Stopped() const { return cost_exceeded_ || fatal_.has_value(); }
  Result<Value> StopError() const;

  Value device_;
  uint64_t limit_;
  uint64_t cost_ = 0;
  bool cost_exceeded_ = false;
  std::optional<Error> fatal_;
  std::vector<std::pair<const std::string*, Result<Value>>> vars_;
};

}  // namespace berth::cel
