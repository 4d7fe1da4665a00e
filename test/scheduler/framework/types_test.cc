#include "scheduler/framework/types.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace berth::framework {
namespace {

struct NodeReason {
  std::string node;
  std::vector<std::string> reasons;
};

Diagnosis MakeDiagnosis(const std::vector<NodeReason>& nodes, Status absent = Status()) {
  Diagnosis d;
  for (const auto& n : nodes) d.node_to_status.Set(n.node, Status(Code::kUnschedulable, n.reasons));
  d.node_to_status.absent_status = std::move(absent);
  return d;
}

// Upstream's TestFitError_Error.
TEST(FitErrorMessageTest, UpstreamTable) {
  const std::string kPre = "Node(s) failed PreFilter plugin FalsePreFilter";
  const std::string kF1 = "Node(s) failed Filter plugin FalseFilter-1";
  const std::string kF2 = "Node(s) failed Filter plugin FalseFilter-2";
  const std::string kPost = "Error running PostFilter plugin FailedPostFilter";
  struct Case {
    std::string name;
    int num_all_nodes;
    Diagnosis diagnosis;
    std::string want;
  };
  auto with = [](Diagnosis d, std::string pre, std::string post) {
    d.pre_filter_msg = std::move(pre);
    d.post_filter_msg = std::move(post);
    return d;
  };
  const Status uu(Code::kUnschedulableAndUnresolvable, std::string());
  std::vector<Case> cases;
  cases.push_back(
      {"nodes failed Prefilter plugin", 3,
       with(MakeDiagnosis({{"node1", {kPre}}, {"node2", {kPre}}, {"node3", {kPre}}}, uu), kPre, ""),
       "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter."});
  cases.push_back(
      {"nodes failed Prefilter plugin and the preemption also failed", 3,
       with(MakeDiagnosis({{"node1", {kPre}}, {"node2", {kPre}}, {"node3", {kPre}}}, uu), kPre,
            kPost),
       "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter. Error running "
       "PostFilter plugin FailedPostFilter"});
  cases.push_back({"nodes failed one Filter plugin with an empty PostFilterMsg", 3,
                   MakeDiagnosis({{"node1", {kF1}}, {"node2", {kF1}}, {"node3", {kF1}}}, uu),
                   "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1."});
  cases.push_back(
      {"nodes failed one Filter plugin with a non-empty PostFilterMsg", 3,
       with(MakeDiagnosis({{"node1", {kF1}}, {"node2", {kF1}}, {"node3", {kF1}}}, uu), "", kPost),
       "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1. Error "
       "running PostFilter plugin FailedPostFilter"});
  cases.push_back({"nodes failed two Filter plugins with an empty PostFilterMsg", 3,
                   MakeDiagnosis({{"node1", {kF1}}, {"node2", {kF1}}, {"node3", {kF2}}}, uu),
                   "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 "
                   "Node(s) failed Filter plugin FalseFilter-1."});
  cases.push_back(
      {"nodes failed two Filter plugins with a non-empty PostFilterMsg", 3,
       with(MakeDiagnosis({{"node1", {kF1}}, {"node2", {kF1}}, {"node3", {kF2}}}, uu), "", kPost),
       "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 "
       "Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin "
       "FailedPostFilter"});
  cases.push_back({"failed to Permit on node", 1,
                   MakeDiagnosis({{"node1", {"Node failed Permit plugin Permit-1"}}}, uu),
                   "0/1 nodes are available: 1 Node failed Permit plugin Permit-1."});
  cases.push_back({"failed to Reserve on node", 1,
                   MakeDiagnosis({{"node1", {"Node failed Reserve plugin Reserve-1"}}}, uu),
                   "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1."});
  for (const auto& c : cases) {
    EXPECT_EQ(FitErrorMessage(c.num_all_nodes, c.diagnosis), c.want) << c.name;
  }
}

TEST(FitErrorMessageTest, NodesWithoutStatusCountUnderTheAbsentStatus) {
  // Two nodes evaluated; three cut off by a PreFilter result.
  Diagnosis d =
      MakeDiagnosis({{"n1", {"Insufficient cpu"}}, {"n2", {"Insufficient cpu"}}},
                    Status::Unresolvable("node(s) didn't match Pod's node affinity/selector"));
  EXPECT_EQ(FitErrorMessage(5, d),
            "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) didn't match Pod's node "
            "affinity/selector.");
}

TEST(FitErrorMessageTest, AbsentSuccessStatusAddsNothing) {
  Diagnosis d = MakeDiagnosis({{"n1", {"Insufficient cpu"}}});
  EXPECT_EQ(FitErrorMessage(4, d), "0/4 nodes are available: 1 Insufficient cpu.");
}

TEST(FitErrorMessageTest, EveryReasonOfANodeIsCounted) {
  Diagnosis d = MakeDiagnosis(
      {{"n1", {"Insufficient cpu", "Insufficient memory"}}, {"n2", {"Insufficient cpu"}}});
  EXPECT_EQ(FitErrorMessage(2, d),
            "0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.");
}

TEST(FitErrorMessageTest, HistogramIsSortedAsStringsLikeUpstream) {
  std::vector<NodeReason> nodes;
  for (int i = 0; i < 10; ++i) nodes.push_back({"b" + std::to_string(i), {"Too many pods"}});
  for (int i = 0; i < 2; ++i) nodes.push_back({"a" + std::to_string(i), {"Insufficient cpu"}});
  // "10 ..." sorts before "2 ..." because upstream sorts the formatted strings.
  EXPECT_EQ(FitErrorMessage(12, MakeDiagnosis(nodes)),
            "0/12 nodes are available: 10 Too many pods, 2 Insufficient cpu.");
}

TEST(FitErrorMessageTest, PreemptionMessageIsAppendedWithoutAnExtraPeriod) {
  Diagnosis d = MakeDiagnosis({{"n1", {"Insufficient cpu"}},
                               {"n2", {"node(s) had untolerated taint(s)"}},
                               {"n3", {"node(s) had untolerated taint(s)"}}});
  d.post_filter_msg =
      "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 "
      "Preemption is not helpful for scheduling.";
  EXPECT_EQ(FitErrorMessage(3, d),
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). "
            "preemption: 0/3 nodes are available: 1 No "
            "preemption victims found for incoming pod, 2 Preemption is not helpful for "
            "scheduling.");
}

