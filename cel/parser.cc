#include "cel/parser.h"

#include <algorithm>
#include <utility>

#include "cel/lexer.h"
#include "cel/macros.h"

namespace berth::cel {

Expr::~Expr() {
  // Children with children of their own are taken apart here, one level at a time, so each
  // node is destroyed with no grandchildren left under it.
  std::vector<std::unique_ptr<Expr>> pending = std::move(args);
  while (!pending.empty()) {
    std::unique_ptr<Expr> e = std::move(pending.back());
    pending.pop_back();
    if (!e) continue;
    for (auto& a : e->args) pending.push_back(std::move(a));
  }
}

namespace {

using internal::Args;
using internal::Call;
using internal::Const;
using internal::ExpandGlobalCall;
using internal::ExpandMemberCall;
using internal::Ident;
using internal::MacroError;
using internal::Node;

constexpr int kMaxDepth = 250;  // cel-go's default parser recursion limit

// ANTLR's expectation set where an expression must start (CEL.g4's primary and unary rules).
constexpr const char* kExprStart =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, "
    "BYTES, IDENTIFIER}";
constexpr const char* kArgStart =
    "{'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}";

// cel-go's AST builder depth: the nesting of the operations its parser visits recursively
// (ternaries, relations, arithmetic, selects, receiver calls and macros, indexes); logical
// operators, negations, literals, global calls and what macros make up do not count.
// Iterative: the tree is not yet bounded here (a 50,000-term "1 + 1 + ..." nests 50,000 deep).
int Depth(const Expr& root) {
  static const char* kCounted[] = {"_?_:_", "_==_", "_!=_", "_<_", "_<=_", "_>_",  "_>=_",  "@in",
                                   "_+_",   "_-_",  "_*_",  "_/_", "_%_",  "_[_]", "_[?_]", "_?._"};
  auto counts = [](const Expr& e) {
    if (e.synthetic) return false;
    switch (e.kind) {
      case Expr::Kind::kSelect:
      case Expr::Kind::kComprehension:
        return true;
      case Expr::Kind::kCall: {
        bool c = e.has_target;
        for (const char* n : kCounted) c = c || e.name == n;
        return c;
      }
      default:
        return false;
    }
  };
  int deepest = 0;
  std::vector<std::pair<const Expr*, int>> stack = {{&root, 0}};
  while (!stack.empty()) {
    auto [e, above] = stack.back();
    stack.pop_back();
    int here = above + (counts(*e) ? 1 : 0);
    deepest = std::max(deepest, here);
    for (const auto& a : e->args) stack.emplace_back(a.get(), here);
  }
  return deepest;
}

class Parser {
 public:
  Parser(std::string_view src, std::vector<Token> toks, ParseError* error)
      : src_(src), toks_(std::move(toks)), error_(error) {}

  ExprPtr ParseAll() {
    ExprPtr e = Expression();
    if (!e) return nullptr;
    if (Peek().kind != Token::Kind::kEnd) {
      // Extraneous when deleting the token would reach the end, else a mismatch.
      bool last = pos_ + 1 < toks_.size() && toks_[pos_ + 1].kind == Token::Kind::kEnd;
      return Fail("Syntax error: " + std::string(last ? "extraneous" : "mismatched") + " input '" +
                      Raw(Peek()) + "' expecting <EOF>",
                  Peek());
    }
    return e;
  }

