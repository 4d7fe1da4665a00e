// NodeResourcesFit's FilterExplainer: what each insufficient resource lacks, and the gap that
// ranks the nearest nodes.

#include "plugins/node_resources_fit/explain.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "plugins/node_resources_fit/node_resources_fit.h"
#include "scheduler/framework/explain.h"
#include "scheduler/framework/plugin.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::node_resources_fit {
namespace {

using framework::ExplainDetail;
using framework::FilterNeed;
using testing::MakeNode;
using testing::MakePod;

struct Explained {
  framework::Status status;
  std::vector<FilterNeed> full;
  std::vector<FilterNeed> gap_only;
};

// PreFilter and Filter as the cycle runs them, then the explainer on the rejection at both
// levels of detail.
Explained Explain(const framework::PodInfo& pod, const framework::NodeInfo& node,
                  framework::PluginContext ctx = {}) {
  auto p = New(ctx);
  EXPECT_TRUE(p.ok());
  framework::CycleState state;
  framework::PreFilterResult result;
  EXPECT_TRUE(dynamic_cast<framework::PreFilterPlugin&>(**p)
                  .PreFilter(state, pod, {&node}, &result)
                  .IsSuccess());
  Explained e;
  e.status = dynamic_cast<framework::FilterPlugin&>(**p).Filter(state, pod, node);
  const auto* explainer = dynamic_cast<const framework::FilterExplainer*>(p->get());
  EXPECT_NE(explainer, nullptr);
  if (explainer == nullptr) return e;
  explainer->ExplainFilter(state, pod, node, e.status, ExplainDetail::kFull, &e.full);
  explainer->ExplainFilter(state, pod, node, e.status, ExplainDetail::kGapOnly, &e.gap_only);
  // kGapOnly: the same gaps, and no string at all (not even the reason).
  EXPECT_EQ(e.gap_only.size(), e.full.size());
  for (size_t i = 0; i < e.gap_only.size() && i < e.full.size(); ++i) {
    EXPECT_EQ(e.gap_only[i].reason, "") << "kGapOnly copies no string";
    EXPECT_EQ(e.gap_only[i].need, "");
    EXPECT_DOUBLE_EQ(e.gap_only[i].gap, e.full[i].gap);
  }
  // Every need names one of the rejection's reasons.
  for (const auto& n : e.full) {
    EXPECT_NE(std::find(e.status.reasons().begin(), e.status.reasons().end(), n.reason),
              e.status.reasons().end())
        << n.reason;
  }
  return e;
}

framework::PodInfoPtr Using(testing::ResPairs requests) {
  return MakePod("running").Req(requests).Info();
}

TEST(NodeResourcesFitExplain, InsufficientCpu) {
  const auto node =
      MakeNode("n").Capacity({{"cpu", "8"}, {"memory", "16Gi"}}).Info({Using({{"cpu", "6500m"}})});
  const Explained e = Explain(*MakePod("p").Req({{"cpu", "2"}}).Info(), node);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].reason, "Insufficient cpu");
  EXPECT_EQ(e.full[0].need, "requests 2, allocatable 8, in use 6.5: short by 500m");
  EXPECT_DOUBLE_EQ(e.full[0].gap, 0.25);
}

TEST(NodeResourcesFitExplain, InsufficientMemoryInBinarySuffixes) {
  const auto node =
      MakeNode("n").Capacity({{"cpu", "8"}, {"memory", "4Gi"}}).Info({Using({{"memory", "3Gi"}})});
  const Explained e = Explain(*MakePod("p").Req({{"memory", "1536Mi"}}).Info(), node);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].reason, "Insufficient memory");
  EXPECT_EQ(e.full[0].need, "requests 1536Mi, allocatable 4Gi, in use 3Gi: short by 512Mi");
  EXPECT_DOUBLE_EQ(e.full[0].gap, 1.0 / 3.0);
}

