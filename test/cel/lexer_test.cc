#include "cel/lexer.h"

#include <gtest/gtest.h>

namespace berth::cel {
namespace {

std::vector<Token> MustLex(std::string_view s) {
  LexError err;
  auto toks = Lex(s, &err);
  EXPECT_TRUE(toks.ok()) << err.message;
  return toks.ok() ? *toks : std::vector<Token>{};
}

TEST(LexerTest, Literals) {
  auto t = MustLex(R"(42 42u 0x10 1.5 1e3 "a\nb" 'x' r"\d" b"\x01" true null)");
  ASSERT_EQ(t.size(), 12u);
  EXPECT_EQ(t[0].literal.As<uint64_t>(), 42u);  // ints stay unsigned until the parser signs them
  EXPECT_EQ(t[0].text, "int");
  EXPECT_EQ(t[1].literal.As<uint64_t>(), 42u);
  EXPECT_EQ(t[1].text, "");
  EXPECT_EQ(t[2].literal.As<uint64_t>(), 16u);
  EXPECT_DOUBLE_EQ(t[3].literal.As<double>(), 1.5);
  EXPECT_DOUBLE_EQ(t[4].literal.As<double>(), 1000.0);
  EXPECT_EQ(t[5].literal.As<std::string>(), "a\nb");
  EXPECT_EQ(t[6].literal.As<std::string>(), "x");
  EXPECT_EQ(t[7].literal.As<std::string>(), "\\d");
  EXPECT_EQ(t[8].literal.As<Bytes>().data(), std::string("\x01"));
  EXPECT_TRUE(t[9].literal.As<bool>());
  EXPECT_TRUE(t[10].literal.Is<Null>());
  EXPECT_EQ(t[11].kind, Token::Kind::kEnd);
}

TEST(LexerTest, UnicodeEscapesAndOffsets) {
  auto t = MustLex(R"(a.?b["\u00e9"])");
  ASSERT_EQ(t.size(), 7u);
  EXPECT_EQ(t[1].text, ".?");
  EXPECT_EQ(t[1].offset, 1);
  EXPECT_EQ(t[4].literal.As<std::string>(), "é");
}

TEST(LexerTest, RecognitionErrorsAreReportedAndSkipped) {
  // Like ANTLR's lexer: the tokens come back, the first problem is reported.
  LexError err;
  auto toks = Lex("\"open", &err);
  ASSERT_TRUE(toks.ok());
  EXPECT_EQ(err.message, "token recognition error at: '\"open'");
  EXPECT_EQ(err.offset, 0);
  EXPECT_EQ(toks->size(), 1u);  // just the end

  err = {};
  toks = Lex("1 # 2", &err);
  ASSERT_TRUE(toks.ok());
  EXPECT_EQ(err.message, "token recognition error at: '#'");
  EXPECT_EQ(err.offset, 2);
  EXPECT_EQ(toks->size(), 3u);  // 1, 2, end
}

TEST(LexerTest, MalformedLiteralsFail) {
  LexError err;
  EXPECT_FALSE(Lex("99999999999999999999", &err).ok());
  EXPECT_FALSE(Lex(R"("\q")", &err).ok());
}

TEST(LexerTest, TokenLengths) {
  auto t = MustLex("device.attributes[\"a b\"] >= 10u");
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t[0].length, 6);
  EXPECT_EQ(t[4].length, 5);  // "a b" with its quotes
  EXPECT_EQ(t[6].length, 2);
  EXPECT_EQ(t[7].length, 3);  // 10u
  EXPECT_EQ(t[8].length, 0);
}

}  // namespace
}  // namespace berth::cel
