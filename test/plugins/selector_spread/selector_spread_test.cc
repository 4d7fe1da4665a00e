#include "plugins/selector_spread/selector_spread.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/plugin.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::selector_spread {
namespace {

using testing::MakeNode;
using testing::MakePod;

framework::PodInfoPtr Web(const std::string& name, const std::string& node,
                          const std::string& ns = "default") {
  return MakePod(name).Namespace(ns).Uid(name).Label("app", "web").Node(node).Info();
}

// Runs PreScore, Score and NormalizeScore over every node; returns the final scores.
std::vector<int64_t> Scores(testing::FakeHandle& h, const framework::PodInfo& pod,
                            framework::Code* pre_score_code = nullptr) {
  framework::PluginContext ctx;
  ctx.handle = &h;
  auto p = New(ctx);
  EXPECT_TRUE(p.ok());
  auto* ps = dynamic_cast<framework::PreScorePlugin*>(p->get());
  auto* sc = dynamic_cast<framework::ScorePlugin*>(p->get());
  framework::CycleState state;
  auto s = ps->PreScore(state, pod, h.snapshot().List());
  if (pre_score_code != nullptr) *pre_score_code = s.code();
  if (!s.IsSuccess()) return {};
  framework::NodeScoreList scores;
  for (const auto* n : h.snapshot().List()) {
    int64_t v = 0;
    EXPECT_TRUE(sc->Score(state, pod, *n, &v).IsSuccess());
    scores.push_back({&n->name(), v});
  }
  EXPECT_TRUE(sc->NormalizeScore(state, pod, scores).IsSuccess());
  std::vector<int64_t> out;
  for (const auto& s2 : scores) out.push_back(s2.score);
  return out;
}

void AddService(testing::FakeHandle& h, const std::string& ns) {
  auto svc = std::make_shared<api::Service>();
  svc->metadata.name = "web";
  svc->metadata.namespace_ = ns;
  svc->selector = {{"app", "web"}};
  h.mutable_objects().services.Upsert(svc);
}

// Seed 003's formula: 10 * (max - count) / max, on the 0..100 scale.
TEST(SelectorSpread, NodeSpreadWithoutZones) {
  std::vector<framework::NodeInfo> nodes;
  nodes.push_back(MakeNode("n1").Info({Web("a", "n1"), Web("b", "n1")}));
  nodes.push_back(MakeNode("n2").Info({Web("c", "n2"), Web("other-ns", "n2", "prod")}));
  nodes.push_back(MakeNode("n3").Info());
  testing::FakeHandle h(std::move(nodes));
  AddService(h, "default");
  auto pod = MakePod("new").Namespace("default").Label("app", "web").Info();
  EXPECT_EQ(Scores(h, *pod), (std::vector<int64_t>{0, 50, 100}));
}

TEST(SelectorSpread, NoServiceMeansEveryNodeScoresMax) {
  std::vector<framework::NodeInfo> nodes;
  nodes.push_back(MakeNode("n1").Info({Web("a", "n1")}));
  nodes.push_back(MakeNode("n2").Info());
  testing::FakeHandle h(std::move(nodes));
  auto pod = MakePod("new").Namespace("default").Label("app", "web").Info();
  EXPECT_EQ(Scores(h, *pod), (std::vector<int64_t>{100, 100}));
}

// Upstream's zoneWeighting 2/3: node score * 1/3 + zone score * 2/3.
TEST(SelectorSpread, ZoneWeighting) {
  const char* kZone = "topology.kubernetes.io/zone";
  std::vector<framework::NodeInfo> nodes;
  nodes.push_back(MakeNode("a1").Label(kZone, "a").Info({Web("p1", "a1"), Web("p2", "a1")}));
  nodes.push_back(MakeNode("a2").Label(kZone, "a").Info());
  nodes.push_back(MakeNode("b1").Label(kZone, "b").Info({Web("p3", "b1")}));
  nodes.push_back(MakeNode("c1").Label(kZone, "c").Info());
  testing::FakeHandle h(std::move(nodes));
  AddService(h, "default");
  auto pod = MakePod("new").Namespace("default").Label("app", "web").Info();
  // max node 2, max zone 2: a1 = 0*1/3 + 0*2/3 = 0; a2 = 100/3 + 0 = 33;
  // b1 = 50/3 + 50*2/3 = 50; c1 = 100.
  EXPECT_EQ(Scores(h, *pod), (std::vector<int64_t>{0, 33, 50, 100}));
}

// Upstream's DefaultSelector: with no Service, a StatefulSet owner that exists spreads its pods
// by its selector; an owner that does not exist spreads nothing.
TEST(SelectorSpread, StatefulSetOwnerSelector) {
  std::vector<framework::NodeInfo> nodes;
  nodes.push_back(MakeNode("n1").Info({Web("p1", "n1"), Web("p2", "n1")}));
  nodes.push_back(MakeNode("n2").Info({Web("p3", "n2")}));
  nodes.push_back(MakeNode("n3").Info());
  testing::FakeHandle h(std::move(nodes));
  MakePod pod("new");
  pod.Label("app", "web");
  pod.Mutable().metadata.owner_references.push_back(
      {"apps/v1", "StatefulSet", "web", "ss-uid", true});
  EXPECT_EQ(Scores(h, *pod.Info()), (std::vector<int64_t>{100, 100, 100}));
  auto ss = std::make_shared<api::StatefulSet>();
  ss->metadata.name = "web";
  ss->metadata.namespace_ = "default";
  ss->selector = api::LabelSelector{{{"app", "web"}}, {}};
  h.mutable_objects().stateful_sets.Upsert(ss);
  // max 2: n1 = 0, n2 = 50, n3 = 100.
  EXPECT_EQ(Scores(h, *pod.Info()), (std::vector<int64_t>{0, 50, 100}));
}

TEST(SelectorSpread, SkipsPodsWithTopologySpreadConstraints) {
  testing::FakeHandle h({MakeNode("n1").Info()});
  MakePod b("new");
  b.Mutable().spec.topology_spread_constraints.emplace_back();
  framework::Code code = framework::Code::kSuccess;
  Scores(h, *b.Info(), &code);
  EXPECT_EQ(code, framework::Code::kSkip);
}

}  // namespace
}  // namespace berth::plugins::selector_spread
