#include "scheduler/cache/cache.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "test/testing/builders.h"

namespace berth::cache {
namespace {

using framework::NodeInfo;
using framework::Snapshot;
using testing::MakeNode;
using testing::MakePod;

std::vector<std::string> Names(const std::vector<const NodeInfo*>& list) {
  std::vector<std::string> out;
  for (const NodeInfo* ni : list) out.push_back(ni->name());
  return out;
}

MakePod BoundPod(const std::string& name, const std::string& node) {
  MakePod p(name);
  p.Req({{"cpu", "1"}}).Node(node);
  return p;
}

MakePod WithPVC(MakePod p, const std::string& claim) {
  api::Volume v;
  v.name = "v-" + claim;
  v.pvc_claim_name = claim;
  p.Mutable().spec.volumes.push_back(v);
  return p;
}

MakePod WithRequiredAntiAffinity(MakePod p) {
  api::PodAffinityTerm term;
  term.label_selector = api::LabelSelector{{{"app", "x"}}, {}};
  term.topology_key = "kubernetes.io/hostname";
  api::Affinity a;
  a.pod_anti_affinity = api::PodAffinity{{term}, {}};
  p.Mutable().spec.affinity = a;
  return p;
}

int64_t MilliCpu(const Snapshot& s, const std::string& node) {
  const NodeInfo* ni = s.Get(node);
  return ni ? ni->requested().milli_cpu : -1;
}

TEST(ZoneKeyTest, RegionAndZone) {
  EXPECT_EQ(ZoneKey(MakeNode("n").Obj()), "");
  EXPECT_EQ(ZoneKey(MakeNode("n").Label("topology.kubernetes.io/zone", "a").Obj()),
            std::string(":\0:a", 4));
  EXPECT_EQ(ZoneKey(MakeNode("n")
                        .Label("failure-domain.beta.kubernetes.io/region", "r")
                        .Label("topology.kubernetes.io/zone", "a")
                        .Obj()),
            std::string("r:\0:a", 5));
}

TEST(CacheTest, AssumeForget) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Capacity({{"cpu", "4"}}).Ptr());
  auto pod = BoundPod("p", "n1").Info();
  ASSERT_TRUE(cache.AssumePod(pod).ok());
  EXPECT_TRUE(cache.IsAssumedPod(pod->Pod()));
  EXPECT_EQ(cache.AssumedPodCount(), 1u);
  EXPECT_EQ(cache.GetPod(pod->Pod()), pod);

  Ok again = cache.AssumePod(pod);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error(), "pod default/p(uid-p) is in the cache, so can't be assumed");

  Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(MilliCpu(snap, "n1"), 1000);

  ASSERT_TRUE(cache.ForgetPod(pod->Pod()).ok());
  EXPECT_FALSE(cache.IsAssumedPod(pod->Pod()));
  EXPECT_EQ(cache.GetPod(pod->Pod()), nullptr);
  EXPECT_EQ(cache.PodCount(), 0u);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(MilliCpu(snap, "n1"), 0);

  EXPECT_FALSE(cache.ForgetPod(pod->Pod()).ok()) << "not assumed any more";
}

TEST(CacheTest, ForgetOnAnotherNodeIsAnError) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  cache.AddNode(MakeNode("n2").Ptr());
  ASSERT_TRUE(cache.AssumePod(BoundPod("p", "n1").Info()).ok());
  Ok s = cache.ForgetPod(BoundPod("p", "n2").Obj());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("was assumed on"), std::string::npos) << s.error();
  EXPECT_TRUE(cache.IsAssumedPod(BoundPod("p", "n1").Obj()));
}

TEST(CacheTest, AssumeWithoutNodeIsAnError) {
  Cache cache;
  EXPECT_FALSE(cache.AssumePod(MakePod("p").Info()).ok());
}

