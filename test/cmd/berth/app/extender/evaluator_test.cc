// `berth extender`'s evaluator and routes: a NodeLabel profile over a cache fed like the
// informers feed it, asked through ExtenderArgs as kube-scheduler asks.

#include "cmd/berth/app/extender/evaluator.h"

#include <gtest/gtest.h>

#include "api/decode.h"
#include "api/json/parse.h"
#include "cmd/berth/app/extender/objects_json.h"
#include "cmd/berth/app/extender/server.h"
#include "cmd/berth/app/extender/wire.h"
#include "config/load.h"
#include "plugins/registry.h"
#include "test/testing/builders.h"

namespace berth::extender_server {
namespace {

using testing::MakeNode;
using testing::MakePod;

constexpr const char kConfig[] = R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: berth-scheduler
  plugins:
    multiPoint: {enabled: [{name: NodeLabel}]}
    score: {disabled: [{name: "*"}], enabled: [{name: NodeLabel, weight: 1}]}
  pluginConfig:
  - name: NodeLabel
    args: {presentLabels: [storage], presentLabelsPreference: [fast, ssd]}
)";

class EvaluatorTest : public ::testing::Test {
 protected:
  EvaluatorTest() : registry_(plugins::NewInTreeRegistry()) {
    auto cfg = config::ParseConfig(kConfig, "config.yaml", registry_.Names());
    EXPECT_TRUE(cfg.ok()) << cfg.error();
    auto e = Evaluator::Create(*cfg, "", registry_, &objects_, &clock_);
    EXPECT_TRUE(e.ok()) << e.error();
    eval_ = std::move(*e);
    eval_->AddNode(MakeNode("plain").Capacity({{"cpu", "4"}, {"pods", "110"}}).Ptr());
    eval_->AddNode(
        MakeNode("store").Capacity({{"cpu", "4"}, {"pods", "110"}}).Label("storage", "").Ptr());
    eval_->AddNode(MakeNode("store-fast")
                       .Capacity({{"cpu", "4"}, {"pods", "110"}})
                       .Label("storage", "")
                       .Label("fast", "")
                       .Ptr());
    eval_->AddNode(MakeNode("store-fast-ssd")
                       .Capacity({{"cpu", "4"}, {"pods", "110"}})
                       .Label("storage", "")
                       .Label("fast", "")
                       .Label("ssd", "")
                       .Ptr());
  }

  extenders::ExtenderArgs Args(std::vector<std::string> names, bool with_pod = true) {
    extenders::ExtenderArgs a;
    if (with_pod) a.pod = extenders::PodToValue(pod_);
    a.node_names = std::move(names);
    return a;
  }

  framework::Registry registry_;
  api::ClusterObjects objects_;
  framework::RealClock clock_;
  std::unique_ptr<Evaluator> eval_;
  api::Pod pod_ = MakePod("web").SchedulerName("default-scheduler").Req({{"cpu", "1"}}).Obj();
};

TEST_F(EvaluatorTest, FilterRunsTheProfilesFilterPlugins) {
  auto a = eval_->Filter(Args({"plain", "store", "ghost"}));
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.passed, std::vector<std::string>{"store"});
  EXPECT_EQ(a.failed_and_unresolvable.at("plain"), "node(s) didn't have the requested labels");
  EXPECT_EQ(a.failed.at("ghost"), "node \"ghost\" is not in berth's cache");
}

TEST_F(EvaluatorTest, MissingOrBadPodIsAnError) {
  auto a = eval_->Filter(Args({"store"}, /*with_pod=*/false));
  EXPECT_EQ(a.error, "ExtenderArgs has no Pod");
  EXPECT_TRUE(a.passed.empty());
  auto args = Args({"store"});
  args.pod->Set("spec", api::Value::String("nonsense"));
  a = eval_->Filter(args);
  EXPECT_EQ(a.error.rfind("Pod: spec", 0), 0u) << a.error;
}

TEST_F(EvaluatorTest, APodNoPluginJudgesPassesEveryNode) {
  // The default profile, and a pod with no requests, volumes, affinity or ports.
  auto e = Evaluator::Create(config::DefaultConfig(registry_.Names()), "", registry_, &objects_,
                             &clock_);
  ASSERT_TRUE(e.ok()) << e.error();
  (*e)->AddNode(MakeNode("a").Capacity({{"cpu", "4"}, {"pods", "110"}}).Ptr());
  (*e)->AddNode(MakeNode("b").Capacity({{"cpu", "4"}, {"pods", "110"}}).Ptr());
  extenders::ExtenderArgs args;
  args.pod = extenders::PodToValue(MakePod("bare").SchedulerName("default-scheduler").Obj());
  args.node_names = {"a", "b"};
  auto a = (*e)->Filter(args);
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.passed, (std::vector<std::string>{"a", "b"}));
}

