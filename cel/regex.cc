#include "cel/regex.h"

#include <re2/re2.h>

#include <algorithm>
#include <list>
#include <mutex>
#include <unordered_map>

namespace berth::cel {
namespace {

// Go's regexp/syntax error codes, by RE2's error code (the two parsers share their design, and
// RE2's error_arg() is the text Go quotes).
std::string_view GoErrorCode(re2::RE2::ErrorCode code) {
  switch (code) {
    case re2::RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case re2::RE2::ErrorBadCharClass:
      return "invalid character class";
    case re2::RE2::ErrorBadCharRange:
      return "invalid character class range";
    case re2::RE2::ErrorMissingBracket:
      return "missing closing ]";
    case re2::RE2::ErrorMissingParen:
      return "missing closing )";
    case re2::RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case re2::RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case re2::RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case re2::RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case re2::RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case re2::RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case re2::RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case re2::RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    case re2::RE2::ErrorPatternTooLarge:
      return "expression too large";
    default:
      return "regexp/syntax: internal error";
  }
}

Error GoError(std::string_view code, std::string_view arg) {
  return Error{"error parsing regexp: " + std::string(code) + ": `" + std::string(arg) + "`"};
}

// The pattern as RE2 is given it: Go's `(?<name>` spelled `(?P<name>`. origin maps
// each byte of `text` (and its end) back to the Go pattern, to quote RE2's error argument in the
// user's spelling; it is empty when nothing was rewritten.
struct Rewritten {
  std::string text;
  std::vector<size_t> origin;
  // An error Go reports where RE2 reports another or none (a parse tree higher than Go allows,
  // an invalid repeat count): Go's text, and where in `text` Go's parser meets it (npos: none).
  size_t go_error_at = std::string::npos;
  std::string go_error;
};

// One open group (or the whole pattern) while measuring the parse tree's height as Go builds
// it: a concatenation of items, alternated with earlier branches.
struct Frame {
  bool capture = false;
  int alt_max = 0;          // highest finished branch
  int branches = 0;         // finished branches
  int prior_max = 0;        // highest item of the current branch before the last one
  int items = 0;            // items of the current branch
  int last = 0;             // the last item's height
  int last_literal = 0;     // the last item is a run of this many literal characters (0: not)
  int last_alt = -1;        // the last item is a grouped alternation with branches this high
  bool last_class = false;  // the last item is one character class (or `.`)
  bool all_classes = true;  // every finished branch is one character or class

  // Go turns an alternation of single characters and classes into one class.
  bool BranchIsClass() const { return items == 1 && (last_literal == 1 || last_class); }
  bool IsClass() const { return branches > 0 && all_classes && BranchIsClass(); }