TEST(CacheTest, ConfirmOnSameNode) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  auto assumed = BoundPod("p", "n1").Info();
  ASSERT_TRUE(cache.AssumePod(assumed).ok());
  cache.FinishBinding(assumed->Pod());
  EXPECT_TRUE(cache.IsAssumedPod(assumed->Pod()));

  auto bound = BoundPod("p", "n1").Info();
  cache.AddPod(bound);
  EXPECT_FALSE(cache.IsAssumedPod(bound->Pod()));
  EXPECT_EQ(cache.AssumedPodCount(), 0u);
  EXPECT_EQ(cache.PodCount(), 1u);
  EXPECT_EQ(cache.GetPod(bound->Pod()), bound);
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.Get("n1")->pods().size(), 1u);
  EXPECT_EQ(MilliCpu(snap, "n1"), 1000);
  EXPECT_FALSE(cache.ForgetPod(bound->Pod()).ok()) << "confirmed pods can't be forgotten";
}

TEST(CacheTest, ConfirmOnDifferentNodeMovesThePod) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  cache.AddNode(MakeNode("n2").Ptr());
  ASSERT_TRUE(cache.AssumePod(BoundPod("p", "n1").Info()).ok());
  cache.AddPod(BoundPod("p", "n2").Info());
  EXPECT_EQ(cache.AssumedPodCount(), 0u);
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(MilliCpu(snap, "n1"), 0);
  EXPECT_EQ(MilliCpu(snap, "n2"), 1000);
  EXPECT_TRUE(snap.Get("n1")->pods().empty());
}

TEST(CacheTest, UpdateAndRemovePod) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  auto old_pod = BoundPod("p", "n1").Info();
  cache.AddPod(old_pod);
  MakePod bigger("p");
  bigger.Req({{"cpu", "3"}}).Node("n1");
  cache.UpdatePod(old_pod->Pod(), bigger.Info());
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(MilliCpu(snap, "n1"), 3000);
  EXPECT_EQ(snap.Get("n1")->pods().size(), 1u);

  cache.RemovePod(bigger.Obj());
  EXPECT_EQ(cache.PodCount(), 0u);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(MilliCpu(snap, "n1"), 0);
}

TEST(CacheTest, RemoveAssumedPod) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  auto pod = BoundPod("p", "n1").Info();
  ASSERT_TRUE(cache.AssumePod(pod).ok());
  cache.RemovePod(pod->Pod());
  EXPECT_EQ(cache.AssumedPodCount(), 0u);
  EXPECT_EQ(cache.PodCount(), 0u);
}

TEST(CacheTest, UpdateOfAssumedPodIsIgnored) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  auto pod = BoundPod("p", "n1").Info();
  ASSERT_TRUE(cache.AssumePod(pod).ok());
  MakePod bigger("p");
  bigger.Req({{"cpu", "3"}}).Node("n1");
  cache.UpdatePod(pod->Pod(), bigger.Info());
  EXPECT_EQ(cache.GetPod(pod->Pod()), pod);
  EXPECT_TRUE(cache.IsAssumedPod(pod->Pod()));
}

TEST(CacheTest, PodBeforeNode) {
  Cache cache;
  cache.AddPod(BoundPod("p", "n1").Info());
  EXPECT_EQ(cache.NodeCount(), 0u);
  EXPECT_EQ(cache.PodCount(), 1u);
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.NumNodes(), 0u) << "node-less infos are not listed";
  EXPECT_EQ(snap.Get("n1"), nullptr);

  cache.AddNode(MakeNode("n1").Capacity({{"cpu", "4"}}).Ptr());
  EXPECT_EQ(cache.NodeCount(), 1u);
  cache.UpdateSnapshot(snap);
  ASSERT_EQ(snap.NumNodes(), 1u);
  EXPECT_EQ(MilliCpu(snap, "n1"), 1000);
  EXPECT_EQ(snap.Get("n1")->pods().size(), 1u);
  EXPECT_EQ(snap.Get("n1")->allocatable().milli_cpu, 4000);
}

