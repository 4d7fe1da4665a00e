#include "cel/cel.h"

#include <algorithm>
#include <vector>

#include "cel/checker.h"
#include "cel/evaluator.h"
#include "cel/parser.h"

namespace berth::cel {

struct Program::Impl {
  ExprPtr root;
  uint64_t cost_limit = kSelectorMaxCost;
};

namespace {

// cel-go's error location: "ERROR: <input>:line:col: msg" plus the source line and a caret.
std::string FormatIssue(std::string_view src, int32_t offset, const std::string& msg) {
  if (offset < 0) return "ERROR: <input>:-1:0: " + msg;  // no position (recursion limits)
  size_t off = std::min(static_cast<size_t>(std::max(offset, 0)), src.size());
  size_t line_start = src.rfind('\n', off == 0 ? 0 : off - 1);
  line_start = (line_start == std::string_view::npos || off == 0) ? 0 : line_start + 1;
  if (off > 0 && src[off - 1] == '\n') line_start = off;
  int line = 1;
  for (size_t i = 0; i < line_start; ++i) line += src[i] == '\n';
  size_t line_end = src.find('\n', line_start);
  std::string_view text =
      src.substr(line_start, line_end == std::string_view::npos ? std::string_view::npos
                                                                : line_end - line_start);
  uint64_t col = CodePoints(src.substr(line_start, off - line_start));
  std::string out = "ERROR: <input>:" + std::to_string(line) + ":" + std::to_string(col + 1) +
                    ": " + msg + "\n | " + std::string(text) + "\n | ";
  // cel-go marks each code point before the column with '.', or U+FF0E for a non-ASCII one.
  for (unsigned char c : src.substr(line_start, off - line_start)) {
    if (c < 0x80) {
      out += '.';
    } else if ((c & 0xC0) != 0x80) {
      out += "\xEF\xBC\x8E";
    }
  }
  out += "^";
  return out;
}

Result<Value> AttributeToValue(const std::string& name, const AttributeValue& a) {
  if (const auto* i = std::get_if<int64_t>(&a)) return Value{*i};
  if (const auto* b = std::get_if<bool>(&a)) return Value{*b};
  if (const auto* s = std::get_if<std::string>(&a)) return Value{*s};
  auto v = Semver::Parse(std::get<VersionText>(a).text);
  if (!v.ok()) return Error{"attribute " + name + ": parse semantic version: " + v.error()};
  return Value{*v};
}

std::pair<std::string, std::string> SplitQualified(const std::string& name,
                                                   const std::string& driver) {
  size_t slash = name.find('/');
  if (slash == std::string::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

template <typename Source, typename Convert>
Result<Value> DomainMap(const Source& source, const std::string& driver, Convert convert) {
  std::vector<std::pair<std::string, std::vector<std::pair<Value, Value>>>> domains;
  for (const auto& [name, raw] : source) {
    auto [domain, id] = SplitQualified(name, driver);
    BERTH_ASSIGN_OR_RETURN(Value v, convert(name, raw));
    // Not captured by name: clang before 16 cannot capture a structured binding.
    auto it = std::find_if(domains.begin(), domains.end(),
                           [&d = domain](const auto& e) { return e.first == d; });
    if (it == domains.end()) {
      domains.emplace_back(domain, std::vector<std::pair<Value, Value>>{});
      it = domains.end() - 1;
    }
    // A later duplicate (bare id and its domain-qualified twin) replaces the earlier one.
    bool replaced = false;
    for (auto& [k, old] : it->second) {
      if (k.template As<std::string>() == id) {
        old = v;
        replaced = true;
      }
    }
    if (!replaced) it->second.emplace_back(Value{id}, std::move(v));
  }
  std::vector<std::pair<Value, Value>> outer;
  for (auto& [domain, inner] : domains)
    outer.emplace_back(Value{domain}, Value::MakeMap(std::move(inner)));
  return Value::MakeMap(std::move(outer), /*missing_is_empty=*/true);
}

std::string BoolConversionError(const Value& v) {
  std::string type = v.TypeName();
  std::string why;
  if (v.Is<std::string>()) {
    why = "unsupported native conversion from string to 'bool'";
  } else {
    why = "unsupported type conversion from '" + type + "' to bool";
  }
  return "CEL result of type " + type + " could not be converted to bool: " + why;
}

}  // namespace

Result<Program> Compile(std::string_view expression, uint64_t cost_limit) {
  std::vector<ParseError> syntax;
  ExprPtr root = Parse(expression, &syntax);
  if (!root) {
    std::stable_sort(syntax.begin(), syntax.end(),
                     [](const ParseError& a, const ParseError& b) { return a.offset < b.offset; });
    std::string msg = "compilation failed: ";
    for (size_t i = 0; i < syntax.size(); ++i) {
      if (i > 0) msg += "\n";
      msg += FormatIssue(expression, syntax[i].offset, syntax[i].message);
    }
    return Error{msg};
  }
  std::vector<CheckIssue> all = Check(*root);
  // Type errors first; the validators' only when there are none (see CheckIssue::Phase).
  std::vector<CheckIssue> issues;
  for (auto phase : {CheckIssue::Phase::kCheck, CheckIssue::Phase::kValidate}) {
    for (const auto& i : all) {
      if (i.phase == phase) issues.push_back(i);
    }
    if (!issues.empty()) break;
  }
  if (!issues.empty()) {
    std::stable_sort(issues.begin(), issues.end(),
                     [](const CheckIssue& a, const CheckIssue& b) { return a.offset < b.offset; });
    std::string msg = "compilation failed: ";
    for (size_t i = 0; i < issues.size(); ++i) {
      if (i > 0) msg += "\n";
      msg += FormatIssue(expression, issues[i].offset, issues[i].message);
    }
    return Error{msg};
  }
  if (root->type.kind != Type::Kind::kBool && root->type.kind != Type::Kind::kDyn) {
    return Error{"must evaluate to bool or the unknown type, not " + root->type.Name()};
  }
  for (const auto& i : all) {
    if (i.phase == CheckIssue::Phase::kInstantiate) {
      return Error{"program instantiation failed: " + i.message};
    }
  }
  Program p;
  auto impl = std::make_shared<Program::Impl>();
  impl->root = std::move(root);
  impl->cost_limit = cost_limit;
  p.impl_ = std::move(impl);
  p.expression_ = std::string(expression);
  return p;
}

struct PreparedDevice::Impl {
  Value device;
};

Result<PreparedDevice> Prepare(const Device& device) {
  auto attrs = DomainMap(device.attributes, device.driver, AttributeToValue);
  if (!attrs.ok()) return attrs.status();
  auto caps = DomainMap(device.capacity, device.driver,
                        [](const std::string&, const api::Quantity& q) -> Result<Value> {
                          return Value{Quantity::FromApi(q)};
                        });
  if (!caps.ok()) return caps.status();
  auto impl = std::make_shared<PreparedDevice::Impl>();
  impl->device = Value::MakeMap(
      {{Value{std::string("driver")}, Value{device.driver}},
       {Value{std::string("allowMultipleAllocations")}, Value{device.allow_multiple_allocations}},
       {Value{std::string("attributes")}, std::move(*attrs)},
       {Value{std::string("capacity")}, std::move(*caps)}});
  PreparedDevice p;
  p.impl_ = std::move(impl);
  return p;
}

Result<bool> Program::Evaluate(const Device& device, EvalStats* stats) const {
  if (stats) *stats = EvalStats{};
  BERTH_ASSIGN_OR_RETURN(PreparedDevice prepared, Prepare(device));
  return Evaluate(prepared, stats);
}

Result<bool> Program::Evaluate(const PreparedDevice& device, EvalStats* stats) const {
  return Evaluate(device, Interrupt{}, stats);
}

Result<bool> Program::Evaluate(const PreparedDevice& device, const Interrupt& interrupt,
                               EvalStats* stats) const {
  if (stats) *stats = EvalStats{};
  bool interruptible = interrupt.deadline || interrupt.stop;
  Evaluator ev(device.impl_->device, impl_->cost_limit, interruptible ? &interrupt : nullptr);
  Result<Value> r = ev.Eval(*impl_->root);
  if (stats) {
    stats->cost = ev.cost();
    stats->cost_limit_exceeded = ev.cost_exceeded();
    stats->interrupted = ev.interrupted();
  }
  if (!ev.interrupted().empty()) {
    // Upstream's DeviceMatches adds the context's cause once more to cel-go's error.
    return Error{r.error() + ": " + ev.interrupted(), ErrorCode::kUnavailable};
  }
  if (!r.ok()) return r.status();
  if (!r->Is<bool>()) return Error{BoolConversionError(*r)};
  return r->As<bool>();
}

}  // namespace berth::cel
