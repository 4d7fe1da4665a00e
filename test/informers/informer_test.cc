#include "informers/informer.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "test/testing/fake_kube_client.h"

namespace berth::informers {
namespace {

using std::chrono::milliseconds;
using testing::FakeKubeClient;
using testing::WaitFor;
using Script = FakeKubeClient::WatchScript;

std::string Meta(const std::string& name, const std::string& ns, const std::string& rv) {
  std::string out = R"("metadata":{"name":")" + name + "\"";
  if (!ns.empty()) out += R"(,"namespace":")" + ns + "\"";
  return out + R"(,"resourceVersion":")" + rv + "\"}";
}

std::string List(const std::string& rv, const std::vector<std::string>& items) {
  std::string out = R"({"metadata":{"resourceVersion":")" + rv + R"("},"items":[)";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]}";
}

std::string Event(const std::string& type, const std::string& object) {
  return R"({"type":")" + type + R"(","object":)" + object + "}";
}

ReflectorOptions Quiet() {
  ReflectorOptions o;
  o.initial_backoff = milliseconds(10);
  o.max_backoff = milliseconds(50);
  o.absent_poll_interval = milliseconds(20);
  o.log = [](std::string_view l) {
    if (getenv("INF_LOG")) LogToStderr(l);
  };
  return o;
}

TEST(InformerTest, StoreIsUpdatedBeforeHandlersRunInOrder) {
  FakeKubeClient kc;
  kc.PushResponse("GET", "/api/v1/nodes", 200, List("5", {"{" + Meta("n1", "", "1") + "}"}));
  kc.PushWatch("/api/v1/nodes",
               Script::Hang({Event("MODIFIED", "{" + Meta("n1", "", "6") +
                                                   R"(,"spec":{"unschedulable":true}})"),
                             Event("ADDED", "{" + Meta("n2", "", "7") + "}"),
                             Event("DELETED", "{" + Meta("n1", "", "8") + "}")}));
  ReflectorOptions o = Quiet();
  o.kind = "Node";
  o.list_path = "/api/v1/nodes";
  Informer<api::Node> informer(kc, o, api::DecodeNode);
  std::mutex mu;
  std::vector<std::string> seen;
  auto record = [&](std::string s) {
    std::lock_guard lock(mu);
    seen.push_back(std::move(s));
  };
  informer.AddEventHandlers({
      .on_add =
          [&](const auto& n) {
            // The store already holds the object the handler hears about.
            EXPECT_EQ(informer.store().Get(n->metadata.name), n);
            record("add " + n->metadata.name);
          },
      .on_update =
          [&](const auto& o, const auto& n) {
            EXPECT_FALSE(o->spec.unschedulable);
            EXPECT_TRUE(n->spec.unschedulable);
            EXPECT_EQ(informer.store().Get(n->metadata.name), n);
            record("update " + n->metadata.name);
          },
      .on_delete =
          [&](const auto& n) {
            EXPECT_EQ(informer.store().Get(n->metadata.name), nullptr);
            // The last known state, decoded from the DELETED event.
            EXPECT_EQ(n->metadata.resource_version, "8");
            record("delete " + n->metadata.name);
          },
  });
  EventHandlers<api::Node> second;
  second.on_add = [&](const auto& n) { record("second " + n->metadata.name); };
  informer.AddEventHandlers(second);
  informer.Start();
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard lock(mu);
    return seen.size() == 6;
  }));
  EXPECT_EQ(seen, (std::vector<std::string>{"add n1", "second n1", "update n1", "add n2",
                                            "second n2", "delete n1"}));
  EXPECT_TRUE(informer.HasSynced());
  EXPECT_EQ(informer.store().Size(), 1u);
  EXPECT_NE(informer.store().Get("n2"), nullptr);
  informer.Stop();
}