TEST(CacheTest, NodeRemovedWithPodsLeft) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  cache.AddNode(MakeNode("n2").Ptr());
  auto pod = BoundPod("p", "n1").Info();
  cache.AddPod(pod);
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  ASSERT_EQ(snap.NumNodes(), 2u);

  cache.RemoveNode("n1");
  EXPECT_EQ(cache.NodeCount(), 1u);
  EXPECT_EQ(cache.PodCount(), 1u) << "the pod stays until the informer removes it";
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Names(snap.List()), std::vector<std::string>({"n2"}));
  EXPECT_EQ(snap.Get("n1"), nullptr);

  // The node comes back before its pod is deleted: the pod is still accounted.
  cache.AddNode(MakeNode("n1").Ptr());
  cache.UpdateSnapshot(snap);
  ASSERT_NE(snap.Get("n1"), nullptr);
  EXPECT_EQ(MilliCpu(snap, "n1"), 1000);

  cache.RemoveNode("n1");
  cache.RemovePod(pod->Pod());
  EXPECT_EQ(cache.PodCount(), 0u);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Names(snap.List()), std::vector<std::string>({"n2"}));
}

TEST(CacheTest, NodeRemovedWithoutPods) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  cache.AddNode(MakeNode("n2").Ptr());
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  cache.RemoveNode("n2");
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Names(snap.List()), std::vector<std::string>({"n1"}));
  EXPECT_EQ(snap.Get("n2"), nullptr);
  EXPECT_EQ(cache.NodeCount(), 1u);
}

TEST(CacheTest, IncrementalSnapshotReplacesOnlyChangedNodeInfos) {
  Cache cache;
  for (const char* n : {"n1", "n2", "n3"}) cache.AddNode(MakeNode(n).Ptr());
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  const NodeInfo* n1 = snap.Get("n1");
  const NodeInfo* n2 = snap.Get("n2");
  const NodeInfo* n3 = snap.Get("n3");
  std::vector<const NodeInfo*> list_before = snap.List();
  int64_t gen_before = snap.generation();

  // Nothing changed: nothing is replaced.
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.Get("n1"), n1);
  EXPECT_EQ(snap.generation(), gen_before);

  cache.AddPod(BoundPod("p", "n2").Info());
  cache.UpdateSnapshot(snap);
  EXPECT_GT(snap.generation(), gen_before);
  EXPECT_EQ(snap.Get("n1"), n1);
  EXPECT_EQ(snap.Get("n3"), n3);
  EXPECT_NE(snap.Get("n2"), n2);
  EXPECT_EQ(MilliCpu(snap, "n2"), 1000);
  // The list keeps its order and points at the new copy.
  ASSERT_EQ(snap.List().size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    if (list_before[i] == n2) {
      EXPECT_EQ(snap.List()[i], snap.Get("n2"));
    } else {
      EXPECT_EQ(snap.List()[i], list_before[i]);
    }
  }
}

TEST(CacheTest, AffinityListsFollowPods) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  cache.AddNode(MakeNode("n2").Ptr());
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_TRUE(snap.HavePodsWithAffinityList().empty());

  auto anti = WithRequiredAntiAffinity(BoundPod("a", "n2")).Info();
  cache.AddPod(anti);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Names(snap.HavePodsWithAffinityList()), std::vector<std::string>({"n2"}));
  EXPECT_EQ(Names(snap.HavePodsWithRequiredAntiAffinityList()), std::vector<std::string>({"n2"}));
  EXPECT_EQ(snap.HavePodsWithAffinityList()[0], snap.Get("n2"));

  // Another pod on n2: membership unchanged, but the list must point at the new copy.
  cache.AddPod(BoundPod("b", "n2").Info());
  cache.UpdateSnapshot(snap);
  ASSERT_EQ(snap.HavePodsWithAffinityList().size(), 1u);
  EXPECT_EQ(snap.HavePodsWithAffinityList()[0], snap.Get("n2"));
  EXPECT_EQ(snap.HavePodsWithRequiredAntiAffinityList()[0], snap.Get("n2"));

  cache.RemovePod(anti->Pod());
  cache.UpdateSnapshot(snap);
  EXPECT_TRUE(snap.HavePodsWithAffinityList().empty());
  EXPECT_TRUE(snap.HavePodsWithRequiredAntiAffinityList().empty());
}

