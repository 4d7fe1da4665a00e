// resource.k8s.io/v1 against a real kube-apiserver + etcd (test/cluster/up): the informers sync
// DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates and DeviceTaintRules into
// the stores with their fields decoded, and KubeApiWriter::UpdateResourceClaimStatus writes a
// claim's allocation and reservations — as a user holding only the chart's DynamicResources rules —
// keeps the driver's status.devices intact, and reports a stale resourceVersion as kConflict. When
// the cluster cannot start, the test fails with the script's output.

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/decode.h"
#include "api/json/parse.h"
#include "informers/client/beast_client.h"
#include "informers/client/config.h"
#include "informers/informer.h"
#include "informers/writers/kube_writer.h"
#include "test/testing/fake_kube_client.h"  // WaitFor

namespace berth::informers {
namespace {

using std::chrono::milliseconds;
using testing::WaitFor;

std::pair<int, std::string> Shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Sends every request as `user` (the admin token may impersonate): RBAC then decides with that
// user's roles alone.
class Impersonating final : public client::KubeClient {
 public:
  Impersonating(client::KubeClient& inner, std::string user)
      : inner_(inner), user_(std::move(user)) {}
  Result<client::Response> Do(const client::Request& req) override {
    client::Request r = req;
    r.headers["Impersonate-User"] = user_;
    return inner_.Do(r);
  }
  Result<int> Stream(const client::Request& req,
                     const std::function<bool(std::string_view)>& on_line,
                     const std::atomic<bool>* stop, std::string* error_body) override {
    client::Request r = req;
    r.headers["Impersonate-User"] = user_;
    return inner_.Stream(r, on_line, stop, error_body);
  }
  std::string Server() const override { return inner_.Server(); }

 private:
  client::KubeClient& inner_;
  const std::string user_;
};

class ResourceClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/berth-resource-it-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto [rc, out] = Shell(Script("up") + " " + dir_);
    ASSERT_EQ(rc, 0) << "test/cluster/up failed (needs Go to build kube-apiserver and etcd, "
                        "openssl, curl, kubectl):\n"
                     << out;
    auto cfg = client::LoadKubeconfig(dir_ + "/kubeconfig");
    ASSERT_TRUE(cfg.ok()) << cfg.error();
    config_ = *cfg;
    client_ = client::NewBeastClient(config_, 100, 200);
  }
  void TearDown() override {
    if (!dir_.empty()) {
      Shell(Script("down") + " " + dir_);
      Shell("rm -rf " + dir_);
    }
  }
  static std::string Script(const std::string& name) {
    return std::string(BERTH_SOURCE_DIR) + "/test/cluster/" + name;
  }
  client::Response Call(const std::string& method, const std::string& path,
                        const std::string& body = "",
                        const std::string& content_type = "application/json") {
    client::Request req;
    req.method = method;
    req.path = path;
    req.body = body;
    req.content_type = content_type;
    auto r = client_->Do(req);
    EXPECT_TRUE(r.ok()) << method << " " << path << ": " << (r.ok() ? "" : r.error());
    return r.ok() ? *r : client::Response{};
  }
  void Create(const std::string& path, const std::string& body) {
    auto r = Call("POST", path, body);
    ASSERT_EQ(r.status, 201) << path << ": " << r.body;
  }
  // A ClusterRole with `rules` bound to user `user`.
  void GrantUser(const std::string& user, const std::string& rules) {
    Create("/apis/rbac.authorization.k8s.io/v1/clusterroles",
           R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",)"
           R"("metadata":{"name":")" +
               user + R"("},"rules":)" + rules + "}");
    Create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
           R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",)"
           R"("metadata":{"name":")" +
               user +
               R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",)"
               R"("name":")" +
               user +
               R"("},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User",)"
               R"("name":")" +
               user + R"("}]})");
  }

  std::string dir_;
  client::ClientConfig config_;
  std::unique_ptr<client::KubeClient> client_;
};

