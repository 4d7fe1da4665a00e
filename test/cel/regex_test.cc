#include "cel/regex.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace berth::cel {
namespace {

bool Search(std::string_view pattern, std::string_view text) {
  auto re = Regex::Compile(pattern);
  EXPECT_TRUE(re.ok()) << pattern << ": " << re.error();
  return re.ok() && re->Matches(text);
}

std::string CompileError(std::string_view pattern) {
  auto re = Regex::Compile(pattern);
  return re.ok() ? "compiled" : re.error();
}

std::string Nested(int depth, std::string_view open, std::string_view inner) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  s += inner;
  for (int i = 0; i < depth; ++i) s += ')';
  return s;
}

TEST(RegexTest, GoSyntax) {
  EXPECT_TRUE(Search("(?i)^A100$", "a100"));
  EXPECT_FALSE(Search("^A100$", "a100"));
  EXPECT_TRUE(Search("(?P<model>a[0-9]+)", "gpu-a100"));
  EXPECT_TRUE(Search("(?<model>a[0-9]+)", "gpu-a100"));  // Go 1.22's spelling; old RE2 lacks it
  EXPECT_TRUE(Search("\\Agpu\\z", "gpu"));
  EXPECT_FALSE(Search("\\Agpu\\z", "gpu0"));
  EXPECT_FALSE(Search("gpu$", "gpu\n"));  // `$` is the end of the text, as \z
  EXPECT_TRUE(Search("(?m)gpu$", "gpu\nx"));
  EXPECT_FALSE(Search("a.b", "a\nb"));
  EXPECT_TRUE(Search("(?s)a.b", "a\nb"));
  EXPECT_TRUE(Search("[\\]a]", "]"));
  EXPECT_TRUE(Search("[[:digit:]]+", "42"));
  EXPECT_TRUE(Search("^\\pL+$", "Ünï"));
  EXPECT_TRUE(Search("^\\p{Greek}+$", "αβγ"));
  EXPECT_TRUE(Search("^\\Qa.b\\E$", "a.b"));
  EXPECT_FALSE(Search("^\\Qa.b\\E$", "axb"));
}

TEST(RegexTest, ErrorsAreGos) {
  // Go's regexp/syntax texts, one per error code (checked against Go 1.26's regexp.Compile).
  struct Case {
    const char* pattern;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {"(ab", "error parsing regexp: missing closing ): `(ab`"},
           {"ab)", "error parsing regexp: unexpected ): `ab)`"},
           {"[a", "error parsing regexp: missing closing ]: `[a`"},
           {"[z-a]", "error parsing regexp: invalid character class range: `z-a`"},
           {"[[:foo:]]", "error parsing regexp: invalid character class range: `[:foo:]`"},
           {"a**", "error parsing regexp: invalid nested repetition operator: `**`"},
           {"a*+", "error parsing regexp: invalid nested repetition operator: `*+`"},
           {"*", "error parsing regexp: missing argument to repetition operator: `*`"},
           {"a{1001}", "error parsing regexp: invalid repeat count: `{1001}`"},
           {"(a{100}){100}", "error parsing regexp: invalid repeat count: `{100}`"},
           {"x{2,1}?", "error parsing regexp: invalid repeat count: `{2,1}`"},
           {"x*{2,1}", "error parsing regexp: invalid repeat count: `{2,1}`"},
           {"x{99999999999}", "error parsing regexp: invalid repeat count: `{99999999999}`"},
           {"**{2,1}", "error parsing regexp: missing argument to repetition operator: `*`"},
           {"(?<m>a)(?P=n)", "error parsing regexp: invalid or unsupported Perl syntax: `(?P`"},
           {"\\8", "error parsing regexp: invalid escape sequence: `\\8`"},
           {"\\Z", "error parsing regexp: invalid escape sequence: `\\Z`"},
           {"a\\C", "error parsing regexp: invalid escape sequence: `\\C`"},  // RE2 accepts it
           {"\\Z\\C", "error parsing regexp: invalid escape sequence: `\\Z`"},
           {"\\C\\Z", "error parsing regexp: invalid escape sequence: `\\C`"},
           {"a\\", "error parsing regexp: trailing backslash at end of expression: ``"},
           {"(?=a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"},
           {"(?P<n!>a)", "error parsing regexp: invalid named capture: `(?P<n!>`"},
           {"(?<n!>a)", "error parsing regexp: invalid named capture: `(?<n!>`"},
           {"(?<=a)", "error parsing regexp: invalid named capture: `(?<=a)`"},
           {"(?<a>x", "error parsing regexp: missing closing ): `(?<a>x`"},
           {"\\pL{1000}", "error parsing regexp: expression too large: `\\pL{1000}`"},
       }) {
    EXPECT_EQ(CompileError(c.pattern), c.error) << c.pattern;
  }
}

