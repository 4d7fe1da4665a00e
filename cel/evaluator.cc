#include "cel/evaluator.h"

#include <algorithm>
#include <cmath>

#include "cel/regex.h"

namespace berth::cel {
namespace {

constexpr const char* kCostExceeded = "operation cancelled: actual cost limit exceeded";

bool IsAttributeStep(const Expr& e) {
  return (e.kind == Expr::Kind::kSelect && !e.test_only) ||
         (e.kind == Expr::Kind::kCall &&
          (e.name == "_[_]" || e.name == "_[?_]" || e.name == "_?._"));
}

std::string KeyText(const Value& k) {
  if (k.Is<std::string>()) return k.As<std::string>();
  if (k.Is<int64_t>()) return std::to_string(k.As<int64_t>());
  if (k.Is<uint64_t>()) return std::to_string(k.As<uint64_t>());
  if (k.Is<bool>()) return k.As<bool>() ? "true" : "false";
  if (k.Is<double>()) return std::to_string(k.As<double>());
  return k.TypeName();
}

Value EmptyMap() { return Value::MakeMap({}); }

// The functions Kubernetes' library.CostEstimator costs by name, whatever overload runs.
bool CostedByName(std::string_view fn) {
  static const char* kNames[] = {"isSorted",    "sum",      "max",        "min",        "indexOf",
                                 "lastIndexOf", "includes", "lowerAscii", "upperAscii", "substring",
                                 "trim",        "replace",  "split",      "join",       "find",
                                 "findAll",     "quantity", "isQuantity", "semver",     "isSemver"};
  for (const char* n : kNames) {
    if (fn == n) return true;
  }
  return false;
}

// cel-go's Go type for a value, as its iteration error prints it ("types.Int").
std::string GoTypeName(const Value& v) {
  if (v.Is<bool>()) return "types.Bool";
  if (v.Is<int64_t>()) return "types.Int";
  if (v.Is<uint64_t>()) return "types.Uint";
  if (v.Is<double>()) return "types.Double";
  if (v.Is<std::string>()) return "types.String";
  if (v.Is<Bytes>()) return "types.Bytes";
  if (v.Is<Null>()) return "types.Null";
  if (v.Is<Semver>()) return "cel.Semver";
  if (v.Is<Quantity>()) return "cel.Quantity";
  if (v.Is<OptionalValue>()) return "*types.Optional";
  return v.TypeName();
}

}  // namespace

Result<Value> Evaluator::Lookup(const std::string& name) {
  for (size_t i = vars_.size(); i-- > 0;) {
    if (*vars_[i].name == name) return Resolve(i);
  }
  return device_;
}

Result<Value>& Evaluator::Resolve(size_t i) {
  if (vars_[i].lazy_init != nullptr) {
    const Expr* init = vars_[i].lazy_init;
    vars_[i].lazy_init = nullptr;
    // Evaluated where the comprehension is, without the variables it (or its body) added.
    std::vector<Var> hidden(std::make_move_iterator(vars_.begin() + static_cast<ptrdiff_t>(i)),
                            std::make_move_iterator(vars_.end()));
    vars_.erase(vars_.begin() + static_cast<ptrdiff_t>(i), vars_.end());
    Result<Value> v = Eval(*init);
    vars_.insert(vars_.end(), std::make_move_iterator(hidden.begin()),
                 std::make_move_iterator(hidden.end()));
    vars_[i].value = std::move(v);
  }
  return vars_[i].value;
}

void Evaluator::Charge(uint64_t c) {
  if (__builtin_add_overflow(cost_, c, &cost_)) cost_ = UINT64_MAX;
  if (cost_ > limit_) cost_exceeded_ = true;
}

void Evaluator::CheckInterrupt() {
  if (interrupt_ == nullptr || fatal_) return;
  if (interrupt_->stop && interrupt_->stop()) {
    interrupted_ = "context canceled";
  } else if (interrupt_->deadline && std::chrono::steady_clock::now() >= *interrupt_->deadline) {
    interrupted_ = "context deadline exceeded";
  } else {
    return;
  }
  // cel-go's InterruptError wrapped with the context's cause, as ContextEval returns it.
  fatal_ = Error{"operation interrupted: " + interrupted_};
}

Result<Value> Evaluator::StopError() const {
  if (cost_exceeded_) return Error{kCostExceeded};
  return *fatal_;
}

Result<Value> Evaluator::Eval(const Expr& e) {
  // Every evaluation step and so every comprehension iteration passes here; the clock and the
  // stop flag are read every 256 steps (cel-go checks every 100 iterations of a comprehension).
  if (interrupt_ != nullptr && (++steps_ & 255) == 0) CheckInterrupt();
  if (Stopped()) return StopError();
  switch (e.kind) {
    case Expr::Kind::kConst:
      return e.constant;
    case Expr::Kind::kIdent: {
      Charge(1);
      if (Stopped()) return StopError();
      return Lookup(e.name);
    }
    case Expr::Kind::kSelect:
      if (e.test_only) {
        // has(): the operand costs as usual; the presence test itself is free.
        Result<Value> operand = IsAttributeStep(*e.args[0]) || e.args[0]->kind == Expr::Kind::kIdent
                                    ? EvalAttribute(*e.args[0], true)
                                    : Eval(*e.args[0]);
        if (!operand.ok()) return operand;
        return Select(*operand, e.name, true);
      }
      return EvalAttribute(e, true);
    case Expr::Kind::kCall:
      if (IsAttributeStep(e)) return EvalAttribute(e, true);
      return EvalCall(e);
    case Expr::Kind::kList: {
      // cel-go stops at the first failing element but still charges the creation.
      std::vector<Value> items;
      items.reserve(e.args.size());
      std::optional<Error> error;
      for (const auto& a : e.args) {
        auto v = Eval(*a);
        if (Stopped()) return StopError();
        if (!v.ok()) {
          error = v.status();
          break;
        }
        items.push_back(std::move(*v));
      }
      if (!e.all_const) Charge(10);
      if (Stopped()) return StopError();
      if (error) return *error;
      return Value::MakeList(std::move(items));
    }
    case Expr::Kind::kMap: {
      std::vector<std::pair<Value, Value>> entries;
      std::optional<Error> error;
      for (size_t i = 0; i < e.args.size() && !error; i += 2) {
        auto k = Eval(*e.args[i]);
        if (Stopped()) return StopError();
        if (!k.ok()) {
          error = k.status();
          break;
        }
        auto v = Eval(*e.args[i + 1]);
        if (Stopped()) return StopError();
        if (!v.ok()) {
          error = v.status();
          break;
        }
        // A repeated key keeps the last value, as cel-go's map literals do.
        auto same = std::find_if(entries.begin(), entries.end(),
                                 [&](const auto& kv) { return Equal(kv.first, *k); });
        if (same != entries.end()) {
          same->second = std::move(*v);
          continue;
        }
        entries.emplace_back(std::move(*k), std::move(*v));
      }
      if (!e.all_const) Charge(30);
      if (Stopped()) return StopError();
      if (error) return *error;
      return Value::MakeMap(std::move(entries));
    }
    case Expr::Kind::kComprehension:
      return EvalComprehension(e);
  }
  return Error{"internal: unknown expression kind", ErrorCode::kInternal};
}

Result<Value> Evaluator::EvalAttribute(const Expr& e, bool charge_root) {
  // Collect the chain from the outermost step down to its root.
  std::vector<const Expr*> steps;
  const Expr* root = &e;
  while (IsAttributeStep(*root)) {
    steps.push_back(root);
    root = root->args[0].get();
  }
  Result<Value> cur = Value{};
  if (root->kind == Expr::Kind::kIdent) {
    if (charge_root) {
      cur = Eval(*root);  // charges 1
    } else {
      cur = Lookup(root->name);
    }
  } else {
    cur = Eval(*root);
    // A relative attribute costs 1, except over a conditional (cel-go's conditionalAttribute).
    bool conditional = root->kind == Expr::Kind::kCall && root->name == "_?_:_";
    if (!Stopped() && charge_root && !conditional) Charge(1);
  }
  if (Stopped()) return StopError();
  if (!cur.ok()) return cur;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const Expr& s = **it;
    if (s.kind == Expr::Kind::kSelect) {
      Charge(1);
      if (Stopped()) return StopError();
      cur = Select(*cur, s.name, false);
    } else if (s.name == "_?._" || s.name == "_[?_]") {
      Value key = s.args[1]->constant;
      if (s.name == "_[?_]") {
        auto k = Eval(*s.args[1]);
        if (Stopped()) return StopError();
        if (!k.ok()) return k;
        key = *k;
      }
      const Value* base = &*cur;
      if (base->Is<OptionalValue>()) {
        if (!base->As<OptionalValue>().value) continue;  // none stays none
        base = base->As<OptionalValue>().value.get();
      }
      Result<Value> found = s.name == "_?._" && key.Is<std::string>()
                                ? Select(*base, key.As<std::string>(), false)
                                : Index(*base, key);
      if (found.ok()) {
        Charge(1);
        if (Stopped()) return StopError();
        cur = Value{OptionalValue{std::make_shared<const Value>(std::move(*found))}};
      } else if (found.error().starts_with("no such key") ||
                 found.error().starts_with("index out of bounds")) {
        cur = Value{OptionalValue{}};
      } else {
        cur = found;
      }
    } else {
      const Expr& idx = *s.args[1];
      Value key;
      if (idx.kind == Expr::Kind::kConst) {
        Charge(1);
        if (Stopped()) return StopError();
        key = idx.constant;
      } else {
        auto k = Eval(idx);
        if (Stopped()) return StopError();
        // An index that is itself an attribute qualifies by that attribute; any other
        // expression becomes a dynamic qualifier, which costs 1 more.
        bool attribute = idx.kind == Expr::Kind::kIdent || IsAttributeStep(idx) ||
                         (idx.kind == Expr::Kind::kCall && idx.name == "_?_:_");
        if (!attribute) {
          Charge(1);
          if (Stopped()) return StopError();
        }
        if (!k.ok()) return k;
        key = std::move(*k);
      }
      if (cur->Is<OptionalValue>()) {
        const auto& o = cur->As<OptionalValue>().value;
        if (!o) continue;
        auto r = Index(*o, key);
        if (!r.ok()) {
          cur = Value{OptionalValue{}};
        } else {
          cur = Value{OptionalValue{std::make_shared<const Value>(std::move(*r))}};
        }
        continue;
      }
      cur = Index(*cur, key);
    }
    if (!cur.ok()) return cur;
  }
  return cur;
}