TEST(CacheTest, ZonesInterleaved) {
  Cache cache;
  auto node = [](const std::string& name, const std::string& zone) {
    return MakeNode(name).Label("topology.kubernetes.io/zone", zone).Ptr();
  };
  cache.AddNode(node("a1", "a"));
  cache.AddNode(node("a2", "a"));
  cache.AddNode(node("a3", "a"));
  cache.AddNode(node("b1", "b"));
  cache.AddNode(node("c1", "c"));
  cache.AddNode(node("c2", "c"));
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Names(snap.List()), std::vector<std::string>({"a1", "b1", "c1", "a2", "c2", "a3"}));

  // Moving a node to another zone and removing one re-interleaves.
  cache.UpdateNode(node("a2", "b"));
  cache.RemoveNode("c1");
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Names(snap.List()), std::vector<std::string>({"a1", "b1", "c2", "a3", "a2"}));

  // A zone whose nodes are all gone is dropped; a new one goes last.
  cache.RemoveNode("c2");
  cache.AddNode(node("d1", "d"));
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Names(snap.List()), std::vector<std::string>({"a1", "b1", "d1", "a3", "a2"}));
}

TEST(CacheTest, ImageNumNodes) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Image("nginx", 100).Image("redis:7", 50).Ptr());
  cache.AddNode(MakeNode("n2").Image("nginx:latest", 100).Ptr());
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  auto num = [&snap](const std::string& node, const std::string& image) {
    const auto& states = snap.Get(node)->image_states();
    auto it = states.find(image);
    return it == states.end() ? -1 : it->second.num_nodes;
  };
  EXPECT_EQ(num("n1", "nginx:latest"), 2);
  EXPECT_EQ(num("n2", "nginx:latest"), 2);
  EXPECT_EQ(num("n1", "redis:7"), 1);

  cache.AddNode(MakeNode("n3").Image("redis:7", 50).Ptr());
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(num("n1", "redis:7"), 2);
  EXPECT_EQ(num("n3", "redis:7"), 2);
  EXPECT_EQ(num("n1", "nginx:latest"), 2);

  // n2 drops nginx: the other holder's count goes down.
  cache.UpdateNode(MakeNode("n2").Ptr());
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(num("n1", "nginx:latest"), 1);
  EXPECT_EQ(num("n2", "nginx:latest"), -1);

  cache.RemoveNode("n3");
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(num("n1", "redis:7"), 1);
}

TEST(CacheTest, UsedPVCs) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  cache.AddNode(MakeNode("n2").Ptr());
  Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_FALSE(snap.IsPVCUsedByPods("default/data"));

  auto p1 = WithPVC(BoundPod("p1", "n1"), "data").Info();
  auto p2 = WithPVC(BoundPod("p2", "n2"), "data").Info();
  cache.AddPod(p1);
  cache.UpdateSnapshot(snap);
  EXPECT_TRUE(snap.IsPVCUsedByPods("default/data"));
  cache.AddPod(p2);
  cache.UpdateSnapshot(snap);
  cache.RemovePod(p1->Pod());
  cache.UpdateSnapshot(snap);
  EXPECT_TRUE(snap.IsPVCUsedByPods("default/data")) << "p2 still uses it";
  cache.RemovePod(p2->Pod());
  cache.UpdateSnapshot(snap);
  EXPECT_FALSE(snap.IsPVCUsedByPods("default/data"));

  // A pod whose node is deleted no longer counts.
  cache.AddPod(WithPVC(BoundPod("p3", "n2"), "logs").Info());
  cache.UpdateSnapshot(snap);
  EXPECT_TRUE(snap.IsPVCUsedByPods("default/logs"));
  cache.RemoveNode("n2");
  cache.UpdateSnapshot(snap);
  EXPECT_FALSE(snap.IsPVCUsedByPods("default/logs"));
}

