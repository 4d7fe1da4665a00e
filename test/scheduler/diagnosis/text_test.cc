#include "scheduler/diagnosis/text.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace berth::diagnosis