// charts/berth/templates/clusterrole.yaml's DynamicResources rules, plus what the factory's
// always-on Pod and Node informers need.
constexpr const char* kChartRules = R"([
  {"apiGroups":[""],"resources":["pods","nodes"],"verbs":["get","list","watch"]},
  {"apiGroups":["resource.k8s.io"],
   "resources":["deviceclasses","resourceslices","resourceclaims","resourceclaimtemplates",
                "devicetaintrules"],
   "verbs":["get","list","watch"]},
  {"apiGroups":["resource.k8s.io"],"resources":["resourceclaims/status","resourceclaims/binding"],
   "verbs":["update","patch"]}])";

// The same without the synthetic resourceclaims/binding subresource.
constexpr const char* kStatusOnlyRules = R"([
  {"apiGroups":["resource.k8s.io"],"resources":["resourceclaims"],"verbs":["get"]},
  {"apiGroups":["resource.k8s.io"],"resources":["resourceclaims/status"],
   "verbs":["update","patch"]}])";

constexpr const char* kDeviceClass = R"({
  "apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
  "metadata":{"name":"gpu.example.com"},
  "spec":{"selectors":[{"cel":{"expression":"device.driver == 'gpu.example.com'"}}],
          "config":[{"opaque":{"driver":"gpu.example.com","parameters":{"mode":"shared"}}}],
          "extendedResourceName":"example.com/gpu"}})";

constexpr const char* kResourceSlice = R"({
  "apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
  "metadata":{"name":"node-1-gpus"},
  "spec":{"driver":"gpu.example.com","nodeName":"node-1",
          "pool":{"name":"node-1","generation":1,"resourceSliceCount":1},
          "devices":[
            {"name":"gpu-0",
             "attributes":{"model":{"string":"A100"},"index":{"int":0},
                           "driverVersion":{"version":"1.2.3"},"healthy":{"bool":true}},
             "capacity":{"memory":{"value":"40Gi"}},
             "taints":[{"key":"example.com/maintenance","value":"soon","effect":"NoSchedule"}]},
            {"name":"gpu-1","attributes":{"model":{"string":"A100"}}}]}})";

constexpr const char* kDeviceTaintRule = R"({
  "apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule",
  "metadata":{"name":"gpu-1-maintenance"},
  "spec":{"deviceSelector":{"driver":"gpu.example.com","pool":"node-1","device":"gpu-1"},
          "taint":{"key":"example.com/maintenance","value":"now","effect":"None"}}})";

constexpr const char* kResourceClaim = R"({
  "apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
  "metadata":{"name":"train","namespace":"default"},
  "spec":{"devices":{
    "requests":[
      {"name":"gpu","exactly":{"deviceClassName":"gpu.example.com",
        "selectors":[{"cel":{"expression":"device.attributes['gpu.example.com'].model == 'A100'"}}],
        "tolerations":[{"key":"example.com/maintenance","operator":"Exists","effect":"NoSchedule"}]}},
      {"name":"any","firstAvailable":[
        {"name":"two","deviceClassName":"gpu.example.com","count":2},
        {"name":"one","deviceClassName":"gpu.example.com"}]}],
    "constraints":[{"requests":["gpu","any"],"matchAttribute":"gpu.example.com/model"}]}}})";

constexpr const char* kResourceClaimTemplate = R"({
  "apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",
  "metadata":{"name":"one-gpu","namespace":"default"},
  "spec":{"metadata":{"labels":{"app":"trainer"}},
          "spec":{"devices":{"requests":[
            {"name":"gpu","exactly":{"deviceClassName":"gpu.example.com",
                                     "allocationMode":"All"}}]}}}})";