Result<Value> Evaluator::Select(const Value& operand, const std::string& field, bool test_only) {
  if (operand.Is<OptionalValue>()) {
    const auto& o = operand.As<OptionalValue>().value;
    if (!o) return test_only ? Value{false} : operand;
    auto r = Select(*o, field, test_only);
    if (test_only || !r.ok()) return r;
    return Value{OptionalValue{std::make_shared<const Value>(std::move(*r))}};
  }
  if (operand.IsMap()) {
    const MapValue& m = operand.Map();
    const Value* v = nullptr;
    for (const auto& [k, val] : m.entries) {
      if (k.Is<std::string>() && k.As<std::string>() == field) {
        v = &val;
        break;
      }
    }
    if (test_only) return Value{v != nullptr || m.missing_is_empty};
    if (v != nullptr) return *v;
    if (m.missing_is_empty) return EmptyMap();
    return Error{"no such key: " + field};
  }
  if (test_only) return Error{"no such overload"};
  return Error{"no such key: " + field};
}

Result<Value> Evaluator::Index(const Value& operand, const Value& key) {
  if (operand.IsList()) {
    const auto& items = operand.List().items;
    int64_t i = 0;
    if (key.Is<int64_t>()) {
      i = key.As<int64_t>();
    } else if (key.Is<uint64_t>()) {
      i = static_cast<int64_t>(key.As<uint64_t>());
    } else if (key.Is<double>() &&
               key.As<double>() == static_cast<double>(static_cast<int64_t>(key.As<double>()))) {
      i = static_cast<int64_t>(key.As<double>());
    } else {
      return Error{"unsupported index type '" + key.TypeName() + "' in list"};
    }
    if (i < 0 || i >= static_cast<int64_t>(items.size())) {
      return Error{"index out of bounds: " + std::to_string(i)};
    }
    return items[static_cast<size_t>(i)];
  }
  if (operand.IsMap()) {
    const MapValue& m = operand.Map();
    const Value* v = MapFind(m, key);
    if (v != nullptr) return *v;
    if (m.missing_is_empty) return EmptyMap();
    return Error{"no such key: " + KeyText(key)};
  }
  return Error{"no such key: " + KeyText(key)};
}