 private:
  const Token& Peek() const { return toks_[pos_]; }
  bool CanStartExpression(size_t at) const {
    const Token& t = toks_[std::min(at, toks_.size() - 1)];
    if (t.kind == Token::Kind::kIdent || t.kind == Token::Kind::kLiteral) return true;
    if (t.kind != Token::Kind::kPunct) return false;
    return t.text == "[" || t.text == "{" || t.text == "(" || t.text == "." || t.text == "-" ||
           t.text == "!";
  }
  std::string Raw(const Token& t) const {
    if (t.kind == Token::Kind::kEnd) return "<EOF>";
    return std::string(src_.substr(static_cast<size_t>(t.offset), static_cast<size_t>(t.length)));
  }
  ExprPtr Missing(std::string_view what) {
    return Fail("Syntax error: missing '" + std::string(what) + "' at '" + Raw(Peek()) + "'",
                Peek());
  }
  ExprPtr Mismatched(std::string_view expecting) {
    return Fail(
        "Syntax error: mismatched input '" + Raw(Peek()) + "' expecting " + std::string(expecting),
        Peek());
  }
  bool IsPunct(std::string_view p) const {
    return Peek().kind == Token::Kind::kPunct && Peek().text == p;
  }
  bool Accept(std::string_view p) {
    if (!IsPunct(p)) return false;
    ++pos_;
    return true;
  }
  ExprPtr Fail(std::string msg, const Token& at) {
    if (error_->message.empty()) {
      error_->message = std::move(msg);
      error_->offset = at.offset;
    }
    return nullptr;
  }
  ExprPtr Expect(std::string_view p) {
    if (Accept(p)) return nullptr;
    return Fail("Syntax error: missing '" + std::string(p) + "'", Peek());
  }

  ExprPtr Expression() {
    // cel-go's parse-tree listener: more than 250 nested expressions (parentheses, literals,
    // arguments). Reported without a position.
    if (++depth_ > kMaxDepth) {
      return Fail("expression recursion limit exceeded: 250", Token{Token::Kind::kEnd, "", {}, -1});
    }
    ExprPtr cond = Or();
    if (cond && IsPunct("?")) {
      int32_t off = Peek().offset;
      ++pos_;
      ExprPtr a = Or();
      if (!a) return nullptr;
      if (!Accept(":")) return Mismatched("':'");
      ExprPtr b = Expression();
      if (!b) return nullptr;
      cond = Call("_?_:_", off, Args(std::move(cond), std::move(a), std::move(b)));
    }
    --depth_;
    return cond;
  }

