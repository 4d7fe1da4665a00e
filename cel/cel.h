#pragma once
// berth's CEL for DRA device selectors (resource.k8s.io/v1 DeviceClass and ResourceClaim
// `selectors[].cel.expression`), matching kube-scheduler v1.37's
// k8s.io/dynamic-resource-allocation/cel: the stored-expressions environment with the one
// variable `device`, cost limit resourceapi.CELSelectorExpressionMaxCost (1,000,000), and cel-go's
// messages.
//
// The environment:
//   device.driver                    string
//   device.allowMultipleAllocations  bool (false when the device does not say)
//   device.attributes                map(domain, map(id, dyn)): int, bool, string or semver values
//   device.capacity                  map(domain, map(id, kubernetes.Quantity))
// Looking up a domain the device has no attribute (capacity) in yields an empty map, so
// `device.attributes["other.example.com"].model` is the runtime error `no such key: model`, never
// false; guard with has(), `in`, or optional chaining (`.?model.orValue("")`).
// Functions: CEL's standard library (operators, size, contains/startsWith/endsWith/matches,
// conversions int/uint/double/string/bool/bytes/dyn/type, macros has/all/exists/exists_one/map/
// filter), cel.bind, two-variable comprehensions (all/exists/existsOne(k, v, p),
// transformList), optional values (.?f, [?k], optional.of/none, hasValue/value/orValue/or), the
// strings extension's charAt/indexOf/lastIndexOf/lowerAscii/upperAscii/replace/split/substring/
// trim/join, the lists extension (slice, flatten, sort, lists.range, reverse, distinct), the sets
// extension (sets.contains/equivalent/intersects), Kubernetes' regex (find, findAll), lists
// (isSorted, sum, min, max, indexOf, lastIndexOf, includes), semver (semver, isSemver,
// major/minor/patch, isGreaterThan/isLessThan/compareTo) and quantity (quantity, isQuantity, sign,
// isInteger, asInteger, asApproximateFloat, add, sub, isGreaterThan/isLessThan/compareTo)
// libraries. Functions upstream's environment also has but berth does not (url, ip/cidr, format,
// strings.quote, sortBy, transformMap, timestamps/durations, authz) are compile errors
// here ("undeclared reference"). CEL quantities are exact to the nano-unit like upstream's
// (capacities arrive exact to the milli-unit, as api::Quantity holds them). Regexes run on
// std::regex (ECMAScript) after translating RE2's (?i), (?P<name>...), \A and \z; other RE2-only
// syntax is rejected. List-valued attributes (the alpha DRAListTypeAttributes) are not supported.
// test/cel's differential test checks all of this against cel-go with upstream's environment:
// results, error classes and messages, and runtime costs.
//
// Bounded work (see cel/evaluator.h): a call's cost is charged before it runs, so nothing over
// the cost limit is ever computed; a single string over 64 MiB or list over 1,048,576 elements
// is never built ("operation cancelled: result of replace() too large: ..."; cel-go has no such
// bound); an Interrupt (the DRA plugin's filter deadline, shutdown) stops an evaluation; chains
// of && and || are balanced and nesting is capped as cel-go's parser does (250 levels,
// 100,000 code points).
//
// Thread safety: Compile and Prepare may be called from any thread; Programs and PreparedDevices
// are immutable and may be shared, and Evaluate may run concurrently on them.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "api/quantity.h"
#include "base/result.h"

