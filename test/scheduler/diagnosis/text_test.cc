#include "scheduler/diagnosis/text.h"

#include <gtest/gtest.h>

#include <string>

namespace berth::diagnosis {
namespace {

TEST(DiagnosisTextTest, NearestNodesAndGroupedReasons) {
  Record r;
  r.pod = "shop/web-1";
  r.profile = "berth-scheduler";
  r.status = "Unschedulable";
  r.message = "0/5 nodes are available: 1 node(s) had untolerated taint(s), 4 Insufficient cpu.";
  for (const char* n : {"n1", "n2", "n3", "n4"})
    r.filter.push_back({n, "NodeResourcesFit", "Insufficient cpu"});
  r.filter.push_back({"gpu-1", "TaintToleration", "node(s) had untolerated taint(s)"});
  r.nearest = {{"n3", {{"NodeResourcesFit", "Insufficient cpu", "short by 500m"}}, ""},
               {"gpu-1",
                {{"TaintToleration", "node(s) had untolerated taint(s)",
                  "add a toleration for dedicated=gpu:NoSchedule"},
                 {"NodeResourcesFit", "Insufficient cpu", ""}},
                ""}};
  EXPECT_EQ(RenderText(r, "the scheduler berth-0"),
            "Pod shop/web-1 (scheduler berth-scheduler): Unschedulable\n"
            "Source: the scheduler berth-0\n"
            "Message: 0/5 nodes are available: 1 node(s) had untolerated taint(s), 4 "
            "Insufficient cpu.\n"
            "\n"
            "Nearest nodes (what each would need):\n"
            "  NODE   PLUGIN            REASON                            NEED\n"
            "  n3     NodeResourcesFit  Insufficient cpu                  short by 500m\n"
            "  gpu-1  TaintToleration   node(s) had untolerated taint(s)  add a toleration for "
            "dedicated=gpu:NoSchedule\n"
            "         NodeResourcesFit  Insufficient cpu                  -\n"
            "\n"
            "Rejected nodes (5):\n"
            "  NODES                  REASONS\n"
            "  n1, n2, n3 and 1 more  Insufficient cpu\n"
            "  gpu-1                  node(s) had untolerated taint(s)\n");
}

// No byte that drives a terminal (C0 controls but the line feeds RenderText writes itself, DEL)
// and no invalid UTF-8 (the bytes only appear escaped as "\xNN").
void ExpectPrintable(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    EXPECT_TRUE((c >= 0x20 && c < 0x7f) || c == '\n') << "byte " << int(c) << " at " << i << " in\n"
                                                      << text;
  }
}

// Names, reasons and messages come from users (pod, node and attribute names, CEL errors that
// quote them) and from the API server (the Lease holder identity in the source): a control
// character or invalid UTF-8 in them is escaped, never sent to the operator's terminal.
TEST(DiagnosisTextTest, ControlCharactersAndInvalidUtf8AreEscaped) {
  const std::string attr = "dra.example.com/\x1b[31mred\x07\r\nx\xff";
  const std::string reason =
      "cannot allocate all claims: CEL error: no such key: " + attr + " (exit)";
  Record r;
  r.pod = "shop/web\x1b]0;pwned\x07";
  r.profile = "berth\rscheduler";
  r.status = "Unschedulable";
  r.message = "0/2 nodes are available: " + reason;
  r.nominated_node = "n\x1b[2J";
  r.pre_filter_plugin = "DynamicResources";
  r.pre_filter = reason;
  r.filter.push_back({"node\x1b[31m-1", "DynamicResources", reason});
  r.filter.push_back({"node-2\n  forged  line", "DynamicResources", reason});
  r.nearest = {{"node\x1b[31m-1", {{"DynamicResources", reason, "fix " + attr}}, "evict\x07"}};
  r.preemption = Preemption{"", "node\x1b[31m-1", {{"shop/v\x1b[0m", 5}}};
  const std::string text = RenderText(r, "the scheduler berth-0\x1b[8m_ab\xc3(");
  ExpectPrintable(text);
  const std::string esc_reason =
      "cannot allocate all claims: CEL error: no such key: "
      "dra.example.com/\\x1b[31mred\\x07\\r\\nx\\xff (exit)";
  EXPECT_NE(text.find("Pod shop/web\\x1b]0;pwned\\x07 (scheduler berth\\rscheduler): "
                      "Unschedulable\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Source: the scheduler berth-0\\x1b[8m_ab\\xc3(\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Message: 0/2 nodes are available: " + esc_reason + "\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Nominated node: n\\x1b[2J\n"), std::string::npos) << text;
  EXPECT_NE(text.find("(PreFilter DynamicResources): " + esc_reason + "\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  node\\x1b[31m-1  DefaultPreemption  preemption"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  evict\\x07\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  " + esc_reason + "  fix dra.example.com/\\x1b[31mred\\x07\\r\\nx\\xff\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Preemption: node node\\x1b[31m-1, evicting shop/v\\x1b[0m (priority 5)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("node\\x1b[31m-1, node-2\\n  forged  line  " + esc_reason + "\n"),
            std::string::npos)
      << text;
  // A preemption message (no node) is escaped too.
  r.preemption = Preemption{"preemption: victim \x1b[31mx\x07", "", {}};
  const std::string no_node = RenderText(r, "s");
  ExpectPrintable(no_node);
  EXPECT_NE(no_node.find("Preemption: victim \\x1b[31mx\\x07\n"), std::string::npos) << no_node;
}

// Valid UTF-8 (a node name in another script, the ≤ in a preemption note) is printed as is.
TEST(DiagnosisTextTest, ValidUtf8IsKept) {
  Record r;
  r.pod = "shop/web-1";
  r.status = "Scheduled";
  r.node = "nœud-1";
  EXPECT_EQ(RenderText(r, "s"), "Pod shop/web-1: Scheduled on nœud-1\nSource: s\n");
}

}  // namespace
}  // namespace berth::diagnosis