  // Chains of || and of && become balanced trees, as cel-go's parser builds them
  // (parser/helper.go's logicManager): a long chain stays shallow for everything that walks the
  // tree. The operators are commutative in CEL, and the terms keep their order, so results,
  // errors and costs are those of the left-nested chain.
  ExprPtr Or() { return Logical("||", "_||_", &Parser::And); }
  ExprPtr And() { return Logical("&&", "_&&_", &Parser::Relation); }
  ExprPtr Logical(std::string_view op, const char* fn, ExprPtr (Parser::*term)()) {
    ExprPtr first = (this->*term)();
    if (!first || !IsPunct(op)) return first;
    std::vector<ExprPtr> terms;
    std::vector<int32_t> ops;
    terms.push_back(std::move(first));
    while (IsPunct(op)) {
      ops.push_back(Peek().offset);
      ++pos_;
      ExprPtr r = (this->*term)();
      if (!r) return nullptr;
      terms.push_back(std::move(r));
    }
    return Balanced(fn, terms, ops, 0, static_cast<int>(ops.size()) - 1);
  }
  // cel-go's logicManager.balancedTree over the operators lo..hi.
  static ExprPtr Balanced(const char* fn, std::vector<ExprPtr>& terms,
                          const std::vector<int32_t>& ops, int lo, int hi) {
    int mid = (lo + hi + 1) / 2;
    ExprPtr left = mid == lo ? std::move(terms[mid]) : Balanced(fn, terms, ops, lo, mid - 1);
    ExprPtr right = mid == hi ? std::move(terms[mid + 1]) : Balanced(fn, terms, ops, mid + 1, hi);
    return Call(fn, ops[mid], Args(std::move(left), std::move(right)));
  }
  ExprPtr Relation() {
    ExprPtr l = Addition();
    while (l) {
      static const std::pair<const char*, const char*> kOps[] = {{"==", "_==_"}, {"!=", "_!=_"},
                                                                 {"<=", "_<=_"}, {">=", "_>=_"},
                                                                 {"<", "_<_"},   {">", "_>_"}};
      const char* fn = nullptr;
      for (auto [p, f] : kOps) {
        if (IsPunct(p)) fn = f;
      }
      if (!fn && Peek().kind == Token::Kind::kIdent && Peek().text == "in") fn = "@in";
      if (!fn) break;
      int32_t off = Peek().offset;
      ++pos_;
      ExprPtr r = Addition();
      if (!r) return nullptr;
      l = Call(fn, off, Args(std::move(l), std::move(r)));
    }
    return l;
  }
  ExprPtr Addition() {
    ExprPtr l = Multiplication();
    while (l && (IsPunct("+") || IsPunct("-"))) {
      std::string fn = Peek().text == "+" ? "_+_" : "_-_";
      int32_t off = Peek().offset;
      ++pos_;
      ExprPtr r = Multiplication();
      if (!r) return nullptr;
      l = Call(fn, off, Args(std::move(l), std::move(r)));
    }
    return l;
  }
  ExprPtr Multiplication() {
    ExprPtr l = Unary();
    while (l && (IsPunct("*") || IsPunct("/") || IsPunct("%"))) {
      std::string fn = "_" + Peek().text + "_";
      int32_t off = Peek().offset;
      ++pos_;
      ExprPtr r = Unary();
      if (!r) return nullptr;
      l = Call(fn, off, Args(std::move(l), std::move(r)));
    }
    return l;
  }
  ExprPtr Unary() {
    if (IsPunct("!")) {
      int32_t off = Peek().offset;
      int n = 0;
      while (Accept("!")) ++n;
      ExprPtr e = Member();
      if (!e) return nullptr;
      // cel-go drops pairs of negations.
      if (n % 2 == 1) e = Call("!_", off, Args(std::move(e)));
      return e;
    }
    if (IsPunct("-")) {
      int32_t off = Peek().offset;
      int n = 0;
      while (Accept("-")) ++n;
      // A negative int literal is a constant (so that -9223372036854775808 is valid).
      if (n % 2 == 1 && Peek().kind == Token::Kind::kLiteral && Peek().text == "int" &&
          !(pos_ + 1 < toks_.size() && toks_[pos_ + 1].kind == Token::Kind::kPunct &&
            (toks_[pos_ + 1].text == "." || toks_[pos_ + 1].text == "[" ||
             toks_[pos_ + 1].text == ".?" || toks_[pos_ + 1].text == "[?"))) {
        uint64_t mag = Peek().literal.As<uint64_t>();
        ++pos_;
        return Const(Value{static_cast<int64_t>(0 - mag)}, off);
      }
      if (n % 2 == 1 && Peek().kind == Token::Kind::kLiteral && Peek().literal.Is<double>() &&
          !(pos_ + 1 < toks_.size() && toks_[pos_ + 1].kind == Token::Kind::kPunct &&
            (toks_[pos_ + 1].text == "." || toks_[pos_ + 1].text == "["))) {
        double d = Peek().literal.As<double>();
        ++pos_;
        return Const(Value{-d}, off);
      }
      ExprPtr e = Member();
      if (!e) return nullptr;
      if (n % 2 == 1) e = Call("-_", off, Args(std::move(e)));
      return e;
    }
    return Member();
  }

