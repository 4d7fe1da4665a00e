#include "cel/checker.h"

#include <algorithm>
#include <map>

#include "cel/functions.h"
#include "cel/regex.h"

namespace berth::cel {
namespace {

using K = Type::Kind;

Type DeviceFieldType(const std::string& field, bool* found) {
  *found = true;
  if (field == "driver") return Type::Of(K::kString);
  if (field == "allowMultipleAllocations") return Type::Of(K::kBool);
  if (field == "attributes")
    return Type::Map(Type::Of(K::kString), Type::Map(Type::Of(K::kString), Type::Dyn()));
  if (field == "capacity") {
    return Type::Map(Type::Of(K::kString), Type::Map(Type::Of(K::kString), Type::Of(K::kQuantity)));
  }
  *found = false;
  return Type::Dyn();
}

using Bindings = std::map<char, Type>;

bool Unify(const Type& param, const Type& arg, Bindings& b) {
  if (param.kind == K::kParam) {
    auto it = b.find(param.param);
    if (it == b.end()) {
      b[param.param] = arg;
      return true;
    }
    if (!Assignable(it->second, arg)) return false;
    // A more specific binding replaces dyn (cel-go joins to the most general type; dyn wins).
    return true;
  }
  if (param.kind == K::kDyn || arg.kind == K::kDyn) return true;
  if (param.kind != arg.kind || param.params.size() != arg.params.size()) return false;
  for (size_t i = 0; i < param.params.size(); ++i) {
    if (!Unify(*param.params[i], *arg.params[i], b)) return false;
  }
  return true;
}

Type Substitute(const Type& t, const Bindings& b) {
  if (t.kind == K::kParam) {
    auto it = b.find(t.param);
    return it == b.end() ? Type::Dyn() : it->second;
  }
  if (t.params.empty()) return t;
  Type out = t;
  for (auto& p : out.params) p = std::make_shared<const Type>(Substitute(*p, b));
  return out;
}

class Checker {
 public:
  std::vector<CheckIssue> issues;

  void Visit(Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kConst:
        e.type = ConstType(e.constant);
        return;
      case Expr::Kind::kIdent:
        return VisitIdent(e);
      case Expr::Kind::kSelect:
        return VisitSelect(e);
      case Expr::Kind::kCall:
        return VisitCall(e);
      case Expr::Kind::kList:
        return VisitList(e);
      case Expr::Kind::kMap:
        return VisitMap(e);
      case Expr::Kind::kComprehension:
        return VisitComprehension(e);
    }
  }

 private:
  void Issue(std::string msg, int32_t offset) { issues.push_back({std::move(msg), offset}); }
  void Validation(std::string msg, int32_t offset) {
    issues.push_back({std::move(msg), offset, CheckIssue::Phase::kValidate});
  }

  static Type ConstType(const Value& v) {
    if (v.Is<Null>()) return Type::Of(K::kNull);
    if (v.Is<bool>()) return Type::Of(K::kBool);
    if (v.Is<int64_t>()) return Type::Of(K::kInt);
    if (v.Is<uint64_t>()) return Type::Of(K::kUint);
    if (v.Is<double>()) return Type::Of(K::kDouble);
    if (v.Is<std::string>()) return Type::Of(K::kString);
    if (v.Is<Bytes>()) return Type::Of(K::kBytes);
    return Type::Dyn();
  }

  const Type* Lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    return nullptr;
  }

  void VisitIdent(Expr& e) {
    // A leading dot names the root scope: `.string` is `string`.
    if (e.name.size() > 1 && e.name[0] == '.') e.name.erase(0, 1);
    if (const Type* t = Lookup(e.name)) {
      e.type = *t;
      return;
    }
    if (e.name == "device") {
      e.type = Type::Of(K::kDevice);
      return;
    }
    // Type names are constants of type `type`.
    static const char* kTypeNames[] = {"int",   "uint", "double", "string",    "bool",
                                       "bytes", "list", "map",    "null_type", "type"};
    for (const char* t : kTypeNames) {
      if (e.name == t) {
        e.kind = Expr::Kind::kConst;
        e.constant = Value{TypeValue{t}};
        e.type = Type::Of(K::kType);
        return;
      }
    }
    Issue("undeclared reference to '" + e.name + "' (in container '')", e.offset);
    e.type = Type::Dyn();
  }

