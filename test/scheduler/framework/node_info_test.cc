#include "scheduler/framework/node_info.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/testing/builders.h"

namespace berth::framework {
namespace {

using testing::MakeNode;
using testing::MakePod;

constexpr int64_t kMi = 1024 * 1024;
constexpr int64_t kGi = 1024 * kMi;

api::Volume PvcVolume(std::string name, std::string claim) {
  api::Volume v;
  v.name = std::move(name);
  v.pvc_claim_name = std::move(claim);
  return v;
}

api::Volume EphemeralVolume(std::string name) {
  api::Volume v;
  v.name = std::move(name);
  v.ephemeral = true;
  return v;
}

PodInfoPtr WithRequiredAntiAffinity(MakePod b) {
  api::PodAffinityTerm term;
  term.topology_key = "kubernetes.io/hostname";
  api::Affinity a;
  a.pod_anti_affinity = api::PodAffinity{{term}, {}};
  b.Mutable().spec.affinity = a;
  return b.Info();
}

PodInfoPtr WithPreferredAffinity(MakePod b) {
  api::PodAffinityTerm term;
  term.topology_key = "topology.kubernetes.io/zone";
  api::Affinity a;
  a.pod_affinity = api::PodAffinity{{}, {api::WeightedPodAffinityTerm{5, term}}};
  b.Mutable().spec.affinity = a;
  return b.Info();
}

TEST(NodeInfoTest, SetNodeReadsAllocatableAndImages) {
  NodeInfo ni(MakeNode("n1")
                  .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "2"}})
                  .Image("nginx", 100)
                  .Image("registry:5000/app:v1", 200)
                  .Ptr());
  EXPECT_EQ(ni.name(), "n1");
  ASSERT_NE(ni.node(), nullptr);
  EXPECT_EQ(ni.allocatable().milli_cpu, 4000);
  EXPECT_EQ(ni.allocatable().memory, 8 * kGi);
  EXPECT_EQ(ni.allocatable().allowed_pod_number, 110);
  EXPECT_EQ(ni.allocatable().Scalar("nvidia.com/gpu"), 2);
  // Image names are normalised so that "nginx" in a pod finds "nginx" on the node.
  ASSERT_EQ(ni.image_states().size(), 2u);
  EXPECT_EQ(ni.image_states().at("nginx:latest").size, 100);
  EXPECT_EQ(ni.image_states().at("registry:5000/app:v1").size, 200);
  EXPECT_EQ(ni.image_states().at("nginx:latest").num_nodes, 0);  // filled by the cache
}

TEST(NodeInfoTest, SetNodeReplacesImagesAndAllocatable) {
  NodeInfo ni(MakeNode("n1").Capacity({{"cpu", "4"}}).Image("a", 1).Ptr());
  ni.SetNode(MakeNode("n1").Capacity({{"cpu", "8"}}).Image("b", 2).Ptr());
  EXPECT_EQ(ni.allocatable().milli_cpu, 8000);
  EXPECT_EQ(ni.image_states().count("a:latest"), 0u);
  EXPECT_EQ(ni.image_states().count("b:latest"), 1u);
}

TEST(NodeInfoTest, AddPodAggregatesRequests) {
  NodeInfo ni = MakeNode("n1").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Info();
  ni.AddPod(MakePod("a").Req({{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}}).Info());
  ni.AddPod(MakePod("b").Req({}).Info());  // requests nothing

  EXPECT_EQ(ni.pods().size(), 2u);
  EXPECT_EQ(ni.requested().milli_cpu, 1000);
  EXPECT_EQ(ni.requested().memory, kGi);
  EXPECT_EQ(ni.requested().Scalar("nvidia.com/gpu"), 1);
  // The requestless pod counts as 100m / 200Mi for scoring only.
  EXPECT_EQ(ni.non_zero_requested().milli_cpu, 1000 + kDefaultMilliCPURequest);
  EXPECT_EQ(ni.non_zero_requested().memory, kGi + kDefaultMemoryRequest);
}

TEST(NodeInfoTest, RemovePodRestoresAggregates) {
  NodeInfo ni = MakeNode("n1").Capacity({{"cpu", "4"}}).Info();
  PodInfoPtr a = MakePod("a").Req({{"cpu", "1"}, {"memory", "1Gi"}}).HostPort(80).Info();
  PodInfoPtr b = MakePod("b").Req({{"cpu", "500m"}}).HostPort(443).Info();
  ni.AddPod(a);
  ni.AddPod(b);

  EXPECT_TRUE(ni.RemovePod(a->Pod()));
  ASSERT_EQ(ni.pods().size(), 1u);
  EXPECT_EQ(ni.pods()[0]->Name(), "b");
  EXPECT_EQ(ni.requested().milli_cpu, 500);
  EXPECT_EQ(ni.requested().memory, 0);
  EXPECT_EQ(ni.non_zero_requested().milli_cpu, 500);
  EXPECT_EQ(ni.non_zero_requested().memory, kDefaultMemoryRequest);
  ASSERT_EQ(ni.used_ports().size(), 1u);
  EXPECT_EQ(ni.used_ports()[0].port, 443);

  EXPECT_TRUE(ni.RemovePod(b->Pod()));
  EXPECT_TRUE(ni.pods().empty());
  EXPECT_EQ(ni.requested().milli_cpu, 0);
  EXPECT_EQ(ni.non_zero_requested().milli_cpu, 0);
  EXPECT_EQ(ni.non_zero_requested().memory, 0);
  EXPECT_TRUE(ni.used_ports().empty());
}