Result<Value> Evaluator::EvalLogical(const Expr& e, bool is_and) {
  std::optional<Error> err;
  for (const auto& a : e.args) {
    auto v = Eval(*a);
    if (Stopped()) return StopError();
    if (v.ok() && v->Is<bool>()) {
      if (v->As<bool>() != is_and) return Value{!is_and};
      continue;
    }
    if (!err) err = v.ok() ? Error{"no such overload"} : v.status();
  }
  if (err) return *err;
  return Value{is_and};
}

Result<Value> Evaluator::EvalConditional(const Expr& e) {
  auto c = Eval(*e.args[0]);
  if (Stopped()) return StopError();
  if (!c.ok()) return c;
  if (!c->Is<bool>()) return Error{"no such overload"};
  const Expr& branch = *e.args[c->As<bool>() ? 1 : 2];
  // cel-go resolves a branch that is an attribute without observing its root.
  if (branch.kind == Expr::Kind::kIdent) return Lookup(branch.name);
  if (IsAttributeStep(branch) && !branch.test_only) return EvalAttribute(branch, false);
  return Eval(branch);
}

Result<Value> Evaluator::EvalCall(const Expr& e) {
  const std::string& fn = e.name;
  if (fn == "_&&_") return EvalLogical(e, true);
  if (fn == "_||_") return EvalLogical(e, false);
  if (fn == "_?_:_") return EvalConditional(e);
  if (fn == "orValue" || fn == "or") {
    // Planned as non-strict operators by cel-go: no call cost.
    auto o = Eval(*e.args[0]);
    if (Stopped()) return StopError();
    if (!o.ok()) return o;
    if (!o->Is<OptionalValue>()) return Error{"no such overload"};
    if (o->As<OptionalValue>().value) return fn == "or" ? *o : *o->As<OptionalValue>().value;
    return Eval(*e.args[1]);
  }
  if (e.precomputed) {
    std::vector<Value> consts;
    for (const auto& a : e.args) consts.push_back(a->constant);
    const Result<Value>& r = *e.precomputed;
    Charge(ComputeCallCost(e.overload->cost, consts, r.ok() ? *r : Value{}));
    if (Stopped()) return StopError();
    return r;
  }
  if (fn == "_+_" && e.synthetic && e.args.size() == 2 && e.args[0]->synthetic &&
      e.args[0]->kind == Expr::Kind::kIdent && e.args[1]->kind == Expr::Kind::kList) {
    return AppendToAccumulator(e);
  }
  std::vector<Value> args;
  args.reserve(e.args.size());
  std::optional<Error> err;
  for (const auto& a : e.args) {
    auto v = Eval(*a);
    if (Stopped()) return StopError();
    if (!v.ok()) {
      // cel-go's strict calls of three or more arguments (evalVarArgs) return the first error
      // without evaluating the rest, and so does a receiver call it dispatches at runtime; the
      // cost tracker then finds no complete argument list and charges nothing for the call.
      if (e.args.size() >= 3 ||
          (e.has_target && e.dynamic_dispatch && e.args.size() == 2 && &a == &e.args[0])) {
        if (fn != "@not_strictly_false") return v;
      }
      if (!err) err = v.status();
      args.push_back(Value{});
      continue;
    }
    args.push_back(std::move(*v));
  }
  return FinishCall(e, std::move(args), std::move(err));
}