namespace berth::cel {

// The runtime cost limit of a DRA selector (resourceapi.CELSelectorExpressionMaxCost).
inline constexpr uint64_t kSelectorMaxCost = 1000000;

// One attribute value of a device (resource.k8s.io/v1 DeviceAttribute): exactly one of int, bool,
// string or version. A version keeps its text; it is parsed as semver when evaluated, like
// upstream (an invalid one fails evaluation with "attribute <name>: parse semantic version: ...").
struct VersionText {
  std::string text;
  bool operator==(const VersionText&) const = default;
};
using AttributeValue = std::variant<int64_t, bool, std::string, VersionText>;

// The device a selector looks at. Attribute and capacity names are resourceapi.QualifiedName:
// "domain/id", or a bare "id" that belongs to the driver's domain (upstream's
// parseQualifiedName: split at the first '/', no '/' means domain = driver). So the attribute
// "model" of driver "gpu.example.com" is `device.attributes["gpu.example.com"].model`.
struct Device {
  std::string driver;
  std::map<std::string, AttributeValue> attributes;
  std::map<std::string, api::Quantity> capacity;
  bool allow_multiple_allocations = false;
};

// A device converted once for evaluation (its attribute and capacity maps built, its version
// attributes parsed). Evaluating several selectors against one device should prepare it once.
// Immutable; shareable across threads.
class PreparedDevice {
 public:
  struct Impl;

 private:
  friend Result<PreparedDevice> Prepare(const Device& device);
  friend class Program;
  std::shared_ptr<const Impl> impl_;
};

// Fails (kInvalid) as upstream's DeviceMatches does before evaluating anything when a version
// attribute is not semver: "attribute <name>: parse semantic version: <reason>".
Result<PreparedDevice> Prepare(const Device& device);

// What an evaluation cost, in cel-go's runtime cost units (what upstream's EvalDetails.ActualCost
// reports), and whether it stopped at the cost limit; the error is then "operation cancelled:
// actual cost limit exceeded".
struct EvalStats {
  uint64_t cost = 0;
  bool cost_limit_exceeded = false;
  // Why an Interrupt stopped it: "context deadline exceeded" or "context canceled"; empty when
  // it was not interrupted.
  std::string interrupted;
};

// Lets the caller stop an evaluation from outside (upstream's ContextEval with a context):
// `deadline` passing or `stop` returning true (a shutdown) ends it with
// "operation interrupted: context deadline exceeded" or "operation interrupted: context
// canceled". `stop` is called from the evaluating thread; it must be cheap and thread-safe.
struct Interrupt {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::function<bool()> stop;
};

class Program {
 public:
  // Whether `device` matches. Errors (code kInvalid) carry cel-go's runtime message, e.g.
  // "no such key: model", "no such overload", "division by zero", "CEL result of type string could
  // not be converted to bool: ...", "operation cancelled: actual cost limit exceeded" (then
  // stats->cost_limit_exceeded is set). `stats`, when given, receives the cost either way.
  Result<bool> Evaluate(const Device& device, EvalStats* stats = nullptr) const;
  // The same for a prepared device (no per-call conversion).
  Result<bool> Evaluate(const PreparedDevice& device, EvalStats* stats = nullptr) const;
  // The same, stopping early when `interrupt` says so, with upstream's DeviceMatches error
  // (kUnavailable): "operation interrupted: context deadline exceeded: context deadline
  // exceeded" (or "...: context canceled: context canceled"); then stats->interrupted says which.
  Result<bool> Evaluate(const PreparedDevice& device, const Interrupt& interrupt,
                        EvalStats* stats = nullptr) const;

  const std::string& expression() const { return expression_; }

 private:
  friend Result<Program> Compile(std::string_view expression, uint64_t cost_limit);
  struct Impl;
  std::shared_ptr<const Impl> impl_;
  std::string expression_;
};

// Parses and type-checks `expression` (upstream's CompileCELExpression for stored expressions).
// Errors are kInvalid with upstream's CompilationResult.Error text:
//   "compilation failed: ERROR: <input>:1:5: <issue>\n | <line>\n | ....^" (one block per issue:
//     syntax errors as cel-go's ANTLR parser words the first one; type errors; and only when
//     there are none, the validators' homogeneous-literal and regex errors),
//   "must evaluate to bool or the unknown type, not int",
//   "program instantiation failed: <reason>" (a constant conversion or find() pattern that fails).
// `cost_limit` is the runtime limit (upstream's Options.CostLimit).
Result<Program> Compile(std::string_view expression, uint64_t cost_limit = kSelectorMaxCost);

}  // namespace berth::cel
