#include "cel/functions.h"

#include <cmath>

#include "cel/functions_internal.h"

namespace berth::cel {

const std::vector<Overload>* FindFunction(std::string_view function) {
  static const internal::Registry* registry = [] {
    auto* r = new internal::Registry;
    internal::RegisterStandard(*r);
    internal::RegisterExtensions(*r);
    internal::RegisterKubernetes(*r);
    internal::RegisterLists(*r);
    return r;
  }();
  auto it = registry->find(function);
  return it == registry->end() ? nullptr : &it->second;
}

bool ValueMatches(const Type& param, const Value& v) {
  using K = Type::Kind;
  switch (param.kind) {
    case K::kDyn:
    case K::kParam:
      return true;
    case K::kNull:
      return v.Is<Null>();
    case K::kBool:
      return v.Is<bool>();
    case K::kInt:
      return v.Is<int64_t>();
    case K::kUint:
      return v.Is<uint64_t>();
    case K::kDouble:
      return v.Is<double>();
    case K::kString:
      return v.Is<std::string>();
    case K::kBytes:
      return v.Is<Bytes>();
    case K::kList:
      return v.IsList();
    case K::kMap:
      return v.IsMap();
    case K::kOptional:
      return v.Is<OptionalValue>();
    case K::kType:
      return v.Is<TypeValue>();
    case K::kSemver:
      return v.Is<Semver>();
    case K::kQuantity:
      return v.Is<Quantity>();
    case K::kDevice:
      return v.IsMap();
  }
  return false;
}

namespace {

uint64_t Ceil(double d) { return static_cast<uint64_t>(std::ceil(d)); }

uint64_t Traversal(const Value& v) {
  if (v.Is<std::string>()) return static_cast<uint64_t>(v.As<std::string>().size() * 0.1);
  if (v.Is<Bytes>()) return static_cast<uint64_t>(v.As<Bytes>().data().size() * 0.1);
  if (v.IsList()) {
    uint64_t c = 0;
    for (const auto& e : v.List().items) c += Traversal(e);
    return c;
  }
  if (v.IsMap()) {
    uint64_t c = 0;
    for (const auto& [k, e] : v.Map().entries) c += Traversal(k) + Traversal(e);
    return c;
  }
  return 1;
}

}  // namespace

uint64_t ComputeCallCost(CallCost cost, const std::vector<Value>& a, const Value& result) {
  switch (cost) {
    case CallCost::kOne:
      return 1;
    case CallCost::kEquals:
      if (a[0].Is<Quantity>() || a[0].Is<Semver>()) return 1;
      return Ceil(std::min(CostSize(a[0]), CostSize(a[1])) * 0.1);
    case CallCost::kStringArg0:
      return Ceil(CostSize(a[0]) * 0.1);
    case CallCost::kStringArg1:
      return Ceil(CostSize(a[1]) * 0.1);
    case CallCost::kStringArg0Twice:
      return Ceil(CostSize(a[0]) * 2 * 0.1);
    case CallCost::kAddSizes:
      return Ceil((CostSize(a[0]) + CostSize(a[1])) * 0.1);
    case CallCost::kInList:
      return CostSize(a[1]);
    case CallCost::kRegex:
      return Ceil((1.0 + CostSize(a[0])) * 0.1) * Ceil(CostSize(a[1]) * 0.25);
    case CallCost::kContains:
      return Ceil(CostSize(a[0]) * 0.1) * Ceil(CostSize(a[1]) * 0.1);
    case CallCost::kJoin:
      return Ceil(CostSize(result) * 2 * 0.1);
    case CallCost::kTraversal:
      return a.empty() ? 0 : Traversal(a[0]);
    case CallCost::kListOutput:
      return 11 + CostSize(result);
    case CallCost::kListFlatten: {
      double depth =
          a.size() == 2 && a[1].Is<int64_t>() ? static_cast<double>(a[1].As<int64_t>()) : 1.0;
      if (depth < 0) depth = 1.0;
      return 11 + static_cast<uint64_t>(static_cast<double>(CostSize(a[0])) * depth);
    }
    case CallCost::kListSelfCompare: {
      uint64_t n = CostSize(a[0]);
      double factor = 2.0;
      if (n > 0 && a[0].IsList() &&
          (a[0].List().items[0].Is<std::string>() || a[0].List().items[0].Is<Bytes>())) {
        factor += 0.1;
      }
      return 11 + static_cast<uint64_t>(static_cast<double>(n * n) * factor);
    }
    case CallCost::kSets1:
      return 1 + CostSize(a[0]) * CostSize(a[1]);
    case CallCost::kSets2:
      return 1 + CostSize(a[0]) * CostSize(a[1]) * 2;
  }
  return 1;
}

}  // namespace berth::cel