  // Go flattens an alternation that is a whole branch into the enclosing alternation.
  bool BranchIsAlt() const { return items == 1 && last_alt >= 0; }
  int BranchHeight() const {
    int h = std::max(prior_max, last);
    return items == 0 ? 1 : items == 1 ? h : h + 1;
  }
  int Height() const {
    if (branches == 0) return BranchHeight();
    if (IsClass()) return 1;
    return 1 + std::max(alt_max, BranchIsAlt() ? last_alt : BranchHeight());
  }
  void Add(int height, bool literal, bool cls = false) {
    if (literal && last_literal > 0) {
      ++last_literal;
      return;
    }
    if (items > 0) prior_max = std::max(prior_max, last);
    ++items;
    last = height;
    last_literal = literal ? 1 : 0;
    last_alt = -1;
    last_class = cls;
  }
  // A repetition applies to the last item; a literal run gives up its last character to it.
  int Repeat() {
    if (items == 0) return 0;  // RE2 reports the missing argument
    if (last_literal > 1) {
      prior_max = std::max(prior_max, 1);
      ++items;
      last = 1;
    }
    last_literal = 0;
    last_alt = -1;
    last_class = false;
    return ++last;
  }
  void Alternate() {
    alt_max = std::max(alt_max, BranchIsAlt() ? last_alt : BranchHeight());
    all_classes = all_classes && BranchIsClass();
    ++branches;
    prior_max = items = last = last_literal = 0;
    last_alt = -1;
    last_class = false;
  }
};

size_t RuneLength(std::string_view p, size_t i) {
  auto c = static_cast<unsigned char>(p[i]);
  size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return std::min(n, p.size() - i);
}

// End of a {...} argument starting at i (at '{'), or i + 1 (one character) when there is none.
size_t SkipBraced(std::string_view p, size_t i) {
  if (i < p.size() && p[i] == '{') {
    size_t close = p.find('}', i);
    return close == std::string_view::npos ? p.size() : close + 1;
  }
  return std::min(i + 1, p.size());
}

// Go's parseRepeat: the end of the repetition `{n}`, `{n,}` or `{n,m}` at i (with its counts;
// max -1 for none, a count of 10^8 or more is -1), or npos when `{` is a literal there.
size_t RepeatEnd(std::string_view p, size_t i, int* min, int* max) {
  size_t j = i + 1;
  auto number = [&](int* n) {
    if (j >= p.size() || p[j] < '0' || p[j] > '9') return false;
    if (j + 1 < p.size() && p[j] == '0' && p[j + 1] >= '0' && p[j + 1] <= '9') return false;
    *n = 0;
    for (; j < p.size() && p[j] >= '0' && p[j] <= '9'; ++j) {
      if (*n >= 100000000) *n = -1;
      if (*n >= 0) *n = *n * 10 + (p[j] - '0');
    }
    return true;
  };
  if (!number(min) || j >= p.size()) return std::string_view::npos;
  *max = *min;
  if (p[j] == ',') {
    ++j;
    if (j >= p.size()) return std::string_view::npos;
    if (p[j] == '}') {
      *max = -1;
    } else if (!number(max)) {
      return std::string_view::npos;
    } else if (*max < 0) {
      *min = -1;
    }
  }
  if (j >= p.size() || p[j] != '}') return std::string_view::npos;
  return j + 1;
}

// The end of a character class starting at i (at '['), as Go's parseClass delimits it.
size_t ClassEnd(std::string_view p, size_t i) {
  size_t j = i + 1;
  if (j < p.size() && p[j] == '^') ++j;
  bool first = true;
  while (j < p.size() && (p[j] != ']' || first)) {
    first = false;
    if (p[j] == '\\') {
      j = (j + 1 < p.size() && (p[j + 1] == 'p' || p[j + 1] == 'P' || p[j + 1] == 'x'))
              ? SkipBraced(p, j + 2)
              : j + 2;
    } else if (p.substr(j).starts_with("[:")) {
      size_t close = p.find(":]", j + 2);
      j = close == std::string_view::npos ? j + 1 : close + 2;
    } else {
      j += RuneLength(p, j);
    }
  }
  return std::min(j + 1, p.size());
}

// One linear pass over the Go pattern (no recursion: the groups are an explicit stack) that
// measures Go's parse tree, notes the first error only Go reports, and respells `(?<name>`. It
// stops early where the pattern is malformed; RE2 then reports the error.
Rewritten Rewrite(std::string_view p) {
  Rewritten r;
  bool rewritten = false;
  r.text.reserve(p.size() + 8);
  std::vector<size_t> origin;
  auto copy = [&](size_t from, size_t to) {
    r.text.append(p.substr(from, to - from));
    for (size_t k = from; k < to; ++k) origin.push_back(k);
  };
  std::vector<Frame> frames(1);
  auto fail = [&](size_t at, std::string_view code, std::string_view arg) {
    if (r.go_error_at != std::string::npos) return;
    r.go_error_at = at;
    r.go_error = GoError(code, arg).message;
  };
  auto check = [&](int height, size_t at) {
    if (height > Regex::kMaxHeight) fail(at, "expression nests too deeply", p);
  };
  size_t i = 0;
  while (i < p.size() && r.go_error_at == std::string::npos) {
    Frame& f = frames.back();
    char c = p[i];
    size_t next = i + 1;
    switch (c) {
      case '(':
        if (p.substr(i).starts_with("(?")) {
          bool named_p = p.substr(i).starts_with("(?P<") && i + 4 < p.size();
          bool named = !named_p && p.substr(i).starts_with("(?<") && i + 3 < p.size();
          if (named_p || named) {
            if (named) {
              copy(i, i + 2);
              r.text += 'P';
              origin.push_back(i + 2);
              rewritten = true;
              i += 2;
            }
            size_t close = p.find('>', i);
            if (close == std::string_view::npos) goto done;
            next = close + 1;
            frames.push_back(Frame{.capture = true});
            break;
          }
          size_t j = i + 2;
          while (j < p.size() && p[j] != ')' && p[j] != ':') ++j;
          if (j == p.size()) goto done;
          next = j + 1;
          if (p[j] == ':') frames.push_back(Frame{});
          break;
        }
        frames.push_back(Frame{.capture = true});
        break;
      case ')': {
        if (frames.size() == 1) {
          // Go builds the top level's tree before it finds the `)` unexpected.
          check(f.Height(), r.text.size());
          goto done;
        }
        Frame group = frames.back();
        frames.pop_back();
        if (!group.capture && group.branches == 0 && group.items == 1 && group.last_literal > 0) {
          frames.back().Add(1, true);  // Go merges a grouped literal with its neighbours
        } else if (!group.capture && group.branches == 0 && group.items > 1) {
          // Go flattens a concatenation into the enclosing one.
          frames.back().Add(std::max(group.prior_max, group.last), false);
          frames.back().items += group.items - 1;
        } else if (!group.capture && group.IsClass()) {
          frames.back().Add(1, false, true);
        } else {
          int h = group.Height() + (group.capture ? 1 : 0);
          check(h, r.text.size() + (next - i));
          frames.back().Add(h, false);
          if (!group.capture && group.branches > 0) {
            frames.back().last_alt = std::max(
                group.alt_max, group.BranchIsAlt() ? group.last_alt : group.BranchHeight());
          }
        }
        break;
      }
      case '|':
        check(f.BranchHeight(), r.text.size() + 1);
        f.Alternate();
        break;
      case '*':
      case '+':
      case '?':
      case '{': {
        if (c == '{') {
          int min, max;
          next = RepeatEnd(p, i, &min, &max);
          if (next == std::string_view::npos) {
            next = i + 1;
            f.Add(1, true);
            break;
          }
          // Go checks the counts before anything else about the repetition (RE2 after).
          if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)) {
            fail(r.text.size(), "invalid repeat count", p.substr(i, next - i));
            break;
          }
        }
        if (next < p.size() && p[next] == '?') ++next;
        check(f.Repeat(), r.text.size() + (next - i));
        break;
      }
      case '[':
        next = ClassEnd(p, i);
        f.Add(1, false, true);
        break;
      case '.':
        f.Add(1, false, true);
        break;
      case '^':
      case '$':
        f.Add(1, false);
        break;
      case '\\': {
        if (i + 1 >= p.size()) goto done;
        char e = p[i + 1];
        next = i + 2;
        if (e == 'Q') {
          size_t end = p.find("\\E", next);
          size_t stop = end == std::string_view::npos ? p.size() : end;
          if (stop > next) f.Add(1, true);
          for (size_t k = next + RuneLength(p, next); k < stop; k += RuneLength(p, k)) {
            f.Add(1, true);
          }
          next = end == std::string_view::npos ? p.size() : end + 2;
        } else if (e == 'C') {
          fail(r.text.size(), "invalid escape sequence", "\\C");  // RE2's any byte
        } else if (e == 'p' || e == 'P') {
          next = SkipBraced(p, i + 2);
          f.Add(1, false, true);
        } else if (e == 'x') {
          next = SkipBraced(p, i + 2);
          if (next == i + 3) next = std::min(i + 4, p.size());
          f.Add(1, true);
        } else if (std::string_view("dDsSwW").find(e) != std::string_view::npos) {
          f.Add(1, false, true);
        } else if (std::string_view("AzbB").find(e) != std::string_view::npos) {
          f.Add(1, false);
        } else {
          next = i + 1 + RuneLength(p, i + 1);
          f.Add(1, true);
        }
        break;
      }
      default:
        next = i + RuneLength(p, i);
        f.Add(1, true);
    }
    copy(i, next);
    i = next;
  }
  if (r.go_error_at == std::string::npos && i == p.size() && frames.size() == 1) {
    check(frames.back().Height(), r.text.size());
  }
done:
  copy(i, p.size());
  origin.push_back(p.size());
  if (rewritten) r.origin = std::move(origin);
  return r;
}

