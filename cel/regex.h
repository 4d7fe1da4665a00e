#pragma once
// CEL's regular expressions: the pattern language and the matching semantics of Go's `regexp`
// package, which cel-go (`matches`) and Kubernetes' regex library (`find`, `findAll`) use, run on
// RE2 (Go's regexp is a port of RE2: linear time in the subject, no recursion on the subject or
// on the pattern's nesting).
//
// Where Go and Debian's RE2 disagree on the syntax, Compile answers as Go does:
//   - `(?<name>re)` is a named group (RE2 before 2023 knows only `(?P<name>re)`);
//   - `\C` (any byte) is an invalid escape sequence;
//   - a repeat count out of range is "invalid repeat count" quoting only the count, before any
//     other error of that repetition, and so is a count of 10^8 or more (a literal for RE2);
//   - a parse tree more than 1000 levels high is "expression nests too deeply" (Go's maxHeight;
//     RE2 has no such limit). The height is Go's for groups, repetitions, concatenations and
//     alternations; Go's rewrites of alternations (prefix factoring, merging single characters
//     into a class) are not reproduced, so a pattern within a level or two of the limit built
//     from such alternations may be judged differently.
// Known remaining differences: RE2 bounds a compiled pattern by memory (8 MB, RE2's default)
// where Go bounds it by 3.3M instructions, so a few large repetitions Go accepts are "expression
// too large" here; Unicode classes and case folding follow RE2's Unicode tables, not Go's.
//
// Thread-safety: a compiled Regex is immutable and may be used from any thread.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace re2 {
class RE2;
}

namespace berth::cel {

class Regex {
 public:
  // The nesting limit of Go's regexp/syntax (maxHeight).
  static constexpr int kMaxHeight = 1000;

  // Compiles `pattern` (Go syntax). Errors (kInvalid) carry Go's text exactly, e.g.
  // "error parsing regexp: missing closing ): `(ab`"; cel-go returns it as is from matches(),
  // Kubernetes' find()/findAll() prefix it with "Illegal regex: ". Results (and errors) of
  // patterns up to 4 KB are kept in a process-wide cache (64 entries, 32 MB of programs, least
  // recently used evicted), as cel-go keeps a selector's compiled constant pattern; RE2 bounds
  // each kept pattern's matching state by its 8 MB budget.
  // Any thread.
  static Result<Regex> Compile(std::string_view pattern);

  // Go's MatchString: whether the pattern matches anywhere in `subject`.
  bool Matches(std::string_view subject) const;
  // Go's FindString: the leftmost-first match, or "" when there is none.
  std::string_view Find(std::string_view subject) const;
  // Go's FindAllString(subject, limit): successive non-overlapping matches, at most `limit`
  // of them (all when limit < 0); an empty match right after a previous match is skipped.
  std::vector<std::string_view> FindAll(std::string_view subject, int64_t limit) const;

 private:
  explicit Regex(std::shared_ptr<const re2::RE2> re) : re_(std::move(re)) {}
  static Result<Regex> CompileUncached(std::string_view pattern, size_t* program_bytes);
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace berth::cel