  // The type of selecting `field` from a value of type `t`; sets *ok=false on an error.
  Type FieldType(const Type& t, const std::string& field, int32_t offset) {
    switch (t.kind) {
      case K::kDevice: {
        bool found = false;
        Type ft = DeviceFieldType(field, &found);
        if (!found) Issue("undefined field '" + field + "'", offset);
        return ft;
      }
      case K::kMap:
        return t.Value();
      case K::kDyn:
        return Type::Dyn();
      case K::kOptional:
        return Type::Optional(FieldType(t.Elem(), field, offset));
      default:
        Issue("type '" + t.Name() + "' does not support field selection", offset);
        return Type::Dyn();
    }
  }

  void VisitSelect(Expr& e) {
    Expr& operand = *e.args[0];
    // An undeclared dotted name is reported for its first component, as cel-go does.
    Visit(operand);
    Type t = FieldType(operand.type, e.name, e.offset);
    e.type = e.test_only ? Type::Of(K::kBool) : t;
  }

  // HomogeneousAggregateLiterals: every element has exactly the first element's type (dyn
  // included); an empty literal's free element type fits anything.
  static bool SameLiteralType(const Type& have, const Expr& next) {
    if ((next.kind == Expr::Kind::kList || next.kind == Expr::Kind::kMap) && next.args.empty()) {
      return have.kind == next.type.kind;
    }
    return have == next.type;
  }

  // Literals of constants (after folding) are planned as one constant value by cel-go.
  static void MarkConstant(Expr& e) {
    e.all_const = true;
    for (const auto& a : e.args) {
      e.all_const &=
          a->kind == Expr::Kind::kConst ||
          ((a->kind == Expr::Kind::kList || a->kind == Expr::Kind::kMap) && a->all_const);
    }
  }

  void VisitList(Expr& e) {
    Type elem = Type::Dyn();
    bool first = true;
    bool mismatch = false;
    for (auto& a : e.args) {
      Visit(*a);
      if (first) {
        elem = a->type;
        first = false;
      } else if (!mismatch && !SameLiteralType(elem, *a)) {
        // cel-go reports the first mismatch of a literal only; the literal is then dyn-typed.
        Validation("expected type '" + elem.Name() + "' but found '" + a->type.Name() + "'",
                   a->offset);
        elem = Type::Dyn();
        mismatch = true;
      }
    }
    MarkConstant(e);
    e.type = Type::List(elem);
  }

  void VisitMap(Expr& e) {
    Type key = Type::Dyn(), val = Type::Dyn();
    bool mismatch = false;
    for (size_t i = 0; i < e.args.size(); i += 2) {
      Visit(*e.args[i]);
      Visit(*e.args[i + 1]);
      if (i == 0) {
        key = e.args[i]->type;
        val = e.args[i + 1]->type;
        continue;
      }
      for (auto [have, next] : {std::pair<Type*, Expr*>{&key, e.args[i].get()},
                                std::pair<Type*, Expr*>{&val, e.args[i + 1].get()}}) {
        if (!mismatch && !SameLiteralType(*have, *next)) {
          Validation("expected type '" + have->Name() + "' but found '" + next->type.Name() + "'",
                     next->offset);
          *have = Type::Dyn();
          mismatch = true;
        }
      }
    }
    MarkConstant(e);
    e.type = Type::Map(key, val);
  }

  void VisitComprehension(Expr& e) {
    Expr& range = *e.args[0];
    Visit(range);
    Type iter = Type::Dyn();
    switch (range.type.kind) {
      case K::kList:
        iter = range.type.Elem();
        break;
      case K::kMap:
        iter = range.type.Elem();
        break;
      case K::kDyn:
        break;
      default:
        Issue("expression of type '" + range.type.Name() +
                  "' cannot be the range of a comprehension (must be list, map, or dynamic)",
              range.offset);
    }
    Type iter2 = Type::Dyn();
    if (!e.iter_var2.empty()) {
      if (range.type.kind == K::kList) {
        iter2 = range.type.Elem();
        iter = Type::Of(K::kInt);
      } else if (range.type.kind == K::kMap) {
        iter2 = range.type.Value();
      }
    }
    Expr& init = *e.args[1];
    Visit(init);
    scopes_.emplace_back(e.accu_var, init.type);
    Visit(*e.args[2]);  // the loop condition sees the accumulator only
    scopes_.emplace_back(e.iter_var, iter);
    if (!e.iter_var2.empty()) scopes_.emplace_back(e.iter_var2, iter2);
    Visit(*e.args[3]);
    // An empty-list accumulator takes the element type the step appends (map, filter), as
    // cel-go's type inference binds the empty literal's element type.
    if (init.kind == Expr::Kind::kList && init.args.empty()) {
      if (const Expr* appended = AppendedList(*e.args[3], e.accu_var)) {
        scopes_[scopes_.size() - 2].second = appended->type;
      }
    }
    scopes_.pop_back();
    if (!e.iter_var2.empty()) scopes_.pop_back();
    Visit(*e.args[4]);
    scopes_.pop_back();
    e.type = e.args[4]->type;
  }

