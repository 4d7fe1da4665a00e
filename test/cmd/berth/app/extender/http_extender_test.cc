// HttpExtender against a tiny in-process HTTP(S) extender: what goes on the wire, how answers are
// read (any letter case), and the errors for bad answers (timeout, HTTP 500, malformed JSON,
// nodes it was not asked about, an Error result).

#include "cmd/berth/app/extender/http_extender.h"

#include <gtest/gtest.h>

#include <thread>

#include "api/json/parse.h"
#include "test/cmd/berth/app/extender/big_answer.h"
#include "test/cmd/berth/app/extender/fake_extender_server.h"
#include "test/testing/builders.h"

namespace berth::extenders {
namespace {

using testing::FakeExtenderServer;
using testing::Json;
using testing::MakeNode;
using testing::MakePod;

class HttpExtenderTest : public ::testing::Test {
 protected:
  HttpExtenderTest() {
    for (const char* name : {"n1", "n2", "n3"}) {
      infos_.push_back(std::make_unique<framework::NodeInfo>(
          MakeNode(name).Capacity({{"cpu", "4"}}).Label("zone", "a").Ptr()));
      nodes_.push_back(infos_.back().get());
    }
  }

  std::unique_ptr<HttpExtender> Make(config::Extender cfg) {
    auto e = HttpExtender::Create(cfg);
    EXPECT_TRUE(e.ok()) << e.error();
    return e.ok() ? std::move(*e) : nullptr;
  }
  config::Extender Cfg(const std::string& url) {
    config::Extender c;
    c.url_prefix = url;
    c.filter_verb = "filter";
    c.prioritize_verb = "prioritize";
    c.weight = 2;
    return c;
  }
  static api::Value Parse(const std::string& body) {
    auto v = api::json::ParseJson(body);
    EXPECT_TRUE(v.ok()) << v.error();
    return v.ok() ? *v : api::Value();
  }

  api::Pod pod_ = MakePod("web").Namespace("shop").Req({{"cpu", "1"}}).Obj();
  std::vector<std::unique_ptr<framework::NodeInfo>> infos_;
  std::vector<const framework::NodeInfo*> nodes_;
};

std::vector<std::string> Names(const std::vector<const framework::NodeInfo*>& nodes) {
  std::vector<std::string> out;
  for (const auto* n : nodes) out.push_back(n->name());
  return out;
}

TEST_F(HttpExtenderTest, FilterSendsNodeNamesAndReadsAnyLetterCase) {
  FakeExtenderServer server([](const std::string&, const std::string&) {
    return Json(R"({"nodenames":["n1"],"FAILEDNODES":{"n2":"no disk"},)"
                R"("failedAndUnresolvableNodes":{"n3":"node is gone"},"error":""})");
  });
  auto cfg = Cfg(server.PlainUrl("/scheduler/"));
  cfg.node_cache_capable = true;
  auto ext = Make(cfg);
  auto out = ext->Filter(pod_, nodes_);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(Names(out->passed), std::vector<std::string>{"n1"});
  EXPECT_EQ(out->failed.at("n2"), "no disk");
  EXPECT_EQ(out->failed_and_unresolvable.at("n3"), "node is gone");

  auto reqs = server.Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].first, "/scheduler/filter");  // trailing slash of the prefix trimmed
  api::Value args = Parse(reqs[0].second);
  // PascalCase envelope; the pod in the API's own field names.
  EXPECT_TRUE(args.Find("Nodes")->IsNull());
  ASSERT_NE(args.Find("NodeNames"), nullptr);
  EXPECT_EQ(args.Find("NodeNames")->AsArray().size(), 3u);
  const api::Value* pod = args.Find("Pod");
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->Find("metadata")->Find("name")->AsString(), "web");
  EXPECT_EQ(pod->Find("metadata")->Find("namespace")->AsString(), "shop");
  EXPECT_EQ(pod->Find("spec")
                ->Find("containers")
                ->AsArray()[0]
                .Find("resources")
                ->Find("requests")
                ->Find("cpu")
                ->AsString(),
            "1");
}

