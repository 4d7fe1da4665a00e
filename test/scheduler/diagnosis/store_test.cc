#include "scheduler/diagnosis/store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace berth::diagnosis {
namespace {

// A failure of pod ns/name over `nodes` nodes n0..n{nodes-1}, each rejected with `reasons`.
Record Failure(const std::string& key, const std::string& uid, int nodes,
               const std::string& reasons = "Insufficient cpu",
               const std::string& plugin = "NodeResourcesFit") {
  Record r;
  r.pod = key;
  r.uid = uid;
  r.profile = "berth-scheduler";
  r.attempted_unix_micros = 1700000000000000;
  r.status = "Unschedulable";
  r.message = "0/" + std::to_string(nodes) + " nodes are available: " + std::to_string(nodes) +
              " " + reasons + ".";
  for (int i = nodes - 1; i >= 0; --i)
    r.filter.push_back({"n" + std::to_string(i), plugin, reasons});
  r.nearest.push_back({"n0", {{plugin, reasons, "short by 500m"}}, ""});
  return r;
}

TEST(DiagnosisStoreTest, AFailureReadsBackWithNodesInNameOrder) {
  Store store;
  Record in = Failure("shop/web", "u1", 3);
  in.filter[1].reasons = "node(s) had untolerated taint(s)";
  in.filter[1].plugin = "TaintToleration";
  in.preemption = Preemption{"preemption: not helpful", "", {}};
  in.nominated_node = "n2";
  store.RecordFailure(in);

  auto out = store.Get("shop/web");
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->uid, "u1");
  EXPECT_EQ(out->message, in.message);
  ASSERT_EQ(out->filter.size(), 3u);
  EXPECT_EQ(out->filter[0].node, "n0");
  EXPECT_EQ(out->filter[1].node, "n1");
  EXPECT_EQ(out->filter[1].plugin, "TaintToleration");
  EXPECT_EQ(out->filter[1].reasons, "node(s) had untolerated taint(s)");
  EXPECT_EQ(out->filter[2].reasons, "Insufficient cpu");
  ASSERT_EQ(out->nearest.size(), 1u);
  EXPECT_EQ(out->nearest[0].failed[0].need, "short by 500m");
  ASSERT_TRUE(out->preemption.has_value());
  EXPECT_EQ(out->preemption->message, "preemption: not helpful");
  EXPECT_EQ(out->nominated_node, "n2");
  EXPECT_FALSE(store.Get("shop/other").has_value());
}

TEST(DiagnosisStoreTest, ANewFailureReplacesTheOld) {
  Store store;
  store.RecordFailure(Failure("ns/p", "u1", 3));
  store.RecordFailure(Failure("ns/p", "u1", 2, "Insufficient memory"));
  auto out = store.Get("ns/p");
  ASSERT_TRUE(out.has_value());
  ASSERT_EQ(out->filter.size(), 2u);
  EXPECT_EQ(out->filter[0].reasons, "Insufficient memory");
  EXPECT_EQ(store.NumUnschedulable(), 1u);
  auto counts = store.ReasonCounts();
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(std::get<2>(counts.begin()->first), "Insufficient memory");
}

TEST(DiagnosisStoreTest, ForgetNeedsTheSameUid) {
  Store store;
  store.RecordFailure(Failure("ns/p", "u1", 1));
  store.Forget("ns/p", "u-of-an-older-pod");
  EXPECT_TRUE(store.Get("ns/p").has_value());
  store.Forget("ns/p", "u1");
  EXPECT_FALSE(store.Get("ns/p").has_value());
  EXPECT_TRUE(store.ReasonCounts().empty());
}

TEST(DiagnosisStoreTest, ReasonCountsOnePodOncePerPluginAndReason) {
  Store store;
  Record a = Failure("ns/a", "ua", 4);
  a.filter[0] = {"n3", "NodeResourcesFit", "Insufficient cpu, Insufficient memory"};
  store.RecordFailure(a);
  store.RecordFailure(Failure("ns/b", "ub", 2));
  Record c =
      Failure("ns/c", "uc", 1, "pod has unbound immediate PersistentVolumeClaims", "VolumeBinding");
  c.filter.clear();
  c.pre_filter = "persistentvolumeclaim \"data-0\" not found";
  c.pre_filter_plugin = "VolumeBinding";
  store.RecordFailure(c);

  auto counts = store.ReasonCounts();
  using K = Store::ReasonKey;
  EXPECT_EQ(counts[K("berth-scheduler", "NodeResourcesFit", "Insufficient cpu")], 2);
  EXPECT_EQ(counts[K("berth-scheduler", "NodeResourcesFit", "Insufficient memory")], 1);
  EXPECT_EQ(
      counts[K("berth-scheduler", "VolumeBinding", "persistentvolumeclaim \"<name>\" not found")],
      1);
  store.Bound("ns", "a", "ua");
  counts = store.ReasonCounts();
  EXPECT_EQ(counts.count(K("berth-scheduler", "NodeResourcesFit", "Insufficient memory")), 0u)
      << "a label set nobody has any more is gone, not 0";
  EXPECT_EQ(counts[K("berth-scheduler", "NodeResourcesFit", "Insufficient cpu")], 1);
}