  ExprPtr Member() {
    ExprPtr e = Primary();
    while (e) {
      if (IsPunct(".") || IsPunct(".?")) {
        bool opt = Peek().text == ".?";
        ++pos_;
        if (Peek().kind != Token::Kind::kIdent) {
          // ANTLR quotes the input from the '.' through the offending token.
          const Token& dot = toks_[pos_ - 1];
          const Token& bad = Peek();
          size_t end =
              bad.kind == Token::Kind::kEnd ? dot.offset + dot.length : bad.offset + bad.length;
          std::string text(src_.substr(dot.offset, end - dot.offset));
          return Fail("Syntax error: no viable alternative at input '" + text + "'", bad);
        }
        Token id = Peek();
        ++pos_;
        if (!opt && IsPunct("(")) {
          int32_t off = Peek().offset;
          ++pos_;
          std::vector<ExprPtr> args;
          args.push_back(std::move(e));
          if (!ExprList(")", &args)) return nullptr;
          e = MemberCall(id.text, off, std::move(args));
          continue;
        }
        if (opt) {
          e = Call("_?._", id.offset - 1, Args(std::move(e), Const(Value{id.text}, id.offset)));
          continue;
        }
        auto s = Node(Expr::Kind::kSelect, id.offset - 1);
        s->name = id.text;
        s->args.push_back(std::move(e));
        e = std::move(s);
      } else if (IsPunct("[") || IsPunct("[?")) {
        bool opt = Peek().text == "[?";
        int32_t off = Peek().offset;
        ++pos_;
        ExprPtr idx = Expression();
        if (!idx) return nullptr;
        if (!Accept("]")) return Missing("]");
        e = Call(opt ? "_[?_]" : "_[_]", off, Args(std::move(e), std::move(idx)));
      } else {
        break;
      }
    }
    return e;
  }

  // Parses comma-separated expressions up to `close` (consumed); false on error.
  // CEL.g4: list literals may end with a comma (even `[,]`); call arguments may not.
  bool ExprList(std::string_view close, std::vector<ExprPtr>* out) {
    if (Accept(close)) return true;
    bool literal = close != ")";
    if (literal && Accept(",")) {
      if (Accept(close)) return true;
      Mismatched("'" + std::string(close) + "'");
      return false;
    }
    if (!literal) call_args_at_ = pos_;
    while (true) {
      ExprPtr a = Expression();
      if (!a) return false;
      out->push_back(std::move(a));
      if (Accept(close)) return true;
      if (!Accept(",")) {
        if (!literal) {
          Missing(")");
        } else {
          Mismatched("{'" + std::string(close) + "', ','}");
        }
        return false;
      }
      if (literal && Accept(close)) return true;  // trailing comma
      if (literal && IsPunct(",")) {
        Mismatched("'" + std::string(close) + "'");
        return false;
      }
    }
  }

  ExprPtr Primary() {
    const Token t = Peek();
    if (t.kind == Token::Kind::kLiteral) {
      ++pos_;
      if (t.text == "int") {
        uint64_t v = t.literal.As<uint64_t>();
        if (v > static_cast<uint64_t>(INT64_MAX)) return Fail("invalid int literal", t);
        return Const(Value{static_cast<int64_t>(v)}, t.offset);
      }
      return Const(t.literal, t.offset);
    }
    if (t.kind == Token::Kind::kIdent || IsPunct(".")) {
      bool leading_dot = Accept(".");
      const Token id = Peek();
      if (id.kind != Token::Kind::kIdent) {
        return Fail("Syntax error: no viable alternative at input '.'", id);
      }
      ++pos_;
      std::string name = (leading_dot ? "." : "") + id.text;
      if (IsPunct("(")) {
        int32_t off = Peek().offset;
        ++pos_;
        std::vector<ExprPtr> args;
        if (!ExprList(")", &args)) return nullptr;
        return GlobalCall(name, off, std::move(args));
      }
      return Ident(name, id.offset);
    }
    if (Accept("(")) {
      ExprPtr e = Expression();
      if (!e) return nullptr;
      if (!Accept(")")) return Missing(")");
      return e;
    }
    if (IsPunct("[")) {
      auto e = Node(Expr::Kind::kList, t.offset);
      ++pos_;
      if (!ExprList("]", &e->args)) return nullptr;
      return Finish(std::move(e));
    }
    if (IsPunct("{")) {
      auto e = Node(Expr::Kind::kMap, t.offset);
      ++pos_;
      if (Accept(",")) {
        if (!Accept("}")) return Mismatched("'}'");
      } else if (!Accept("}")) {
        while (true) {
          ExprPtr k = Expression();
          if (!k) return nullptr;
          if (!Accept(":")) return Mismatched("':'");
          ExprPtr v = Expression();
          if (!v) return nullptr;
          e->args.push_back(std::move(k));
          e->args.push_back(std::move(v));
          if (Accept("}")) break;
          if (!Accept(",")) return Mismatched("{'}', ','}");
          if (Accept("}")) break;
          if (IsPunct(",")) return Mismatched("'}'");
        }
      }
      return Finish(std::move(e));
    }
    // ANTLR deletes a single unexpected token when the one after it could start the expression
    // ("extraneous input"), and otherwise reports a mismatch; at the end of the input it reports
    // a mismatch, except right after '!'.
    const char* expecting = pos_ == call_args_at_ ? kArgStart : kExprStart;
    bool after_not =
        pos_ > 0 && toks_[pos_ - 1].kind == Token::Kind::kPunct && toks_[pos_ - 1].text == "!";
    bool extraneous = t.kind == Token::Kind::kEnd ? after_not : CanStartExpression(pos_ + 1);
    std::string kind = extraneous ? "extraneous" : "mismatched";
    return Fail("Syntax error: " + kind + " input '" + Raw(t) + "' expecting " + expecting, t);
  }

