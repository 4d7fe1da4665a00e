#pragma once
// Static CEL types as the checker sees them (a subset of cel-go's: the primitives, list, map,
// optional, type, the two Kubernetes library types and DRA's device object). Types are small
// immutable values; parameters are shared.

#include <memory>
#include <string>
#include <vector>

namespace berth::cel {

struct Type {
  enum class Kind {
    kDyn,
    kNull,
    kBool,
    kInt,
    kUint,
    kDouble,
    kString,
    kBytes,
    kList,      // params[0] = element
    kMap,       // params[0] = key, params[1] = value
    kOptional,  // params[0] = value
    kType,
    kSemver,
    kQuantity,
    kDevice,  // kubernetes.DRADevice
    kParam,   // an overload's type parameter (name in `param`)
  };
  Kind kind = Kind::kDyn;
  std::vector<std::shared_ptr<const Type>> params;
  char param = 0;

  static Type Dyn() { return Type{}; }
  static Type Of(Kind k) { return Type{k, {}, 0}; }
  static Type List(Type elem);
  static Type Map(Type key, Type value);
  static Type Optional(Type value);
  static Type Param(char name) { return Type{Kind::kParam, {}, name}; }

  const Type& Elem() const { return *params[0]; }
  const Type& Value() const { return *params[1]; }

  // cel-go's spelling: "int", "list(string)", "map(string, dyn)", "kubernetes.Quantity".
  std::string Name() const;
  bool operator==(const Type& o) const;
};

// cel-go's isAssignable without substitutions beyond one level of type parameters: dyn on
// either side matches anything; list/map/optional match parameter-wise.
bool Assignable(const Type& param, const Type& arg);

}  // namespace berth::cel
