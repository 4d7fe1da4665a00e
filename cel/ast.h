#pragma once
// The parsed expression tree, after macro expansion (has() becomes a test-only select; all,
// exists, exists_one, map, filter and cel.bind become comprehensions, as cel-go expands them).
// Nodes are immutable once the checker has annotated them.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cel/types.h"
#include "cel/value.h"

namespace berth::cel {

struct Overload;

struct Expr {
  Expr() = default;
  Expr(Expr&&) = default;
  Expr& operator=(Expr&&) = default;
  // Iterative, so that destroying a deep tree (a parse refused for its depth) needs no deep
  // recursion.
  ~Expr();

  enum class Kind { kConst, kIdent, kSelect, kCall, kList, kMap, kComprehension };
  Kind kind = Kind::kConst;
  int32_t offset = 0;  // byte offset into the source, for error positions

  Value constant;           // kConst
  std::string name;         // kIdent: the name; kSelect: the field; kCall: the function
  bool test_only = false;   // kSelect from has()
  bool has_target = false;  // kCall: receiver style, args[0] is the target
  // kSelect: args[0] is the operand. kCall: the arguments. kList: the elements. kMap: key,
  // value, key, value... kComprehension: range, init, condition, step, result.
  std::vector<std::unique_ptr<Expr>> args;
  std::string iter_var, accu_var;  // kComprehension
  std::string iter_var2;   // kComprehension with two variables: (index, element) or (key, value)
  bool all_const = false;  // kList/kMap whose elements are all constants (cost 0)
  bool synthetic = false;  // made up by a macro expansion (not in the source)
  bool dynamic_dispatch = false;  // kCall: several overloads fit the checked argument types
  const Overload* overload = nullptr;
  const std::vector<Overload>* overloads = nullptr;  // kCall: the function's overloads
  // kCall of a statically bound function on constants (quantity("40Gi")): its result, computed
  // once by the checker. The evaluator still charges the call's cost, as cel-go evaluates it.
  std::shared_ptr<const Result<Value>>
      precomputed;  // kCall: the one overload that fits, if only one

  Type type;  // set by the checker
};

using ExprPtr = std::unique_ptr<Expr>;

}  // namespace berth::cel