namespace {

uint64_t CeilCost(double d) { return static_cast<uint64_t>(std::ceil(d)); }

// What join() will build, when it will succeed: the code points and bytes of its result.
std::optional<std::pair<uint64_t, uint64_t>> JoinSize(const std::vector<Value>& args) {
  const auto& items = args[0].List().items;
  uint64_t points = 0, bytes = 0;
  for (const auto& i : items) {
    if (!i.Is<std::string>()) return std::nullopt;
    points += CodePoints(i.As<std::string>());
    bytes += i.As<std::string>().size();
  }
  if (args.size() == 2 && items.size() > 1) {
    const std::string& sep = args[1].As<std::string>();
    points += CodePoints(sep) * (items.size() - 1);
    bytes += sep.size() * (items.size() - 1);
  }
  return std::make_pair(points, bytes);
}

// The byte length of s.replace(from, to[, limit]) (Go's strings.Replace), without building it.
uint64_t ReplaceBytes(const std::vector<Value>& args) {
  const std::string& s = args[0].As<std::string>();
  const std::string& from = args[1].As<std::string>();
  const std::string& to = args[2].As<std::string>();
  int64_t limit = args.size() == 4 ? args[3].As<int64_t>() : -1;
  if (limit == 0) return s.size();
  uint64_t count = 0;
  if (from.empty()) {
    count = CodePoints(s) + 1;  // before every rune and at the end
  } else {
    for (size_t pos = s.find(from); pos != std::string::npos;
         pos = s.find(from, pos + from.size())) {
      ++count;
      if (limit > 0 && count == static_cast<uint64_t>(limit)) break;
    }
  }
  if (limit > 0) count = std::min(count, static_cast<uint64_t>(limit));
  // s.size() - count * from.size() + count * to.size(), saturating.
  uint64_t removed = count * from.size();
  uint64_t added = 0;
  if (__builtin_mul_overflow(count, static_cast<uint64_t>(to.size()), &added)) return UINT64_MAX;
  uint64_t out = s.size() - removed;
  if (__builtin_add_overflow(out, added, &out)) return UINT64_MAX;
  return out;
}

uint64_t FlattenedSize(const Value& list, int64_t depth) {
  uint64_t n = 0;
  for (const Value& v : list.List().items) {
    n += v.IsList() && depth > 0 ? FlattenedSize(v, depth - 1) : 1;
    if (n > kMaxListElements) return n;
  }
  return n;
}

}  // namespace

