// The live lister of `berth simulate --kubeconfig` and `berth explain --offline`: paginated
// GETs of every kind the cluster-file reader takes, optional CRDs skipped on 404, errors naming
// the kind, and a saved List that reads back to the same ClusterFile.

#include "cmd/berth/app/simulate/cluster_lister.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "api/json/parse.h"
#include "test/testing/fake_kube_client.h"

namespace berth::simulate {
namespace {

using berth::testing::FakeKubeClient;

constexpr char kEmptyList[] = R"({"metadata":{"resourceVersion":"1"},"items":[]})";

// Every kind answers an empty list except those the test scripts (the fake answers in FIFO
// order per path; an unscripted path falls through to this handler).
void AnswerEmptyByDefault(FakeKubeClient& kc, std::set<std::string> scripted) {
  kc.SetHandler([scripted](const client::Request& r) -> std::optional<Result<client::Response>> {
    const std::string path = r.path.substr(0, r.path.find('?'));
    if (scripted.count(path) > 0) return std::nullopt;
    return Result<client::Response>(client::Response{200, kEmptyList, {}});
  });
}

const ListedKind& Kind(const std::string& name) {
  for (const auto& k : ListedKinds()) {
    if (k.kind == name) return k;
  }
  static const ListedKind kNone{"?", "?", "/none", false};
  return kNone;
}

TEST(ClusterListerTest, ListsEveryKindTheFileReaderTakesReadOnly) {
  FakeKubeClient kc;
  AnswerEmptyByDefault(kc, {});
  auto live = ListCluster(kc);
  ASSERT_TRUE(live.ok()) << live.error();
  std::set<std::string> kinds;
  for (const auto& l : live->lists) kinds.insert(l.kind.kind);
  for (const char* k : {"Node",
                        "Pod",
                        "PersistentVolumeClaim",
                        "PersistentVolume",
                        "StorageClass",
                        "CSINode",
                        "CSIDriver",
                        "Service",
                        "Namespace",
                        "ReplicationController",
                        "ReplicaSet",
                        "StatefulSet",
                        "PodDisruptionBudget",
                        "PodGroup",
                        "DeviceClass",
                        "ResourceSlice",
                        "ResourceClaim",
                        "ResourceClaimTemplate",
                        "DeviceTaintRule",
                        "ReplicatedStorageClass",
                        "ReplicatedStoragePool",
                        "LVMVolumeGroup",
                        "LVMLogicalVolume",
                        "ReplicatedVolume"}) {
    EXPECT_TRUE(kinds.count(k)) << k;
  }
  // One GET per kind (all lists fit one page), no watch, no write.
  const auto requests = kc.Requests();
  EXPECT_EQ(requests.size(), ListedKinds().size());
  for (const auto& r : requests) {
    EXPECT_FALSE(r.stream) << r.request.path;
    EXPECT_EQ(r.request.method, "GET") << r.request.path;
    EXPECT_NE(r.request.path.find("?limit=500"), std::string::npos) << r.request.path;
    EXPECT_EQ(r.request.path.find("watch"), std::string::npos) << r.request.path;
  }
  EXPECT_EQ(kc.ListPaths("/api/v1/pods"), std::vector<std::string>{"/api/v1/pods?limit=500"});
  EXPECT_EQ(kc.ListPaths("/apis/storage.deckhouse.io/v1alpha1/replicatedvolumes").size(), 1u);
  EXPECT_EQ(kc.ListPaths("/apis/resource.k8s.io/v1/devicetaintrules").size(), 1u);
}

TEST(ClusterListerTest, FollowsContinueTokensEscapedAndSetsTypeMeta) {
  FakeKubeClient kc;
  kc.PushResponse("GET", "/api/v1/nodes", 200,
                  R"({"metadata":{"continue":"a+b/c="},"items":[{"metadata":{"name":"n1"}}]})");
  kc.PushResponse("GET", "/api/v1/nodes", 200,
                  R"({"metadata":{"continue":"next"},"items":[{"metadata":{"name":"n2"}}]})");
  kc.PushResponse("GET", "/api/v1/nodes", 200,
                  R"({"metadata":{},"items":[{"kind":"x","metadata":{"name":"n3"}}]})");
  ListOptions options;
  options.page_size = 1;
  bool absent = true;
  auto items = ListAll(kc, Kind("Node"), options, &absent);
  ASSERT_TRUE(items.ok()) << items.error();
  EXPECT_FALSE(absent);
  EXPECT_EQ(kc.ListPaths("/api/v1/nodes"),
            (std::vector<std::string>{"/api/v1/nodes?limit=1",
                                      "/api/v1/nodes?limit=1&continue=a%2Bb%2Fc%3D",
                                      "/api/v1/nodes?limit=1&continue=next"}));
  ASSERT_EQ(items->size(), 3u);
  for (const auto& item : *items) {
    // apiVersion and kind come first, whatever the server sent.
    ASSERT_GE(item.AsObject().size(), 3u);
    EXPECT_EQ(item.AsObject()[0].first, "apiVersion");
    EXPECT_EQ(item.AsObject()[0].second.AsString(), "v1");
    EXPECT_EQ(item.AsObject()[1].first, "kind");
    EXPECT_EQ(item.AsObject()[1].second.AsString(), "Node");
  }
}

TEST(ClusterListerTest, ExpiredContinueTokenFallsBackToOneFullList) {
  FakeKubeClient kc;
  kc.PushResponse("GET", "/api/v1/pods", 200,
                  R"({"metadata":{"continue":"t1"},"items":[{"metadata":{"name":"a"}}]})");
  kc.PushResponse("GET", "/api/v1/pods", 410, R"({"kind":"Status","code":410})");
  kc.PushResponse(
      "GET", "/api/v1/pods", 200,
      R"({"metadata":{},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})");
  auto items = ListAll(kc, Kind("Pod"), {}, nullptr);
  ASSERT_TRUE(items.ok()) << items.error();
  EXPECT_EQ(items->size(), 2u);  // the first page is not kept twice
  // As client-go's pager: the list after an expired token is a full one (no limit).
  EXPECT_EQ(kc.Paths("GET", "/api/v1/pods", false),
            (std::vector<std::string>{"/api/v1/pods?limit=500",
                                      "/api/v1/pods?limit=500&continue=t1", "/api/v1/pods"}));
}

// A server that answers 410 to every continue token gets one full list, not a loop.
TEST(ClusterListerTest, ExpiredContinueTokenAgainIsAnErrorNotALoop) {
  FakeKubeClient kc;
  kc.SetHandler([](const client::Request& r) -> std::optional<Result<client::Response>> {
    if (r.path.find("limit=") == std::string::npos ||
        r.path.find("continue=") != std::string::npos) {
      return Result<client::Response>(client::Response{
          410, R"({"kind":"Status","code":410,"message":"continue expired"})", {}});
    }
    return Result<client::Response>(client::Response{
        200, R"({"metadata":{"continue":"t1"},"items":[{"metadata":{"name":"a"}}]})", {}});
  });
  auto items = ListAll(kc, Kind("Pod"), {}, nullptr);
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.error(), "list Pod (https://fake/api/v1/pods): HTTP 410: continue expired");
  EXPECT_EQ(kc.Paths("GET", "/api/v1/pods", false),
            (std::vector<std::string>{"/api/v1/pods?limit=500",
                                      "/api/v1/pods?limit=500&continue=t1", "/api/v1/pods"}));
}

// A server that hands back a continue token it gave before would be followed forever.
TEST(ClusterListerTest, RepeatedContinueTokenIsAnError) {
  FakeKubeClient kc;
  kc.PushResponse("GET", "/api/v1/pods", 200,
                  R"({"metadata":{"continue":"t1"},"items":[{"metadata":{"name":"a"}}]})");
  kc.PushResponse("GET", "/api/v1/pods", 200,
                  R"({"metadata":{"continue":"t2"},"items":[{"metadata":{"name":"b"}}]})");
  kc.PushResponse("GET", "/api/v1/pods", 200,
                  R"({"metadata":{"continue":"t1"},"items":[{"metadata":{"name":"c"}}]})",
                  /*sticky=*/true);
  auto items = ListAll(kc, Kind("Pod"), {}, nullptr);
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.error(),
            "list Pod (https://fake/api/v1/pods): the server repeated continue token \"t1\" "
            "(page 3)");
  EXPECT_EQ(kc.ListPaths("/api/v1/pods").size(), 3u);
}