TEST(NodeResourcesFitExplain, SeveralResourcesInTheStatusOrder) {
  const auto node = MakeNode("n")
                        .Capacity({{"cpu", "4"},
                                   {"memory", "1000"},
                                   {"ephemeral-storage", "10Gi"},
                                   {"example.com/gpu", "4"},
                                   {"pods", "1"}})
                        .Info({Using({{"cpu", "3"}, {"memory", "600"}, {"example.com/gpu", "3"}})});
  const Explained e = Explain(*MakePod("p")
                                   .Req({{"cpu", "2"},
                                         {"memory", "500"},
                                         {"ephemeral-storage", "20Gi"},
                                         {"example.com/gpu", "2"}})
                                   .Info(),
                              node);
  ASSERT_EQ(
      e.status.reasons(),
      (std::vector<std::string>{"Too many pods", "Insufficient cpu", "Insufficient memory",
                                "Insufficient ephemeral-storage", "Insufficient example.com/gpu"}));
  ASSERT_EQ(e.full.size(), 5u);
  EXPECT_EQ(e.full[0].need, "allowed 1 pod, running 1");
  EXPECT_DOUBLE_EQ(e.full[0].gap, 1.0);
  EXPECT_EQ(e.full[1].need, "requests 2, allocatable 4, in use 3: short by 1");
  EXPECT_DOUBLE_EQ(e.full[1].gap, 0.5);
  EXPECT_EQ(e.full[2].need, "requests 500, allocatable 1000, in use 600: short by 100");
  EXPECT_DOUBLE_EQ(e.full[2].gap, 0.2);
  EXPECT_EQ(e.full[3].need, "requests 20Gi, allocatable 10Gi: no node of this size can fit it");
  EXPECT_DOUBLE_EQ(e.full[3].gap, 1.0);
  EXPECT_EQ(e.full[4].reason, "Insufficient example.com/gpu");
  EXPECT_EQ(e.full[4].need, "requests 2, allocatable 4, in use 3: short by 1");
  EXPECT_DOUBLE_EQ(e.full[4].gap, 0.5);
}

TEST(NodeResourcesFitExplain, TooManyPods) {
  const auto node = MakeNode("n")
                        .Capacity({{"cpu", "8"}, {"pods", "2"}})
                        .Info({Using({{"cpu", "1"}}), Using({{"cpu", "1"}})});
  const Explained e = Explain(*MakePod("p").Info(), node);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].reason, "Too many pods");
  EXPECT_EQ(e.full[0].need, "allowed 2 pods, running 2");
  EXPECT_DOUBLE_EQ(e.full[0].gap, 1.0);
}

TEST(NodeResourcesFitExplain, RequestLargerThanTheNode) {
  const auto node = MakeNode("n").Capacity({{"cpu", "8"}}).Info();
  const Explained e = Explain(*MakePod("p").Req({{"cpu", "16"}}).Info(), node);
  EXPECT_EQ(e.status.code(), framework::Code::kUnschedulableAndUnresolvable);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].need, "requests 16, allocatable 8: no node of this size can fit it");
  EXPECT_DOUBLE_EQ(e.full[0].gap, 1.0);
}

// A node short by 5% of the request ranks before one short by 80%.
TEST(NodeResourcesFitExplain, GapRanksSmallShortfallsFirst) {
  auto pod = MakePod("p").Req({{"cpu", "2"}}).Info();
  const auto near = MakeNode("near").Capacity({{"cpu", "4"}}).Info({Using({{"cpu", "2100m"}})});
  const auto far = MakeNode("far").Capacity({{"cpu", "4"}}).Info({Using({{"cpu", "3600m"}})});
  const Explained a = Explain(*pod, near);
  const Explained b = Explain(*pod, far);
  ASSERT_EQ(a.gap_only.size(), 1u);
  ASSERT_EQ(b.gap_only.size(), 1u);
  EXPECT_DOUBLE_EQ(a.gap_only[0].gap, 0.05);
  EXPECT_DOUBLE_EQ(b.gap_only[0].gap, 0.8);
  EXPECT_EQ(a.full[0].need, "requests 2, allocatable 4, in use 2.1: short by 100m");
}

