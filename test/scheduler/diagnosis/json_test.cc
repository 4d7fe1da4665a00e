#include "scheduler/diagnosis/json.h"

#include <gtest/gtest.h>

#include "api/json/parse.h"

namespace berth::diagnosis {
namespace {

Record Sample() {
  Record r;
  r.pod = "shop/web-1";
  r.uid = "u1";
  r.profile = "berth-scheduler";
  r.attempted_unix_micros = 1764316800000000;  // 2025-11-28T08:00:00Z
  r.status = "Unschedulable";
  r.message = "0/2 nodes are available: 2 Insufficient cpu.";
  r.filter = {{"node-1", "NodeResourcesFit", "Insufficient cpu"},
              {"node-2", "NodeResourcesFit", "Insufficient cpu"}};
  r.nearest = {{"node-2",
                {{"NodeResourcesFit", "Insufficient cpu",
                  "requests 2, allocatable 8, in use 6.5: short by 500m"}},
                ""}};
  r.preemption = Preemption{
      "preemption: 0/2 nodes are available: 2 No preemption victims found "
      "for incoming pod.",
      "",
      {}};
  return r;
}

TEST(DiagnosisJsonTest, TheDocumentHasTheIssuesShape) {
  const std::string json = api::json::ToJson(ToValue(Sample()));
  EXPECT_EQ(json,
            R"({"pod":"shop/web-1","uid":"u1","profile":"berth-scheduler",)"
            R"("attempted":"2025-11-28T08:00:00.000000Z","status":"Unschedulable",)"
            R"("message":"0/2 nodes are available: 2 Insufficient cpu.",)"
            R"("filter":{"node-1":"Insufficient cpu","node-2":"Insufficient cpu"},)"
            R"("nearest":[{"node":"node-2","failed":[{"plugin":"NodeResourcesFit",)"
            R"("reason":"Insufficient cpu","need":"requests 2, allocatable 8, in use 6.5: short )"
            R"(by 500m"}]}],"preemption":{"message":"preemption: 0/2 nodes are available: 2 No )"
            R"(preemption victims found for incoming pod."}})");
}

TEST(DiagnosisJsonTest, ReadsBackWhatItWrites) {
  Record in = Sample();
  in.preemption = Preemption{"m", "node-9", {{"shop/batch-1", 100}}};
  in.nearest[0].preemption = "would fit if 1 pod of priority ≤ 100 was preempted (shop/batch-1)";
  in.nominated_node = "node-9";
  auto parsed = api::json::ParseJson(api::json::ToJson(ToValue(in)));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  auto out = FromValue(*parsed);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(out->pod, in.pod);
  EXPECT_EQ(out->attempted_unix_micros, in.attempted_unix_micros);
  EXPECT_EQ(out->message, in.message);
  ASSERT_EQ(out->filter.size(), 2u);
  EXPECT_EQ(out->filter[1].node, "node-2");
  EXPECT_EQ(out->filter[1].reasons, "Insufficient cpu");
  ASSERT_EQ(out->nearest.size(), 1u);
  EXPECT_EQ(out->nearest[0].preemption, in.nearest[0].preemption);
  EXPECT_EQ(out->nearest[0].failed[0].need, in.nearest[0].failed[0].need);
  ASSERT_TRUE(out->preemption.has_value());
  EXPECT_EQ(out->preemption->victims[0].pod, "shop/batch-1");
  EXPECT_EQ(out->preemption->victims[0].priority, 100);
  EXPECT_EQ(out->nominated_node, "node-9");
}

TEST(DiagnosisJsonTest, BadDocumentsNameTheField) {
  auto v = api::json::ParseJson(R"({"pod":"a/b","nearest":[{"node":3}]})");
  ASSERT_TRUE(v.ok());
  auto r = FromValue(*v);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "nearest[0].node: expected string, got integer");
  v = api::json::ParseJson(R"({"status":"x"})");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(FromValue(*v).error(), "diagnosis: pod is required");
  v = api::json::ParseJson(R"([1])");
  EXPECT_EQ(FromValue(*v).error(), "diagnosis: expected object, got array");
}

}  // namespace
}  // namespace berth::diagnosis