// Fresh tokens forever: the item and page bounds end the list.
TEST(ClusterListerTest, EndlessListIsBoundedByItemsAndPages) {
  FakeKubeClient kc;
  int page = 0;
  std::string items_json;
  kc.SetHandler([&](const client::Request&) -> std::optional<Result<client::Response>> {
    ++page;
    return Result<client::Response>(client::Response{200,
                                                     R"({"metadata":{"continue":"t)" +
                                                         std::to_string(page) + R"("},"items":[)" +
                                                         items_json + "]}",
                                                     {}});
  });
  ListOptions options;
  options.bounds.max_items = 5;
  options.bounds.max_pages = 4;
  items_json = R"({"metadata":{"name":"a"}},{"metadata":{"name":"b"}})";
  auto by_items = ListAll(kc, Kind("Node"), options, nullptr);
  ASSERT_FALSE(by_items.ok());
  EXPECT_EQ(
      by_items.error(),
      "list Node (https://fake/api/v1/nodes): more than 5 items in one list (page 3); stopping");
  items_json = "";
  auto by_pages = ListAll(kc, Kind("Node"), options, nullptr);
  ASSERT_FALSE(by_pages.ok());
  EXPECT_EQ(by_pages.error(),
            "list Node (https://fake/api/v1/nodes): more than 4 pages in one list; stopping");
  EXPECT_EQ(page, 7);
  // The defaults are generous: a million items, 100,000 pages.
  EXPECT_EQ(ListOptions{}.bounds.max_items, 1000000);
  EXPECT_EQ(ListOptions{}.bounds.max_pages, 100000);
}