Error FromRe2(const re2::RE2& re, std::string_view pattern, const Rewritten& rw) {
  std::string_view arg = re.error_arg();
  if (re.error_code() == re2::RE2::ErrorPatternTooLarge) arg = pattern;
  std::string quoted(arg);
  if (!rw.origin.empty() && !arg.empty()) {
    // RE2 does not say where: the first place the rewriting left alone, else the first place.
    auto original = [&](size_t at) {
      return pattern.substr(rw.origin[at], rw.origin[at + arg.size()] - rw.origin[at]);
    };
    size_t first = arg == rw.text ? 0 : rw.text.find(arg);
    size_t at = first;
    while (at != std::string::npos && original(at) != arg) at = rw.text.find(arg, at + 1);
    if (at == std::string::npos) at = first;
    if (at != std::string::npos) quoted = std::string(original(at));
  }
  return GoError(GoErrorCode(re.error_code()), quoted);
}

// parse_only: no memory for a program, so RE2 stops after parsing (with ErrorPatternTooLarge
// when the syntax is fine).
std::unique_ptr<re2::RE2> Build(std::string_view text, bool parse_only = false) {
  // RE2's defaults are Go's semantics: UTF-8, leftmost-first (not longest) matches, `.` does
  // not match \n, `$` only at the end of the text, Perl classes; the program is bounded by
  // RE2's default 8 MB budget.
  re2::RE2::Options options;
  options.set_log_errors(false);
  if (parse_only) options.set_max_mem(1);
  return std::make_unique<re2::RE2>(re2::StringPiece(text.data(), text.size()), options);
}

