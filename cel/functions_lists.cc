// cel-go's lists extension (version 3: slice, flatten, sort, lists.range, reverse, distinct) and
// sets extension (sets.contains, sets.equivalent, sets.intersects), with their cost trackers.
#include <algorithm>

#include "cel/functions_internal.h"

namespace berth::cel::internal {
namespace {

using K = Type::Kind;
using Args = std::vector<Value>;

void Add(Registry& r, std::string name, Overload o) { r[name].push_back(std::move(o)); }

Result<Value> Slice(const Args& a) {
  const auto& items = a[0].List().items;
  int64_t start = a[1].As<int64_t>(), end = a[2].As<int64_t>();
  std::string range = "cannot slice(" + std::to_string(start) + ", " + std::to_string(end) + "), ";
  if (start < 0 || end < 0) return Error{range + "negative indexes not supported"};
  if (start > end) return Error{range + "start index must be less than or equal to end index"};
  if (static_cast<int64_t>(items.size()) < end) {
    return Error{range + "list is length " + std::to_string(items.size())};
  }
  return Value::MakeList(std::vector<Value>(items.begin() + start, items.begin() + end));
}

void FlattenInto(const Value& list, int64_t depth, std::vector<Value>& out) {
  for (const Value& v : list.List().items) {
    if (v.IsList() && depth > 0) {
      FlattenInto(v, depth - 1, out);
    } else {
      out.push_back(v);
    }
  }
}

Result<Value> Flatten(const Args& a) {
  int64_t depth = a.size() == 2 ? a[1].As<int64_t>() : 1;
  if (depth < 0) return Error{"level must be non-negative"};
  std::vector<Value> out;
  FlattenInto(a[0], depth, out);
  return Value::MakeList(std::move(out));
}

Result<Value> Sort(const Args& a) {
  std::vector<Value> items = a[0].List().items;
  for (size_t i = 1; i < items.size(); ++i) {
    if (items[i].v.index() != items[0].v.index())
      return Error{"list elements must have the same type"};
  }
  if (!items.empty() && Compare(items[0], items[0]) == -2) {
    return Error{"list elements must be comparable"};
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const Value& x, const Value& y) { return Compare(x, y) == -1; });
  return Value::MakeList(std::move(items));
}

Result<Value> Range(const Args& a) {
  int64_t n = a[0].As<int64_t>();
  if (n < 0) return Error{"lists.range: size must be non-negative, got " + std::to_string(n)};
  if (n > 1000000) {
    return Error{"lists.range: size " + std::to_string(n) + " exceeds maximum allowed (1000000)"};
  }
  std::vector<Value> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(Value{i});
  return Value::MakeList(std::move(out));
}

Result<Value> Reverse(const Args& a) {
  std::vector<Value> items = a[0].List().items;
  std::reverse(items.begin(), items.end());
  return Value::MakeList(std::move(items));
}

Result<Value> Distinct(const Args& a) {
  std::vector<Value> out;
  for (const Value& v : a[0].List().items) {
    if (std::none_of(out.begin(), out.end(), [&](const Value& o) { return Equal(o, v); })) {
      out.push_back(v);
    }
  }
  return Value::MakeList(std::move(out));
}

bool Contains(const Value& list, const Value& v) {
  const auto& items = list.List().items;
  return std::any_of(items.begin(), items.end(), [&](const Value& e) { return Equal(e, v); });
}

Result<Value> SetsContains(const Args& a) {
  for (const Value& v : a[1].List().items) {
    if (!Contains(a[0], v)) return Value{false};
  }
  return Value{true};
}

Result<Value> SetsEquivalent(const Args& a) {
  return Value{SetsContains(a)->As<bool>() && SetsContains({a[1], a[0]})->As<bool>()};
}

Result<Value> SetsIntersects(const Args& a) {
  for (const Value& v : a[1].List().items) {
    if (Contains(a[0], v)) return Value{true};
  }
  return Value{false};
}

}  // namespace

void RegisterLists(Registry& r) {
  const Type kInt = T(K::kInt), kBool = T(K::kBool);
  const Type list = Type::List(A());
  Add(r, "slice", {"list_slice", true, {list, kInt, kInt}, list, Slice, CallCost::kListOutput});
  Add(r, "flatten",
      {"list_flatten", true, {Type::List(list)}, list, Flatten, CallCost::kListFlatten});
  Add(r, "flatten",
      {"list_flatten_int", true, {Type::List(list), kInt}, list, Flatten, CallCost::kListFlatten});
  for (const Type& t :
       {T(K::kInt), T(K::kUint), T(K::kDouble), T(K::kBool), T(K::kString), T(K::kBytes)}) {
    Add(r, "sort",
        {"list_sort", true, {Type::List(t)}, Type::List(t), Sort, CallCost::kListSelfCompare});
  }
  Add(r, "lists.range",
      {"lists_range", false, {kInt}, Type::List(kInt), Range, CallCost::kListOutput});
  Add(r, "reverse", {"list_reverse", true, {list}, list, Reverse, CallCost::kListOutput});
  Add(r, "distinct", {"list_distinct", true, {list}, list, Distinct, CallCost::kListSelfCompare});
  Add(r, "sets.contains",
      {"list_sets_contains_list", false, {list, list}, kBool, SetsContains, CallCost::kSets1});
  Add(r, "sets.intersects",
      {"list_sets_intersects_list", false, {list, list}, kBool, SetsIntersects, CallCost::kSets1});
  Add(r, "sets.equivalent",
      {"list_sets_equivalent_list", false, {list, list}, kBool, SetsEquivalent, CallCost::kSets2});
}

}  // namespace berth::cel::internal
