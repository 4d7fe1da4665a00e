// Kubernetes' semver (version 1) and quantity CEL libraries.
#include "cel/functions_internal.h"

namespace berth::cel::internal {
namespace {

using K = Type::Kind;
using Args = std::vector<Value>;
using api::Quantity;

void Add(Registry& r, std::string name, Overload o) { r[name].push_back(std::move(o)); }

// resource.ParseQuantity's error for every malformed text berth sees (upstream's other two
// messages, for unparsable numbers and suffixes, are reported as this one).
constexpr const char* kQuantityFormat =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

Result<Value> ParseQuantity(const std::string& s) {
  auto q = Quantity::Parse(s);
  if (!q.ok()) return Error{kQuantityFormat};
  return Value{*q};
}

int Cmp(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

Result<Value> QuantityArith(const Args& a, bool add) {
  int64_t x = a[0].As<Quantity>().milli;
  int64_t y = 0;
  if (a[1].Is<Quantity>()) {
    y = a[1].As<Quantity>().milli;
  } else if (__builtin_mul_overflow(a[1].As<int64_t>(), int64_t{1000}, &y)) {
    return Error{"integer overflow"};
  }
  int64_t out;
  if (add ? __builtin_add_overflow(x, y, &out) : __builtin_sub_overflow(x, y, &out)) {
    return Error{"integer overflow"};
  }
  return Value{Quantity::FromMilli(out)};
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
                    return Value{int64_t{Cmp(a[0].As<Quantity>().milli, 0)}};
                  }});
  Add(r, "isInteger",
      {"quantity_is_integer", true, {kQ}, kBool, [](const Args& a) -> Result<Value> {
         return Value{a[0].As<Quantity>().milli % 1000 == 0};
       }});
  Add(r, "asInteger", {"quantity_get_int", true, {kQ}, kInt, [](const Args& a) -> Result<Value> {
                         int64_t m = a[0].As<Quantity>().milli;
                         if (m % 1000 != 0) return Error{"cannot convert value to integer"};
                         return Value{m / 1000};
                       }});
  Add(r, "asApproximateFloat",
      {"quantity_get_float", true, {kQ}, kDouble, [](const Args& a) -> Result<Value> {
         return Value{static_cast<double>(a[0].As<Quantity>().milli) / 1000.0};
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
         return Value{a[0].As<Quantity>().milli > a[1].As<Quantity>().milli};
       }});
  Add(r, "isLessThan",
      {"quantity_is_less_than", true, {kQ, kQ}, kBool, [](const Args& a) -> Result<Value> {
         return Value{a[0].As<Quantity>().milli < a[1].As<Quantity>().milli};
       }});
  Add(r, "compareTo",
      {"quantity_compare_to", true, {kQ, kQ}, kInt, [](const Args& a) -> Result<Value> {
         return Value{int64_t{Cmp(a[0].As<Quantity>().milli, a[1].As<Quantity>().milli)}};
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
