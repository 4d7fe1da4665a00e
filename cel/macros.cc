#include "cel/macros.h"

#include <algorithm>

namespace berth::cel::internal {
namespace {

ExprPtr Fail(MacroError* error, std::string message, int32_t offset) {
  error->message = std::move(message);
  error->offset = offset;
  return nullptr;
}

ExprPtr Comprehension(int32_t off, std::string iter, ExprPtr range, std::string accu, ExprPtr init,
                      ExprPtr cond, ExprPtr step, ExprPtr result) {
  auto e = Node(Expr::Kind::kComprehension, off);
  e->iter_var = std::move(iter);
  e->accu_var = std::move(accu);
  e->args =
      Args(std::move(range), std::move(init), std::move(cond), std::move(step), std::move(result));
  return e;
}

}  // namespace

ExprPtr ExpandGlobalCall(const std::string& fn, int32_t off, std::vector<ExprPtr> args,
                         MacroError* error) {
  if (fn == "has" && args.size() == 1) {
    if (args[0]->kind != Expr::Kind::kSelect) {
      return Fail(error, "invalid argument to has() macro", args[0]->offset);
    }
    args[0]->test_only = true;
    args[0]->offset = off;  // cel-go reports has()'s errors at the macro
    return std::move(args[0]);
  }
  return Call(fn, off, std::move(args));
}

namespace {

ExprPtr ExpandReceiverMacro(const std::string& fn, int32_t off, std::vector<ExprPtr> args,
                            MacroError* error) {
  const size_t n = args.size() - 1;  // without the target
  bool macro =
      ((fn == "all" || fn == "exists" || fn == "exists_one" || fn == "filter") && n == 2) ||
      (fn == "map" && (n == 2 || n == 3));
  // cel.bind(var, init, expr)
  if (fn == "bind" && n == 3 && args[0]->kind == Expr::Kind::kIdent && args[0]->name == "cel") {
    if (args[1]->kind != Expr::Kind::kIdent) {
      return Fail(error, "cel.bind() variable names must be simple identifiers", args[1]->offset);
    }
    std::string var = args[1]->name;
    auto range = Node(Expr::Kind::kList, off);
    range->all_const = true;
    return Comprehension(off, "#unused", std::move(range), var, std::move(args[2]),
                         Const(Value{false}, off), Ident(var, off), std::move(args[3]));
  }
  // The two-variable comprehensions extension: all/exists/existsOne(k, v, p) and
  // transformList(k, v, [filter,] f) expand like their one-variable forms with a second
  // iteration variable bound to the element (lists) or value (maps).
  bool two_var =
      ((fn == "all" || fn == "exists" || fn == "existsOne" || fn == "exists_one") && n == 3) ||
      (fn == "transformList" && (n == 3 || n == 4));
  if (two_var) {
    if (args[1]->kind != Expr::Kind::kIdent || args[2]->kind != Expr::Kind::kIdent) {
      return Fail(error, "argument must be a simple name",
                  args[args[1]->kind != Expr::Kind::kIdent ? 1 : 2]->offset);
    }
    std::string second = args[2]->name;
    args.erase(args.begin() + 2);
    std::string one_var = fn == "transformList" ? "map" : (fn == "existsOne" ? "exists_one" : fn);
    ExprPtr e = ExpandReceiverMacro(one_var, off, std::move(args), error);
    if (e) e->iter_var2 = second;
    return e;
  }
  if (!macro) return Call(fn, off, std::move(args), /*target=*/true);
  if (args[1]->kind != Expr::Kind::kIdent) {
    return Fail(error, "argument must be a simple name", args[1]->offset);
  }
  std::string v = args[1]->name;
  const std::string r = "@result";
  ExprPtr range = std::move(args[0]);
  auto result_ident = [&] { return Ident(r, off); };
  if (fn == "all" || fn == "exists") {
    bool all = fn == "all";
    ExprPtr cond = all ? result_ident() : Call("!_", off, Args(result_ident()));
    cond = Call("@not_strictly_false", off, Args(std::move(cond)));
    ExprPtr step = Call(all ? "_&&_" : "_||_", off, Args(result_ident(), std::move(args[2])));
    return Comprehension(off, v, std::move(range), r, Const(Value{all}, off), std::move(cond),
                         std::move(step), result_ident());
  }
  if (fn == "exists_one") {
    ExprPtr step = Call("_?_:_", off,
                        Args(std::move(args[2]),
                             Call("_+_", off, Args(result_ident(), Const(Value{int64_t{1}}, off))),
                             result_ident()));
    ExprPtr result = Call("_==_", off, Args(result_ident(), Const(Value{int64_t{1}}, off)));
    return Comprehension(off, v, std::move(range), r, Const(Value{int64_t{0}}, off),
                         Const(Value{true}, off), std::move(step), std::move(result));
  }
  // map(x, f), map(x, p, f), filter(x, p): append to a list accumulator.
  auto empty = Node(Expr::Kind::kList, off);
  empty->all_const = true;
  ExprPtr elem;
  ExprPtr pred;
  if (fn == "filter") {
    elem = Ident(v, off);
    pred = std::move(args[2]);
  } else if (n == 3) {
    pred = std::move(args[2]);
    elem = std::move(args[3]);
  } else {
    elem = std::move(args[2]);
  }
  auto one = Node(Expr::Kind::kList, off);
  one->args.push_back(std::move(elem));
  one->all_const = false;  // never folded: it holds the iteration variable or a call
  ExprPtr step = Call("_+_", off, Args(result_ident(), std::move(one)));
  if (pred) step = Call("_?_:_", off, Args(std::move(pred), std::move(step), result_ident()));
  return Comprehension(off, v, std::move(range), r, std::move(empty), Const(Value{true}, off),
                       std::move(step), result_ident());
}

// Marks the nodes a macro made up (everything below the comprehension that is not one of the
// user's own expressions), which cel-go's parser never sees.
void MarkSynthetic(Expr& e, const std::vector<const Expr*>& user) {
  if (std::find(user.begin(), user.end(), &e) != user.end()) return;
  e.synthetic = true;
  for (auto& a : e.args) MarkSynthetic(*a, user);
}

}  // namespace

ExprPtr ExpandMemberCall(const std::string& fn, int32_t off, std::vector<ExprPtr> args,
                         MacroError* error) {
  std::vector<const Expr*> user;
  for (const auto& a : args) user.push_back(a.get());
  ExprPtr e = ExpandReceiverMacro(fn, off, std::move(args), error);
  if (e && e->kind == Expr::Kind::kComprehension) {
    for (auto& a : e->args) MarkSynthetic(*a, user);
  }
  return e;
}

}  // namespace berth::cel::internal
