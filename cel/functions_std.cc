// CEL's standard declarations: operators, size, string predicates, conversions.
#include <cmath>

#include "cel/functions_internal.h"
#include "cel/regex.h"

namespace berth::cel::internal {
namespace {

using K = Type::Kind;
using Args = std::vector<Value>;

Result<Value> Overflow() { return Error{"integer overflow"}; }

// Kubernetes' Semver and Quantity values answer equality with another type with an error
// (types.MaybeNoSuchOverloadErr); CEL's own types just say false.
bool KubernetesTypeMismatch(const Args& a) {
  if (a[0].Is<Quantity>() && a[1].Is<Quantity>()) return a[1].As<Quantity>().boxed;
  return (a[0].Is<Semver>() || a[0].Is<Quantity>()) && a[0].v.index() != a[1].v.index();
}

template <typename Op>
Result<Value> IntOp(const Args& a, Op op) {
  int64_t out;
  if (op(a[0].As<int64_t>(), a[1].As<int64_t>(), &out)) return Overflow();
  return Value{out};
}
template <typename Op>
Result<Value> UintOp(const Args& a, Op op) {
  uint64_t out;
  if (op(a[0].As<uint64_t>(), a[1].As<uint64_t>(), &out)) return Error{"unsigned integer overflow"};
  return Value{out};
}

Result<Value> Size(const Args& a) { return Value{static_cast<int64_t>(CostSize(a[0]))}; }

// cel-go's Double/Int/Uint.Compare refuse to order NaN.
Error NaNUnordered() { return Error{"NaN values cannot be ordered"}; }

Result<Value> Less(const Args& a) {
  int c = Compare(a[0], a[1]);
  if (c == -2) return NoOverload();
  if (c == -3) return NaNUnordered();
  return Value{c == -1};
}
Result<Value> LessEq(const Args& a) {
  int c = Compare(a[0], a[1]);
  if (c == -2) return NoOverload();
  if (c == -3) return NaNUnordered();
  return Value{c == -1 || c == 0};
}
Result<Value> Greater(const Args& a) {
  int c = Compare(a[0], a[1]);
  if (c == -2) return NoOverload();
  if (c == -3) return NaNUnordered();
  return Value{c == 1};
}
Result<Value> GreaterEq(const Args& a) {
  int c = Compare(a[0], a[1]);
  if (c == -2) return NoOverload();
  if (c == -3) return NaNUnordered();
  return Value{c == 1 || c == 0};
}

// cel-go's string.Match: Go's regexp.MatchString, whose compile error is returned as is.
Result<Value> Matches(const Args& a) {
  auto re = Regex::Compile(a[1].As<std::string>());
  if (!re.ok()) return re.status();
  return Value{re->Matches(a[0].As<std::string>())};
}

Result<Value> IntToString(const Args& a) {
  if (a[0].Is<int64_t>()) return Value{std::to_string(a[0].As<int64_t>())};
  if (a[0].Is<uint64_t>()) return Value{std::to_string(a[0].As<uint64_t>())};
  if (a[0].Is<bool>()) return Value{std::string(a[0].As<bool>() ? "true" : "false")};
  if (a[0].Is<Bytes>()) return Value{a[0].As<Bytes>().data()};
  if (a[0].Is<double>()) {
    // Go's strconv.FormatFloat(f, 'g', -1, 64) shortest round-trip.
    char buf[64];
    for (int prec = 1; prec <= 17; ++prec) {
      std::snprintf(buf, sizeof(buf), "%.*g", prec, a[0].As<double>());
      if (std::strtod(buf, nullptr) == a[0].As<double>()) break;
    }
    return Value{std::string(buf)};
  }
  return a[0];
}

Result<Value> ToInt(const Args& a) {
  const Value& v = a[0];
  if (v.Is<int64_t>()) return v;
  if (v.Is<uint64_t>()) {
    if (v.As<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return Error{"integer overflow"};
    return Value{static_cast<int64_t>(v.As<uint64_t>())};
  }
  if (v.Is<double>()) {
    double d = v.As<double>();
    if (!(d > -9223372036854775808.0 && d < 9223372036854775807.0))
      return Error{"integer overflow"};
    return Value{static_cast<int64_t>(d)};
  }
  const std::string& s = v.As<std::string>();
  errno = 0;
  char* end = nullptr;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno == ERANGE ||
      std::isspace(static_cast<unsigned char>(s[0]))) {
    return Error{"type conversion error from 'string' to 'int'"};
  }
  return Value{static_cast<int64_t>(x)};
}

Result<Value> ToUint(const Args& a) {
  const Value& v = a[0];
  if (v.Is<uint64_t>()) return v;
  if (v.Is<int64_t>()) {
    if (v.As<int64_t>() < 0) return Error{"unsigned integer overflow"};
    return Value{static_cast<uint64_t>(v.As<int64_t>())};
  }
  if (v.Is<double>()) {
    double d = v.As<double>();
    if (!(d > -1.0 && d < 18446744073709551616.0)) return Error{"unsigned integer overflow"};
    return Value{static_cast<uint64_t>(d)};
  }
  const std::string& s = v.As<std::string>();
  errno = 0;
  char* end = nullptr;
  unsigned long long x = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno == ERANGE || s[0] == '-' || s[0] == '+' ||
      std::isspace(static_cast<unsigned char>(s[0]))) {
    return Error{"type conversion error from 'string' to 'uint'"};
  }
  return Value{static_cast<uint64_t>(x)};
}

Result<Value> ToDouble(const Args& a) {
  const Value& v = a[0];
  if (v.Is<double>()) return v;
  if (v.Is<int64_t>()) return Value{static_cast<double>(v.As<int64_t>())};
  if (v.Is<uint64_t>()) return Value{static_cast<double>(v.As<uint64_t>())};
  const std::string& s = v.As<std::string>();
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || std::isspace(static_cast<unsigned char>(s[0]))) {
    return Error{"type conversion error from 'string' to 'double'"};
  }
  return Value{d};
}

