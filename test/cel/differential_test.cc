// Differential test: berth's CEL against cel-go with DRA's real environment
// (k8s.io/dynamic-resource-allocation/cel at the version test/cel/celgo/go.mod pins), over the
// corpus test/cel/corpus.jsonl and over seeded random expressions. Every case must agree on
// match / no-match, on the error class (compile, runtime, cost limit) and on the message, and on
// the runtime cost, except where listed in kKnownDifferences.
//
// Needs Go: the reference is built by test/cel/celgo/build.sh (cached under the build tree).

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "api/json/parse.h"
#include "test/cel/device_json.h"
#include "test/cel/random_expr.h"

namespace berth::cel::testing {
namespace {

// Intentional or not-yet-resolved differences, each with its reason.
struct KnownDifference {
  const char* expr;
  const char* what;  // "class" (the result or error class), "message" or "cost"
  const char* why;
};
const KnownDifference kKnownDifferences[] = {
    // Kubernetes CEL libraries berth does not implement (no DRA selector needs them): berth
    // rejects these at compile time with "undeclared reference".
    {"url(\"https://x\") != null", "class", "Kubernetes' URL library is not implemented"},
    {"ip(\"1.2.3.4\").family() == 4", "class", "Kubernetes' IP/CIDR libraries are not implemented"},
    {"device.driver.format([]) == \"\"", "class",
     "the strings extension's format() is not implemented"},
    {"timestamp(\"2024-01-01T00:00:00Z\") > timestamp(\"2023-01-01T00:00:00Z\")", "class",
     "timestamps and durations are not implemented"},
    // Upstream's isInteger() depends on how the capacity's text was written ("1.0" is not an
    // integer there); api::Quantity keeps only the value, so berth treats integral capacities as
    // integers.
    // RE2 bounds a compiled pattern by memory (its default 8 MB; \pL alone is hundreds of
    // UTF-8 instructions), Go by instruction count (3.3M, \pL is one): berth answers
    // "expression too large" where Go compiles.
    {"cel.bind(p, \"\\\\pL{1000}\", \"a\".matches(p))", "class",
     "RE2 bounds a compiled pattern by memory, Go by instruction count"},
    {"device.capacity[\"q.example.com\"].m.isInteger()", "class",
     "capacity quantities keep their value, not their textual form"},
};

const KnownDifference* FindKnown(const std::string& expr, std::string_view what) {
  for (const auto& k : kKnownDifferences) {
    if (expr == k.expr && what == k.what) return &k;
  }
  return nullptr;
}

std::string RunCommand(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) {
    *status = -1;
    return out;
  }
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  *status = pclose(p);
  return out;
}

// The cel-go reference binary; fails the test (with the reason) when it cannot be built.
std::string CelGoBinary() {
  static std::string path;
  static std::string error;
  if (path.empty() && error.empty()) {
    int status = 0;
    std::string out = RunCommand(
        std::string(BERTH_SOURCE_DIR) + "/test/cel/celgo/build.sh " + CELGO_CACHE_DIR + " 2>&1",
        &status);
    if (status != 0) {
      error = "building test/cel/celgo failed (install Go to run this test):\n" + out;
    } else {
      path = out.substr(out.find_last_of('\n', out.size() - 2) == std::string::npos
                            ? 0
                            : out.find_last_of('\n', out.size() - 2) + 1);
      while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
    }
  }
  if (!error.empty()) ADD_FAILURE() << error;
  return path;
}

std::vector<std::string> ReadLines(const std::string& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

std::vector<Outcome> RunCelGo(const std::string& input_file) {
  std::string bin = CelGoBinary();
  if (bin.empty()) return {};
  int status = 0;
  std::string out = RunCommand(bin + " < " + input_file, &status);
  EXPECT_EQ(status, 0) << "celgo failed on " << input_file;
  std::vector<Outcome> outcomes;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    auto o = ParseOutcome(line);
    EXPECT_TRUE(o.ok()) << o.error();
    if (o.ok()) outcomes.push_back(*o);
  }
  return outcomes;
}

struct Tally {
  int agree = 0;
  int known = 0;
  int differ = 0;
};

void Compare(const std::string& input_line, const Outcome& go, const Outcome& berth, Tally& t) {
  auto parsed = api::json::ParseJson(input_line);
  ASSERT_TRUE(parsed.ok());
  std::string expr = parsed->Find("expr")->AsString();
  bool unordered = parsed->Find("unordered") != nullptr;
  std::string where = "expression: " + expr + "\n  input:  " + input_line +
                      "\n  cel-go: " + OutcomeToJson(go) + "\n  berth:  " + OutcomeToJson(berth);
  if (go.ok != berth.ok || go.value != berth.value || go.error_class != berth.error_class) {
    if (FindKnown(expr, "class")) {
      ++t.known;
      return;
    }
    ++t.differ;
    ADD_FAILURE() << "result differs\n" << where;
    return;
  }
  bool known = false;
  if (!unordered && go.error != berth.error) {
    if (FindKnown(expr, "message")) {
      known = true;
    } else {
      ++t.differ;
      ADD_FAILURE() << "message differs\n" << where;
      return;
    }
  }
  if (!unordered && go.cost != berth.cost) {
    if (FindKnown(expr, "cost")) {
      known = true;
    } else {
      ++t.differ;
      ADD_FAILURE() << "cost differs\n" << where;
      return;
    }
  }
  ++(known ? t.known : t.agree);
}

TEST(CelDifferentialTest, Corpus) {
  std::string corpus = std::string(BERTH_SOURCE_DIR) + "/test/cel/corpus.jsonl";
  std::vector<std::string> lines = ReadLines(corpus);
  ASSERT_GE(lines.size(), 300u);
  std::vector<Outcome> go = RunCelGo(corpus);
  ASSERT_EQ(go.size(), lines.size());
  Tally t;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto c = ParseCase(lines[i]);
    ASSERT_TRUE(c.ok()) << c.error();
    Compare(lines[i], go[i], RunBerth(*c), t);
  }
  std::printf("corpus: %zu cases, %d agree, %d known differences, %d differ\n", lines.size(),
              t.agree, t.known, t.differ);
}