  // The `[x]` of a macro step `accu + [x]` (possibly under a ternary), or nullptr.
  static const Expr* AppendedList(const Expr& step, const std::string& accu) {
    if (step.kind != Expr::Kind::kCall) return nullptr;
    if (step.name == "_?_:_") return AppendedList(*step.args[1], accu);
    if (step.name == "_+_" && step.args[0]->kind == Expr::Kind::kIdent &&
        step.args[0]->name == accu && step.args[1]->kind == Expr::Kind::kList) {
      return step.args[1].get();
    }
    return nullptr;
  }

  static std::string ArgList(const Expr& e) {
    std::string out;
    size_t first = e.has_target ? 1 : 0;
    if (e.has_target) out = e.args[0]->type.Name() + ".";
    out += "(";
    for (size_t i = first; i < e.args.size(); ++i) {
      if (i > first) out += ", ";
      out += e.args[i]->type.Name();
    }
    return out + ")";
  }

  void VisitCall(Expr& e) {
    // Namespaced functions (optional.of, optional.none) parse as member calls on an identifier.
    if (e.has_target && e.args[0]->kind == Expr::Kind::kIdent && !Lookup(e.args[0]->name) &&
        e.args[0]->name != "device" && FindFunction(e.args[0]->name + "." + e.name)) {
      e.name = e.args[0]->name + "." + e.name;
      e.args.erase(e.args.begin());
      e.has_target = false;
    }
    for (auto& a : e.args) Visit(*a);
    const std::string& fn = e.name;
    if (fn == "_&&_" || fn == "_||_" || fn == "@not_strictly_false") {
      // The step of all() and exists(): cel-go reports the predicate itself.
      if (e.args.size() == 2 && e.args[0]->kind == Expr::Kind::kIdent &&
          e.args[0]->name == "@result" && !Assignable(Type::Of(K::kBool), e.args[1]->type)) {
        Issue("expected type 'bool' but found '" + e.args[1]->type.Name() + "'", e.args[1]->offset);
        e.type = Type::Of(K::kBool);
        return;
      }
      for (auto& a : e.args) {
        if (!Assignable(Type::Of(K::kBool), a->type)) {
          Issue("found no matching overload for '" + fn + "' applied to '" + ArgList(e) + "'",
                e.offset);
          break;
        }
      }
      e.type = Type::Of(K::kBool);
      return;
    }
    if (fn == "_?_:_") {
      const Type& c = e.args[0]->type;
      const Type& a = e.args[1]->type;
      const Type& b = e.args[2]->type;
      if (!Assignable(Type::Of(K::kBool), c) || !(Assignable(a, b) && Assignable(b, a))) {
        Issue("found no matching overload for '_?_:_' applied to '" + ArgList(e) + "'", e.offset);
      }
      e.type = a.kind == K::kDyn ? b : a;
      if (b.kind == K::kDyn) e.type = Type::Dyn();
      return;
    }
    if (fn == "_[_]" || fn == "_[?_]") {
      e.type = IndexType(e);
      return;
    }
    if (fn == "_?._") {
      e.type = Type::Optional(
          FieldType(e.args[0]->type, e.args[1]->constant.As<std::string>(), e.offset));
      if (e.args[0]->type.kind == K::kOptional)
        e.type = FieldType(e.args[0]->type, e.args[1]->constant.As<std::string>(), e.offset);
      return;
    }
    const std::vector<Overload>* overloads = FindFunction(fn);
    e.overloads = overloads;
    if (overloads == nullptr) {
      Issue("undeclared reference to '" + fn + "' (in container '')", e.offset);
      e.type = Type::Dyn();
      return;
    }
    std::vector<Type> results;
    const Overload* single = nullptr;
    for (const Overload& o : *overloads) {
      if (o.member != e.has_target || o.params.size() != e.args.size()) continue;
      Bindings b;
      bool ok = true;
      for (size_t i = 0; i < e.args.size() && ok; ++i) ok = Unify(o.params[i], e.args[i]->type, b);
      if (ok) {
        results.push_back(Substitute(o.result, b));
        single = &o;
      }
    }
    if (results.empty()) {
      Issue("found no matching overload for '" + fn + "' applied to '" + ArgList(e) + "'",
            e.offset);
      e.type = Type::Dyn();
      return;
    }
    e.type = results[0];
    for (const Type& r : results) {
      if (!(r == results[0])) e.type = Type::Dyn();
    }
    e.dynamic_dispatch = results.size() > 1;
    e.overload = results.size() == 1 ? single : nullptr;
    FoldConversion(e, *overloads, &issues);
    Precompute(e);
    if ((fn == "matches") && e.args.back()->kind == Expr::Kind::kConst &&
        e.args.back()->constant.Is<std::string>()) {
      if (!Regex::Compile(e.args.back()->constant.As<std::string>()).ok()) {
        Validation("invalid matches argument", e.args.back()->offset);
      }
    }
    // cel-go compiles a constant find()/findAll() pattern when it plans the program.
    if ((fn == "find" || fn == "findAll") && e.has_target && e.args.size() >= 2 &&
        e.args[1]->kind == Expr::Kind::kConst && e.args[1]->constant.Is<std::string>()) {
      auto re = Regex::Compile(e.args[1]->constant.As<std::string>());
      if (!re.ok()) issues.push_back({re.error(), e.offset, CheckIssue::Phase::kInstantiate});
    }
  }

