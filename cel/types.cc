#include "cel/types.h"

namespace berth::cel {

Type Type::List(Type elem) {
  return Type{Kind::kList, {std::make_shared<const Type>(std::move(elem))}, 0};
}
Type Type::Map(Type key, Type value) {
  return Type{Kind::kMap,
              {std::make_shared<const Type>(std::move(key)),
               std::make_shared<const Type>(std::move(value))},
              0};
}
Type Type::Optional(Type value) {
  return Type{Kind::kOptional, {std::make_shared<const Type>(std::move(value))}, 0};
}

std::string Type::Name() const {
  switch (kind) {
    case Kind::kDyn:
      return "dyn";
    case Kind::kNull:
      return "null_type";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kUint:
      return "uint";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return "list(" + Elem().Name() + ")";
    case Kind::kMap:
      return "map(" + Elem().Name() + ", " + Value().Name() + ")";
    case Kind::kOptional:
      return "optional_type(" + Elem().Name() + ")";
    case Kind::kType:
      return "type";
    case Kind::kSemver:
      return "kubernetes.Semver";
    case Kind::kQuantity:
      return "kubernetes.Quantity";
    case Kind::kDevice:
      return "kubernetes.DRADevice";
    case Kind::kParam:
      return std::string(1, param);
  }
  return "dyn";
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind || params.size() != o.params.size() || param != o.param) return false;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!(*params[i] == *o.params[i])) return false;
  }
  return true;
}

bool Assignable(const Type& param, const Type& arg) {
  if (param.kind == Type::Kind::kDyn || arg.kind == Type::Kind::kDyn) return true;
  if (param.kind == Type::Kind::kParam) return true;
  if (param.kind != arg.kind) return false;
  for (size_t i = 0; i < param.params.size(); ++i) {
    if (!Assignable(*param.params[i], *arg.params[i])) return false;
  }
  return true;
}

}  // namespace berth::cel