TEST_F(HttpExtenderTest, FilterWithoutNodeCacheSendsAndReadsFullNodes) {
  FakeExtenderServer server([](const std::string&, const std::string& body) {
    // Echo back the second node object, as a non-caching extender does.
    auto args = api::json::ParseJson(body);
    api::Value list = api::Value::MakeObject();
    api::Value items = api::Value::MakeArray();
    items.Push(args->Find("Nodes")->Find("items")->AsArray()[1]);
    list.Set("items", std::move(items));
    api::Value result = api::Value::MakeObject();
    result.Set("Nodes", std::move(list));
    return Json(api::json::ToJson(result));
  });
  auto ext = Make(Cfg(server.PlainUrl()));
  auto out = ext->Filter(pod_, nodes_);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(Names(out->passed), std::vector<std::string>{"n2"});
  api::Value args = Parse(server.Requests()[0].second);
  EXPECT_TRUE(args.Find("NodeNames")->IsNull());
  const auto& items = args.Find("Nodes")->Find("items")->AsArray();
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].Find("metadata")->Find("labels")->Find("zone")->AsString(), "a");
  EXPECT_EQ(items[0].Find("status")->Find("allocatable")->Find("cpu")->AsString(), "4");
}

TEST_F(HttpExtenderTest, Http500NamesTheUrlAndCode) {
  FakeExtenderServer server(
      [](const std::string&, const std::string&) { return Json("storage backend down\n", 500); });
  auto ext = Make(Cfg(server.PlainUrl()));
  auto out = ext->Filter(pod_, nodes_);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(), "failed filter with extender at URL " + server.PlainUrl() +
                             "/filter, code 500: storage backend down");
}

TEST_F(HttpExtenderTest, TimeoutNamesTheUrlAndTheTimeout) {
  FakeExtenderServer server([](const std::string&, const std::string&) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    return Json(R"({"NodeNames":["n1"]})");
  });
  auto cfg = Cfg(server.PlainUrl());
  cfg.http_timeout = std::chrono::milliseconds(200);
  auto ext = Make(cfg);
  const auto start = std::chrono::steady_clock::now();
  auto out = ext->Filter(pod_, nodes_);
  ASSERT_FALSE(out.ok());
  // Well before the extender answers (3 s), with slack for a loaded machine.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2000));
  EXPECT_EQ(out.error(), "extender at URL " + server.PlainUrl() +
                             "/filter: timed out after 200ms (httpTimeout)");
}

TEST_F(HttpExtenderTest, MalformedJsonIsAnError) {
  FakeExtenderServer server(
      [](const std::string&, const std::string&) { return Json(R"({"NodeNames": ["n1")"); });
  auto ext = Make(Cfg(server.PlainUrl()));
  auto out = ext->Filter(pod_, nodes_);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().find("extender at URL " + server.PlainUrl() +
                             "/filter: malformed ExtenderFilterResult: invalid JSON"),
            std::string::npos)
      << out.error();
  // Well-formed JSON of the wrong shape too.
  server.SetHandler(
      [](const std::string&, const std::string&) { return Json(R"({"FailedNodes": ["n1"]})"); });
  out = ext->Filter(pod_, nodes_);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().find("FailedNodes: want an object of node name -> reason, got array"),
            std::string::npos)
      << out.error();
}

std::string FiftyMegabyteAnswer() {
  std::string body = testing::FiftyMegabyteAnswer();
  EXPECT_GT(body.size(), size_t{50} << 20);
  return body;
}

TEST_F(HttpExtenderTest, AnswerOverMaxResponseBytesIsRefusedNamingTheUrlAndTheCap) {
  const std::string answer = FiftyMegabyteAnswer();
  FakeExtenderServer server([&](const std::string&, const std::string&) { return Json(answer); });
  auto cfg = Cfg(server.PlainUrl());
  cfg.http_timeout = std::chrono::seconds(60);
  EXPECT_EQ(cfg.max_response_bytes, int64_t{16} << 20);  // the default
  auto ext = Make(cfg);
  auto out = ext->Filter(pod_, nodes_);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(), "extender at URL " + server.PlainUrl() +
                             "/filter: answer larger than 16777216 bytes (maxResponseBytes)");
  EXPECT_NE(out.code(), ErrorCode::kUnavailable);  // it answered, with too much
}

