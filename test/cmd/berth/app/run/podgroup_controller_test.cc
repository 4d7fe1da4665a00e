// PodGroup status transitions, as scheduler-plugins' controller computes them.

#include "cmd/berth/app/run/podgroup_controller.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"

namespace berth::run {
namespace {

api::PodGroup Group(int32_t min, std::string phase) {
  api::PodGroup g;
  g.metadata.name = "g";
  g.metadata.namespace_ = "default";
  g.spec.min_member = min;
  g.status.phase = std::move(phase);
  return g;
}

api::Pod Member(const std::string& name, const std::string& phase, const std::string& owner = "") {
  auto p = testing::MakePod(name).Label(api::kPodGroupLabel, "g").Obj();
  p.status.phase = phase;
  if (!owner.empty()) p.metadata.owner_references.push_back({"batch/v1", "Job", owner, "u", true});
  return p;
}

TEST(PodGroupStatusTest, Transitions) {
  const api::Time now{1700000000000000};
  api::Pod a = Member("a", "Pending", "job-2"), b = Member("b", "Pending", "job-1"),
           c = Member("c", "Pending");
  // "" -> Pending.
  EXPECT_EQ(DesiredPodGroupStatus(Group(2, ""), {&a}, now).phase, "Pending");
  // Pending stays Pending with too few pods ...
  EXPECT_EQ(DesiredPodGroupStatus(Group(3, "Pending"), {&a, &b}, now).phase, "Pending");
  // ... and becomes Scheduling with enough, with occupiedBy from the first pod's owners.
  auto s = DesiredPodGroupStatus(Group(2, "Pending"), {&a, &b}, now);
  EXPECT_EQ(s.phase, "Scheduling");
  EXPECT_EQ(s.occupied_by, "default/job-2");
  ASSERT_TRUE(s.schedule_start_time.has_value());
  EXPECT_EQ(s.schedule_start_time->unix_micros, now.unix_micros);
  // Running once running + succeeded reach minMember.
  api::Pod ra = Member("a", "Running"), rb = Member("b", "Running");
  s = DesiredPodGroupStatus(Group(2, "Scheduling"), {&ra, &rb, &c}, now);
  EXPECT_EQ(s.phase, "Running");
  EXPECT_EQ(s.running, 2);
  // A pod disappears below minMember: back to Pending.
  EXPECT_EQ(DesiredPodGroupStatus(Group(3, "Running"), {&ra, &rb}, now).phase, "Pending");
  // Failed when a pod failed and the rest cannot be waited for.
  api::Pod fa = Member("a", "Failed");
  s = DesiredPodGroupStatus(Group(2, "Running"), {&fa, &rb}, now);
  EXPECT_EQ(s.phase, "Failed");
  EXPECT_EQ(s.failed, 1);
  // Finished when minMember pods succeeded; terminal afterwards.
  api::Pod sa = Member("a", "Succeeded"), sb = Member("b", "Succeeded");
  EXPECT_EQ(DesiredPodGroupStatus(Group(2, "Running"), {&sa, &sb}, now).phase, "Finished");
  EXPECT_EQ(DesiredPodGroupStatus(Group(2, "Finished"), {}, now).phase, "Finished");
  EXPECT_EQ(DesiredPodGroupStatus(Group(2, "Failed"), {&ra, &rb}, now).phase, "Failed");
}

TEST(PodGroupStatusTest, GroupKeyOfPod) {
  EXPECT_EQ(PodGroupController::GroupKeyOf(Member("a", "")), "default/g");
  EXPECT_EQ(PodGroupController::GroupKeyOf(testing::MakePod("x").Obj()), "");
}

}  // namespace
}  // namespace berth::run
