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
    // Invalid regexes: same class and position, but the reason is std::regex's, not Go's RE2's.
    {"\"a1b2\".findAll(\"[0-9]+[\").size() == 2", "message",
     "regex syntax errors are described by std::regex"},
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

}  // namespace
}  // namespace berth::cel::testing