TEST_F(HttpExtenderTest, RaisedMaxResponseBytesReadsABigAnswer) {
  const std::string answer = FiftyMegabyteAnswer();
  FakeExtenderServer server([&](const std::string&, const std::string&) { return Json(answer); });
  auto cfg = Cfg(server.PlainUrl());
  cfg.http_timeout = std::chrono::seconds(60);
  cfg.max_response_bytes = int64_t{64} << 20;
  auto ext = Make(cfg);
  auto out = ext->Filter(pod_, nodes_);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(Names(out->passed), (std::vector<std::string>{"n1", "n2", "n3"}));
}

TEST_F(HttpExtenderTest, NodeNotAskedAboutIsAnError) {
  FakeExtenderServer server([](const std::string&, const std::string&) {
    return Json(R"({"NodeNames":["n1","intruder"]})");
  });
  auto cfg = Cfg(server.PlainUrl());
  cfg.node_cache_capable = true;
  auto out = Make(cfg)->Filter(pod_, nodes_);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(), "extender \"" + server.PlainUrl() +
                             "\" claims a filtered node \"intruder\" which is not found in the "
                             "input node list");
}

TEST_F(HttpExtenderTest, ErrorInTheResultFailsTheFilter) {
  FakeExtenderServer server([](const std::string&, const std::string&) {
    return Json(R"({"NodeNames":null,"Error":"pod has no volumes I know"})");
  });
  auto out = Make(Cfg(server.PlainUrl()))->Filter(pod_, nodes_);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "extender at URL " + server.PlainUrl() + "/filter: Error: pod has no volumes I know");
}

TEST_F(HttpExtenderTest, UnreachableExtenderNamesTheUrl) {
  auto ext = Make(Cfg("http://127.0.0.1:1/x"));
  auto out = ext->Filter(pod_, nodes_);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().rfind("extender at URL http://127.0.0.1:1/x/filter: connect", 0), 0u)
      << out.error();
}

TEST_F(HttpExtenderTest, PrioritizeMapsScoresToNodesAndRejectsBadAnswers) {
  FakeExtenderServer server([](const std::string& path, const std::string&) {
    EXPECT_EQ(path, "/scheduler/prioritize");
    return Json(R"([{"host":"n3","score":7},{"Host":"n1","Score":0}])");
  });
  auto ext = Make(Cfg(server.PlainUrl()));
  auto scores = ext->Prioritize(pod_, nodes_);
  ASSERT_TRUE(scores.ok()) << scores.error();
  EXPECT_EQ(*scores, (std::vector<int64_t>{0, 0, 7}));  // n2 not scored -> 0

  server.SetHandler([](const std::string&, const std::string&) {
    return Json(R"([{"Host":"elsewhere","Score":3}])");
  });
  scores = ext->Prioritize(pod_, nodes_);
  ASSERT_FALSE(scores.ok());
  EXPECT_EQ(scores.error(), "extender at URL " + server.PlainUrl() +
                                "/prioritize: scored node \"elsewhere\" which it was not asked "
                                "about");
  server.SetHandler(
      [](const std::string&, const std::string&) { return Json(R"([{"Host":"n1","Score":11}])"); });
  scores = ext->Prioritize(pod_, nodes_);
  ASSERT_FALSE(scores.ok());
  EXPECT_NE(scores.error().find("score 11 for node \"n1\" is outside 0..10"), std::string::npos);
}

TEST_F(HttpExtenderTest, BindSendsBindingArgs) {
  FakeExtenderServer server([](const std::string&, const std::string&) { return Json("{}"); });
  auto cfg = Cfg(server.PlainUrl());
  cfg.bind_verb = "bind";
  auto ext = Make(cfg);
  ASSERT_TRUE(ext->IsBinder());
  Ok ok = ext->Bind(pod_, "n2");
  ASSERT_TRUE(ok.ok()) << ok.error();
  api::Value args = Parse(server.Requests()[0].second);
  EXPECT_EQ(args.Find("PodName")->AsString(), "web");
  EXPECT_EQ(args.Find("PodNamespace")->AsString(), "shop");
  EXPECT_EQ(args.Find("PodUID")->AsString(), "uid-web");
  EXPECT_EQ(args.Find("Node")->AsString(), "n2");

  server.SetHandler([](const std::string&, const std::string&) {
    return Json(R"({"Error":"node n2 is full"})");
  });
  ok = ext->Bind(pod_, "n2");
  ASSERT_FALSE(ok.ok());
  EXPECT_EQ(ok.error(), "extender at URL " + server.PlainUrl() + "/bind: Error: node n2 is full");
}

