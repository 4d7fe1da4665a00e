// The scheduler calling extenders (scheduler/extenders.cc), end to end through `berth simulate`
// with real HttpExtenders and a tiny in-process extender: filter order and reasons, the
// prioritize arithmetic, extender binding, and what a bad answer does to the pod (error, or
// skipped when ignorable).

#include <gtest/gtest.h>

#include "api/json/parse.h"
#include "cmd/berth/app/extender/http_extender.h"
#include "cmd/berth/app/simulate/simulated_extender.h"
#include "cmd/berth/app/simulate/simulator.h"
#include "config/load.h"
#include "plugins/registry.h"
#include "test/cmd/berth/app/extender/fake_extender_server.h"

namespace berth::extenders {
namespace {

using testing::FakeExtenderServer;
using testing::Json;

std::string Node(const std::string& name) {
  return "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         "}\nstatus:\n  allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n";
}

std::string Pod(const std::string& name, const std::string& extra_request = "") {
  return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: ns}\nspec:\n  schedulerName: berth-scheduler\n"
         "  containers: [{name: c, resources: {requests: {cpu: \"1\"" +
         extra_request + "}}}]\n";
}

// The node names an ExtenderArgs asked about.
std::vector<std::string> Asked(const std::string& body) {
  auto v = api::json::ParseJson(body);
  std::vector<std::string> out;
  for (const auto& n : v->Find("NodeNames")->AsArray()) out.push_back(n.AsString());
  return out;
}

class SchedulerExtendersTest : public ::testing::Test {
 protected:
  SchedulerExtendersTest() : registry_(plugins::NewInTreeRegistry()) {}

  // Simulates `cluster` with these extenders; returns the pod entries.
  std::vector<api::Value> Run(const std::string& cluster, std::vector<config::Extender> extenders) {
    auto c = simulate::ParseClusterFile(cluster, "cluster.yaml");
    EXPECT_TRUE(c.ok()) << c.error();
    config::SchedulerConfiguration cfg = config::DefaultConfig(registry_.Names());
    cfg.extenders = std::move(extenders);
    auto built = BuildExtenders(&cfg);
    EXPECT_TRUE(built.ok()) << built.error();
    built_ = simulation_ ? simulate::ForSimulation(std::move(*built)) : std::move(*built);
    simulate::Options options;
    for (auto& e : built_) options.extenders.push_back(e.get());
    auto out = simulate::Run(*c, cfg, registry_, options);
    EXPECT_TRUE(out.ok()) << out.error();
    return out.ok() ? out->Find("pods")->AsArray() : std::vector<api::Value>{};
  }
  static config::Extender Ext(const std::string& url) {
    config::Extender e;
    e.url_prefix = url;
    e.filter_verb = "filter";
    e.node_cache_capable = true;
    return e;
  }
  static std::string Str(const api::Value& pod, const char* field) {
    const api::Value* v = pod.Find(field);
    return v == nullptr || v->IsNull() ? "<null>" : v->AsString();
  }

  framework::Registry registry_;
  std::vector<std::unique_ptr<framework::Extender>> built_;
  bool simulation_ = false;  // as `berth simulate` sets them up
  std::string cluster_ = Node("n1") + Node("n2") + Node("n3");
};

TEST_F(SchedulerExtendersTest, FilterExtendersRunInOrderOnTheSurvivors) {
  FakeExtenderServer first([](const std::string&, const std::string&) {
    return Json(R"({"NodeNames":["n2","n3"],"FailedNodes":{"n1":"no local replica"}})");
  });
  std::vector<std::string> second_asked;
  FakeExtenderServer second([&](const std::string&, const std::string& body) {
    second_asked = Asked(body);
    return Json(R"({"NodeNames":["n3"],"FailedAndUnresolvableNodes":{"n2":"node is offline"}})");
  });
  auto pods = Run(cluster_ + Pod("a"), {Ext(first.PlainUrl()), Ext(second.PlainUrl())});
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(Str(pods[0], "node"), "n3");
  EXPECT_EQ(second_asked, (std::vector<std::string>{"n2", "n3"}));
}