TEST(CelDifferentialTest, RandomExpressions) {
  // The devices of the corpus's first three lines (gpu, nic, a device without attributes).
  std::vector<std::string> corpus =
      ReadLines(std::string(BERTH_SOURCE_DIR) + "/test/cel/corpus.jsonl");
  ASSERT_GE(corpus.size(), 3u);
  std::vector<std::string> devices;
  for (size_t i = 0; i < 3; ++i) {
    auto doc = api::json::ParseJson(corpus[i]);
    ASSERT_TRUE(doc.ok());
    devices.push_back(api::json::ToJson(*doc->Find("device")));
  }
  constexpr int kCases = 1500;
  std::string file = std::string(CELGO_CACHE_DIR) + "/random.jsonl";
  std::vector<std::string> lines;
  {
    RandomExpr gen(20261126);
    std::ofstream out(file);
    for (int i = 0; i < kCases; ++i) {
      std::string line =
          "{\"expr\":" + JsonString(gen.Bool(3)) + ",\"device\":" + devices[i % 3] + "}";
      out << line << "\n";
      lines.push_back(line);
    }
  }
  std::vector<Outcome> go = RunCelGo(file);
  ASSERT_EQ(go.size(), lines.size());
  Tally t;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto c = ParseCase(lines[i]);
    ASSERT_TRUE(c.ok()) << c.error();
    Compare(lines[i], go[i], RunBerth(*c), t);
  }
  std::printf("random: %zu cases, %d agree, %d known differences, %d differ\n", lines.size(),
              t.agree, t.known, t.differ);
}

// Corpus expressions with random characters deleted, inserted or cut out: mostly syntax errors.
// Both sides must agree on the result and the error class; messages are only counted, since
// ANTLR's error recovery (how many follow-up errors it reports, and their wording) is not
// reproduced exactly.
TEST(CelDifferentialTest, MutatedExpressions) {
  std::vector<std::string> corpus =
      ReadLines(std::string(BERTH_SOURCE_DIR) + "/test/cel/corpus.jsonl");
  std::vector<std::pair<std::string, std::string>> sources;  // expression, device JSON
  for (const auto& line : corpus) {
    auto doc = api::json::ParseJson(line);
    ASSERT_TRUE(doc.ok());
    std::string expr = doc->Find("expr")->AsString();
    if (FindKnown(expr, "class") || doc->Find("unordered") != nullptr) continue;
    sources.emplace_back(expr, api::json::ToJson(*doc->Find("device")));
  }
  const std::string alphabet = "()[]{}.,?:!-+*/%<>=&|\"' abcxyz0123456789_";
  std::mt19937_64 rng(1126);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::string file = std::string(CELGO_CACHE_DIR) + "/mutants.jsonl";
  std::vector<std::string> lines;
  {
    std::ofstream out(file);
    for (int i = 0; i < 1500; ++i) {
      auto [expr, device] = sources[pick(sources.size())];
      for (size_t edits = 1 + pick(3); edits > 0; --edits) {
        size_t at = pick(expr.size() + 1);
        switch (pick(3)) {
          case 0:
            if (at < expr.size()) expr.erase(at, 1);
            break;
          case 1:
            expr.insert(at, 1, alphabet[pick(alphabet.size())]);
            break;
          default: {
            size_t to = pick(expr.size() + 1);
            if (to < at) std::swap(at, to);
            expr.erase(at, to - at);
          }
        }
      }
      // Keep the text valid UTF-8 for both JSON readers: drop broken multi-byte sequences.
      std::string clean;
      for (size_t k = 0; k < expr.size(); ++k) {
        unsigned char c = static_cast<unsigned char>(expr[k]);
        if (c < 0x80) {
          clean += expr[k];
          continue;
        }
        size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
        bool ok = n > 0 && k + n <= expr.size();
        for (size_t m = 1; ok && m < n; ++m)
          ok = (static_cast<unsigned char>(expr[k + m]) & 0xC0) == 0x80;
        if (ok) clean += expr.substr(k, n);
        k += ok ? n - 1 : 0;
      }
      std::string line = "{\"expr\":" + JsonString(clean) + ",\"device\":" + device + "}";
      out << line << "\n";
      lines.push_back(line);
    }
  }
  std::vector<Outcome> go = RunCelGo(file);
  ASSERT_EQ(go.size(), lines.size());
  int agree = 0, messages = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto c = ParseCase(lines[i]);
    ASSERT_TRUE(c.ok()) << c.error();
    Outcome b = RunBerth(*c);
    if (go[i].ok != b.ok || go[i].value != b.value || go[i].error_class != b.error_class) {
      ADD_FAILURE() << "result differs\n  input:  " << lines[i]
                    << "\n  cel-go: " << OutcomeToJson(go[i]) << "\n  berth:  " << OutcomeToJson(b);
      continue;
    }
    ++agree;
    if (go[i].error != b.error) ++messages;
  }
  std::printf(
      "mutants: %zu cases, %d agree on result and class (%d of them with other message text)\n",
      lines.size(), agree, messages);
}

}  // namespace
}  // namespace berth::cel::testing