TEST(FitErrorMessageTest, NoReasonsAtAll) {
  EXPECT_EQ(FitErrorMessage(0, Diagnosis()), "0/0 nodes are available:");
}

TEST(TruncateNoteTest, ShortMessagesAreKept) {
  EXPECT_EQ(TruncateNote(""), "");
  EXPECT_EQ(TruncateNote("0/1 nodes are available: 1 Insufficient cpu."),
            "0/1 nodes are available: 1 Insufficient cpu.");
  std::string exact(1024, 'x');
  EXPECT_EQ(TruncateNote(exact), exact);
}

TEST(TruncateNoteTest, LongMessagesAreCutTo1024WithEllipsis) {
  std::string msg;
  for (int i = 0; msg.size() < 3000; ++i) msg += std::to_string(i) + " Insufficient cpu, ";
  std::string out = TruncateNote(msg);
  ASSERT_EQ(out.size(), 1024u);
  EXPECT_EQ(out.substr(0, 1020), msg.substr(0, 1020));
  EXPECT_EQ(out.substr(1020), " ...");

  std::string just_over(1025, 'y');
  EXPECT_EQ(TruncateNote(just_over), std::string(1020, 'y') + " ...");
}

TEST(ClusterEventTest, Matches) {
  ClusterEvent node_add{EventResource::kNode, action::kAdd, "NodeAdd"};
  ClusterEvent node_label{EventResource::kNode, action::kUpdateNodeLabel, "NodeUpdate"};
  ClusterEvent pod_delete{EventResource::kAssignedPod, action::kDelete, "AssignedPodDelete"};
  ClusterEvent node_any_update{EventResource::kNode, action::kUpdate, ""};
  ClusterEvent wildcard{};

  EXPECT_TRUE(node_add.Matches(node_add));
  EXPECT_FALSE(node_add.Matches(node_label));
  EXPECT_FALSE(node_add.Matches(pod_delete));
  EXPECT_TRUE(node_any_update.Matches(node_label));
  EXPECT_FALSE(node_any_update.Matches(node_add));
  EXPECT_TRUE(wildcard.Matches(node_add));
  EXPECT_TRUE(wildcard.Matches(pod_delete));
  // A plugin registered for Pod events hears about assigned and unscheduled pods (upstream's
  // Match); one registered for assigned pods does not hear about pending ones.
  ClusterEvent registered_pod_delete{EventResource::kPod, action::kDelete, ""};
  EXPECT_TRUE(registered_pod_delete.Matches(pod_delete));
  ClusterEvent unscheduled_add{EventResource::kUnscheduledPod, action::kAdd, "UnscheduledPodAdd"};
  ClusterEvent registered_pod_add{EventResource::kPod, action::kAdd, ""};
  ClusterEvent registered_assigned_add{EventResource::kAssignedPod, action::kAdd, ""};
  EXPECT_TRUE(registered_pod_add.Matches(unscheduled_add));
  EXPECT_FALSE(registered_assigned_add.Matches(unscheduled_add));
  EXPECT_FALSE(registered_pod_delete.Matches(unscheduled_add));
}

TEST(PreFilterResultTest, AllNodesUntilNarrowed) {
  PreFilterResult r;
  EXPECT_TRUE(r.AllNodes());
  r.node_names.emplace();
  EXPECT_FALSE(r.AllNodes());  // an empty set means no node at all
  r.node_names->insert("n1");
  EXPECT_FALSE(r.AllNodes());
}

TEST(NodeToStatusTest, SetGetAndOverwrite) {
  NodeToStatus m;
  EXPECT_EQ(m.Get("n1"), nullptr);
  m.Set("n1", Status::Unschedulable("a"));
  m.Set("n2", Status::Unresolvable("b"));
  m.Set("n1", Status::Unschedulable("c"));
  EXPECT_EQ(m.Size(), 2u);
  ASSERT_NE(m.Get("n1"), nullptr);
  EXPECT_EQ(m.Get("n1")->Message(), "c");
  EXPECT_EQ(m.Get("n2")->code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_TRUE(m.absent_status.IsSuccess());
}

}  // namespace
}  // namespace berth::framework