TEST_F(SchedulerExtendersTest, ExtenderReasonsMakeTheFailedSchedulingMessage) {
  FakeExtenderServer server([](const std::string&, const std::string&) {
    return Json(
        R"({"NodeNames":[],"FailedNodes":{"n1":"no local replica","n2":"no local replica"},)"
        R"("FailedAndUnresolvableNodes":{"n3":"node is offline"}})");
  });
  auto pods = Run(cluster_ + Pod("a"), {Ext(server.PlainUrl())});
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(Str(pods[0], "status"), "Unschedulable");
  // (DefaultPreemption may append its own sentence.)
  EXPECT_EQ(Str(pods[0], "message")
                .rfind("0/3 nodes are available: 1 node is offline, 2 no local replica.", 0),
            0u)
      << Str(pods[0], "message");
}

TEST_F(SchedulerExtendersTest, PrioritizeAddsScoreTimesWeightTimesTen) {
  // Three identical nodes: the plugins tie; the extender's 1 point x weight 3 x 10 decides.
  FakeExtenderServer server([](const std::string& path, const std::string&) {
    if (path == "/scheduler/filter") return Json(R"({"NodeNames":["n1","n2","n3"]})");
    return Json(R"([{"Host":"n1","Score":0},{"Host":"n2","Score":1},{"Host":"n3","Score":0}])");
  });
  auto e = Ext(server.PlainUrl());
  e.prioritize_verb = "prioritize";
  e.weight = 3;
  auto pods = Run(cluster_ + Pod("a") + Pod("b"), {e});
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(Str(pods[0], "node"), "n2");
  // n2 now runs one pod: the plugins prefer n1/n3 by less than 30 points, so n2 still wins.
  EXPECT_EQ(Str(pods[1], "node"), "n2");
}

TEST_F(SchedulerExtendersTest, AFailingPrioritizerOnlyLosesItsScores) {
  FakeExtenderServer server([](const std::string& path, const std::string&) {
    if (path == "/scheduler/filter") return Json(R"({"NodeNames":["n1","n2"]})");
    return Json("boom", 500);
  });
  auto e = Ext(server.PlainUrl());
  e.prioritize_verb = "prioritize";
  e.weight = 1;
  auto pods = Run(cluster_ + Pod("a"), {e});
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(Str(pods[0], "status"), "Scheduled");  // as upstream: prioritize errors are logged
}

TEST_F(SchedulerExtendersTest, BadFilterAnswerFailsThePodWithTheError) {
  FakeExtenderServer server(
      [](const std::string&, const std::string&) { return Json("internal error", 500); });
  auto pods = Run(cluster_ + Pod("a"), {Ext(server.PlainUrl())});
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(Str(pods[0], "status"), "Error");
  EXPECT_EQ(Str(pods[0], "message"), "failed filter with extender at URL " + server.PlainUrl() +
                                         "/filter, code 500: internal error");
  // A node it was not asked about.
  server.SetHandler(
      [](const std::string&, const std::string&) { return Json(R"({"NodeNames":["n9"]})"); });
  pods = Run(cluster_ + Pod("a"), {Ext(server.PlainUrl())});
  EXPECT_EQ(Str(pods[0], "status"), "Error");
  EXPECT_NE(Str(pods[0], "message").find("claims a filtered node \"n9\""), std::string::npos);
}