TEST_F(EvaluatorTest, BoundPodsCountOnTheirNodes) {
  config::SchedulerConfiguration cfg = config::DefaultConfig(registry_.Names());
  auto e = Evaluator::Create(cfg, "", registry_, &objects_, &clock_);
  ASSERT_TRUE(e.ok()) << e.error();
  (*e)->AddNode(MakeNode("a").Capacity({{"cpu", "2"}, {"pods", "110"}}).Ptr());
  auto running = MakePod("running").Node("a").Req({{"cpu", "1500m"}}).Ptr();
  (*e)->AddPod(running);
  extenders::ExtenderArgs args;
  args.pod = extenders::PodToValue(pod_);
  args.node_names = {"a"};
  EXPECT_EQ((*e)->Filter(args).failed.at("a"), "Insufficient cpu");
  (*e)->DeletePod(*running);
  EXPECT_EQ((*e)->Filter(args).passed, std::vector<std::string>{"a"});
}

TEST_F(EvaluatorTest, PrioritizeRescalesTheWeightedTotalToZeroToTen) {
  auto scores = eval_->Prioritize(Args({"store", "store-fast", "store-fast-ssd", "ghost"}));
  ASSERT_TRUE(scores.ok()) << scores.error();
  ASSERT_EQ(scores->size(), 4u);
  // NodeLabel: 100 per satisfied preference / 2 preferences -> 0, 50, 100 -> 0, 5, 10.
  EXPECT_EQ((*scores)[0].host, "store");
  EXPECT_EQ((*scores)[0].score, 0);
  EXPECT_EQ((*scores)[1].score, 5);
  EXPECT_EQ((*scores)[2].score, 10);
  EXPECT_EQ((*scores)[3].host, "ghost");
  EXPECT_EQ((*scores)[3].score, 0);
}

TEST_F(EvaluatorTest, UnknownProfileIsAnError) {
  auto cfg = config::ParseConfig(kConfig, "config.yaml", registry_.Names());
  auto e = Evaluator::Create(*cfg, "nope", registry_, &objects_, &clock_);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error(), "--profile: no profile \"nope\" in the config; profiles: berth-scheduler");
}

// The pod sent to (and read back by) an extender keeps its pod-level resources.
TEST(PodToValueTest, KeepsPodLevelResources) {
  api::Pod pod = MakePod("p").PodReq({{"cpu", "2"}, {"memory", "1Gi"}}).Req({}).Obj();
  pod.spec.resources.limits = testing::MakeList({{"cpu", "4"}});
  auto back = api::DecodePod(extenders::PodToValue(pod));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->spec.resources.requests, pod.spec.resources.requests);
  EXPECT_EQ(back->spec.resources.limits, pod.spec.resources.limits);
}

TEST_F(EvaluatorTest, RoutesSpeakTheWireProtocol) {
  run::HttpHandlers h = MakeHandlers(eval_.get(), [] { return true; });
  const std::string pod_json = api::json::ToJson(extenders::PodToValue(pod_));
  // Node-cache-capable caller, lower-case keys.
  auto r = h.routes("POST", "/scheduler/filter",
                    R"({"pod":)" + pod_json + R"(,"nodenames":["plain","store"]})");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  auto v = api::json::ParseJson(r->body);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(api::json::ToJson(*v->Find("NodeNames")), R"(["store"])");
  EXPECT_TRUE(v->Find("Nodes")->IsNull());
  // Full Nodes in, full Nodes out.
  api::Value items = api::Value::MakeArray();
  for (const char* n : {"plain", "store-fast"}) {
    items.Push(extenders::NodeToValue(MakeNode(n).Obj()));
  }
  api::Value list = api::Value::MakeObject();
  list.Set("items", std::move(items));
  api::Value args = api::Value::MakeObject();
  args.Set("Pod", extenders::PodToValue(pod_));
  args.Set("Nodes", std::move(list));
  r = h.routes("POST", "/filter", api::json::ToJson(args));
  v = api::json::ParseJson(r->body);
  ASSERT_TRUE(v.ok());
  const auto& out_items = v->Find("Nodes")->Find("items")->AsArray();
  ASSERT_EQ(out_items.size(), 1u);
  EXPECT_EQ(out_items[0].Find("metadata")->Find("name")->AsString(), "store-fast");
  // Prioritize.
  r = h.routes("POST", "/prioritize",
               R"({"Pod":)" + pod_json + R"(,"NodeNames":["store-fast-ssd"]})");
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"([{"Host":"store-fast-ssd","Score":10}])");
  // Malformed bodies.
  r = h.routes("POST", "/scheduler/filter", "{");
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find(R"("Error":"berth extender: malformed ExtenderArgs)"), std::string::npos)
      << r->body;
  r = h.routes("POST", "/scheduler/prioritize", "[]");
  EXPECT_EQ(r->status, 400);
  // Other paths are not ours; GET is refused.
  EXPECT_FALSE(h.routes("POST", "/bind", "{}").has_value());
  auto get = h.routes("GET", "/filter", "");
  ASSERT_TRUE(get.has_value());
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->headers, (std::vector<std::pair<std::string, std::string>>{{"Allow", "POST"}}));
}

TEST_F(EvaluatorTest, NotSyncedYet) {
  run::HttpHandlers h = MakeHandlers(eval_.get(), [] { return false; });
  auto r = h.routes("POST", "/filter", R"({"Pod":{},"NodeNames":["store"]})");
  EXPECT_NE(r->body.find("informer caches not synced yet"), std::string::npos);
  EXPECT_EQ(h.readiness(), std::vector<std::string>{"informers not synced"});
}

}  // namespace
}  // namespace berth::extender_server