// Compiled patterns (and compile errors) by text, the least recently used evicted first.
// cel-go compiles a selector's constant pattern once, when it plans the program; berth's
// functions see only values, so this cache is what spares a compile per device and evaluation
// (up to ~0.2 s for a large Unicode class within RE2's budget). Bounded by entries, by the
// estimated size of the programs, and by pattern length (longer ones are not kept).
class Cache {
 public:
  static constexpr size_t kMaxEntries = 64;
  static constexpr size_t kMaxBytes = 32 << 20;
  static constexpr size_t kMaxPatternBytes = 4096;

  static Cache& Get() {
    static Cache* cache = new Cache();  // never destroyed: usable during static destruction
    return *cache;
  }

  std::optional<Result<Regex>> Find(std::string_view pattern) {
    std::lock_guard lock(mu_);
    auto it = index_.find(pattern);
    if (it == index_.end()) return std::nullopt;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->result;
  }

  void Put(std::string_view pattern, const Result<Regex>& result, size_t program_bytes) {
    if (pattern.size() > kMaxPatternBytes) return;
    size_t bytes = pattern.size() + program_bytes + (result.ok() ? 0 : result.error().size());
    if (bytes > kMaxBytes) return;
    std::lock_guard lock(mu_);
    if (index_.count(pattern) != 0) return;
    lru_.push_front(Entry{std::string(pattern), result, bytes});
    index_.emplace(lru_.front().pattern, lru_.begin());
    bytes_ += bytes;
    while (lru_.size() > kMaxEntries || bytes_ > kMaxBytes) {
      bytes_ -= lru_.back().bytes;
      index_.erase(lru_.back().pattern);
      lru_.pop_back();
    }
  }