bool Evaluator::ResultTooLarge(const Expr& e, const Overload& o, const std::vector<Value>& args) {
  uint64_t size = 0;
  uint64_t bound = kMaxStringBytes;
  const char* unit = "bytes";
  std::string_view id = o.id;
  if (id == "add_list") {
    size = args[0].List().items.size() + args[1].List().items.size();
    bound = kMaxListElements;
    unit = "elements";
  } else if (id == "list_flatten" || id == "list_flatten_int") {
    int64_t depth = args.size() == 2 ? args[1].As<int64_t>() : 1;
    if (depth < 0) return false;
    size = FlattenedSize(args[0], depth);
    bound = kMaxListElements;
    unit = "elements";
  } else if (id == "string_split_string" || id == "string_split_string_int") {
    // One element per separator found, plus one (per code point for an empty separator).
    const std::string& str = args[0].As<std::string>();
    const std::string& sep = args[1].As<std::string>();
    int64_t limit = args.size() == 3 ? args[2].As<int64_t>() : -1;
    if (sep.empty()) {
      size = CodePoints(str);
    } else {
      size = 1;
      for (size_t p = str.find(sep); p != std::string::npos && size <= kMaxListElements;
           p = str.find(sep, p + sep.size())) {
        ++size;
      }
    }
    if (limit >= 0) size = std::min(size, static_cast<uint64_t>(limit));
    bound = kMaxListElements;
    unit = "elements";
  } else if (id == "string_find_all_string" || id == "string_find_all_string_int") {
    // At most one match per code point, plus one; only a subject longer than the bound needs the
    // matches counted (with RE2, in linear time; the call itself reports a bad pattern).
    const std::string& str = args[0].As<std::string>();
    int64_t limit = args.size() == 3 ? args[2].As<int64_t>() : -1;
    size = CodePoints(str) + 1;
    if (limit >= 0) size = std::min(size, static_cast<uint64_t>(limit));
    if (size > kMaxListElements) {
      auto re = Regex::Compile(args[1].As<std::string>());
      if (!re.ok()) return false;
      size = re->FindAll(str, static_cast<int64_t>(kMaxListElements) + 1).size();
      if (limit >= 0) size = std::min(size, static_cast<uint64_t>(limit));
    }
    bound = kMaxListElements;
    unit = "elements";
  } else if (id == "string_replace_string_string" || id == "string_replace_string_string_int") {
    size = ReplaceBytes(args);
  } else if (id == "list_join" || id == "list_join_string") {
    auto joined = JoinSize(args);
    if (!joined) return false;
    size = joined->second;
  } else {
    return false;
  }
  if (size <= bound) return false;
  // "replace()", or an operator as written ("'+'").
  std::string name = e.name.size() > 2 && e.name.front() == '_' && e.name.back() == '_'
                         ? "'" + e.name.substr(1, e.name.size() - 2) + "'"
                         : e.name + "()";
  fatal_ = Error{"operation cancelled: result of " + name + " too large: " + std::to_string(size) +
                 " " + unit + " (limit " + std::to_string(bound) + ")"};
  return true;
}