TEST(ClusterListerTest, AbsentOptionalCrdIsSkippedButACoreKindIsAnError) {
  FakeKubeClient kc;
  const std::string podgroups = Kind("PodGroup").path;
  const std::string csinodes = Kind("CSINode").path;
  kc.PushResponse("GET", podgroups, 404, R"({"kind":"Status","code":404})");
  bool absent = false;
  auto items = ListAll(kc, Kind("PodGroup"), {}, &absent);
  ASSERT_TRUE(items.ok()) << items.error();
  EXPECT_TRUE(absent);
  EXPECT_TRUE(items->empty());

  kc.PushResponse("GET", csinodes, 404, R"({"kind":"Status","code":404})");
  auto core = ListAll(kc, Kind("CSINode"), {}, nullptr);
  ASSERT_FALSE(core.ok());
  EXPECT_EQ(core.error(),
            "list CSINode (https://fake/apis/storage.k8s.io/v1/csinodes): the server does not "
            "serve this resource (404)");

  // The whole listing goes on past an absent CRD.
  FakeKubeClient all;
  AnswerEmptyByDefault(all, {podgroups});
  all.PushResponse("GET", podgroups, 404, R"({"kind":"Status","code":404})");
  auto live = ListCluster(all);
  ASSERT_TRUE(live.ok()) << live.error();
  for (const auto& l : live->lists) EXPECT_EQ(l.absent, l.kind.path == podgroups) << l.kind.kind;
}