 private:
  struct Entry {
    std::string pattern;  // index_'s keys view it
    Result<Regex> result;
    size_t bytes;
  };
  std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

}  // namespace

Result<Regex> Regex::Compile(std::string_view pattern) {
  if (auto cached = Cache::Get().Find(pattern)) return *std::move(cached);
  size_t program_bytes = 0;
  Result<Regex> result = CompileUncached(pattern, &program_bytes);
  Cache::Get().Put(pattern, result, program_bytes);
  return result;
}

Result<Regex> Regex::CompileUncached(std::string_view pattern, size_t* program_bytes) {
  Rewritten rw = Rewrite(pattern);
  if (rw.go_error_at != std::string::npos) {
    // Go stops there; an error RE2 finds before that point (other than the groups left open by
    // cutting the pattern there) is the one Go reports.
    auto before = Build(std::string_view(rw.text).substr(0, rw.go_error_at), true);
    auto code = before->error_code();
    if (!before->ok() && code != re2::RE2::ErrorMissingParen &&
        code != re2::RE2::ErrorMissingBracket && code != re2::RE2::ErrorPatternTooLarge) {
      return FromRe2(*before, pattern, rw);
    }
    return Error{rw.go_error};
  }
  std::shared_ptr<re2::RE2> re = Build(rw.text);
  // An instruction is 8 bytes in RE2's program; the estimate doubles it for the reverse program
  // and the matchers' state. A pattern over RE2's budget cost a compile too: remember its error.
  *program_bytes = re->ok() ? static_cast<size_t>(re->ProgramSize()) * 16 : 0;
  if (!re->ok()) return FromRe2(*re, pattern, rw);
  return Regex(std::move(re));
}

namespace {

bool MidRune(std::string_view s, size_t at) {
  return at > 0 && at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80;
}

// The leftmost-first match at or after `pos` that starts on a character boundary, as Go's
// engine (which steps by runes) finds it; RE2 steps by bytes, so an empty match (of \B, say)
// may start inside a multi-byte character.
bool Search(const re2::RE2& re, std::string_view subject, size_t pos, size_t* begin, size_t* end) {
  re2::StringPiece text(subject.data(), subject.size()), m;
  while (pos <= subject.size()) {
    if (!re.Match(text, pos, text.size(), re2::RE2::UNANCHORED, &m, 1)) return false;
    *begin = m.data() - text.data();
    *end = *begin + m.size();
    if (!MidRune(subject, *begin)) return true;
    pos = *begin + 1;
    while (MidRune(subject, pos)) ++pos;
  }
  return false;
}

}  // namespace

bool Regex::Matches(std::string_view subject) const {
  size_t begin, end;
  return Search(*re_, subject, 0, &begin, &end);
}

std::string_view Regex::Find(std::string_view subject) const {
  size_t begin, end;
  if (!Search(*re_, subject, 0, &begin, &end)) return {};
  return subject.substr(begin, end - begin);
}

std::vector<std::string_view> Regex::FindAll(std::string_view subject, int64_t limit) const {
  // Go's regexp.allMatches.
  std::vector<std::string_view> out;
  size_t pos = 0, begin, end;
  std::optional<size_t> prev_end;
  while ((limit < 0 || static_cast<int64_t>(out.size()) < limit) && pos <= subject.size()) {
    if (!Search(*re_, subject, pos, &begin, &end)) break;
    bool accept = true;
    if (end == pos) {
      // An empty match: not right after the previous match; the next try starts a rune later.
      if (prev_end && begin == *prev_end) accept = false;
      pos += pos < subject.size() ? RuneLength(subject, pos) : 1;
    } else {
      pos = end;
    }
    prev_end = end;
    if (accept) out.push_back(subject.substr(begin, end - begin));
  }
  return out;
}

}  // namespace berth::cel