// The requests are the ones Filter used: pod-level requests replace the containers' sums.
TEST(NodeResourcesFitExplain, PodLevelResources) {
  const auto node = MakeNode("n").Capacity({{"cpu", "4"}}).Info({Using({{"cpu", "2"}})});
  const Explained e =
      Explain(*MakePod("p").Req({{"cpu", "1"}}).PodReq({{"cpu", "3"}}).Info(), node);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].need, "requests 3, allocatable 4, in use 2: short by 1");
  EXPECT_DOUBLE_EQ(e.full[0].gap, 1.0 / 3.0);
}

// A resource DynamicResources allocates on this node is not NodeResourcesFit's to explain.
TEST(NodeResourcesFitExplain, DRADelegatedResourcesAreNotExplained) {
  testing::FakeHandle handle;
  auto cls = std::make_shared<api::DeviceClass>();
  cls->metadata.name = "gpu.example.com";
  cls->spec.extended_resource_name = "example.com/gpu";
  handle.mutable_objects().device_classes.Upsert(cls);
  framework::PluginContext ctx;
  ctx.handle = &handle;
  const auto node = MakeNode("n").Capacity({{"cpu", "1"}}).Info();
  const Explained e =
      Explain(*MakePod("p").Req({{"cpu", "2"}, {"example.com/gpu", "1"}}).Info(), node, ctx);
  ASSERT_EQ(e.full.size(), 1u);
  EXPECT_EQ(e.full[0].reason, "Insufficient cpu");
}

TEST(NodeResourcesFitExplain, UnknownReasonsAndMissingStateAreLeftToTheRuntime) {
  auto p = New({});
  ASSERT_TRUE(p.ok());
  const auto* explainer = dynamic_cast<const framework::FilterExplainer*>(p->get());
  ASSERT_NE(explainer, nullptr);
  const auto node = MakeNode("n").Capacity({{"cpu", "1"}}).Info();
  auto pod = MakePod("p").Req({{"cpu", "2"}}).Info();
  std::vector<FilterNeed> out;
  framework::CycleState empty;
  explainer->ExplainFilter(empty, *pod, node, framework::Status::Unschedulable("Insufficient cpu"),
                           ExplainDetail::kFull, &out);
  EXPECT_TRUE(out.empty());

  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(dynamic_cast<framework::PreFilterPlugin&>(**p)
                  .PreFilter(state, *pod, {&node}, &result)
                  .IsSuccess());
  explainer->ExplainFilter(state, *pod, node, framework::Status::Unschedulable("something else"),
                           ExplainDetail::kFull, &out);
  EXPECT_TRUE(out.empty());
}

TEST(NodeResourcesFitExplain, FormatQuantity) {
  struct Case {
    std::string resource;
    int64_t amount;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"cpu", 2000, "2"},
      {"cpu", 500, "500m"},
      {"cpu", 6500, "6.5"},
      {"cpu", 1250, "1.25"},
      {"cpu", 1001, "1.001"},
      {"cpu", 0, "0"},
      {"cpu", -500, "-500m"},
      {"memory", 512LL << 20, "512Mi"},
      {"memory", 3LL << 30, "3Gi"},
      {"memory", 1536LL << 20, "1536Mi"},
      {"memory", 1000, "1000"},
      {"memory", 1024, "1Ki"},
      {"memory", 1000000000, "1000000000"},
      {"ephemeral-storage", 20LL << 30, "20Gi"},
      {"hugepages-2Mi", 4LL << 20, "4Mi"},
      {"example.com/gpu", 3, "3"},
      {"example.com/gpu", 1024, "1024"},
      {"pods", 110, "110"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(FormatQuantity(c.resource, c.amount), c.want) << c.resource << " " << c.amount;
  }
}

}  // namespace
}  // namespace berth::plugins::node_resources_fit