TEST(ClusterListerTest, ForbiddenAndConnectionErrorsNameTheKind) {
  FakeKubeClient kc;
  kc.PushResponse(
      "GET", "/api/v1/services", 403,
      R"({"kind":"Status","code":403,"message":"services is forbidden: User \"bob\" cannot list resource \"services\""})");
  auto r = ListAll(kc, Kind("Service"), {}, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "list Service (https://fake/api/v1/services): HTTP 403: services is forbidden: User "
            "\"bob\" cannot list resource \"services\"");
  kc.PushError("GET", "/api/v1/nodes", "GET https://fake/api/v1/nodes: connection refused");
  auto c = ListAll(kc, Kind("Node"), {}, nullptr);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error(),
            "list Node (https://fake/api/v1/nodes): GET https://fake/api/v1/nodes: connection "
            "refused");
}

TEST(ClusterListerTest, SavedListReadsBackToTheSameCluster) {
  FakeKubeClient kc;
  AnswerEmptyByDefault(kc, {"/api/v1/nodes", "/api/v1/pods"});
  kc.PushResponse("GET", "/api/v1/nodes", 200,
                  R"({"items":[{"metadata":{"name":"n1","labels":{"zone":"a"}},
                      "status":{"allocatable":{"cpu":"2","pods":"10"}}}]})");
  kc.PushResponse("GET", "/api/v1/pods", 200,
                  R"({"items":[{"metadata":{"name":"p","namespace":"shop","uid":"u1",
                      "creationTimestamp":"2026-01-02T03:04:05Z"},
                      "spec":{"schedulerName":"berth-scheduler","containers":[{"name":"c",
                      "resources":{"requests":{"cpu":"500m"}}}]}}]})");
  auto live = ListCluster(kc);
  ASSERT_TRUE(live.ok()) << live.error();
  auto direct = ToClusterFile(*live);
  ASSERT_TRUE(direct.ok()) << direct.error();
  const std::string doc = ToListDocument(*live);
  auto parsed = api::json::ParseJson(doc);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->Find("kind")->AsString(), "List");
  auto reread = ParseClusterFile(doc, "saved.json");
  ASSERT_TRUE(reread.ok()) << reread.error();
  ASSERT_EQ(direct->nodes.size(), 1u);
  ASSERT_EQ(reread->nodes.size(), 1u);
  ASSERT_EQ(reread->pods.size(), 1u);
  EXPECT_EQ(reread->pods[0]->metadata.uid, direct->pods[0]->metadata.uid);
  EXPECT_EQ(reread->pods[0]->spec.containers[0].resources.requests,
            direct->pods[0]->spec.containers[0].resources.requests);
  EXPECT_EQ(reread->nodes[0]->metadata.labels, direct->nodes[0]->metadata.labels);
  EXPECT_TRUE(reread->warnings.empty());

  const std::string path = ::testing::TempDir() + "/cluster_lister_saved.json";
  ASSERT_TRUE(SaveClusterFile(*live, path).ok());
  auto loaded = LoadClusterFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->pods.size(), 1u);
  auto bad = SaveClusterFile(*live, "/nonexistent-dir/x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind("/nonexistent-dir/x.json: cannot write: ", 0), 0u) << bad.error();
}

TEST(ClusterListerTest, BadObjectErrorNamesTheUrlTheObjectAndTheField) {
  FakeKubeClient kc;
  AnswerEmptyByDefault(kc, {"/api/v1/pods"});
  kc.PushResponse("GET", "/api/v1/pods", 200,
                  R"({"items":[{"metadata":{"name":"web-1","namespace":"default"},
                      "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1.5.3"}}}]}}]})");
  auto live = ListCluster(kc);
  ASSERT_TRUE(live.ok()) << live.error();
  auto c = ToClusterFile(*live);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error(),
            "https://fake/api/v1/pods: Pod default/web-1: "
            "spec.containers[0].resources.requests.cpu: invalid quantity \"1.5.3\"");
}

}  // namespace
}  // namespace berth::simulate
