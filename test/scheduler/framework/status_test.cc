#include "scheduler/framework/status.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace berth::framework {
namespace {

TEST(StatusTest, DefaultIsSuccessWithNoReasonsOrPlugin) {
  Status s;
  EXPECT_TRUE(s.IsSuccess());
  EXPECT_EQ(s.code(), Code::kSuccess);
  EXPECT_TRUE(s.reasons().empty());
  EXPECT_EQ(s.Message(), "");
  EXPECT_EQ(s.plugin(), "");
  EXPECT_FALSE(s.IsRejected());
  EXPECT_TRUE(Status::Success().IsSuccess());
}

TEST(StatusTest, CodeNamesMatchUpstream) {
  const std::vector<std::pair<Code, std::string>> cases = {
      {Code::kSuccess, "Success"},
      {Code::kError, "Error"},
      {Code::kUnschedulable, "Unschedulable"},
      {Code::kUnschedulableAndUnresolvable, "UnschedulableAndUnresolvable"},
      {Code::kWait, "Wait"},
      {Code::kSkip, "Skip"},
      {Code::kPending, "Pending"},
  };
  for (const auto& [code, name] : cases) {
    EXPECT_EQ(CodeName(code), name);
  }
  // Upstream's integer values, which logs and metrics print.
  EXPECT_EQ(static_cast<int>(Code::kUnschedulableAndUnresolvable), 3);
  EXPECT_EQ(static_cast<int>(Code::kPending), 6);
}

TEST(StatusTest, MessageJoinsReasonsWithCommaSpace) {
  Status s(Code::kUnschedulable,
           std::vector<std::string>{"Insufficient cpu", "Insufficient memory"});
  EXPECT_EQ(s.Message(), "Insufficient cpu, Insufficient memory");
  s.AppendReason("Too many pods");
  EXPECT_EQ(s.Message(), "Insufficient cpu, Insufficient memory, Too many pods");
  ASSERT_EQ(s.reasons().size(), 3u);
  EXPECT_EQ(s.reasons()[2], "Too many pods");
}

TEST(StatusTest, EmptyReasonIsNotRecorded) {
  Status s(Code::kError, std::string());
  EXPECT_TRUE(s.IsError());
  EXPECT_TRUE(s.reasons().empty());
  EXPECT_EQ(s.Message(), "");
}

TEST(StatusTest, PredicatesByCode) {
  struct Case {
    Status status;
    bool success, error, rejected, skip, wait;
  };
  std::vector<Case> cases;
  cases.push_back({Status::Success(), true, false, false, false, false});
  cases.push_back({Status::Error("boom"), false, true, false, false, false});
  cases.push_back({Status::Unschedulable("x"), false, false, true, false, false});
  cases.push_back({Status::Unresolvable("x"), false, false, true, false, false});
  cases.push_back({Status(Code::kPending, "later"), false, false, true, false, false});
  cases.push_back({Status::Skip(), false, false, false, true, false});
  cases.push_back({Status::Wait(), false, false, false, false, true});
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(CodeName(c.status.code())));
    EXPECT_EQ(c.status.IsSuccess(), c.success);
    EXPECT_EQ(c.status.IsError(), c.error);
    EXPECT_EQ(c.status.IsRejected(), c.rejected);
    EXPECT_EQ(c.status.IsSkip(), c.skip);
    EXPECT_EQ(c.status.IsWait(), c.wait);
  }
  EXPECT_EQ(Status::Unresolvable("x").code(), Code::kUnschedulableAndUnresolvable);
}

TEST(StatusTest, WithPluginRecordsTheRejectingPlugin) {
  Status s = Status::Unschedulable("node(s) were unschedulable").WithPlugin("NodeUnschedulable");
  EXPECT_EQ(s.plugin(), "NodeUnschedulable");
  EXPECT_EQ(s.Message(), "node(s) were unschedulable");

  Status t = Status::Error("x");
  t.WithPlugin("A");
  EXPECT_EQ(t.plugin(), "A");
  t.WithPlugin("B");
  EXPECT_EQ(t.plugin(), "B");

  // An empty plugin name on a Success leaves it a plain Success.
  Status ok = Status().WithPlugin("");
  EXPECT_TRUE(ok.IsSuccess());
  EXPECT_EQ(ok.plugin(), "");
}

TEST(StatusTest, CopiesAreDeepAndIndependent) {
  Status a = Status::Unschedulable("r1").WithPlugin("P");
  Status b = a;
  b.AppendReason("r2");
  b.WithPlugin("Q");
  EXPECT_EQ(a.Message(), "r1");
  EXPECT_EQ(a.plugin(), "P");
  EXPECT_EQ(b.Message(), "r1, r2");
  EXPECT_EQ(b.plugin(), "Q");

  Status c;
  c = a;
  EXPECT_EQ(c.code(), Code::kUnschedulable);
  EXPECT_EQ(c.Message(), "r1");
  c = Status();  // assigning a Success drops the reasons
  EXPECT_TRUE(c.IsSuccess());
  EXPECT_TRUE(c.reasons().empty());
  EXPECT_EQ(c.plugin(), "");

  Status& self = a;
  a = self;  // self-assignment keeps the value
  EXPECT_EQ(a.Message(), "r1");
}

TEST(StatusTest, MoveTransfersReasons) {
  Status a = Status::Unresolvable("gone").WithPlugin("P");
  Status b = std::move(a);
  EXPECT_EQ(b.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(b.Message(), "gone");
  EXPECT_EQ(b.plugin(), "P");
}

}  // namespace
}  // namespace berth::framework
