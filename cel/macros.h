#pragma once
// Shared by parser.cc and macros.cc only: AST node builders and the expansion of cel-go's macros
// (has, all, exists, exists_one, map, filter; cel.bind; the two-variable comprehensions
// all/exists/existsOne(k, v, p) and transformList) into comprehension nodes shaped exactly as
// cel-go builds them, since runtime costs follow that shape.

#include <string>
#include <utility>
#include <vector>

#include "cel/ast.h"

namespace berth::cel::internal {

inline ExprPtr Node(Expr::Kind kind, int32_t offset) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->offset = offset;
  return e;
}
inline ExprPtr Call(std::string fn, int32_t offset, std::vector<ExprPtr> args,
                    bool target = false) {
  auto e = Node(Expr::Kind::kCall, offset);
  e->name = std::move(fn);
  e->args = std::move(args);
  e->has_target = target;
  return e;
}
inline ExprPtr Ident(std::string name, int32_t offset) {
  auto e = Node(Expr::Kind::kIdent, offset);
  e->name = std::move(name);
  return e;
}
inline ExprPtr Const(Value v, int32_t offset) {
  auto e = Node(Expr::Kind::kConst, offset);
  e->constant = std::move(v);
  return e;
}
template <typename... A>
std::vector<ExprPtr> Args(A&&... a) {
  std::vector<ExprPtr> v;
  (v.push_back(std::forward<A>(a)), ...);
  return v;
}

struct MacroError {
  std::string message;  // e.g. "invalid argument to has() macro"
  int32_t offset = 0;
};

// has(e.f) becomes a test-only select; any other global call stays a call. nullptr on error.
ExprPtr ExpandGlobalCall(const std::string& fn, int32_t off, std::vector<ExprPtr> args,
                         MacroError* error);
// Receiver macros (args[0] is the target) become comprehensions; other calls stay calls.
ExprPtr ExpandMemberCall(const std::string& fn, int32_t off, std::vector<ExprPtr> args,
                         MacroError* error);

}  // namespace berth::cel::internal
