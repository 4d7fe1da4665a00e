#include "cel/value.h"

#include <cmath>

namespace berth::cel {

std::string Value::TypeName() const {
  switch (v.index()) {
    case 0:
      return "null_type";
    case 1:
      return "bool";
    case 2:
      return "int";
    case 3:
      return "uint";
    case 4:
      return "double";
    case 5:
      return "string";
    case 6:
      return "bytes";
    case 7:
      return "list";
    case 8:
      return "map";
    case 9:
      return "kubernetes.Semver";
    case 10:
      return "kubernetes.Quantity";
    case 11:
      return "type";
    case 12:
      return "optional_type";
  }
  return "dyn";
}

namespace {

bool IsNumber(const Value& v) { return v.Is<int64_t>() || v.Is<uint64_t>() || v.Is<double>(); }

// -1/0/1 across int, uint and double; 2 when either is NaN.
int CompareNumbers(const Value& a, const Value& b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (a.Is<double>() || b.Is<double>()) {
    auto d = [](const Value& v) {
      if (v.Is<double>()) return v.As<double>();
      if (v.Is<int64_t>()) return static_cast<double>(v.As<int64_t>());
      return static_cast<double>(v.As<uint64_t>());
    };
    double x = d(a), y = d(b);
    if (std::isnan(x) || std::isnan(y)) return 2;
    return cmp(x, y);
  }
  if (a.Is<int64_t>() && b.Is<int64_t>()) return cmp(a.As<int64_t>(), b.As<int64_t>());
  if (a.Is<uint64_t>() && b.Is<uint64_t>()) return cmp(a.As<uint64_t>(), b.As<uint64_t>());
  if (a.Is<int64_t>()) {
    int64_t x = a.As<int64_t>();
    return x < 0 ? -1 : cmp(static_cast<uint64_t>(x), b.As<uint64_t>());
  }
  int64_t y = b.As<int64_t>();
  return y < 0 ? 1 : cmp(a.As<uint64_t>(), static_cast<uint64_t>(y));
}

}  // namespace

bool Equal(const Value& a, const Value& b) {
  if (IsNumber(a) && IsNumber(b)) return CompareNumbers(a, b) == 0;
  if (a.v.index() != b.v.index()) return false;
  switch (a.v.index()) {
    case 0:
      return true;
    case 1:
      return a.As<bool>() == b.As<bool>();
    case 5:
      return a.As<std::string>() == b.As<std::string>();
    case 6:
      return a.As<Bytes>().data() == b.As<Bytes>().data();
    case 7: {
      const auto& x = a.List().items;
      const auto& y = b.List().items;
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!Equal(x[i], y[i])) return false;
      }
      return true;
    }
    case 8: {
      const auto& x = a.Map();
      const auto& y = b.Map();
      if (x.entries.size() != y.entries.size()) return false;
      for (const auto& [k, val] : x.entries) {
        const Value* other = MapFind(y, k);
        if (other == nullptr || !Equal(val, *other)) return false;
      }
      return true;
    }
    case 9:
      return a.As<Semver>().Compare(b.As<Semver>()) == 0;
    case 10:
      return a.As<Quantity>() == b.As<Quantity>();
    case 11:
      return a.As<TypeValue>().name == b.As<TypeValue>().name;
    case 12: {
      const auto& x = a.As<OptionalValue>().value;
      const auto& y = b.As<OptionalValue>().value;
      if (!x || !y) return !x && !y;
      return Equal(*x, *y);
    }
  }
  return false;
}

int Compare(const Value& a, const Value& b) {
  if (IsNumber(a) && IsNumber(b)) {
    int c = CompareNumbers(a, b);
    return c == 2 ? -3 : c;  // NaN: every comparison is false
  }
  if (a.v.index() != b.v.index()) return -2;
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  switch (a.v.index()) {
    case 1:
      return cmp(a.As<bool>(), b.As<bool>());
    case 5:
      return cmp(a.As<std::string>().compare(b.As<std::string>()), 0);
    case 6:
      return cmp(a.As<Bytes>().data().compare(b.As<Bytes>().data()), 0);
  }
  return -2;
}

uint64_t CodePoints(std::string_view s) {
  uint64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

uint64_t CostSize(const Value& v) {
  if (v.Is<std::string>()) return CodePoints(v.As<std::string>());
  if (v.Is<Bytes>()) return v.As<Bytes>().data().size();
  if (v.IsList()) return v.List().items.size();
  if (v.IsMap()) return v.Map().entries.size();
  if (v.Is<OptionalValue>() && v.As<OptionalValue>().value) {
    return CostSize(*v.As<OptionalValue>().value);
  }
  return 1;
}

const Value* MapFind(const MapValue& m, const Value& key) {
  for (const auto& [k, val] : m.entries) {
    if (Equal(k, key)) return &val;
  }
  return nullptr;
}

}  // namespace berth::cel
