// cel-go's strings extension (version 2, the subset berth implements), Kubernetes' regex and
// lists (version 1) libraries, and optional values.
#include <algorithm>

#include "cel/functions_internal.h"
#include "cel/regex.h"

namespace berth::cel::internal {
namespace {

using K = Type::Kind;
using Args = std::vector<Value>;

void Add(Registry& r, std::string name, Overload o) { r[name].push_back(std::move(o)); }

// Strings are indexed by code point in CEL.
std::vector<std::string> Runes(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    size_t n = 1;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0xF0)
      n = 4;
    else if (c >= 0xE0)
      n = 3;
    else if (c >= 0xC0)
      n = 2;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string JoinRunes(const std::vector<std::string>& r, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) out += r[i];
  return out;
}

// cel-go v0.29's indexOf/lastIndexOf (ext/strings.go): only a negative offset is an error; an
// offset at or past the end finds nothing (-1), and the empty string matches at the offset,
// clamped to the end.
Result<Value> IndexOf(const Args& a, bool last) {
  auto s = Runes(a[0].As<std::string>());
  auto sub = Runes(a[1].As<std::string>());
  const int64_t n = static_cast<int64_t>(s.size()), m = static_cast<int64_t>(sub.size());
  int64_t off = 0;
  if (a.size() == 3) {
    off = a[2].As<int64_t>();
  } else if (last) {
    if (m == 0) return Value{n};
    if (a[0].As<std::string>().size() < a[1].As<std::string>().size()) return Value{int64_t{-1}};
    off = n - 1;
  }
  if (off < 0) return Error{"index out of range: " + std::to_string(off)};
  if (m == 0) return Value{std::min(off, n)};
  if (off >= n) return Value{int64_t{-1}};
  auto match_at = [&](int64_t i) {
    for (int64_t j = 0; j < m; ++j) {
      if (s[i + j] != sub[j]) return false;
    }
    return true;
  };
  if (last) {
    for (int64_t i = std::min(off, n - m); i >= 0; --i) {
      if (match_at(i)) return Value{i};
    }
  } else {
    for (int64_t i = off; i + m <= n; ++i) {
      if (match_at(i)) return Value{i};
    }
  }
  return Value{int64_t{-1}};
}

std::string Ascii(std::string s, bool upper) {
  for (char& c : s) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return s;
}

Result<Value> Replace(const Args& a) {
  const std::string& s = a[0].As<std::string>();
  const std::string& from = a[1].As<std::string>();
  const std::string& to = a[2].As<std::string>();
  int64_t limit = a.size() == 4 ? a[3].As<int64_t>() : -1;
  if (limit == 0) return a[0];
  std::string out;
  if (from.empty()) {
    // Go's strings.Replace with an empty old string inserts between every rune.
    auto runes = Runes(s);
    int64_t done = 0;
    for (size_t i = 0; i <= runes.size(); ++i) {
      if (limit < 0 || done < limit) {
        out += to;
        ++done;
      }
      if (i < runes.size()) out += runes[i];
    }
    return Value{out};
  }
  size_t pos = 0;
  int64_t done = 0;
  while (limit < 0 || done < limit) {
    size_t f = s.find(from, pos);
    if (f == std::string::npos) break;
    out += s.substr(pos, f - pos) + to;
    pos = f + from.size();
    ++done;
  }
  out += s.substr(pos);
  return Value{out};
}

Result<Value> Split(const Args& a) {
  const std::string& s = a[0].As<std::string>();
  const std::string& sep = a[1].As<std::string>();
  int64_t limit = a.size() == 3 ? a[2].As<int64_t>() : -1;
  std::vector<Value> out;
  if (limit == 0) return Value::MakeList({});
  if (sep.empty()) {
    auto runes = Runes(s);
    for (size_t i = 0; i < runes.size(); ++i) {
      if (limit > 0 && static_cast<int64_t>(out.size()) == limit - 1) {
        out.push_back(Value{JoinRunes(runes, i, runes.size())});
        break;
      }
      out.push_back(Value{runes[i]});
    }
    return Value::MakeList(std::move(out));
  }
  size_t pos = 0;
  while (true) {
    if (limit > 0 && static_cast<int64_t>(out.size()) == limit - 1) break;
    size_t f = s.find(sep, pos);
    if (f == std::string::npos) break;
    out.push_back(Value{s.substr(pos, f - pos)});
    pos = f + sep.size();
  }
  out.push_back(Value{s.substr(pos)});
  return Value::MakeList(std::move(out));
}

Result<Value> Substring(const Args& a) {
  auto r = Runes(a[0].As<std::string>());
  int64_t n = static_cast<int64_t>(r.size());
  int64_t start = a[1].As<int64_t>();
  int64_t end = a.size() == 3 ? a[2].As<int64_t>() : n;
  if (start < 0 || start > n) return Error{"index out of range: " + std::to_string(start)};
  if (end < 0 || end > n) return Error{"index out of range: " + std::to_string(end)};
  if (start > end) {
    return Error{"invalid substring range. start: " + std::to_string(start) +
                 ", end: " + std::to_string(end)};
  }
  return Value{JoinRunes(r, static_cast<size_t>(start), static_cast<size_t>(end))};
}

Result<Value> Trim(const Args& a) {
  const std::string& s = a[0].As<std::string>();
  auto space = [](unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  };
  size_t b = 0, e = s.size();
  while (b < e && space(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && space(static_cast<unsigned char>(s[e - 1]))) --e;
  return Value{s.substr(b, e - b)};
}

Result<Value> Join(const Args& a) {
  std::string sep = a.size() == 2 ? a[1].As<std::string>() : "";
  std::string out;
  const auto& items = a[0].List().items;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].Is<std::string>()) return NoOverload();
    if (i > 0) out += sep;
    out += items[i].As<std::string>();
  }
  return Value{out};
}