TEST(CacheTest, TwoSnapshotsStayConsistent) {
  Cache cache;
  cache.AddNode(MakeNode("n1").Ptr());
  Snapshot a;
  cache.UpdateSnapshot(a);
  cache.AddNode(MakeNode("n2").Ptr());
  cache.AddPod(BoundPod("p", "n1").Info());
  cache.UpdateSnapshot(a);
  Snapshot b;
  cache.UpdateSnapshot(b);
  EXPECT_EQ(Names(a.List()), Names(b.List()));
  EXPECT_EQ(MilliCpu(b, "n1"), 1000);
  cache.RemoveNode("n2");
  cache.UpdateSnapshot(a);
  cache.UpdateSnapshot(b);
  EXPECT_EQ(Names(a.List()), std::vector<std::string>({"n1"}));
  EXPECT_EQ(Names(b.List()), std::vector<std::string>({"n1"}));
}

// Random operations; after each step an incrementally updated snapshot must equal a fresh one.
TEST(CacheTest, IncrementalSnapshotMatchesFreshOne) {
  Cache cache;
  Snapshot incremental;
  std::mt19937 rng(42);
  const std::vector<std::string> zones = {"a", "b", "c"};
  std::vector<framework::PodInfoPtr> pods;
  for (int step = 0; step < 500; ++step) {
    std::string node = "n" + std::to_string(rng() % 8);
    switch (rng() % 6) {
      case 0:
      case 1: {
        MakeNode n(node);
        n.Label("topology.kubernetes.io/zone", zones[rng() % zones.size()]);
        if (rng() % 2) n.Image("img" + std::to_string(rng() % 3), 10);
        cache.AddNode(n.Ptr());
        break;
      }
      case 2:
        cache.RemoveNode(node);
        break;
      case 3:
      case 4: {
        MakePod p = BoundPod("p" + std::to_string(step), node);
        if (rng() % 3 == 0) p = WithRequiredAntiAffinity(p);
        if (rng() % 3 == 0) p = WithPVC(p, "c" + std::to_string(rng() % 3));
        auto info = p.Info();
        if (rng() % 2) {
          ASSERT_TRUE(cache.AssumePod(info).ok());
        } else {
          cache.AddPod(info);
        }
        pods.push_back(info);
        break;
      }
      case 5:
        if (!pods.empty()) {
          size_t i = rng() % pods.size();
          cache.RemovePod(pods[i]->Pod());
          pods.erase(pods.begin() + static_cast<long>(i));
        }
        break;
    }
    if (rng() % 3 != 0) continue;
    cache.UpdateSnapshot(incremental);
    Snapshot fresh;
    cache.UpdateSnapshot(fresh);
    ASSERT_EQ(Names(incremental.List()), Names(fresh.List())) << "step " << step;
    ASSERT_EQ(Names(incremental.HavePodsWithAffinityList()),
              Names(fresh.HavePodsWithAffinityList()));
    ASSERT_EQ(Names(incremental.HavePodsWithRequiredAntiAffinityList()),
              Names(fresh.HavePodsWithRequiredAntiAffinityList()));
    for (size_t i = 0; i < fresh.List().size(); ++i) {
      const NodeInfo* a = incremental.List()[i];
      const NodeInfo* b = fresh.List()[i];
      ASSERT_EQ(a, incremental.Get(a->name()));
      ASSERT_EQ(a->pods().size(), b->pods().size()) << a->name();
      ASSERT_EQ(a->requested().milli_cpu, b->requested().milli_cpu);
      for (const auto& [image, summary] : b->image_states()) {
        ASSERT_EQ(a->image_states().at(image).num_nodes, summary.num_nodes) << image;
      }
    }
    for (const char* claim : {"default/c0", "default/c1", "default/c2"}) {
      ASSERT_EQ(incremental.IsPVCUsedByPods(claim), fresh.IsPVCUsedByPods(claim)) << claim;
    }
  }
}

}  // namespace
}  // namespace berth::cache