TEST(DiagnosisStoreTest, TooManyReasonLabelsCountAsOther) {
  Store store(StoreOptions{0, 2});
  store.RecordFailure(Failure("ns/a", "ua", 1, "reason a"));
  store.RecordFailure(Failure("ns/b", "ub", 1, "reason b"));
  store.RecordFailure(Failure("ns/c", "uc", 1, "reason c"));
  auto counts = store.ReasonCounts();
  EXPECT_EQ(counts.size(), 3u);
  EXPECT_EQ((counts[Store::ReasonKey("berth-scheduler", "NodeResourcesFit", "other")]), 1);
}

TEST(DiagnosisStoreTest, OnlyTheLastPlacementsAreKept) {
  Store store(StoreOptions{2});
  for (const char* name : {"ns/a", "ns/b", "ns/c"}) {
    store.RecordFailure(Failure(name, name, 1));
    Record placed;
    placed.pod = name;
    placed.uid = name;
    placed.status = "Scheduled";
    placed.node = "n9";
    store.RecordScheduled(placed);
  }
  EXPECT_EQ(store.NumUnschedulable(), 0u);
  EXPECT_EQ(store.NumPlaced(), 2u);
  EXPECT_FALSE(store.Get("ns/a").has_value());
  auto c = store.Get("ns/c");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->status, "Scheduled");
  EXPECT_EQ(c->node, "n9");
}

TEST(DiagnosisStoreTest, WithoutPlacementsABoundPodHasNoDiagnosis) {
  Store store;  // placed = 0
  store.RecordFailure(Failure("ns/a", "ua", 1));
  Record placed;
  placed.pod = "ns/a";
  placed.uid = "ua";
  placed.status = "Scheduled";
  store.RecordScheduled(placed);
  EXPECT_FALSE(store.Get("ns/a").has_value());
}

// 2,000 pods of five shapes over 1,000 nodes with reasons that alternate node by node: what a
// user reads back is exactly what was recorded, whatever the store shares internally.
TEST(DiagnosisStoreTest, ManyPodsOfFewShapesReadBackExactly) {
  Store store;
  const char* kReasons[] = {"Insufficient cpu", "Insufficient memory",
                            "node(s) had untolerated taint(s)"};
  for (int p = 0; p < 2000; ++p) {
    Record r;
    r.pod = "ns/p" + std::to_string(p);
    r.uid = "u" + std::to_string(p);
    r.status = "Unschedulable";
    r.message = "shape " + std::to_string(p % 5);
    for (int n = 0; n < 1000; ++n) {
      r.filter.push_back({"node-" + std::to_string(n), "P", kReasons[(n + p % 5) % 3]});
    }
    store.RecordFailure(r);
  }
  for (int p : {0, 1, 7, 1999}) {
    auto r = store.Get("ns/p" + std::to_string(p));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->message, "shape " + std::to_string(p % 5));
    ASSERT_EQ(r->filter.size(), 1000u);
    for (const auto& ns : r->filter) {
      const int n = std::stoi(ns.node.substr(5));
      ASSERT_EQ(ns.reasons, kReasons[(n + p % 5) % 3]) << ns.node;
    }
  }
}

TEST(ReasonLabelTest, QuotedNamesAreReplaced) {
  EXPECT_EQ(ReasonLabel("Insufficient cpu"), "Insufficient cpu");
  EXPECT_EQ(ReasonLabel("persistentvolumeclaim \"data-0\" not found"),
            "persistentvolumeclaim \"<name>\" not found");
  EXPECT_EQ(ReasonLabel("a \"x\" and \"y\""), "a \"<name>\" and \"<name>\"");
  EXPECT_EQ(ReasonLabel("unterminated \"quote"), "unterminated \"quote");
}

}  // namespace
}  // namespace berth::diagnosis