TEST(NodeInfoTest, RemovePodMatchesByUidThenByName) {
  NodeInfo ni = MakeNode("n1").Info();
  ni.AddPod(MakePod("a").Uid("u1").Req({{"cpu", "1"}}).Info());

  // Same name, different uid: a recreated pod, not the one on the node.
  EXPECT_FALSE(ni.RemovePod(MakePod("a").Uid("u2").Obj()));
  // Unknown pod.
  EXPECT_FALSE(ni.RemovePod(MakePod("zzz").Obj()));
  EXPECT_EQ(ni.pods().size(), 1u);
  EXPECT_EQ(ni.requested().milli_cpu, 1000);

  // Without a uid the namespace/name decides.
  EXPECT_FALSE(ni.RemovePod(MakePod("a").Uid("").Namespace("other").Obj()));
  EXPECT_TRUE(ni.RemovePod(MakePod("a").Uid("").Obj()));
  EXPECT_TRUE(ni.pods().empty());
  EXPECT_EQ(ni.requested().milli_cpu, 0);
}

TEST(NodeInfoTest, GenerationBumpsOnEveryChange) {
  NodeInfo ni;
  int64_t g0 = ni.generation();
  ni.SetNode(MakeNode("n1").Ptr());
  int64_t g1 = ni.generation();
  EXPECT_GT(g1, g0);
  PodInfoPtr p = MakePod("p").Info();
  ni.AddPod(p);
  int64_t g2 = ni.generation();
  EXPECT_GT(g2, g1);
  EXPECT_FALSE(ni.RemovePod(MakePod("absent").Obj()));
  EXPECT_EQ(ni.generation(), g2);  // nothing changed
  EXPECT_TRUE(ni.RemovePod(p->Pod()));
  int64_t g3 = ni.generation();
  EXPECT_GT(g3, g2);
  ni.RemoveNode();
  EXPECT_GT(ni.generation(), g3);

  ni.set_generation(1000);
  EXPECT_EQ(ni.generation(), 1000);
}

TEST(NodeInfoTest, RemoveNodeKeepsPods) {
  NodeInfo ni =
      MakeNode("n1").Capacity({{"cpu", "2"}}).Info({MakePod("p").Req({{"cpu", "1"}}).Info()});
  ni.RemoveNode();
  EXPECT_EQ(ni.node(), nullptr);
  EXPECT_EQ(ni.pods().size(), 1u);
  EXPECT_EQ(ni.requested().milli_cpu, 1000);
}

TEST(NodeInfoTest, PodsWithAffinityAreTrackedAndRemoved) {
  NodeInfo ni = MakeNode("n1").Info();
  PodInfoPtr plain = MakePod("plain").Info();
  PodInfoPtr preferred = WithPreferredAffinity(MakePod("preferred"));
  PodInfoPtr anti = WithRequiredAntiAffinity(MakePod("anti"));
  ni.AddPod(plain);
  ni.AddPod(preferred);
  ni.AddPod(anti);

  ASSERT_EQ(ni.pods_with_affinity().size(), 2u);
  ASSERT_EQ(ni.pods_with_required_anti_affinity().size(), 1u);
  EXPECT_EQ(ni.pods_with_required_anti_affinity()[0]->Name(), "anti");

  EXPECT_TRUE(ni.RemovePod(anti->Pod()));
  ASSERT_EQ(ni.pods_with_affinity().size(), 1u);
  EXPECT_EQ(ni.pods_with_affinity()[0]->Name(), "preferred");
  EXPECT_TRUE(ni.pods_with_required_anti_affinity().empty());

  EXPECT_TRUE(ni.RemovePod(preferred->Pod()));
  EXPECT_TRUE(ni.pods_with_affinity().empty());
  EXPECT_EQ(ni.pods().size(), 1u);
}

TEST(NodeInfoTest, PvcRefCounts) {
  NodeInfo ni = MakeNode("n1").Info();
  MakePod a("a");
  a.Namespace("ns").Mutable().spec.volumes = {PvcVolume("data", "shared"),
                                              EphemeralVolume("scratch")};
  MakePod b("b");
  b.Namespace("ns").Mutable().spec.volumes = {PvcVolume("data", "shared")};
  MakePod c("c");
  c.Namespace("other").Mutable().spec.volumes = {PvcVolume("data", "shared")};
  MakePod d("d");
  d.Namespace("ns").Mutable().spec.volumes = {api::Volume{}};  // not a claim
  PodInfoPtr pa = a.Info(), pb = b.Info(), pc = c.Info(), pd = d.Info();
  ni.AddPod(pa);
  ni.AddPod(pb);
  ni.AddPod(pc);
  ni.AddPod(pd);

  using Counts = std::map<std::string, int, std::less<>>;
  EXPECT_EQ(ni.pvc_ref_counts(),
            (Counts{{"ns/shared", 2}, {"ns/a-scratch", 1}, {"other/shared", 1}}));

  EXPECT_TRUE(ni.RemovePod(pa->Pod()));
  EXPECT_EQ(ni.pvc_ref_counts(), (Counts{{"ns/shared", 1}, {"other/shared", 1}}));
  EXPECT_TRUE(ni.RemovePod(pb->Pod()));
  EXPECT_TRUE(ni.RemovePod(pc->Pod()));
  EXPECT_TRUE(ni.pvc_ref_counts().empty());
}