  // cel-go evaluates a type conversion of a constant when it plans the program, so it costs
  // nothing at runtime, and one that fails fails the program's instantiation.
  static void FoldConversion(Expr& e, const std::vector<Overload>& overloads,
                             std::vector<CheckIssue>* issues) {
    static const char* kConversions[] = {"int",   "uint", "double", "string",
                                         "bytes", "bool", "dyn",    "type"};
    if (e.has_target || e.args.size() != 1 || e.args[0]->kind != Expr::Kind::kConst) return;
    if (std::none_of(std::begin(kConversions), std::end(kConversions),
                     [&](const char* c) { return e.name == c; })) {
      return;
    }
    for (const Overload& o : overloads) {
      if (!ValueMatches(o.params[0], e.args[0]->constant)) continue;
      auto v = o.impl({e.args[0]->constant});
      if (!v.ok()) {
        issues->push_back({v.error(), e.offset, CheckIssue::Phase::kInstantiate});
        return;
      }
      e.kind = Expr::Kind::kConst;
      e.constant = std::move(*v);
      e.args.clear();
      return;
    }
  }

  static void Precompute(Expr& e) {
    if (e.kind != Expr::Kind::kCall || e.overload == nullptr || e.overload->impl == nullptr) return;
    std::vector<Value> args;
    for (const auto& a : e.args) {
      if (a->kind != Expr::Kind::kConst) return;
      args.push_back(a->constant);
    }
    e.precomputed = std::make_shared<const Result<Value>>(e.overload->impl(args));
  }

  Type IndexType(Expr& e) {
    const Type& c = e.args[0]->type;
    const Type& k = e.args[1]->type;
    bool opt = e.name == "_[?_]";
    auto wrap = [&](Type t) { return opt ? Type::Optional(std::move(t)) : t; };
    const Type* base = &c;
    if (c.kind == K::kOptional) base = &c.Elem();
    switch (base->kind) {
      case K::kList:
        if (!Assignable(Type::Of(K::kInt), k) && !Assignable(Type::Of(K::kUint), k) &&
            !Assignable(Type::Of(K::kDouble), k)) {
          break;
        }
        return c.kind == K::kOptional ? Type::Optional(base->Elem()) : wrap(base->Elem());
      case K::kMap:
        if (!Assignable(base->Elem(), k)) break;
        return c.kind == K::kOptional ? Type::Optional(base->Value()) : wrap(base->Value());
      case K::kDyn:
        return wrap(Type::Dyn());
      default:
        break;
    }
    Issue("found no matching overload for '" + e.name + "' applied to '" + ArgList(e) + "'",
          e.offset);
    return Type::Dyn();
  }

  std::vector<std::pair<std::string, Type>> scopes_;
};

}  // namespace

std::vector<CheckIssue> Check(Expr& root) {
  Checker c;
  c.Visit(root);
  return std::move(c.issues);
}

}  // namespace berth::cel