  static ExprPtr Finish(ExprPtr e) {
    e->all_const = true;
    // Nested literals of constants are constants too (cel-go plans them as one value).
    for (const auto& a : e->args) {
      e->all_const &=
          a->kind == Expr::Kind::kConst ||
          ((a->kind == Expr::Kind::kList || a->kind == Expr::Kind::kMap) && a->all_const);
    }
    return e;
  }

  // Macro expansion lives in macros.cc; its errors become this parser's.
  ExprPtr GlobalCall(const std::string& fn, int32_t off, std::vector<ExprPtr> args) {
    MacroError err;
    ExprPtr e = ExpandGlobalCall(fn, off, std::move(args), &err);
    if (!e) return Fail(err.message, Token{Token::Kind::kEnd, "", {}, err.offset});
    return e;
  }
  ExprPtr MemberCall(const std::string& fn, int32_t off, std::vector<ExprPtr> args) {
    MacroError err;
    ExprPtr e = ExpandMemberCall(fn, off, std::move(args), &err);
    if (!e) return Fail(err.message, Token{Token::Kind::kEnd, "", {}, err.offset});
    return e;
  }

  std::string_view src_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  size_t call_args_at_ = SIZE_MAX;  // the token where a call's first argument starts
  int depth_ = 0;
  ParseError* error_;
};

}  // namespace

ExprPtr Parse(std::string_view src, std::vector<ParseError>* errors) {
  // cel-go's parser refuses sources of more than 100,000 code points outright.
  if (uint64_t size = CodePoints(src); size > 100000) {
    errors->push_back({"expression code point size exceeds limit: size: " + std::to_string(size) +
                           ", limit 100000",
                       -1});
    return nullptr;
  }
  LexError lex_error;
  auto toks = Lex(src, &lex_error);
  if (!lex_error.message.empty()) {
    errors->push_back({"Syntax error: " + lex_error.message, lex_error.offset});
  }
  if (!toks.ok()) return nullptr;
  ParseError parse_error;
  Parser p(src, std::move(*toks), &parse_error);
  ExprPtr e = p.ParseAll();
  if (!parse_error.message.empty()) errors->push_back(parse_error);
  // cel-go's AST builder: operations nested more than 250 deep ("1 + 1 + ... + 1", long select
  // chains). Reported without a position.
  if (e && errors->empty() && Depth(*e) > kMaxDepth) {
    errors->push_back({"max recursion depth exceeded", -1});
  }
  if (!errors->empty()) return nullptr;
  return e;
}

ExprPtr Parse(std::string_view src, ParseError* error) {
  std::vector<ParseError> errors;
  ExprPtr e = Parse(src, &errors);
  if (!errors.empty()) *error = errors.front();
  return e;
}

}  // namespace berth::cel