// Kubernetes' regex library: Go's FindString / FindAllString.
Result<Value> Find(const Args& a, bool all) {
  auto re = Regex::Compile(a[1].As<std::string>());
  if (!re.ok()) return Error{"Illegal regex: " + re.error()};
  const std::string& s = a[0].As<std::string>();
  if (!all) return Value{std::string(re->Find(s))};
  int64_t limit = a.size() == 3 ? a[2].As<int64_t>() : -1;
  std::vector<Value> out;
  for (std::string_view m : re->FindAll(s, limit)) out.push_back(Value{std::string(m)});
  return Value::MakeList(std::move(out));
}

// Kubernetes lists library: the elements must be mutually comparable.
Result<Value> IsSorted(const Args& a) {
  const auto& items = a[0].List().items;
  for (size_t i = 1; i < items.size(); ++i) {
    int c = Compare(items[i - 1], items[i]);
    if (c == -2) return NoOverload();
    if (c == 1) return Value{false};
  }
  return Value{true};
}

Result<Value> Extreme(const Args& a, bool max) {
  const auto& items = a[0].List().items;
  if (items.empty()) return Error{std::string(max ? "max" : "min") + " called on empty list"};
  Value best = items[0];
  for (size_t i = 1; i < items.size(); ++i) {
    int c = Compare(items[i], best);
    if (c == -2) return NoOverload();
    if ((max && c == 1) || (!max && c == -1)) best = items[i];
  }
  return best;
}

Result<Value> Sum(const Args& a) {
  const auto& items = a[0].List().items;
  if (items.empty()) return Value{int64_t{0}};
  if (items[0].Is<int64_t>()) {
    int64_t s = 0;
    for (const auto& v : items) {
      if (!v.Is<int64_t>()) return NoOverload();
      if (__builtin_add_overflow(s, v.As<int64_t>(), &s)) return Error{"integer overflow"};
    }
    return Value{s};
  }
  if (items[0].Is<uint64_t>()) {
    uint64_t s = 0;
    for (const auto& v : items) {
      if (!v.Is<uint64_t>()) return NoOverload();
      if (__builtin_add_overflow(s, v.As<uint64_t>(), &s))
        return Error{"unsigned integer overflow"};
    }
    return Value{s};
  }
  if (items[0].Is<double>()) {
    double s = 0;
    for (const auto& v : items) {
      if (!v.Is<double>()) return NoOverload();
      s += v.As<double>();
    }
    return Value{s};
  }
  return NoOverload();
}