TEST(RegexTest, NestingLimitIsGos) {
  // Go's parse tree may be 1000 levels high: 999 groups around a literal are accepted, 1000 are
  // not. Non-capturing groups around a concatenation or an alternation are flattened by Go.
  EXPECT_EQ(CompileError(Nested(999, "(", "a")), "compiled");
  std::string deep = Nested(1000, "(", "a");
  EXPECT_EQ(CompileError(deep),
            "error parsing regexp: expression nests too deeply: `" + deep + "`");
  EXPECT_EQ(CompileError(Nested(5000, "(?:", "a")), "compiled");
  EXPECT_EQ(CompileError(Nested(1001, "(?:x", "")), "compiled");
  EXPECT_EQ(CompileError(Nested(1001, "(?:a|", "b")), "compiled");
  // (a|X) is two levels, the innermost (a|b) one class: 500 are 1000 high.
  EXPECT_EQ(CompileError(Nested(500, "(a|", "b")), "compiled");
  EXPECT_NE(CompileError(Nested(501, "(a|", "b")), "compiled");
  // An error Go meets before the nesting is too deep is the one reported.
  EXPECT_EQ(CompileError("a**" + deep),
            "error parsing regexp: invalid nested repetition operator: `**`");
  // No recursion on the nesting: a hundred thousand levels are an error, not a crash.
  std::string huge = Nested(100000, "(", "a");
  EXPECT_EQ(CompileError(huge),
            "error parsing regexp: expression nests too deeply: `" + huge + "`");
}

TEST(RegexTest, FindAndFindAllAreGos) {
  auto re = Regex::Compile("[0-9]+");
  ASSERT_TRUE(re.ok());
  EXPECT_EQ(re->Find("gpu-a100-b20"), "100");
  EXPECT_EQ(re->Find("gpu"), "");
  EXPECT_EQ(re->FindAll("a1b22c333", -1), (std::vector<std::string_view>{"1", "22", "333"}));
  EXPECT_EQ(re->FindAll("a1b22c333", 2), (std::vector<std::string_view>{"1", "22"}));
  EXPECT_TRUE(re->FindAll("a1b22c333", 0).empty());
  // Empty matches: one per character boundary, none right after a match (Go's allMatches).
  auto star = Regex::Compile("a*");
  ASSERT_TRUE(star.ok());
  EXPECT_EQ(star->FindAll("baaé", -1), (std::vector<std::string_view>{"", "aa", ""}));
  // An empty match never starts inside a multi-byte character (RE2 would find \B there).
  auto nb = Regex::Compile("\\B");
  ASSERT_TRUE(nb.ok());
  EXPECT_EQ(nb->FindAll("\u212A\u212A", -1).size(), 3u);
  EXPECT_FALSE(nb->Matches("k\u212Ak"));
}

TEST(RegexTest, CachedPatternsAnswerTheSame) {
  // More patterns than the cache keeps, each compiled twice, from several threads.
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&wrong] {
      for (int i = 0; i < 200; ++i) {
        std::string pattern = "^a{" + std::to_string(i % 100 + 1) + "}$";
        for (int again = 0; again < 2; ++again) {
          auto re = Regex::Compile(pattern);
          if (!re.ok() || !re->Matches(std::string(i % 100 + 1, 'a')) || re->Matches("b")) ++wrong;
        }
        if (CompileError("(" + pattern) == "compiled") ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(CompileError("\\pL{1000}"), CompileError("\\pL{1000}"));
}

TEST(RegexTest, LinearTimeOnHostileInput) {
  // std::regex overflowed the stack on the first and took minutes on the second.
  std::string xs(40000, 'x');
  EXPECT_TRUE(Search(".*x", xs));
  EXPECT_FALSE(Search(".*y", xs));
  EXPECT_FALSE(Search("^(a|aa)*c$", std::string(46, 'a')));
  EXPECT_TRUE(Search("^(a|aa)*c$", std::string(46, 'a') + "c"));
  EXPECT_FALSE(Search("(x+x+)+y", std::string(5000, 'x')));
}

}  // namespace
}  // namespace berth::cel