TEST(NodeInfoTest, UsedPortsFollowPods) {
  NodeInfo ni = MakeNode("n1").Info();
  PodInfoPtr a = MakePod("a").HostPort(80).HostPort(53, "UDP", "10.0.0.1").Info();
  ni.AddPod(a);
  EXPECT_TRUE(ni.PortConflicts({"0.0.0.0", "TCP", 80}));
  EXPECT_TRUE(ni.PortConflicts({"10.0.0.1", "UDP", 53}));
  EXPECT_FALSE(ni.PortConflicts({"10.0.0.2", "UDP", 53}));
  EXPECT_TRUE(ni.RemovePod(a->Pod()));
  EXPECT_FALSE(ni.PortConflicts({"0.0.0.0", "TCP", 80}));
  EXPECT_FALSE(ni.PortConflicts({"10.0.0.1", "UDP", 53}));
}

// Upstream's TestHostPortInfo_Check: 0.0.0.0 conflicts with every address on the same
// protocol/port.
TEST(NodeInfoTest, PortConflictsTable) {
  struct Case {
    std::string desc;
    std::vector<HostPort> used;
    HostPort check;
    bool conflict;
  };
  const std::vector<Case> cases = {
      {"conflicted 127.0.0.1:80/TCP", {{"127.0.0.1", "TCP", 80}}, {"127.0.0.1", "TCP", 80}, true},
      {"non-conflicted 127.0.0.1:80/UDP",
       {{"127.0.0.1", "TCP", 80}},
       {"127.0.0.1", "UDP", 80},
       false},
      {"non-conflicted 127.0.0.2:80/TCP",
       {{"127.0.0.1", "TCP", 80}},
       {"127.0.0.2", "TCP", 80},
       false},
      {"conflicted 127.0.0.1:8080/TCP",
       {{"127.0.0.1", "TCP", 80}, {"127.0.0.1", "TCP", 8080}},
       {"127.0.0.1", "TCP", 8080},
       true},
      {"non-conflicted 127.0.0.1:8081/TCP",
       {{"127.0.0.1", "TCP", 80}, {"127.0.0.1", "TCP", 8080}},
       {"127.0.0.1", "TCP", 8081},
       false},
      {"conflicted 0.0.0.0:80/TCP over 127.0.0.1",
       {{"127.0.0.1", "TCP", 80}},
       {"0.0.0.0", "TCP", 80},
       true},
      {"conflicted 127.0.0.1:80/TCP under 0.0.0.0",
       {{"0.0.0.0", "TCP", 80}},
       {"127.0.0.1", "TCP", 80},
       true},
      {"conflicted 0.0.0.0:80/TCP", {{"0.0.0.0", "TCP", 80}}, {"0.0.0.0", "TCP", 80}, true},
      {"non-conflicted 0.0.0.0:80/UDP", {{"127.0.0.1", "TCP", 80}}, {"0.0.0.0", "UDP", 80}, false},
      {"non-conflicted 0.0.0.0:8080/TCP",
       {{"0.0.0.0", "TCP", 80}},
       {"0.0.0.0", "TCP", 8080},
       false},
      {"nothing in use", {}, {"0.0.0.0", "TCP", 80}, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.desc);
    NodeInfo ni = MakeNode("n1").Info();
    for (size_t i = 0; i < c.used.size(); ++i) {
      MakePod b("p" + std::to_string(i));
      b.HostPort(c.used[i].port, c.used[i].protocol, c.used[i].ip);
      ni.AddPod(b.Info());
    }
    EXPECT_EQ(ni.PortConflicts(c.check), c.conflict);
  }
}

TEST(NodeInfoTest, NormalizedImageName) {
  struct Case {
    std::string in, out;
  };
  const std::vector<Case> cases = {
      {"nginx", "nginx:latest"},
      {"nginx:1.25", "nginx:1.25"},
      {"docker.io/library/nginx", "docker.io/library/nginx:latest"},
      {"registry:5000/app", "registry:5000/app:latest"},
      {"registry:5000/app:v2", "registry:5000/app:v2"},
      {"gcr.io/proj/app@sha256:0123abcd", "gcr.io/proj/app@sha256:0123abcd"},
  };
  for (const auto& c : cases) EXPECT_EQ(NormalizedImageName(c.in), c.out) << c.in;
}

}  // namespace
}  // namespace berth::framework
