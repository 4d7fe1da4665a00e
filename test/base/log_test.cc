// base/log.h: klog's text header and quoting, component-base's JSON keys, and --vmodule.

#include "base/log.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace berth::log {
namespace {

// 2026-11-26 07:00:00.123456 in the local time zone (the header is local time, as klog's).
std::chrono::system_clock::time_point At() {
  std::tm tm{};
  tm.tm_year = 2026 - 1900;
  tm.tm_mon = 10;
  tm.tm_mday = 26;
  tm.tm_hour = 7;
  tm.tm_isdst = -1;
  return std::chrono::system_clock::from_time_t(std::mktime(&tm)) +
         std::chrono::microseconds(123456);
}

Record Bound() {
  Record r;
  r.time = At();
  r.thread_id = 12345;
  r.file = "/src/berth/scheduler/schedule_one.cc";
  r.line = 123;
  r.msg = "Successfully bound pod to node";
  internal::AddFields(&r.fields, "pod", KObj("ns/p"), "node", "n1", "evaluatedNodes", 1000,
                      "feasibleNodes", 1000u);
  return r;
}

TEST(LogTextTest, HeaderMessageAndPairsAsKlog) {
  EXPECT_EQ(FormatText(Bound()),
            "I1126 07:00:00.123456   12345 schedule_one.cc:123] \"Successfully bound pod to node\""
            " pod=\"ns/p\" node=\"n1\" evaluatedNodes=1000 feasibleNodes=1000\n");
}

TEST(LogTextTest, SeverityErrorFirstAndWideThreadIds) {
  Record r = Bound();
  r.severity = 'E';
  r.thread_id = 123456789;
  r.has_err = true;
  r.err = "connection refused";
  r.fields.clear();
  internal::AddFields(&r.fields, "ok", false, "ratio", 0.5, "obj", KObj("cluster-scoped"));
  EXPECT_EQ(FormatText(r),
            "E1126 07:00:00.123456 123456789 schedule_one.cc:123] \"Successfully bound pod to "
            "node\" err=\"connection refused\" ok=false ratio=0.5 obj=\"cluster-scoped\"\n");
}

TEST(LogTextTest, QuotesAsGoPercentQ) {
  Record r = Bound();
  r.fields.clear();
  r.msg = "say \"hi\"\\n";
  internal::AddFields(&r.fields, "v", std::string("a\nb\tc\x1b[31m\xff"), "utf8", "\xc3\xa9");
  const std::string line = FormatText(r);
  EXPECT_NE(
      line.find("] \"say \\\"hi\\\"\\\\n\" v=\"a\\nb\\tc\\x1b[31m\\xff\" utf8=\"\xc3\xa9\"\n"),
      std::string::npos)
      << line;
  // One record, one line.
  EXPECT_EQ(line.find('\n'), line.size() - 1);
}

TEST(LogJsonTest, KeysInUpstreamOrder) {
  Record r = Bound();
  r.v = 2;
  const std::string line = FormatJson(r);
  const double millis = std::chrono::duration<double, std::milli>(At().time_since_epoch()).count();
  char ts[40];
  std::snprintf(ts, sizeof(ts), "%.6f", millis);
  EXPECT_EQ(line, std::string("{\"ts\":") + ts +
                      ",\"caller\":\"schedule_one.cc:123\",\"msg\":\"Successfully bound pod to "
                      "node\",\"v\":2,\"pod\":{\"name\":\"p\",\"namespace\":\"ns\"},\"node\":"
                      "\"n1\",\"evaluatedNodes\":1000,\"feasibleNodes\":1000}\n");
}

TEST(LogJsonTest, ErrorsHaveErrAndNoV) {
  Record r = Bound();
  r.severity = 'E';
  r.has_err = true;
  r.err = "bad \"thing\"\n";
  r.fields.clear();
  const std::string line = FormatJson(r);
  EXPECT_NE(
      line.find(",\"msg\":\"Successfully bound pod to node\",\"err\":\"bad \\\"thing\\\"\\n\"}"),
      std::string::npos)
      << line;
  EXPECT_EQ(line.find("\"v\":"), std::string::npos);
}

TEST(LogJsonTest, EscapesControlAndInvalidUtf8) {
  Record r = Bound();
  r.fields.clear();
  r.msg = std::string("a\x01\xff", 3);
  EXPECT_NE(FormatJson(r).find("\"msg\":\"a\\u0001\\ufffd\""), std::string::npos);
}

TEST(LogVmoduleTest, PatternsMatchBaseNameWithoutExtension) {
  ASSERT_EQ(SetVmodule("schedule_one=3,informer*=5,scheduler/binder/*=4"), "");
  EXPECT_EQ(VmoduleLevel("/src/scheduler/schedule_one.cc"), 3);
  EXPECT_EQ(VmoduleLevel("/src/informers/informer_factory.h"), 5);
  EXPECT_EQ(VmoduleLevel("/src/scheduler/binder/binder.cc"), 4);
  EXPECT_EQ(VmoduleLevel("/src/scheduler/queue.cc"), -1);
  Verbosity() = 0;
  EXPECT_TRUE(Enabled(3, "/src/scheduler/schedule_one.cc"));
  EXPECT_FALSE(Enabled(4, "/src/scheduler/schedule_one.cc"));
  EXPECT_FALSE(Enabled(1, "/src/scheduler/queue.cc"));
  EXPECT_TRUE(Enabled(0, "/src/scheduler/queue.cc"));
  ASSERT_EQ(SetVmodule(""), "");
  EXPECT_EQ(VmoduleLevel("/src/scheduler/schedule_one.cc"), -1);
}

TEST(LogVmoduleTest, BadSpecsAreErrors) {
  EXPECT_NE(SetVmodule("schedule_one"), "");
  EXPECT_NE(SetVmodule("schedule_one=x"), "");
  EXPECT_NE(SetVmodule("=3"), "");
  EXPECT_NE(SetVmodule("a=-1"), "");
}

TEST(LogMacrosTest, StructuredAndStreamLinesGoToTheSink) {
  std::vector<std::string> lines;
  internal::Sink() = [&](const std::string& l) { lines.push_back(l); };
  Verbosity() = 1;
  OutputFormat() = Format::kText;
  BERTH_INFO_S(1, "Attempting to schedule pod", "pod", KObj("default/p"));
  BERTH_INFO_S(2, "not written");
  BERTH_LOG(0) << "plain " << 42;
  BERTH_ERROR_S("boom", "Error scheduling pod; retrying", "pod", KRef("ns", "q"));
  OutputFormat() = Format::kJson;
  BERTH_WARN_S("Lease lost", "lease", "default/x");
  OutputFormat() = Format::kText;
  internal::Sink() = nullptr;
  Verbosity() = 0;
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].substr(0, 1), "I");
  EXPECT_NE(lines[0].find("log_test.cc:"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("] \"Attempting to schedule pod\" pod=\"default/p\"\n"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[1].find("] \"plain 42\"\n"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2].substr(0, 1), "E");
  EXPECT_NE(lines[2].find("\"Error scheduling pod; retrying\" err=\"boom\" pod=\"ns/q\""),
            std::string::npos)
      << lines[2];
  EXPECT_NE(lines[3].find("\"msg\":\"Lease lost\",\"v\":0,\"lease\":\"default/x\"}"),
            std::string::npos)
      << lines[3];
}

}  // namespace
}  // namespace berth::log