Result<Value> ToBool(const Args& a) {
  if (a[0].Is<bool>()) return a[0];
  const std::string& s = a[0].As<std::string>();
  if (s == "true" || s == "TRUE" || s == "True" || s == "t" || s == "1") return Value{true};
  if (s == "false" || s == "FALSE" || s == "False" || s == "f" || s == "0") return Value{false};
  return Error{"type conversion error from 'string' to 'bool'"};
}

Result<Value> TypeOf(const Args& a) {
  if (a[0].Is<Semver>()) return Value{TypeValue{"kubernetes.Semver"}};
  return Value{TypeValue{a[0].TypeName()}};
}

void Add(Registry& r, std::string name, Overload o) { r[name].push_back(std::move(o)); }

}  // namespace

void RegisterStandard(Registry& r) {
  const Type kInt = T(K::kInt), kUint = T(K::kUint), kDouble = T(K::kDouble),
             kString = T(K::kString), kBool = T(K::kBool), kBytes = T(K::kBytes);
  Add(r, "_==_",
      {"equals",
       false,
       {A(), A()},
       kBool,
       [](const Args& a) -> Result<Value> {
         if (KubernetesTypeMismatch(a)) return NoOverload();
         return Value{Equal(a[0], a[1])};
       },
       CallCost::kEquals});
  Add(r, "_!=_",
      {"not_equals",
       false,
       {A(), A()},
       kBool,
       [](const Args& a) -> Result<Value> {
         if (KubernetesTypeMismatch(a)) return NoOverload();
         return Value{!Equal(a[0], a[1])};
       },
       CallCost::kEquals});
  Add(r, "!_", {"logical_not", false, {kBool}, kBool, [](const Args& a) -> Result<Value> {
                  return Value{!a[0].As<bool>()};
                }});
  Add(r, "-_", {"negate_int64", false, {kInt}, kInt, [](const Args& a) -> Result<Value> {
                  if (a[0].As<int64_t>() == INT64_MIN) return Overflow();
                  return Value{-a[0].As<int64_t>()};
                }});
  Add(r, "-_", {"negate_double", false, {kDouble}, kDouble, [](const Args& a) -> Result<Value> {
                  return Value{-a[0].As<double>()};
                }});

  // Arithmetic.
  Add(r, "_+_", {"add_int64", false, {kInt, kInt}, kInt, [](const Args& a) {
                   return IntOp(a, [](int64_t x, int64_t y, int64_t* o) {
                     return __builtin_add_overflow(x, y, o);
                   });
                 }});
  Add(r, "_+_", {"add_uint64", false, {kUint, kUint}, kUint, [](const Args& a) {
                   return UintOp(a, [](uint64_t x, uint64_t y, uint64_t* o) {
                     return __builtin_add_overflow(x, y, o);
                   });
                 }});
  Add(r, "_+_",
      {"add_double", false, {kDouble, kDouble}, kDouble, [](const Args& a) -> Result<Value> {
         return Value{a[0].As<double>() + a[1].As<double>()};
       }});
  Add(r, "_+_",
      {"add_string",
       false,
       {kString, kString},
       kString,
       [](const Args& a) -> Result<Value> {
         return Value{a[0].As<std::string>() + a[1].As<std::string>()};
       },
       CallCost::kAddSizes});
  Add(r, "_+_",
      {"add_bytes",
       false,
       {kBytes, kBytes},
       kBytes,
       [](const Args& a) -> Result<Value> {
         return Value{Bytes{a[0].As<Bytes>().data() + a[1].As<Bytes>().data()}};
       },
       CallCost::kAddSizes});
  Add(r, "_+_",
      {"add_list",
       false,
       {Type::List(A()), Type::List(A())},
       Type::List(A()),
       [](const Args& a) -> Result<Value> {
         std::vector<Value> out = a[0].List().items;
         out.insert(out.end(), a[1].List().items.begin(), a[1].List().items.end());
         return Value::MakeList(std::move(out));
       }});
  Add(r, "_-_", {"subtract_int64", false, {kInt, kInt}, kInt, [](const Args& a) {
                   return IntOp(a, [](int64_t x, int64_t y, int64_t* o) {
                     return __builtin_sub_overflow(x, y, o);
                   });
                 }});
  Add(r, "_-_", {"subtract_uint64", false, {kUint, kUint}, kUint, [](const Args& a) {
                   return UintOp(a, [](uint64_t x, uint64_t y, uint64_t* o) {
                     return __builtin_sub_overflow(x, y, o);
                   });
                 }});
  Add(r, "_-_",
      {"subtract_double", false, {kDouble, kDouble}, kDouble, [](const Args& a) -> Result<Value> {
         return Value{a[0].As<double>() - a[1].As<double>()};
       }});
  Add(r, "_*_", {"multiply_int64", false, {kInt, kInt}, kInt, [](const Args& a) {
                   return IntOp(a, [](int64_t x, int64_t y, int64_t* o) {
                     return __builtin_mul_overflow(x, y, o);
                   });
                 }});
  Add(r, "_*_", {"multiply_uint64", false, {kUint, kUint}, kUint, [](const Args& a) {
                   return UintOp(a, [](uint64_t x, uint64_t y, uint64_t* o) {
                     return __builtin_mul_overflow(x, y, o);
                   });
                 }});
  Add(r, "_*_",
      {"multiply_double", false, {kDouble, kDouble}, kDouble, [](const Args& a) -> Result<Value> {
         return Value{a[0].As<double>() * a[1].As<double>()};
       }});
  Add(r, "_/_", {"divide_int64", false, {kInt, kInt}, kInt, [](const Args& a) -> Result<Value> {
                   int64_t x = a[0].As<int64_t>(), y = a[1].As<int64_t>();
                   if (y == 0) return Error{"division by zero"};
                   if (x == INT64_MIN && y == -1) return Overflow();
                   return Value{x / y};
                 }});
  Add(r, "_/_", {"divide_uint64", false, {kUint, kUint}, kUint, [](const Args& a) -> Result<Value> {
                   if (a[1].As<uint64_t>() == 0) return Error{"division by zero"};
                   return Value{a[0].As<uint64_t>() / a[1].As<uint64_t>()};
                 }});
  Add(r, "_/_",
      {"divide_double", false, {kDouble, kDouble}, kDouble, [](const Args& a) -> Result<Value> {
         return Value{a[0].As<double>() / a[1].As<double>()};
       }});
  Add(r, "_%_", {"modulo_int64", false, {kInt, kInt}, kInt, [](const Args& a) -> Result<Value> {
                   int64_t x = a[0].As<int64_t>(), y = a[1].As<int64_t>();
                   if (y == 0) return Error{"modulus by zero"};
                   if (x == INT64_MIN && y == -1) return Overflow();
                   return Value{x % y};
                 }});
  Add(r, "_%_", {"modulo_uint64", false, {kUint, kUint}, kUint, [](const Args& a) -> Result<Value> {
                   if (a[1].As<uint64_t>() == 0) return Error{"modulus by zero"};
                   return Value{a[0].As<uint64_t>() % a[1].As<uint64_t>()};
                 }});

  // Ordering: same-type and (CrossTypeNumericComparisons) mixed numeric pairs.
  const std::vector<Type> ordered = {kBool, kInt, kUint, kDouble, kString, kBytes};
  const std::vector<Type> numeric = {kInt, kUint, kDouble};
  struct Rel {
    const char* fn;
    Result<Value> (*impl)(const Args&);
    CallCost cost;
  };
  for (Rel rel :
       {Rel{"_<_", Less, CallCost::kEquals}, Rel{"_<=_", LessEq, CallCost::kEquals},
        Rel{"_>_", Greater, CallCost::kEquals}, Rel{"_>=_", GreaterEq, CallCost::kEquals}}) {
    for (const Type& t : ordered) {
      // String and bytes ordering cost like equality; the others cost 1 (kEquals gives 1).
      Add(r, rel.fn, {"relation", false, {t, t}, kBool, rel.impl, rel.cost});
    }
    for (const Type& x : numeric) {
      for (const Type& y : numeric) {
        if (!(x == y)) Add(r, rel.fn, {"relation", false, {x, y}, kBool, rel.impl, CallCost::kOne});
      }
    }
  }

  Add(r, "@in",
      {"in_list",
       false,
       {A(), Type::List(A())},
       kBool,
       [](const Args& a) -> Result<Value> {
         for (const auto& e : a[1].List().items) {
           if (Equal(e, a[0])) return Value{true};
         }
         return Value{false};
       },
       CallCost::kInList});
  Add(r, "@in",
      {"in_map", false, {A(), Type::Map(A(), B())}, kBool, [](const Args& a) -> Result<Value> {
         return Value{MapFind(a[1].Map(), a[0]) != nullptr};
       }});

  for (bool member : {false, true}) {
    Add(r, "size", {"size_string", member, {kString}, kInt, Size});
    Add(r, "size", {"size_bytes", member, {kBytes}, kInt, Size});
    Add(r, "size", {"size_list", member, {Type::List(A())}, kInt, Size});
    Add(r, "size", {"size_map", member, {Type::Map(A(), B())}, kInt, Size});
  }
  Add(r, "contains",
      {"contains_string",
       true,
       {kString, kString},
       kBool,
       [](const Args& a) -> Result<Value> {
         return Value{a[0].As<std::string>().find(a[1].As<std::string>()) != std::string::npos};
       },
       CallCost::kContains});
  Add(r, "startsWith",
      {"starts_with_string",
       true,
       {kString, kString},
       kBool,
       [](const Args& a) -> Result<Value> {
         return Value{a[0].As<std::string>().starts_with(a[1].As<std::string>())};
       },
       CallCost::kStringArg1});
  Add(r, "endsWith",
      {"ends_with_string",
       true,
       {kString, kString},
       kBool,
       [](const Args& a) -> Result<Value> {
         return Value{a[0].As<std::string>().ends_with(a[1].As<std::string>())};
       },
       CallCost::kStringArg1});
  Add(r, "matches", {"matches", false, {kString, kString}, kBool, Matches, CallCost::kRegex});
  Add(r, "matches", {"matches_string", true, {kString, kString}, kBool, Matches, CallCost::kRegex});

  // Conversions.
  for (const Type& t : {kInt, kUint, kDouble, kString})
    Add(r, "int", {"to_int", false, {t}, kInt, ToInt});
  for (const Type& t : {kInt, kUint, kDouble, kString})
    Add(r, "uint", {"to_uint", false, {t}, kUint, ToUint});
  for (const Type& t : {kInt, kUint, kDouble, kString}) {
    Add(r, "double", {"to_double", false, {t}, kDouble, ToDouble});
  }
  for (const Type& t : {kInt, kUint, kDouble, kString, kBool, kBytes}) {
    Add(r, "string", {"to_string", false, {t}, kString, IntToString});
  }
  for (const Type& t : {kBool, kString}) Add(r, "bool", {"to_bool", false, {t}, kBool, ToBool});
  Add(r, "bytes",
      {"string_to_bytes",
       false,
       {kString},
       kBytes,
       [](const Args& a) -> Result<Value> { return Value{Bytes{a[0].As<std::string>()}}; },
       CallCost::kStringArg0});
  Add(r, "bytes", {"bytes_to_bytes", false, {kBytes}, kBytes, [](const Args& a) -> Result<Value> {
                     return a[0];
                   }});
  Add(r, "dyn",
      {"to_dyn", false, {A()}, Dyn(), [](const Args& a) -> Result<Value> { return a[0]; }});
  Add(r, "type", {"type", false, {A()}, T(K::kType), TypeOf});
}

}  // namespace berth::cel::internal