Result<Value> ListIndexOf(const Args& a, bool last) {
  const auto& items = a[0].List().items;
  int64_t n = static_cast<int64_t>(items.size());
  for (int64_t k = 0; k < n; ++k) {
    int64_t i = last ? n - 1 - k : k;
    if (Equal(items[i], a[1])) return Value{i};
  }
  return Value{int64_t{-1}};
}

Value Optional(Value v) {
  return Value{OptionalValue{std::make_shared<const Value>(std::move(v))}};
}

}  // namespace

void RegisterExtensions(Registry& r) {
  const Type kInt = T(K::kInt), kString = T(K::kString), kBool = T(K::kBool),
             kDouble = T(K::kDouble), kUint = T(K::kUint);
  const Type kStrings = Type::List(kString);
  Add(r, "charAt",
      {"string_char_at_int", true, {kString, kInt}, kString, [](const Args& a) -> Result<Value> {
         auto runes = Runes(a[0].As<std::string>());
         int64_t i = a[1].As<int64_t>();
         if (i < 0 || i > static_cast<int64_t>(runes.size())) {
           return Error{"index out of range: " + std::to_string(i)};
         }
         return Value{i == static_cast<int64_t>(runes.size()) ? std::string() : runes[i]};
       }});
  Add(r, "indexOf",
      {"string_index_of_string",
       true,
       {kString, kString},
       kInt,
       [](const Args& a) { return IndexOf(a, false); },
       CallCost::kTraversal});
  Add(r, "indexOf",
      {"string_index_of_string_int",
       true,
       {kString, kString, kInt},
       kInt,
       [](const Args& a) { return IndexOf(a, false); },
       CallCost::kTraversal});
  Add(r, "lastIndexOf",
      {"string_last_index_of_string",
       true,
       {kString, kString},
       kInt,
       [](const Args& a) { return IndexOf(a, true); },
       CallCost::kTraversal});
  Add(r, "lastIndexOf",
      {"string_last_index_of_string_int",
       true,
       {kString, kString, kInt},
       kInt,
       [](const Args& a) { return IndexOf(a, true); },
       CallCost::kTraversal});
  Add(r, "lowerAscii",
      {"string_lower_ascii",
       true,
       {kString},
       kString,
       [](const Args& a) -> Result<Value> { return Value{Ascii(a[0].As<std::string>(), false)}; },
       CallCost::kStringArg0});
  Add(r, "upperAscii",
      {"string_upper_ascii",
       true,
       {kString},
       kString,
       [](const Args& a) -> Result<Value> { return Value{Ascii(a[0].As<std::string>(), true)}; },
       CallCost::kStringArg0});
  Add(r, "replace",
      {"string_replace_string_string",
       true,
       {kString, kString, kString},
       kString,
       Replace,
       CallCost::kStringArg0Twice});
  Add(r, "replace",
      {"string_replace_string_string_int",
       true,
       {kString, kString, kString, kInt},
       kString,
       Replace,
       CallCost::kStringArg0Twice});
  Add(r, "split",
      {"string_split_string",
       true,
       {kString, kString},
       kStrings,
       Split,
       CallCost::kStringArg0Twice});
  Add(r, "split",
      {"string_split_string_int",
       true,
       {kString, kString, kInt},
       kStrings,
       Split,
       CallCost::kStringArg0Twice});
  Add(r, "substring",
      {"string_substring_int", true, {kString, kInt}, kString, Substring, CallCost::kStringArg0});
  Add(r, "substring",
      {"string_substring_int_int",
       true,
       {kString, kInt, kInt},
       kString,
       Substring,
       CallCost::kStringArg0});
  Add(r, "trim", {"string_trim", true, {kString}, kString, Trim, CallCost::kStringArg0});
  Add(r, "join", {"list_join", true, {kStrings}, kString, Join, CallCost::kJoin});
  Add(r, "join", {"list_join_string", true, {kStrings, kString}, kString, Join, CallCost::kJoin});

  Add(r, "find",
      {"string_find_string",
       true,
       {kString, kString},
       kString,
       [](const Args& a) { return Find(a, false); },
       CallCost::kRegex});
  Add(r, "findAll",
      {"string_find_all_string",
       true,
       {kString, kString},
       kStrings,
       [](const Args& a) { return Find(a, true); },
       CallCost::kRegex});
  Add(r, "findAll",
      {"string_find_all_string_int",
       true,
       {kString, kString, kInt},
       kStrings,
       [](const Args& a) { return Find(a, true); },
       CallCost::kRegex});

  // Kubernetes lists: declared for comparable and summable element types.
  for (const Type& t : {kInt, kUint, kDouble, kBool, kString, T(K::kBytes)}) {
    Add(r, "isSorted",
        {"list_is_sorted", true, {Type::List(t)}, kBool, IsSorted, CallCost::kTraversal});
    Add(r, "min",
        {"list_min",
         true,
         {Type::List(t)},
         t,
         [](const Args& a) { return Extreme(a, false); },
         CallCost::kTraversal});
    Add(r, "max",
        {"list_max",
         true,
         {Type::List(t)},
         t,
         [](const Args& a) { return Extreme(a, true); },
         CallCost::kTraversal});
  }
  for (const Type& t : {kInt, kUint, kDouble}) {
    Add(r, "sum", {"list_sum", true, {Type::List(t)}, t, Sum, CallCost::kTraversal});
  }
  Add(r, "indexOf",
      {"list_index_of",
       true,
       {Type::List(A()), A()},
       kInt,
       [](const Args& a) { return ListIndexOf(a, false); },
       CallCost::kTraversal});
  Add(r, "lastIndexOf",
      {"list_last_index_of",
       true,
       {Type::List(A()), A()},
       kInt,
       [](const Args& a) { return ListIndexOf(a, true); },
       CallCost::kTraversal});

  // Kubernetes lists (version 1, and IncludesOption for DRA): a list contains the value, or a
  // scalar equals it.
  Add(r, "includes",
      {"list_includes_dyn_dyn",
       true,
       {Dyn(), Dyn()},
       kBool,
       [](const Args& a) -> Result<Value> {
         if (!a[0].IsList()) return Value{Equal(a[0], a[1])};
         for (const auto& e : a[0].List().items) {
           if (Equal(e, a[1])) return Value{true};
         }
         return Value{false};
       },
       CallCost::kTraversal});

  // Optional values.
  Add(r, "optional.of",
      {"optional_of", false, {A()}, Type::Optional(A()), [](const Args& a) -> Result<Value> {
         return Optional(a[0]);
       }});
  Add(r, "optional.none",
      {"optional_none", false, {}, Type::Optional(Dyn()), [](const Args&) -> Result<Value> {
         return Value{OptionalValue{}};
       }});
  Add(r, "hasValue",
      {"optional_hasValue", true, {Type::Optional(A())}, kBool, [](const Args& a) -> Result<Value> {
         return Value{a[0].As<OptionalValue>().value != nullptr};
       }});
  Add(r, "value",
      {"optional_value", true, {Type::Optional(A())}, A(), [](const Args& a) -> Result<Value> {
         if (!a[0].As<OptionalValue>().value) return Error{"optional.none() dereference"};
         return *a[0].As<OptionalValue>().value;
       }});
  Add(r, "orValue",
      {"optional_orValue_value",
       true,
       {Type::Optional(A()), A()},
       A(),
       [](const Args& a) -> Result<Value> {
         const auto& o = a[0].As<OptionalValue>().value;
         return o ? *o : a[1];
       }});
  Add(r, "or",
      {"optional_or_optional",
       true,
       {Type::Optional(A()), Type::Optional(A())},
       Type::Optional(A()),
       [](const Args& a) -> Result<Value> {
         return a[0].As<OptionalValue>().value ? a[0] : a[1];
       }});
}

}  // namespace berth::cel::internal