Result<Value> Evaluator::FinishCall(const Expr& e, std::vector<Value> args,
                                    std::optional<Error> err) {
  const std::string& fn = e.name;
  // The lists extension's sort() takes its receiver unchecked: cel-go panics on an error there
  // and reports the panic, ending the evaluation.
  if (fn == "sort" && e.has_target && err && !args.empty() && args[0].Is<Null>()) {
    fatal_ = Error{
        "internal error: interface conversion: *types.Err is not traits.Lister: missing method "
        "Add"};
    return StopError();
  }
  if (fn == "@not_strictly_false") {
    Charge(1);
    if (Stopped()) return StopError();
    if (err) return Value{true};
    return Value{!args[0].Is<bool>() || args[0].As<bool>()};
  }
  const std::vector<Overload>* overloads = e.overloads ? e.overloads : FindFunction(fn);
  const Overload* chosen = nullptr;
  if (overloads != nullptr && !err) {
    for (const Overload& o : *overloads) {
      if (o.member != e.has_target || o.params.size() != args.size()) continue;
      bool ok = true;
      for (size_t i = 0; i < args.size() && ok; ++i) ok = ValueMatches(o.params[i], args[i]);
      if (ok) {
        chosen = &o;
        break;
      }
    }
  }
  // cel-go costs a call by the overload it planned: the checker's single candidate, or none for
  // a call dispatched at runtime (then only Kubernetes' estimator, which goes by function name,
  // knows better than 1).
  CallCost cost = CallCost::kOne;
  if (e.overload != nullptr) {
    cost = e.overload->cost;
  } else if (chosen != nullptr && CostedByName(fn)) {
    cost = chosen->cost;
  } else if (chosen == nullptr && overloads != nullptr && CostedByName(fn)) {
    cost = (*overloads)[0].cost;
  }
  // cel-go plans `x in [constants]` as a set lookup and regex functions with a constant pattern
  // as a precompiled matcher; the set lookup is free, and so is the matcher when its receiver is
  // an error.
  bool free = (fn == "@in" && e.args[1]->kind == Expr::Kind::kList && e.args[1]->all_const) ||
              ((fn == "matches" || fn == "find" || fn == "findAll") && err && e.args.size() >= 2 &&
               e.args[1]->kind == Expr::Kind::kConst);
  // join() costs by its result, which is an error (cost 1) unless every element is a string.
  if (cost == CallCost::kJoin && (err || !chosen || !JoinSize(args))) cost = CallCost::kOne;
  // cel-go charges a call after running it; its cost is known from the arguments (or the size
  // of the result they make), so berth charges first and runs nothing once over the limit.
  bool by_result = cost == CallCost::kJoin || cost == CallCost::kListOutput;
  if (!free && !by_result) {
    Charge(ComputeCallCost(cost, args, Value{}));
    if (Stopped()) return StopError();
  }
  if (!free && by_result && chosen != nullptr) {
    // What a successful call would charge: join by its result's code points, lists.range by
    // its length; the others return at most their input.
    std::optional<uint64_t> predicted;
    if (cost == CallCost::kJoin) {
      predicted = CeilCost(static_cast<double>(JoinSize(args)->first) * 2 * 0.1);
    } else if (fn == "lists.range" && args[0].Is<int64_t>() && args[0].As<int64_t>() >= 0 &&
               args[0].As<int64_t>() <= 1000000) {
      predicted = 11 + static_cast<uint64_t>(args[0].As<int64_t>());
    }
    if (predicted && (cost_ > limit_ || *predicted > limit_ - cost_)) {
      Charge(*predicted);
      return StopError();
    }
  }
  if (chosen != nullptr && !err && ResultTooLarge(e, *chosen, args)) return StopError();
  Result<Value> result = err      ? Result<Value>(*err)
                         : chosen ? chosen->impl(args)
                                  : Result<Value>(Error{"no such overload"});
  if (!free && by_result) {
    Charge(ComputeCallCost(cost, args, result.ok() ? *result : Value{}));
    if (Stopped()) return StopError();
  }
  return result;
}