TEST_F(ResourceClusterTest, InformersSyncAndWriterUpdatesClaimStatus) {
  GrantUser("berth-dra", kChartRules);
  GrantUser("berth-status-only", kStatusOnlyRules);
  auto base = client::NewBeastClient(config_, 100, 200);
  Impersonating as_berth(*base, "berth-dra");

  api::ClusterObjects objects;
  InformerFactory factory(as_berth, objects, {},
                          std::set<std::string>{"DeviceClass", "ResourceSlice", "ResourceClaim",
                                                "ResourceClaimTemplate", "DeviceTaintRule"});
  EXPECT_EQ(factory.Kinds(), (std::vector<std::string>{
                                 "Pod", "Node", "DeviceClass", "ResourceSlice", "ResourceClaim",
                                 "ResourceClaimTemplate", "DeviceTaintRule"}));
  factory.Start();
  Ok synced = factory.WaitForCacheSync(milliseconds(30000));
  ASSERT_TRUE(synced.ok()) << synced.error();

  Create("/apis/resource.k8s.io/v1/deviceclasses", kDeviceClass);
  Create("/apis/resource.k8s.io/v1/resourceslices", kResourceSlice);
  Create("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", kResourceClaim);
  Create("/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates",
         kResourceClaimTemplate);
  Create("/apis/resource.k8s.io/v1/devicetaintrules", kDeviceTaintRule);
  ASSERT_TRUE(WaitFor(
      [&] {
        return objects.device_classes.Size() == 1 && objects.resource_slices.Size() == 1 &&
               objects.resource_claims.Size() == 1 &&
               objects.resource_claim_templates.Size() == 1 &&
               objects.device_taint_rules.Size() == 1;
      },
      milliseconds(20000)));
  auto rule = objects.device_taint_rules.Get("gpu-1-maintenance");
  ASSERT_NE(rule, nullptr);
  ASSERT_TRUE(rule->spec.device_selector.has_value());
  EXPECT_EQ(rule->spec.device_selector->device, "gpu-1");
  EXPECT_EQ(rule->spec.taint.effect, "None");
  EXPECT_TRUE(rule->spec.taint.time_added.has_value());  // set by the API server

  auto dc = objects.device_classes.Get("gpu.example.com");
  ASSERT_NE(dc, nullptr);
  ASSERT_EQ(dc->spec.selectors.size(), 1u);
  EXPECT_EQ(dc->spec.selectors[0].cel_expression, "device.driver == 'gpu.example.com'");
  ASSERT_EQ(dc->spec.config.size(), 1u);
  EXPECT_EQ(api::json::ToJson(dc->spec.config[0].opaque->parameters), R"({"mode":"shared"})");
  EXPECT_EQ(dc->spec.extended_resource_name, "example.com/gpu");

  auto slice = objects.resource_slices.Get("node-1-gpus");
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->spec.driver, "gpu.example.com");
  EXPECT_EQ(slice->spec.node_name, "node-1");
  EXPECT_EQ(slice->spec.pool.name, "node-1");
  EXPECT_EQ(slice->spec.pool.generation, 1);
  EXPECT_EQ(slice->spec.pool.resource_slice_count, 1);
  ASSERT_EQ(slice->spec.devices.size(), 2u);
  const api::Device& gpu0 = slice->spec.devices[0];
  EXPECT_EQ(gpu0.attributes.at("model").string_value, "A100");
  EXPECT_EQ(gpu0.attributes.at("index").int_value, 0);
  EXPECT_EQ(gpu0.attributes.at("driverVersion").version_value, "1.2.3");
  EXPECT_EQ(gpu0.attributes.at("healthy").bool_value, true);
  EXPECT_EQ(gpu0.capacity.at("memory").value, api::Quantity::FromValue(int64_t{40} << 30));
  ASSERT_EQ(gpu0.taints.size(), 1u);
  EXPECT_EQ(gpu0.taints[0].effect, "NoSchedule");
  EXPECT_TRUE(gpu0.taints[0].time_added.has_value());  // set by the API server

  auto claim = objects.resource_claims.Get("default", "train");
  ASSERT_NE(claim, nullptr);
  EXPECT_FALSE(claim->metadata.uid.empty());
  const auto& requests = claim->spec.devices.requests;
  ASSERT_EQ(requests.size(), 2u);
  ASSERT_TRUE(requests[0].exactly.has_value());
  EXPECT_EQ(requests[0].exactly->device_class_name, "gpu.example.com");
  EXPECT_EQ(requests[0].exactly->allocation_mode, "ExactCount");  // defaulted by the server
  EXPECT_EQ(requests[0].exactly->count, 1);
  ASSERT_EQ(requests[0].exactly->tolerations.size(), 1u);
  EXPECT_EQ(requests[0].exactly->tolerations[0].operator_, "Exists");
  ASSERT_EQ(requests[1].first_available.size(), 2u);
  EXPECT_EQ(requests[1].first_available[0].count, 2);
  EXPECT_EQ(requests[1].first_available[1].count, 1);
  ASSERT_EQ(claim->spec.devices.constraints.size(), 1u);
  EXPECT_EQ(claim->spec.devices.constraints[0].match_attribute, "gpu.example.com/model");
  EXPECT_FALSE(claim->status.allocation.has_value());

  auto tmpl = objects.resource_claim_templates.Get("default", "one-gpu");
  ASSERT_NE(tmpl, nullptr);
  EXPECT_EQ(tmpl->spec.metadata.labels.at("app"), "trainer");
  ASSERT_EQ(tmpl->spec.spec.devices.requests.size(), 1u);
  EXPECT_EQ(tmpl->spec.spec.devices.requests[0].exactly->allocation_mode, "All");
  EXPECT_EQ(tmpl->spec.spec.devices.requests[0].exactly->count, 0);

  // PreBind's write: allocate gpu-0 for "gpu" and gpu-1 for "any/one", on node-1, reserved for
  // pod-1 — as the user holding the chart's rules.
  writers::KubeApiWriter writer(as_berth);
  api::ResourceClaim update = *claim;
  api::AllocationResult allocation;
  for (auto [request, device] : {std::pair{"gpu", "gpu-0"}, std::pair{"any/one", "gpu-1"}}) {
    api::DeviceRequestAllocationResult r;
    r.request = request;
    r.driver = "gpu.example.com";
    r.pool = "node-1";
    r.device = device;
    if (std::string(request) == "gpu") r.tolerations = requests[0].exactly->tolerations;
    allocation.devices.results.push_back(r);
  }
  api::DeviceAllocationConfiguration config;
  config.source = api::kAllocationConfigSourceClass;
  config.opaque = dc->spec.config[0].opaque;
  allocation.devices.config.push_back(config);
  api::NodeSelectorTerm term;
  term.match_fields.push_back({"metadata.name", api::SelectorOperator::kIn, {"node-1"}});
  allocation.node_selector = api::NodeSelector{{term}};
  allocation.allocation_timestamp = api::Time{int64_t{1772600767} * 1000000 + 123456};
  update.status.allocation = allocation;
  update.status.reserved_for.push_back({"", "pods", "pod-1", "uid-pod-1"});

  // Without resourceclaims/binding the API server refuses the change of allocation.
  Impersonating status_only(*base, "berth-status-only");
  writers::KubeApiWriter weak_writer(status_only);
  auto refused = weak_writer.UpdateResourceClaimStatus(update);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.code(), ErrorCode::kInvalid) << refused.error();
  EXPECT_NE(refused.error().find("resourceclaims/binding"), std::string::npos) << refused.error();

  auto stored = writer.UpdateResourceClaimStatus(update);
  ASSERT_TRUE(stored.ok()) << stored.error();
  EXPECT_NE(stored->metadata.resource_version, claim->metadata.resource_version);
  ASSERT_TRUE(stored->status.allocation.has_value());
  EXPECT_EQ(stored->status.allocation->devices.results.size(), 2u);
  ASSERT_EQ(stored->status.reserved_for.size(), 1u);
  EXPECT_EQ(stored->status.reserved_for[0].uid, "uid-pod-1");
  EXPECT_EQ(stored->spec.devices.requests.size(), 2u);  // the spec is the server's, untouched

  // A second write from the stale object is a conflict naming the claim.
  auto stale = writer.UpdateResourceClaimStatus(update);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.code(), ErrorCode::kConflict) << stale.error();
  EXPECT_NE(stale.error().find("resourceclaims default/train/status: HTTP 409"), std::string::npos)
      << stale.error();
  api::ResourceClaim missing = update;
  missing.metadata.name = "nope";
  missing.metadata.uid.clear();
  auto gone = writer.UpdateResourceClaimStatus(missing);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.code(), ErrorCode::kNotFound) << gone.error();

  // Read back, through the API and the informer.
  auto read = Call("GET", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/train");
  ASSERT_EQ(read.status, 200) << read.body;
  auto read_claim = api::DecodeResourceClaim(*api::json::ParseJson(read.body));
  ASSERT_TRUE(read_claim.ok()) << read_claim.error();
  ASSERT_TRUE(read_claim->status.allocation.has_value());
  const api::AllocationResult& a = *read_claim->status.allocation;
  ASSERT_EQ(a.devices.results.size(), 2u);
  EXPECT_EQ(a.devices.results[0].request, "gpu");
  EXPECT_EQ(a.devices.results[0].device, "gpu-0");
  ASSERT_EQ(a.devices.results[0].tolerations.size(), 1u);
  EXPECT_EQ(a.devices.results[0].tolerations[0].key, "example.com/maintenance");
  EXPECT_EQ(a.devices.results[1].request, "any/one");
  EXPECT_EQ(a.devices.results[1].device, "gpu-1");
  ASSERT_EQ(a.devices.config.size(), 1u);
  EXPECT_EQ(a.devices.config[0].source, "FromClass");
  EXPECT_EQ(api::json::ToJson(a.devices.config[0].opaque->parameters), R"({"mode":"shared"})");
  ASSERT_TRUE(a.node_selector.has_value());
  EXPECT_EQ(a.node_selector->terms[0].match_fields[0].values, std::vector<std::string>{"node-1"});
  ASSERT_TRUE(a.allocation_timestamp.has_value());
  EXPECT_EQ(a.allocation_timestamp->unix_micros, int64_t{1772600767} * 1000000);
  ASSERT_EQ(read_claim->status.reserved_for.size(), 1u);
  EXPECT_EQ(read_claim->status.reserved_for[0].resource, "pods");
  EXPECT_EQ(read_claim->status.reserved_for[0].name, "pod-1");
  ASSERT_TRUE(WaitFor(
      [&] {
        auto c = objects.resource_claims.Get("default", "train");
        return c != nullptr && c->status.allocation.has_value();
      },
      milliseconds(10000)));

  // The driver reports the device's status (admin: resourceclaims/driver).
  auto patched =
      Call("PATCH", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/train/status",
           R"({"status":{"devices":[{"driver":"gpu.example.com","pool":"node-1","device":"gpu-0",)"
           R"("conditions":[{"type":"Ready","status":"True","reason":"Prepared","message":"ok",)"
           R"("lastTransitionTime":"2026-03-04T05:06:09Z"}],"data":{"serial":"X1","numa":[0,1]},)"
           R"("networkData":{"interfaceName":"eth1","ips":["10.0.0.5/24"]}}]}})",
           "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto c = objects.resource_claims.Get("default", "train");
        return c != nullptr && c->status.devices.size() == 1;
      },
      milliseconds(10000)));

  // A second pod shares the claim: read-modify-write from the informer's copy. status.devices go
  // back unchanged (berth may not change them: no resourceclaims/driver permission), and so does
  // the allocation.
  api::ResourceClaim share = *objects.resource_claims.Get("default", "train");
  EXPECT_EQ(share.status.devices[0].conditions[0].type, "Ready");
  share.status.reserved_for.push_back({"", "pods", "pod-2", "uid-pod-2"});
  auto shared = writer.UpdateResourceClaimStatus(share);
  ASSERT_TRUE(shared.ok()) << shared.error();
  ASSERT_EQ(shared->status.reserved_for.size(), 2u);
  EXPECT_EQ(shared->status.reserved_for[1].name, "pod-2");
  ASSERT_EQ(shared->status.devices.size(), 1u);
  EXPECT_EQ(api::json::ToJson(*shared->status.devices[0].raw.Find("data")),
            R"({"numa":[0,1],"serial":"X1"})");
  EXPECT_NE(shared->status.devices[0].raw.Find("networkData"), nullptr);

  // Deallocation (PostFilter): everything cleared at once.
  api::ResourceClaim deallocate = *shared;
  deallocate.status = api::ResourceClaimStatus{};
  auto cleared = writer.UpdateResourceClaimStatus(deallocate);
  ASSERT_TRUE(cleared.ok()) << cleared.error();
  EXPECT_FALSE(cleared->status.allocation.has_value());
  EXPECT_TRUE(cleared->status.reserved_for.empty());
  EXPECT_TRUE(cleared->status.devices.empty());
  factory.Stop();
}

}  // namespace
}  // namespace berth::informers
