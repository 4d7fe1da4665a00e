// Kubernetes' semver (version 1) and quantity CEL libraries.
#include "cel/functions_internal.h"

namespace berth::cel::internal {
namespace {

using K = Type::Kind;
using Args = std::vector<Value>;

void Add(Registry& r, std::string name, Overload o) { r[name].push_back(std::move(o)); }

Result<Value> ParseQuantity(const std::string& s) {
  auto q = Quantity::Parse(s);
  if (!q.ok()) return q.status();
  return Value{*q};
}

const Quantity& Q(const Value& v) { return v.As<Quantity>(); }

Result<Value> QuantityArith(const Args& a, bool add) {
  Quantity y = a[1].Is<Quantity>() ? Q(a[1]) : Quantity::FromInt(a[1].As<int64_t>());
  return Value{add ? Q(a[0]).Add(y) : Q(a[0]).Sub(y)};
}

Result<Value> ParseSemver(const Args& a) {
  bool normalize = a.size() == 2 && a[1].As<bool>();
  auto v = normalize ? Semver::ParseNormalized(a[0].As<std::string>())
                     : Semver::Parse(a[0].As<std::string>());
  if (!v.ok()) return v.status();
  return Value{*v};
}

}  // namespace

void RegisterKubernetes(Registry& r) {
  const Type kInt = T(K::kInt), kString = T(K::kString), kBool = T(K::kBool),
             kDouble = T(K::kDouble), kQ = T(K::kQuantity), kS = T(K::kSemver);

  Add(r, "quantity",
      {"string_to_quantity",
       false,
       {kString},
       kQ,
       [](const Args& a) { return ParseQuantity(a[0].As<std::string>()); },
       CallCost::kStringArg0});
  Add(r, "isQuantity",
      {"is_quantity_string",
       false,
       {kString},
       kBool,
       [](const Args& a) -> Result<Value> {
         return Value{Quantity::Parse(a[0].As<std::string>()).ok()};
       },
       CallCost::kStringArg0});
  Add(r, "sign", {"quantity_sign", false, {kQ}, kInt, [](const Args& a) -> Result<Value> {
                    return Value{int64_t{Q(a[0]).Compare(Quantity{})}};
                  }});
  Add(r, "isInteger",
      {"quantity_is_integer", true, {kQ}, kBool, [](const Args& a) -> Result<Value> {
         int64_t unused;
         return Value{Q(a[0]).AsInt64(&unused)};
       }});
  Add(r, "asInteger", {"quantity_get_int", true, {kQ}, kInt, [](const Args& a) -> Result<Value> {
                         int64_t v;
                         if (!Q(a[0]).AsInt64(&v)) return Error{"cannot convert value to integer"};
                         return Value{v};
                       }});
  Add(r, "asApproximateFloat",
      {"quantity_get_float", true, {kQ}, kDouble, [](const Args& a) -> Result<Value> {
         return Value{static_cast<double>(Q(a[0]).nanos) / 1e9};
       }});
  Add(r, "add",
      {"quantity_add", true, {kQ, kQ}, kQ, [](const Args& a) { return QuantityArith(a, true); }});
  Add(r, "add", {"quantity_add_int", true, {kQ, kInt}, kQ, [](const Args& a) {
                   return QuantityArith(a, true);
                 }});
  Add(r, "sub",
      {"quantity_sub", true, {kQ, kQ}, kQ, [](const Args& a) { return QuantityArith(a, false); }});
  Add(r, "sub", {"quantity_sub_int", true, {kQ, kInt}, kQ, [](const Args& a) {
                   return QuantityArith(a, false);
                 }});
  Add(r, "isGreaterThan",
      {"quantity_is_greater_than", true, {kQ, kQ}, kBool, [](const Args& a) -> Result<Value> {
         return Value{Q(a[0]).Compare(Q(a[1])) > 0};
       }});
  Add(r, "isLessThan",
      {"quantity_is_less_than", true, {kQ, kQ}, kBool, [](const Args& a) -> Result<Value> {
         return Value{Q(a[0]).Compare(Q(a[1])) < 0};
       }});
  Add(r, "compareTo",
      {"quantity_compare_to", true, {kQ, kQ}, kInt, [](const Args& a) -> Result<Value> {
         return Value{int64_t{Q(a[0]).Compare(Q(a[1]))}};
       }});

  Add(r, "semver", {"string_to_semver", false, {kString}, kS, ParseSemver, CallCost::kStringArg0});
  Add(r, "semver",
      {"string_bool_to_semver", false, {kString, kBool}, kS, ParseSemver, CallCost::kStringArg0});
  Add(r, "isSemver",
      {"is_semver_string",
       false,
       {kString},
       kBool,
       [](const Args& a) -> Result<Value> { return Value{ParseSemver(a).ok()}; },
       CallCost::kStringArg0});
  Add(r, "isSemver",
      {"is_semver_string_bool",
       false,
       {kString, kBool},
       kBool,
       [](const Args& a) -> Result<Value> { return Value{ParseSemver(a).ok()}; },
       CallCost::kStringArg0});
  Add(r, "major", {"semver_major", true, {kS}, kInt, [](const Args& a) -> Result<Value> {
                     return Value{static_cast<int64_t>(a[0].As<Semver>().major)};
                   }});
  Add(r, "minor", {"semver_minor", true, {kS}, kInt, [](const Args& a) -> Result<Value> {
                     return Value{static_cast<int64_t>(a[0].As<Semver>().minor)};
                   }});
  Add(r, "patch", {"semver_patch", true, {kS}, kInt, [](const Args& a) -> Result<Value> {
                     return Value{static_cast<int64_t>(a[0].As<Semver>().patch)};
                   }});
  Add(r, "isGreaterThan",
      {"semver_is_greater_than", true, {kS, kS}, kBool, [](const Args& a) -> Result<Value> {
         return Value{a[0].As<Semver>().Compare(a[1].As<Semver>()) > 0};
       }});
  Add(r, "isLessThan",
      {"semver_is_less_than", true, {kS, kS}, kBool, [](const Args& a) -> Result<Value> {
         return Value{a[0].As<Semver>().Compare(a[1].As<Semver>()) < 0};
       }});
  Add(r, "compareTo",
      {"semver_compare_to", true, {kS, kS}, kInt, [](const Args& a) -> Result<Value> {
         return Value{int64_t{a[0].As<Semver>().Compare(a[1].As<Semver>())}};
       }});
}

}  // namespace berth::cel::internal