Result<Value> Evaluator::AppendToAccumulator(const Expr& e) {
  // The accumulator: the innermost variable of that name (the comprehension being stepped).
  size_t slot = vars_.size();
  for (size_t i = vars_.size(); i-- > 0;) {
    if (*vars_[i].name == e.args[0]->name) {
      slot = i;
      break;
    }
  }
  if (slot == vars_.size()) {
    return Error{"internal: no accumulator " + e.args[0]->name, ErrorCode::kInternal};
  }
  // As Eval(identifier): cost 1. Taking the value out of the variable leaves it the only owner
  // of its list; nothing reads the accumulator before the step's result replaces it (the element
  // expression is the user's, who cannot name it; inner comprehensions shadow it).
  Charge(1);
  if (Stopped()) return StopError();
  Resolve(slot);
  if (Stopped()) return StopError();
  Result<Value> accu = std::move(vars_[slot].value);
  vars_[slot].value = Value{};
  Result<Value> tail = Eval(*e.args[1]);
  if (Stopped()) return StopError();
  if (accu.ok() && tail.ok() && accu->IsList() && tail->IsList()) {
    const Overload* chosen = nullptr;
    const std::vector<Overload>* overloads = e.overloads ? e.overloads : FindFunction(e.name);
    for (const Overload& o : *overloads) {
      if (o.id == "add_list") chosen = &o;
    }
    CallCost cost = e.overload != nullptr ? e.overload->cost : CallCost::kOne;
    Charge(ComputeCallCost(cost, {}, Value{}));
    if (Stopped()) return StopError();
    if (chosen != nullptr && ResultTooLarge(e, *chosen, {*accu, *tail})) return StopError();
    auto& ptr = std::get<std::shared_ptr<const ListValue>>(accu->v);
    if (ptr.use_count() == 1) {
      // Lists are created mutable (Value::MakeList) and shared as const; this one has no other
      // owner, so appending cannot be observed by anyone else.
      auto& items = const_cast<ListValue&>(*ptr).items;
      const auto& more = tail->List().items;
      items.insert(items.end(), more.begin(), more.end());
      return accu;
    }
    std::vector<Value> items = accu->List().items;
    items.insert(items.end(), tail->List().items.begin(), tail->List().items.end());
    return Value::MakeList(std::move(items));
  }
  // Anything else (an error in either operand) as the ordinary call.
  std::optional<Error> err;
  std::vector<Value> args;
  for (Result<Value>* r : {&accu, &tail}) {
    if (!r->ok()) {
      if (!err) err = r->status();
      args.push_back(Value{});
    } else {
      args.push_back(std::move(**r));
    }
  }
  return FinishCall(e, std::move(args), std::move(err));
}

Result<Value> Evaluator::EvalComprehension(const Expr& e) {
  auto range = Eval(*e.args[0]);
  if (Stopped()) return StopError();
  if (!range.ok()) return range;
  // Iteration pairs: (element) for one variable; (index, element) or (key, value) for two.
  std::vector<std::pair<Value, Value>> pairs;
  bool two = !e.iter_var2.empty();
  if (range->IsList()) {
    const auto& items = range->List().items;
    for (size_t i = 0; i < items.size(); ++i) {
      pairs.emplace_back(two ? Value{static_cast<int64_t>(i)} : items[i], two ? items[i] : Value{});
    }
  } else if (range->IsMap()) {
    for (const auto& [k, v] : range->Map().entries) pairs.emplace_back(k, two ? v : Value{});
  } else {
    return Error{"got '" + GoTypeName(*range) + "', expected iterable type"};
  }
  // The initialiser runs when the accumulator is first read (cel-go's folder is lazy too).
  vars_.push_back(Var{&e.accu_var, Value{}, e.args[1].get()});
  size_t accu_slot = vars_.size() - 1;
  for (const auto& [first, second] : pairs) {
    vars_.push_back(Var{&e.iter_var, first});
    if (two) vars_.push_back(Var{&e.iter_var2, second});
    size_t pop = two ? 2 : 1;
    auto cond = Eval(*e.args[2]);
    if (Stopped()) return StopError();
    if (cond.ok() && cond->Is<bool>() && !cond->As<bool>()) {
      for (size_t i = 0; i < pop; ++i) vars_.pop_back();
      break;
    }
    auto next = Eval(*e.args[3]);
    if (Stopped()) return StopError();
    vars_[accu_slot].value = std::move(next);
    vars_[accu_slot].lazy_init = nullptr;
    for (size_t i = 0; i < pop; ++i) vars_.pop_back();
  }
  auto result = Eval(*e.args[4]);
  vars_.pop_back();
  if (Stopped()) return StopError();
  return result;
}

}  // namespace berth::cel