constexpr const char* kPaths[] = {
    "/api/v1/pods",
    "/api/v1/nodes",
    "/api/v1/persistentvolumeclaims",
    "/api/v1/persistentvolumes",
    "/apis/storage.k8s.io/v1/storageclasses",
    "/apis/storage.k8s.io/v1/csinodes",
    "/apis/storage.k8s.io/v1/csidrivers",
    "/api/v1/namespaces",
    "/api/v1/services",
    "/api/v1/replicationcontrollers",
    "/apis/apps/v1/replicasets",
    "/apis/apps/v1/statefulsets",
    "/apis/policy/v1/poddisruptionbudgets",
    "/apis/resource.k8s.io/v1/deviceclasses",
    "/apis/resource.k8s.io/v1/resourceslices",
    "/apis/resource.k8s.io/v1/resourceclaims",
    "/apis/resource.k8s.io/v1/resourceclaimtemplates",
    "/apis/resource.k8s.io/v1/devicetaintrules",
};
constexpr char kPodGroups[] = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups";
// Optional like PodGroups: the storage.deckhouse.io CRDs of the ReplicatedStorage plugin.
constexpr const char* kReplicatedStoragePaths[] = {
    "/apis/storage.deckhouse.io/v1alpha1/replicatedstorageclasses",
    "/apis/storage.deckhouse.io/v1alpha1/replicatedstoragepools",
    "/apis/storage.deckhouse.io/v1alpha1/lvmvolumegroups",
    "/apis/storage.deckhouse.io/v1alpha1/lvmlogicalvolumes",
    "/apis/storage.deckhouse.io/v1alpha1/replicatedvolumes",
};
void ReplicatedStorageAbsent(FakeKubeClient& kc) {
  for (const char* path : kReplicatedStoragePaths) {
    kc.PushResponse("GET", path, 404, R"({"message":"not found"})", /*sticky=*/true);
  }
}

TEST(InformerFactoryTest, FillsClusterObjectsAndSyncsWithoutPodGroupCRD) {
  FakeKubeClient kc;
  for (const char* path : kPaths) kc.PushResponse("GET", path, 200, List("1", {}));
  kc.PushResponse("GET", kPodGroups, 404, R"({"message":"not found"})", /*sticky=*/true);
  ReplicatedStorageAbsent(kc);
  kc.PushResponse("GET", "/api/v1/pods", 200, List("1", {"{" + Meta("p1", "default", "1") + "}"}));
  // Pods: a re-list is queued second; the first list above wins.
  api::ClusterObjects objects;
  InformerFactory factory(kc, objects, Quiet());
  std::atomic<int> pod_adds{0};
  EventHandlers<api::Pod> count;
  count.on_add = [&](const auto&) { ++pod_adds; };
  factory.pods().AddEventHandlers(count);
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(milliseconds(5000)).ok());
  EXPECT_TRUE(factory.HasSynced());
  EXPECT_TRUE(factory.Unsynced().empty());
  kc.PushWatch("/api/v1/pods", Script::Hang({Event("ADDED", "{" + Meta("p2", "ns", "3") + "}")}));
  kc.PushWatch("/api/v1/services",
               Script::Hang({Event("ADDED", "{" + Meta("s", "ns", "4") + "}")}));
  kc.PushWatch("/api/v1/namespaces",
               Script::Hang({Event("ADDED", "{" + Meta("ns", "", "5") + "}")}));
  ASSERT_TRUE(WaitFor([&] {
    return objects.pods.Get("ns", "p2") != nullptr && objects.services.Size() == 1 &&
           objects.namespaces.Get("ns") != nullptr;
  }));
  EXPECT_EQ(pod_adds.load(), 1);
  EXPECT_TRUE(objects.pod_groups.List().empty());
  bool pod_groups_absent = false;
  for (const auto& [kind, stats] : factory.Stats()) {
    if (kind == "PodGroup") pod_groups_absent = stats.absent;
  }
  EXPECT_TRUE(pod_groups_absent);
  EXPECT_EQ(factory.Stats().size(), 24u);  // 19 kinds + 5 storage.deckhouse.io kinds

  // The PodGroup CRD gets installed.
  kc.PushResponse("GET", kPodGroups, 200,
                  List("9", {R"({"metadata":{"name":"g","namespace":"ns","resourceVersion":"9"},)"
                             R"("spec":{"minMember":3}})"}));
  ASSERT_TRUE(WaitFor([&] { return objects.pod_groups.Size() == 1; }));
  EXPECT_EQ(objects.pod_groups.Get("ns", "g")->spec.min_member, 3);

  auto start = std::chrono::steady_clock::now();
  factory.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(1000));
}

TEST(InformerFactoryTest, WaitForCacheSyncNamesTheKindsThatDidNotSync) {
  FakeKubeClient kc;
  for (const char* path : kPaths) {
    if (std::string(path) != "/api/v1/nodes") kc.PushResponse("GET", path, 200, List("1", {}));
  }
  kc.PushResponse("GET", kPodGroups, 200, List("1", {}));
  ReplicatedStorageAbsent(kc);
  kc.PushResponse("GET", "/api/v1/nodes", 403, R"({"message":"forbidden"})", /*sticky=*/true);
  api::ClusterObjects objects;
  InformerFactory factory(kc, objects, Quiet());
  factory.Start();
  Ok synced = factory.WaitForCacheSync(milliseconds(300));
  ASSERT_FALSE(synced.ok());
  EXPECT_EQ(synced.error(), "timed out after 300ms waiting for caches to sync: Node");
  factory.Stop();
}

