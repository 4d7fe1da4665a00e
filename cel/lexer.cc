#include "cel/lexer.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace berth::cel {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<std::vector<Token>> Lex(std::string_view s, LexError* error) {
  std::vector<Token> out;
  size_t i = 0;
  auto fail = [&](std::string msg, size_t at) -> Result<std::vector<Token>> {
    error->message = std::move(msg);
    error->offset = static_cast<int32_t>(at);
    return Error{error->message};
  };
  // Each token's length is known once the scan has moved past it.
  auto close_last = [&] {
    if (!out.empty() && out.back().length == 0) {
      out.back().length = static_cast<int32_t>(i) - out.back().offset;
    }
  };
  auto note = [&](std::string msg, size_t at) {
    if (error->message.empty()) {
      error->message = std::move(msg);
      error->offset = static_cast<int32_t>(at);
    }
  };
  while (i < s.size()) {
    close_last();
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    Token t;
    t.offset = static_cast<int32_t>(i);
    // String and bytes literals, with optional r/R (raw) and b/B prefixes.
    size_t j = i;
    bool raw = false, bytes = false;
    while (j < s.size() && j - i < 2 &&
           (s[j] == 'r' || s[j] == 'R' || s[j] == 'b' || s[j] == 'B')) {
      if (s[j] == 'r' || s[j] == 'R') raw = true;
      if (s[j] == 'b' || s[j] == 'B') bytes = true;
      ++j;
    }
    if (j < s.size() && (s[j] == '"' || s[j] == '\'')) {
      char q = s[j];
      bool triple = j + 2 < s.size() && s[j + 1] == q && s[j + 2] == q;
      size_t k = j + (triple ? 3 : 1);
      std::string val;
      bool closed = false;
      while (k < s.size()) {
        if (triple ? (s.compare(k, 3, std::string(3, q)) == 0) : s[k] == q) {
          k += triple ? 3 : 1;
          closed = true;
          break;
        }
        if (!triple && (s[k] == '\n' || s[k] == '\r')) break;
        if (s[k] == '\\' && !raw) {
          if (k + 1 >= s.size()) break;
          char e = s[k + 1];
          k += 2;
          switch (e) {
            case 'a':
              val += '\a';
              break;
            case 'b':
              val += '\b';
              break;
            case 'f':
              val += '\f';
              break;
            case 'n':
              val += '\n';
              break;
            case 'r':
              val += '\r';
              break;
            case 't':
              val += '\t';
              break;
            case 'v':
              val += '\v';
              break;
            case '\\':
              val += '\\';
              break;
            case '\'':
              val += '\'';
              break;
            case '"':
              val += '"';
              break;
            case '`':
              val += '`';
              break;
            case '?':
              val += '?';
              break;
            case 'x':
            case 'X':
            case 'u':
            case 'U': {
              int n = (e == 'x' || e == 'X') ? 2 : (e == 'u' ? 4 : 8);
              uint32_t cp = 0;
              for (int d = 0; d < n; ++d, ++k) {
                if (k >= s.size() || HexVal(s[k]) < 0) return fail("invalid escape", t.offset);
                cp = cp * 16 + static_cast<uint32_t>(HexVal(s[k]));
              }
              if (bytes && n == 2)
                val += static_cast<char>(cp);
              else
                AppendUtf8(val, cp);
              break;
            }
            default:
              if (e >= '0' && e <= '3' && k + 1 < s.size()) {
                uint32_t cp = static_cast<uint32_t>(e - '0');
                for (int d = 0; d < 2; ++d, ++k) {
                  if (s[k] < '0' || s[k] > '7') return fail("invalid escape", t.offset);
                  cp = cp * 8 + static_cast<uint32_t>(s[k] - '0');
                }
                if (bytes)
                  val += static_cast<char>(cp);
                else
                  AppendUtf8(val, cp);
                break;
              }
              return fail("invalid escape", t.offset);
          }
          continue;
        }
        val += s[k++];
      }
      if (!closed) {
        // ANTLR's lexer then falls back: a prefix (r, b) is an identifier, and the error starts
        // at the quote and runs to the end of the line.
        if (j > i) {
          Token prefix;
          prefix.kind = Token::Kind::kIdent;
          prefix.text = std::string(s.substr(i, j - i));
          prefix.offset = static_cast<int32_t>(i);
          prefix.length = static_cast<int32_t>(j - i);
          out.push_back(std::move(prefix));
        }
        size_t eol = s.find_first_of("\r\n", j);
        std::string_view rest =
            s.substr(j, eol == std::string_view::npos ? std::string_view::npos : eol - j);
        note("token recognition error at: '" + std::string(rest) + "'", j);
        i = eol == std::string_view::npos ? s.size() : eol;
        continue;
      }
      t.kind = Token::Kind::kLiteral;
      t.literal = bytes ? Value{Bytes{val}} : Value{val};
      out.push_back(std::move(t));
      i = k;
      continue;
    }
    if (IsIdentStart(c)) {
      size_t k = i;
      while (k < s.size() && IsIdentChar(s[k])) ++k;
      t.kind = Token::Kind::kIdent;
      t.text = std::string(s.substr(i, k - i));
      if (t.text == "true" || t.text == "false") {
        t.kind = Token::Kind::kLiteral;
        t.literal = Value{t.text == "true"};
      } else if (t.text == "null") {
        t.kind = Token::Kind::kLiteral;
        t.literal = Value{Null{}};
      }
      out.push_back(std::move(t));
      i = k;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t k = i;
      bool is_double = false;
      bool hex = c == '0' && k + 1 < s.size() && (s[k + 1] == 'x' || s[k + 1] == 'X');
      if (hex) {
        k += 2;
        while (k < s.size() && HexVal(s[k]) >= 0) ++k;
      } else {
        while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
        if (k + 1 < s.size() && s[k] == '.' && std::isdigit(static_cast<unsigned char>(s[k + 1]))) {
          is_double = true;
          ++k;
          while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
        }
        if (k < s.size() && (s[k] == 'e' || s[k] == 'E')) {
          size_t e = k + 1;
          if (e < s.size() && (s[e] == '+' || s[e] == '-')) ++e;
          if (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) {
            is_double = true;
            k = e;
            while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
          }
        }
      }
      std::string text(s.substr(i, k - i));
      bool is_uint = !is_double && k < s.size() && (s[k] == 'u' || s[k] == 'U');
      t.kind = Token::Kind::kLiteral;
      errno = 0;
      if (is_double) {
        t.literal = Value{std::strtod(text.c_str(), nullptr)};
      } else if (is_uint) {
        ++k;
        uint64_t v = std::strtoull(text.c_str(), nullptr, hex ? 16 : 10);
        if (errno == ERANGE) return fail("invalid uint literal", t.offset);
        t.literal = Value{v};
      } else {
        uint64_t v = std::strtoull(text.c_str(), nullptr, hex ? 16 : 10);
        // The magnitude may be 2^63 only under a unary minus; the parser checks that.
        if (errno == ERANGE || v > (uint64_t{1} << 63))
          return fail("invalid int literal", t.offset);
        t.literal = Value{v};  // kept unsigned until the parser applies the sign
        t.text = "int";
      }
      out.push_back(std::move(t));
      i = k;
      continue;
    }
    static const char* kPuncts[] = {"==", "!=", "<=", ">=", "&&", "||", ".?", "[?", "<",
                                    ">",  "!",  "+",  "-",  "*",  "/",  "%",  "?",  ":",
                                    ".",  ",",  "[",  "]",  "{",  "}",  "(",  ")"};
    bool found = false;
    for (const char* p : kPuncts) {
      std::string_view pv(p);
      if (s.substr(i, pv.size()) == pv) {
        t.kind = Token::Kind::kPunct;
        t.text = std::string(pv);
        i += pv.size();
        out.push_back(std::move(t));
        found = true;
        break;
      }
    }
    if (!found) {
      // ANTLR reads code points: report and skip the whole UTF-8 sequence.
      size_t n = 1;
      unsigned char u = static_cast<unsigned char>(c);
      if (u >= 0xF0) {
        n = 4;
      } else if (u >= 0xE0) {
        n = 3;
      } else if (u >= 0xC0) {
        n = 2;
      }
      n = std::min(n, s.size() - i);
      note("token recognition error at: '" + std::string(s.substr(i, n)) + "'", i);
      i += n;
    }
  }
  close_last();
  Token end;
  end.offset = static_cast<int32_t>(s.size());
  out.push_back(end);
  return out;
}

}  // namespace berth::cel
