#include "plugins/service_affinity/service_affinity.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/plugin.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::service_affinity {
namespace {

using testing::MakeNode;
using testing::MakePod;

api::Value Args(std::vector<std::string> affinity, std::vector<std::string> anti) {
  api::Value v = api::Value::MakeObject();
  api::Value a = api::Value::MakeArray();
  for (auto& s : affinity) a.Push(api::Value::String(s));
  api::Value b = api::Value::MakeArray();
  for (auto& s : anti) b.Push(api::Value::String(s));
  v.Set("affinityLabels", std::move(a));
  v.Set("antiAffinityLabelsPreference", std::move(b));
  return v;
}

std::shared_ptr<framework::Plugin> Make(testing::FakeHandle& h, const api::Value& args) {
  framework::PluginContext ctx;
  ctx.args = &args;
  ctx.args_path = "args";
  ctx.handle = &h;
  auto p = New(ctx);
  EXPECT_TRUE(p.ok()) << p.error();
  return *p;
}

void AddService(testing::FakeHandle& h, const std::string& ns, api::Labels selector) {
  auto svc = std::make_shared<api::Service>();
  svc->metadata.name = "svc";
  svc->metadata.namespace_ = ns;
  svc->selector = std::move(selector);
  h.mutable_objects().services.Upsert(svc);
}

// Upstream's TestServiceAffinity nodes: region r1/r2, zones z11/z12/z21/z22.
std::vector<framework::NodeInfo> Nodes(std::vector<framework::PodInfoPtr> on_machine1 = {}) {
  framework::NodeInfo m1 = MakeNode("machine1").Label("region", "r1").Label("zone", "z11").Info();
  for (auto& p : on_machine1) m1.AddPod(p);
  std::vector<framework::NodeInfo> v;
  v.push_back(std::move(m1));
  v.push_back(MakeNode("machine2").Label("region", "r1").Label("zone", "z12").Info());
  v.push_back(MakeNode("machine3").Label("region", "r2").Label("zone", "z21").Info());
  v.push_back(MakeNode("machine4").Label("region", "r2").Label("zone", "z22").Info());
  v.push_back(MakeNode("machine5").Label("region", "r2").Label("zone", "z22").Info());
  return v;
}

framework::Status RunFilter(testing::FakeHandle& h, framework::Plugin& p,
                            const framework::PodInfo& pod, const std::string& node) {
  framework::CycleState state;
  auto* pf = dynamic_cast<framework::PreFilterPlugin*>(&p);
  framework::PreFilterResult r;
  auto s = pf->PreFilter(state, pod, h.snapshot().List(), &r);
  if (!s.IsSuccess()) return s;
  return dynamic_cast<framework::FilterPlugin*>(&p)->Filter(state, pod, *h.snapshot().Get(node));
}

TEST(ServiceAffinity, FilterUpstreamCases) {
  struct Case {
    const char* name;
    bool node_selector_r2 = false;
    bool with_labels = false;
    bool service = false;
    bool existing = false;
    std::string node;
    std::vector<std::string> labels;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"nothing scheduled", false, false, false, false, "machine1", {"region"}, true},
      {"pod with region label match", false, false, false, false, "machine1", {"region"}, true},
      {"nodeSelector region r2 on machine1",
       true,
       false,
       false,
       false,
       "machine1",
       {"region"},
       false},
      {"service pod on same node", false, true, true, true, "machine1", {"region"}, true},
      {"service pod in same region", false, true, true, true, "machine2", {"region"}, true},
      {"service pod in other region", false, true, true, true, "machine3", {"region"}, false},
      {"service pod, zone differs", false, true, true, true, "machine2", {"region", "zone"}, false},
      {"no service: anywhere", false, true, false, true, "machine3", {"region"}, true},
  };
  for (const auto& c : cases) {
    MakePod pb("p");
    pb.Namespace("default");
    if (c.with_labels) pb.Label("foo", "bar");
    if (c.node_selector_r2) pb.NodeSelector("region", "r2");
    std::vector<framework::PodInfoPtr> existing;
    if (c.existing) {
      existing.push_back(
          MakePod("e").Namespace("default").Uid("e").Label("foo", "bar").Node("machine1").Info());
    }
    testing::FakeHandle h(Nodes(existing));
    if (c.service) AddService(h, "default", {{"foo", "bar"}});
    auto plugin = Make(h, Args(c.labels, {}));
    auto s = RunFilter(h, *plugin, *pb.Info(), c.node);
    EXPECT_EQ(s.IsSuccess(), c.fits) << c.name;
    if (!c.fits) {
      EXPECT_EQ(s.code(), framework::Code::kUnschedulable) << c.name;
      EXPECT_EQ(s.Message(), kErrReasonAffinityNotMatch) << c.name;
    }
  }
}