TEST(InformerFactoryTest, RunsOnlyTheKindsAskedForBesidesPodsAndNodes) {
  FakeKubeClient kc;
  for (const char* path : kPaths) kc.PushResponse("GET", path, 200, List("1", {}));
  kc.PushResponse("GET", kPodGroups, 200, List("1", {}));
  api::ClusterObjects objects;
  InformerFactory factory(kc, objects, Quiet(), std::set<std::string>{"PodGroup", "Service"});
  EXPECT_EQ(factory.Kinds(), (std::vector<std::string>{"Pod", "Node", "Service", "PodGroup"}));
  EXPECT_NE(factory.Find<api::PodGroup>(), nullptr);
  EXPECT_EQ(factory.Find<api::ReplicatedVolume>(), nullptr);
  EXPECT_EQ(factory.Find<api::PersistentVolumeClaim>(), nullptr);
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(milliseconds(5000)).ok());
  factory.Stop();
  for (const auto& r : kc.Requests()) {
    EXPECT_EQ(r.request.path.find("storage.deckhouse.io"), std::string::npos) << r.request.path;
    EXPECT_EQ(r.request.path.find("persistentvolume"), std::string::npos) << r.request.path;
  }
}

// DynamicResources' kinds: cluster-scoped classes and slices keyed by name, claims and templates
// by namespace/name.
TEST(InformerFactoryTest, ResourceKindsFillTheirStores) {
  FakeKubeClient kc;
  kc.PushResponse("GET", "/api/v1/pods", 200, List("1", {}));
  kc.PushResponse("GET", "/api/v1/nodes", 200, List("1", {}));
  const std::string r = "/apis/resource.k8s.io/v1/";
  kc.PushResponse("GET", r + "deviceclasses", 200,
                  List("2", {R"({"metadata":{"name":"gpu","resourceVersion":"2"},)"
                             R"("spec":{"selectors":[{"cel":{"expression":"true"}}]}})"}));
  kc.PushResponse("GET", r + "resourceslices", 200,
                  List("2", {R"({"metadata":{"name":"s","resourceVersion":"2"},"spec":{)"
                             R"("driver":"d","nodeName":"n1","pool":{"name":"n1","generation":1,)"
                             R"("resourceSliceCount":1},"devices":[{"name":"x"}]}})"}));
  kc.PushResponse("GET", r + "resourceclaims", 200,
                  List("2", {"{" + Meta("c", "ns", "2") +
                             R"(,"spec":{"devices":{"requests":[{"name":"r",)"
                             R"("exactly":{"deviceClassName":"gpu"}}]}}})"}));
  kc.PushResponse("GET", r + "resourceclaimtemplates", 200,
                  List("2", {"{" + Meta("t", "ns", "2") + "}"}));
  api::ClusterObjects objects;
  InformerFactory factory(kc, objects, Quiet(),
                          std::set<std::string>{"DeviceClass", "ResourceSlice", "ResourceClaim",
                                                "ResourceClaimTemplate"});
  EXPECT_EQ(factory.Kinds(),
            (std::vector<std::string>{"Pod", "Node", "DeviceClass", "ResourceSlice",
                                      "ResourceClaim", "ResourceClaimTemplate"}));
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(milliseconds(5000)).ok());
  ASSERT_NE(objects.device_classes.Get("gpu"), nullptr);
  EXPECT_EQ(objects.device_classes.Get("gpu")->spec.selectors[0].cel_expression, "true");
  ASSERT_NE(objects.resource_slices.Get("s"), nullptr);
  EXPECT_EQ(objects.resource_slices.Get("s")->spec.devices[0].name, "x");
  ASSERT_NE(objects.resource_claims.Get("ns", "c"), nullptr);
  EXPECT_EQ(objects.resource_claims.Get("ns", "c")->spec.devices.requests[0].exactly->count, 1);
  EXPECT_NE(objects.resource_claim_templates.Get("ns", "t"), nullptr);
  factory.Stop();
}

}  // namespace
}  // namespace berth::informers
