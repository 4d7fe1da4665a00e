#pragma once
// Evaluates a checked expression tree against one activation (the `device` value), tracking
// cel-go's runtime cost and stopping once it exceeds the limit. One Evaluator per evaluation;
// the tree is only read, so any number of evaluators may share it across threads.
//
// Work is bounded before it is done: a call's cost is computed from its arguments (or, for the
// functions cel-go costs by their result, from the result's size worked out arithmetically) and
// charged before the function runs, so a call over the limit never runs; a call whose result
// would be larger than kMaxStringBytes / kMaxListElements stops the evaluation instead of
// allocating it; and an Interrupt (deadline or stop flag) is polled every few hundred steps,
// comprehension iterations included.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "cel/ast.h"
#include "cel/cel.h"
#include "cel/functions.h"

namespace berth::cel {

// Berth's own bounds on one value built by a function (cel-go has none; it would allocate
// whatever the call asks for). Both are above anything cel-go can still use within the selector
// cost limit: a string of more than 10,000,000 code points costs over 1,000,000 to traverse, and
// a list of more than 1,000,000 elements to search or iterate.
inline constexpr uint64_t kMaxStringBytes = uint64_t{1} << 26;   // 64 MiB
inline constexpr uint64_t kMaxListElements = uint64_t{1} << 20;  // 1,048,576

class Evaluator {
 public:
  // `interrupt` (optional, not owned) must outlive the Evaluator.
  Evaluator(Value device, uint64_t cost_limit, const Interrupt* interrupt = nullptr)
      : device_(std::move(device)), limit_(cost_limit), interrupt_(interrupt) {}

  // The value, or a runtime error with cel-go's message ("no such key: x", "no such overload",
  // "division by zero", ...), or "operation cancelled: actual cost limit exceeded" (nothing over
  // the limit ran), or "operation cancelled: <function>() result too large: ..." (berth's
  // kMaxStringBytes / kMaxListElements), or "operation interrupted: context deadline exceeded" /
  // "operation interrupted: context canceled" (see Interrupt).
  Result<Value> Eval(const Expr& e);

  uint64_t cost() const { return cost_; }
  bool cost_exceeded() const { return cost_exceeded_; }
  // Why an interrupted evaluation stopped: "context deadline exceeded" or "context canceled";
  // empty when it was not interrupted.
  const std::string& interrupted() const { return interrupted_; }

 private:
  Result<Value> EvalCall(const Expr& e);
  // The rest of a call once its arguments are evaluated (`err`: the first argument error).
  Result<Value> FinishCall(const Expr& e, std::vector<Value> args, std::optional<Error> err);
  // A map()/filter() step, `@result + [elem]`, appending in place when the accumulator is not
  // shared (amortised O(1) instead of copying it), with the same result and costs.
  Result<Value> AppendToAccumulator(const Expr& e);
  // Stops the evaluation (fatal) when `args` would make `fn` build a value over berth's size
  // bounds; true when it did.
  bool ResultTooLarge(const Expr& e, const Overload& o, const std::vector<Value>& args);
  void CheckInterrupt();
  Result<Value> EvalComprehension(const Expr& e);
  Result<Value> EvalConditional(const Expr& e);
  Result<Value> EvalLogical(const Expr& e, bool is_and);
  // A select/index chain ("attribute" in cel-go): its cost is 1 for the root (plus the root's own
  // cost when it is not an identifier) and 1 per constant qualifier.
  Result<Value> EvalAttribute(const Expr& e, bool charge_root);
  Result<Value> Select(const Value& operand, const std::string& field, bool test_only);
  Result<Value> Index(const Value& operand, const Value& key);
  Result<Value> Lookup(const std::string& name);
  // The value of variable `i`, evaluating a comprehension's accumulator initialiser on first use
  // as cel-go's folder does (so a cel.bind variable never used costs nothing).
  Result<Value>& Resolve(size_t i);
  void Charge(uint64_t c);
  // Evaluation stops for good (no && or || absorbs it) once the cost limit is exceeded, cel-go
  // would have panicked (its "internal error: ..." results), a result would be too large, or it
  // was interrupted.
  bool Stopped() const { return cost_exceeded_ || fatal_.has_value(); }
  Result<Value> StopError() const;

  Value device_;
  uint64_t limit_;
  const Interrupt* interrupt_;
  uint32_t steps_ = 0;
  std::string interrupted_;
  uint64_t cost_ = 0;
  bool cost_exceeded_ = false;
  std::optional<Error> fatal_;
  struct Var {
    const std::string* name;
    Result<Value> value;
    const Expr* lazy_init = nullptr;  // an accumulator not yet initialised
  };
  std::vector<Var> vars_;
};

}  // namespace berth::cel