TEST(ServiceAffinity, NoAffinityLabelsSkipsPreFilter) {
  testing::FakeHandle h(Nodes());
  auto plugin = Make(h, Args({}, {"zone"}));
  framework::CycleState state;
  framework::PreFilterResult r;
  auto s = dynamic_cast<framework::PreFilterPlugin*>(plugin.get())
               ->PreFilter(state, *MakePod("p").Info(), h.snapshot().List(), &r);
  EXPECT_EQ(s.code(), framework::Code::kSkip);
}

// Upstream's TestServiceAffinityScore "four pods, three service pods, zone z11 and z21".
TEST(ServiceAffinity, AntiAffinityScoreSpreadsOverLabelValues) {
  auto sp = [](const char* name, const char* node) {
    return MakePod(name).Namespace("default").Uid(name).Label("app", "web").Node(node).Info();
  };
  std::vector<framework::NodeInfo> nodes;
  nodes.push_back(MakeNode("m1").Label("zone", "z1").Info({sp("a", "m1"), sp("b", "m1")}));
  nodes.push_back(MakeNode("m2").Label("zone", "z1").Info());
  nodes.push_back(MakeNode("m3").Label("zone", "z2").Info({sp("c", "m3")}));
  nodes.push_back(MakeNode("m4").Info());
  testing::FakeHandle h(std::move(nodes));
  AddService(h, "default", {{"app", "web"}});
  auto plugin = Make(h, Args({}, {"zone"}));
  auto* ps = dynamic_cast<framework::PreScorePlugin*>(plugin.get());
  auto* sc = dynamic_cast<framework::ScorePlugin*>(plugin.get());
  auto pod = MakePod("new").Namespace("default").Label("app", "web").Info();
  framework::CycleState state;
  ASSERT_TRUE(ps->PreScore(state, *pod, h.snapshot().List()).IsSuccess());
  framework::NodeScoreList scores;
  for (const auto* n : h.snapshot().List()) {
    int64_t s = 0;
    ASSERT_TRUE(sc->Score(state, *pod, *n, &s).IsSuccess());
    scores.push_back({&n->name(), s});
  }
  EXPECT_EQ(scores[0].score, 2);
  EXPECT_EQ(scores[2].score, 1);
  ASSERT_TRUE(sc->NormalizeScore(state, *pod, scores).IsSuccess());
  // total 3: zone z1 holds 2 -> 100*(1/3)=33; z2 holds 1 -> 66; m4 has no zone -> 0.
  EXPECT_EQ(scores[0].score, 33);
  EXPECT_EQ(scores[1].score, 33);
  EXPECT_EQ(scores[2].score, 66);
  EXPECT_EQ(scores[3].score, 0);
}

TEST(ServiceAffinity, RejectsUnknownArgs) {
  testing::FakeHandle h;
  api::Value args = api::Value::MakeObject();
  args.Set("bogus", api::Value::Int(1));
  framework::PluginContext ctx;
  ctx.args = &args;
  ctx.args_path = "p.args";
  ctx.handle = &h;
  EXPECT_FALSE(New(ctx).ok());
}

}  // namespace
}  // namespace berth::plugins::service_affinity