TEST_F(HttpExtenderTest, InterestedOnlyInPodsUsingManagedResources) {
  auto cfg = Cfg("http://127.0.0.1:1");
  EXPECT_TRUE(Make(cfg)->IsInterested(pod_));  // manages nothing: every pod
  cfg.managed_resources = {{"example.com/gpu", false}};
  auto ext = Make(cfg);
  EXPECT_FALSE(ext->IsInterested(pod_));
  EXPECT_TRUE(ext->IsInterested(MakePod("g").Req({{"example.com/gpu", "1"}}).Obj()));
  EXPECT_TRUE(ext->IsInterested(MakePod("i").InitReq({{"example.com/gpu", "1"}}).Obj()));
}

TEST_F(HttpExtenderTest, HttpsVerifiesAgainstTheConfiguredCa) {
  FakeExtenderServer server(
      [](const std::string&, const std::string&) { return Json(R"({"NodeNames":["n1"]})"); });
  auto cfg = Cfg(server.TlsUrl());
  cfg.node_cache_capable = true;
  // The system roots do not know the self-signed certificate.
  auto out = Make(cfg)->Filter(pod_, nodes_);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().find("certificate verify failed"), std::string::npos) << out.error();
  // caData trusts it.
  cfg.tls_config.emplace();
  cfg.tls_config->ca_data = server.CertificatePem();
  out = Make(cfg)->Filter(pod_, nodes_);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(Names(out->passed), std::vector<std::string>{"n1"});
  // enableHTTPS without a CA does not verify, as upstream.
  cfg.tls_config.reset();
  cfg.enable_https = true;
  out = Make(cfg)->Filter(pod_, nodes_);
  EXPECT_TRUE(out.ok()) << out.error();
}

TEST_F(HttpExtenderTest, ConfigErrorsNameTheField) {
  auto cfg = Cfg("ftp://x");
  auto e = HttpExtender::Create(cfg);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().rfind("urlPrefix: invalid server URL", 0), 0u) << e.error();
  cfg = Cfg("https://127.0.0.1:1");
  cfg.tls_config.emplace();
  cfg.tls_config->ca_file = "/nonexistent/ca.pem";
  e = HttpExtender::Create(cfg);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().rfind("tlsConfig.caFile: cannot read \"/nonexistent/ca.pem\"", 0), 0u)
      << e.error();
}

TEST(BuildExtendersTest, IgnorableLastAndIgnoredResourcesReachNodeResourcesFit) {
  config::SchedulerConfiguration cfg;
  cfg.profiles.resize(1);
  cfg.profiles[0].scheduler_name = "berth-scheduler";
  config::Extender a;
  a.url_prefix = "http://127.0.0.1:1/a";
  a.ignorable = true;
  a.managed_resources = {{"example.com/gpu", true}};
  config::Extender b;
  b.url_prefix = "http://127.0.0.1:1/b";
  cfg.extenders = {a, b};
  auto built = BuildExtenders(&cfg);
  ASSERT_TRUE(built.ok()) << built.error();
  ASSERT_EQ(built->size(), 2u);
  EXPECT_EQ((*built)[0]->Name(), "http://127.0.0.1:1/b");
  EXPECT_EQ((*built)[1]->Name(), "http://127.0.0.1:1/a");
  const api::Value* args = cfg.profiles[0].Args("NodeResourcesFit");
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(api::json::ToJson(*args), R"({"ignoredResources":["example.com/gpu"]})");

  cfg.extenders[1].url_prefix = "nope";
  built = BuildExtenders(&cfg);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.error().rfind("extenders[1].urlPrefix: ", 0), 0u) << built.error();
}

}  // namespace
}  // namespace berth::extenders
