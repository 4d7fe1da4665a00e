#pragma once
// The function overloads of DRA's CEL environment that berth implements: CEL's standard
// operators and functions, the cel-go strings extension (v2 subset), Kubernetes' regex, lists
// (v1), semver (v1) and quantity libraries, and optional values. The checker resolves calls
// against the declared parameter types; the evaluator dispatches on runtime values with the
// same table. Immutable after first use; safe to read from any thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "cel/types.h"
#include "cel/value.h"

namespace berth::cel {

// How a call's runtime cost is computed (cel-go's CostTracker.costCall plus Kubernetes'
// library.CostEstimator.CallCost).
enum class CallCost {
  kOne,
  kEquals,           // ceil(min(size(a0), size(a1)) * 0.1); 1 for quantity/semver lhs
  kStringArg0,       // ceil(size(a0) * 0.1)
  kStringArg1,       // ceil(size(a1) * 0.1)
  kStringArg0Twice,  // ceil(size(a0) * 2 * 0.1)
  kAddSizes,         // ceil((size(a0) + size(a1)) * 0.1)
  kInList,           // size(a1)
  kRegex,            // ceil((1 + size(a0)) * 0.1) * ceil(size(a1) * 0.25)
  kContains,         // ceil(size(a0) * 0.1) * ceil(size(a1) * 0.1)
  kJoin,             // ceil(size(result) * 2 * 0.1)
  kTraversal,        // Kubernetes' traversalCost(a0)
  // cel-go's lists and sets extension trackers (only for statically bound calls):
  kListOutput,       // 11 + size(result)
  kListFlatten,      // 11 + size(a0) * depth
  kListSelfCompare,  // 11 + size(a0)^2 * (2, or 2.1 for strings and bytes)
  kSets1,            // 1 + size(a0) * size(a1)
  kSets2,            // 1 + size(a0) * size(a1) * 2
};

struct Overload {
  std::string_view id;
  bool member = false;
  std::vector<Type> params;  // the receiver first for member overloads
  Type result;
  Result<Value> (*impl)(const std::vector<Value>& args) = nullptr;
  CallCost cost = CallCost::kOne;
};

// The overloads declared for `function`, or nullptr when no such function exists.
const std::vector<Overload>* FindFunction(std::string_view function);

// Whether a runtime value fits a declared parameter type (dyn and type parameters match all).
bool ValueMatches(const Type& param, const Value& v);

uint64_t ComputeCallCost(CallCost cost, const std::vector<Value>& args, const Value& result);

}  // namespace berth::cel
