// The nominator (upstream's nominator in the PriorityQueue) and the queue's hooks that keep it
// current.

#include "scheduler/queue/nominator.h"

#include <gtest/gtest.h>

#include "scheduler/queue/scheduling_queue.h"
#include "test/testing/builders.h"

namespace berth::queue {
namespace {

using testing::MakePod;

framework::PodInfoPtr Nominated(const std::string& name, const std::string& node,
                                int32_t priority = 0) {
  api::Pod p = MakePod(name).Priority(priority).Obj();
  p.status.nominated_node_name = node;
  return framework::MakePodInfo(std::make_shared<api::Pod>(p));
}

std::vector<std::string> Names(const std::vector<framework::PodInfoPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->Name());
  return out;
}

TEST(NominatorTest, AddUsesStatusOrOverride) {
  Nominator n;
  EXPECT_FALSE(n.HasNominatedPods());
  n.Add(Nominated("a", "node1"), std::nullopt);
  n.Add(Nominated("b", ""), std::string("node1"));
  n.Add(Nominated("c", ""), std::nullopt);  // nothing to nominate
  EXPECT_TRUE(n.HasNominatedPods());
  EXPECT_EQ(Names(n.NominatedPodsForNode("node1")), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(n.NominatedNodeOf("uid-c"), "");
  // Override moves a pod; an empty override only removes it.
  n.Add(Nominated("a", "node1"), std::string("node2"));
  EXPECT_EQ(Names(n.NominatedPodsForNode("node1")), (std::vector<std::string>{"b"}));
  EXPECT_EQ(Names(n.NominatedPodsForNode("node2")), (std::vector<std::string>{"a"}));
  n.Add(Nominated("b", ""), std::string());
  EXPECT_TRUE(n.NominatedPodsForNode("node1").empty());
  n.Delete(Nominated("a", "")->Pod());
  EXPECT_FALSE(n.HasNominatedPods());
}

TEST(NominatorTest, UpdateKeepsAnInMemoryNominationUntilTheFieldSaysOtherwise) {
  Nominator n;
  auto before = Nominated("a", "");
  n.Add(before, std::string("node1"));
  // An update that carries no nominatedNodeName (the status patch has not landed yet) keeps it.
  auto relabelled = Nominated("a", "");
  n.Update(before->Pod(), relabelled);
  EXPECT_EQ(n.NominatedNodeOf("uid-a"), "node1");
  EXPECT_EQ(n.NominatedPodsForNode("node1")[0], relabelled);
  // The patch lands: same node. Then the field is cleared: the nomination goes.
  auto patched = Nominated("a", "node1");
  n.Update(relabelled->Pod(), patched);
  EXPECT_EQ(n.NominatedNodeOf("uid-a"), "node1");
  n.Update(patched->Pod(), Nominated("a", ""));
  EXPECT_EQ(n.NominatedNodeOf("uid-a"), "");
  EXPECT_FALSE(n.HasNominatedPods());
}

TEST(NominatorTest, BoundPodsAreNotNominated) {
  Nominator n;
  api::Pod bound = MakePod("a").Node("node1").Obj();
  bound.status.nominated_node_name = "node1";
  n.Add(framework::MakePodInfo(std::make_shared<api::Pod>(bound)), std::nullopt);
  EXPECT_FALSE(n.HasNominatedPods());
}

TEST(NominatorTest, QueueKeepsItCurrent) {
  framework::FakeClock clock;
  Nominator n;
  QueueOptions opts;
  opts.nominator = &n;
  SchedulingQueue q(clock, opts, nullptr, nullptr, {});
  auto a = Nominated("a", "node1");
  q.Add(a);
  EXPECT_EQ(n.NominatedNodeOf("uid-a"), "node1");
  auto moved = Nominated("a", "node2");
  q.Update(a->Pod(), moved);
  EXPECT_EQ(n.NominatedNodeOf("uid-a"), "node2");
  q.Delete(moved->Pod());
  EXPECT_FALSE(n.HasNominatedPods());
}

}  // namespace
}  // namespace berth::queue