TEST_F(SchedulerExtendersTest, IgnorableExtenderErrorsAreSkipped) {
  FakeExtenderServer broken(
      [](const std::string&, const std::string&) { return Json("{not json", 200); });
  FakeExtenderServer good([](const std::string&, const std::string&) {
    return Json(R"({"NodeNames":["n2"],"FailedNodes":{"n1":"x","n3":"x"}})");
  });
  auto ignorable = Ext(broken.PlainUrl());
  ignorable.ignorable = true;
  auto pods = Run(cluster_ + Pod("a"), {ignorable, Ext(good.PlainUrl())});
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(Str(pods[0], "status"), "Scheduled");
  EXPECT_EQ(Str(pods[0], "node"), "n2");
  // Upstream calls ignorable extenders last.
  EXPECT_EQ(Asked(broken.Requests()[0].second), (std::vector<std::string>{"n2"}));
}

TEST_F(SchedulerExtendersTest, UninterestedExtenderIsNotCalled) {
  FakeExtenderServer server([](const std::string&, const std::string&) {
    return Json(R"({"NodeNames":["n1"],"FailedNodes":{"n2":"x","n3":"x"}})");
  });
  auto e = Ext(server.PlainUrl());
  e.managed_resources = {{"example.com/disk", true}};
  auto pods = Run(cluster_ + Pod("plain") + Pod("disk", ", example.com/disk: \"1\""), {e});
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(Str(pods[0], "status"), "Scheduled");
  // The managed resource is ignored by NodeResourcesFit (no node has it) and the extender
  // decides.
  EXPECT_EQ(Str(pods[1], "status"), "Scheduled");
  EXPECT_EQ(Str(pods[1], "node"), "n1");
  EXPECT_EQ(server.Requests().size(), 1u);
}

TEST_F(SchedulerExtendersTest, BinderExtenderBindsInsteadOfThePlugins) {
  FakeExtenderServer server([](const std::string& path, const std::string&) {
    if (path == "/scheduler/bind") return Json(R"({"Error":""})");
    return Json(R"({"NodeNames":["n3"]})");
  });
  auto e = Ext(server.PlainUrl());
  e.bind_verb = "bind";
  auto pods = Run(cluster_ + Pod("a"), {e});
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(Str(pods[0], "node"), "n3");
  auto reqs = server.Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].first, "/scheduler/bind");
  EXPECT_NE(reqs[1].second.find(R"("Node":"n3")"), std::string::npos) << reqs[1].second;
}

TEST_F(SchedulerExtendersTest, NominatedNodeRejectedByAnExtenderFallsBackToTheFullSearch) {
  std::vector<std::vector<std::string>> asked;
  // Passes what it was asked except n1.
  FakeExtenderServer server([&](const std::string&, const std::string& body) {
    auto names = Asked(body);
    asked.push_back(names);
    std::string passed;
    for (const auto& n : names) {
      if (n != "n1") passed += (passed.empty() ? "\"" : ",\"") + n + "\"";
    }
    return Json(R"({"NodeNames":[)" + passed + R"(],"FailedNodes":{"n1":"not here"}})");
  });
  auto pods =
      Run(cluster_ + Pod("a") + "status: {nominatedNodeName: n1}\n", {Ext(server.PlainUrl())});
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(Str(pods[0], "status"), "Scheduled");
  EXPECT_NE(Str(pods[0], "node"), "n1");
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0], std::vector<std::string>{"n1"});  // the nominated node alone first
  EXPECT_EQ(asked[1].size(), 3u);
}

TEST_F(SchedulerExtendersTest, SimulationCallsAnUnreachableExtenderOnce) {
  // As `berth simulate` sets them up: no bind, and a transport failure sticks.
  simulation_ = true;
  auto e = Ext("http://127.0.0.1:1/x");
  e.bind_verb = "bind";
  auto pods = Run(cluster_ + Pod("a") + Pod("b"), {e});
  ASSERT_EQ(pods.size(), 2u);
  for (const auto& p : pods) {
    EXPECT_EQ(Str(p, "status"), "Error");
    EXPECT_EQ(Str(p, "message").rfind("extender at URL http://127.0.0.1:1/x/filter: connect", 0),
              0u)
        << Str(p, "message");
  }
}

}  // namespace
}  // namespace berth::extenders
