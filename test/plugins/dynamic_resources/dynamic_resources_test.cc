// DynamicResources on in-memory objects (FakeHandle): claims of a pod, allocation per node,
// in-flight allocations between pods, PreBind's writes, deallocation in PostFilter, Score of
// prioritized lists, and the messages upstream gives.

#include "plugins/dynamic_resources/dynamic_resources.h"

#include <gtest/gtest.h>

#include "plugins/dynamic_resources/plugin_impl.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::dynamic_resources {
namespace {

using framework::Code;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;

api::Device Gpu(std::string name, std::string model = "a100") {
  api::Device d;
  d.name = std::move(name);
  api::DeviceAttribute a;
  a.string_value = std::move(model);
  d.attributes["model"] = a;
  return d;
}

class DynamicResourcesTest : public ::testing::Test {
 protected:
  DynamicResourcesTest() {
    std::vector<framework::NodeInfo> nodes;
    for (const char* n : {"n1", "n2"}) {
      nodes.emplace_back(std::make_shared<const api::Node>(MakeNode(n).Obj()));
    }
    handle_ = std::make_unique<testing::FakeHandle>(std::move(nodes));
    auto cls = std::make_shared<api::DeviceClass>();
    cls->metadata.name = "gpu";
    cls->spec.selectors.push_back(api::DeviceSelector{"device.driver == \"gpu.example.com\""});
    objects().device_classes.Upsert(cls);
    auto slice = std::make_shared<api::ResourceSlice>();
    slice->metadata.name = "n1-gpus";
    slice->spec.driver = "gpu.example.com";
    slice->spec.pool = {"n1", 1, 1};
    slice->spec.node_name = "n1";
    slice->spec.devices = {Gpu("gpu-0")};
    objects().resource_slices.Upsert(slice);
    framework::PluginContext ctx;
    ctx.handle = handle_.get();
    auto p = New(ctx);
    EXPECT_TRUE(p.ok()) << p.error();
    plugin_ = *p;
  }

  api::ClusterObjects& objects() { return handle_->mutable_objects(); }

  void AddClaim(const std::string& name, const std::string& cls = "gpu") {
    auto c = std::make_shared<api::ResourceClaim>();
    c->metadata.namespace_ = "default";
    c->metadata.name = name;
    c->metadata.uid = "uid-" + name;
    c->metadata.resource_version = "1";
    api::DeviceRequest r;
    r.name = "gpu";
    r.exactly.emplace();
    r.exactly->device_class_name = cls;
    c->spec.devices.requests.push_back(r);
    objects().resource_claims.Upsert(c);
  }

  framework::PodInfoPtr PodWithClaim(const std::string& pod, const std::string& claim) {
    api::Pod p = MakePod(pod).Obj();
    p.spec.resource_claims.push_back({"gpu", claim, ""});
    return framework::MakePodInfo(std::make_shared<api::Pod>(p));
  }

  const framework::NodeInfo& Node(const std::string& name) {
    return *handle_->snapshot().Get(name);
  }

  template <typename T>
  T* As() {
    return dynamic_cast<T*>(plugin_.get());
  }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod) {
    framework::PreFilterResult result;
    return As<framework::PreFilterPlugin>()->PreFilter(state, pod, {}, &result);
  }
  Status Filter(framework::CycleState& state, const framework::PodInfo& pod,
                const std::string& node) {
    return As<framework::FilterPlugin>()->Filter(state, pod, Node(node));
  }

  std::unique_ptr<testing::FakeHandle> handle_;
  std::shared_ptr<framework::Plugin> plugin_;
};

// A pod without claims: Filter is skipped, every node scores 0, and PostFilter leaves the decision
// to the next PostFilter plugin (Unschedulable without a reason), as upstream.
TEST_F(DynamicResourcesTest, PodWithoutClaims) {
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(MakePod("p").Obj()));
  framework::CycleState state;
  EXPECT_EQ(PreFilter(state, *pod).code(), Code::kSkip);
  EXPECT_EQ(As<framework::ScorePlugin>()->UniformScore(state, *pod), std::optional<int64_t>(0));
  framework::NodeToStatus statuses;
  framework::PostFilterResult pf;
  Status st = As<framework::PostFilterPlugin>()->PostFilter(state, *pod, statuses, &pf);
  EXPECT_EQ(st.code(), Code::kUnschedulable);
  EXPECT_EQ(st.Message(), "");
}

// When an earlier PreFilter plugin ended the cycle, upstream's PostFilter fails reading its
// state: the FailedScheduling message ends in "not found".
TEST_F(DynamicResourcesTest, PostFilterWithoutPreFilterState) {
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(MakePod("p").Obj()));
  framework::CycleState state;
  framework::NodeToStatus statuses;
  framework::PostFilterResult pf;
  Status st = As<framework::PostFilterPlugin>()->PostFilter(state, *pod, statuses, &pf);
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(), "not found");
}

TEST_F(DynamicResourcesTest, MissingClaimsKeepThePodGated) {
  auto pod = PodWithClaim("p", "my-claim");
  Status s = As<framework::PreEnqueuePlugin>()->PreEnqueue(*pod);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "could not find ResourceClaim \"default/my-claim\"");

  api::Pod templated = MakePod("t").Obj();
  templated.spec.resource_claims.push_back({"gpu", "", "gpu-template"});
  s = As<framework::PreEnqueuePlugin>()->PreEnqueue(
      *framework::MakePodInfo(std::make_shared<api::Pod>(templated)));
  EXPECT_EQ(s.Message(), "pod \"default/t\": ResourceClaim not created yet");

  AddClaim("my-claim");
  EXPECT_TRUE(As<framework::PreEnqueuePlugin>()->PreEnqueue(*pod).IsSuccess());
}

TEST_F(DynamicResourcesTest, AMissingDeviceClassIsUnresolvable) {
  AddClaim("c", "no-such-class");
  auto pod = PodWithClaim("p", "c");
  framework::CycleState state;
  Status s = PreFilter(state, *pod);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "request gpu: device class no-such-class does not exist");
}

TEST_F(DynamicResourcesTest, AllocatesWhereDevicesAreAndNeverTwiceInFlight) {
  AddClaim("c1");
  AddClaim("c2");
  auto p1 = PodWithClaim("p1", "c1");
  framework::CycleState s1;
  ASSERT_TRUE(PreFilter(s1, *p1).IsSuccess());
  EXPECT_TRUE(Filter(s1, *p1, "n1").IsSuccess());
  Status other = Filter(s1, *p1, "n2");
  EXPECT_EQ(other.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(other.Message(), "cannot allocate all claims");
  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(s1, *p1, "n1").IsSuccess());

  // p1's device is in flight: p2 finds nothing on n1 until p1's allocation is dropped.
  auto p2 = PodWithClaim("p2", "c2");
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, *p2).IsSuccess());
  EXPECT_EQ(Filter(s2, *p2, "n1").Message(), "cannot allocate all claims");

  // PreBind writes the finalizer, then the allocation and the reservation; the API server
  // answers with a new resourceVersion.
  handle_->writer().on_claim_status = [](const api::ResourceClaim& c) {
    api::ResourceClaim stored = c;
    stored.metadata.resource_version = "2";
    return Result<api::ResourceClaim>(stored);
  };
  ASSERT_TRUE(As<framework::PreBindPlugin>()->PreBind(s1, *p1, "n1").IsSuccess());
  auto finalizers = handle_->writer().ClaimFinalizerUpdates();
  ASSERT_EQ(finalizers.size(), 1u);
  EXPECT_EQ(finalizers[0].finalizers,
            (std::vector<std::string>{"resource.kubernetes.io/delete-protection"}));
  auto updates = handle_->writer().ClaimStatusUpdates();
  ASSERT_EQ(updates.size(), 1u);
  const auto& written = updates[0];
  ASSERT_TRUE(written.status.allocation.has_value());
  ASSERT_EQ(written.status.allocation->devices.results.size(), 1u);
  EXPECT_EQ(written.status.allocation->devices.results[0].device, "gpu-0");
  EXPECT_TRUE(written.status.allocation->allocation_timestamp.has_value());
  ASSERT_EQ(written.status.reserved_for.size(), 1u);
  EXPECT_EQ(written.status.reserved_for[0].resource, "pods");
  EXPECT_EQ(written.status.reserved_for[0].uid, p1->Uid());

  // Until the informer delivers it, the written claim is assumed: p2 still finds no device.
  framework::CycleState s3;
  ASSERT_TRUE(PreFilter(s3, *p2).IsSuccess());
  EXPECT_EQ(Filter(s3, *p2, "n1").Message(), "cannot allocate all claims");
}

// DRAConsumableCapacity: a NIC with allowMultipleAllocations is shared by claims, in flight or
// written, until its bandwidth is used up; each allocation is a share with its own shareID and
// the capacity it consumes, and that is what PreBind writes.
TEST_F(DynamicResourcesTest, ASharedDeviceServesClaimsUntilItsCapacityIsUsed) {
  auto slice = std::make_shared<api::ResourceSlice>(*objects().resource_slices.Get("n1-gpus"));
  api::Device nic = Gpu("nic-0", "nic");
  nic.allow_multiple_allocations = true;
  api::DeviceCapacity bandwidth;
  bandwidth.value = *api::Quantity::Parse("10Gi");
  api::CapacityRequestPolicy policy;
  policy.default_value = *api::Quantity::Parse("1Gi");
  policy.valid_range = api::CapacityRequestPolicyRange{*api::Quantity::Parse("1Gi"), {}, {}};
  bandwidth.request_policy = policy;
  nic.capacity["bandwidth"] = bandwidth;
  slice->spec.devices = {nic};
  objects().resource_slices.Upsert(slice);
  auto claim = [&](const std::string& name, const char* amount) {
    AddClaim(name);
    auto c =
        std::make_shared<api::ResourceClaim>(*objects().resource_claims.Get("default/" + name));
    if (amount != nullptr) {
      c->spec.devices.requests[0].exactly->capacity.emplace();
      c->spec.devices.requests[0].exactly->capacity->requests["bandwidth"] =
          *api::Quantity::Parse(amount);
    }
    objects().resource_claims.Upsert(c);
  };
  claim("c1", "4Gi");
  claim("c2", "4Gi");
  claim("c3", "4Gi");
  claim("c4", nullptr);

  auto p1 = PodWithClaim("p1", "c1");
  framework::CycleState s1;
  ASSERT_TRUE(PreFilter(s1, *p1).IsSuccess());
  ASSERT_TRUE(Filter(s1, *p1, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(s1, *p1, "n1").IsSuccess());
  // p1's share is in flight; 6Gi are left.
  auto p2 = PodWithClaim("p2", "c2");
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, *p2).IsSuccess());
  ASSERT_TRUE(Filter(s2, *p2, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(s2, *p2, "n1").IsSuccess());

  handle_->writer().on_claim_status = [](const api::ResourceClaim& c) {
    api::ResourceClaim stored = c;
    stored.metadata.resource_version = "2";
    return Result<api::ResourceClaim>(stored);
  };
  ASSERT_TRUE(As<framework::PreBindPlugin>()->PreBind(s1, *p1, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::PreBindPlugin>()->PreBind(s2, *p2, "n1").IsSuccess());
  auto updates = handle_->writer().ClaimStatusUpdates();
  ASSERT_EQ(updates.size(), 2u);
  const auto& r1 = updates[0].status.allocation->devices.results.at(0);
  const auto& r2 = updates[1].status.allocation->devices.results.at(0);
  EXPECT_EQ(r1.device, "nic-0");
  ASSERT_TRUE(r1.share_id.has_value() && r2.share_id.has_value());
  EXPECT_NE(*r1.share_id, *r2.share_id);
  EXPECT_EQ(r1.consumed_capacity.at("bandwidth").ToString(), "4Gi");

  // Both shares are written (assumed) now: 2Gi are left, too little for c3's 4Gi but enough
  // for c4's default of 1Gi.
  auto p3 = PodWithClaim("p3", "c3");
  framework::CycleState s3;
  ASSERT_TRUE(PreFilter(s3, *p3).IsSuccess());
  EXPECT_EQ(Filter(s3, *p3, "n1").Message(), "cannot allocate all claims");
  auto p4 = PodWithClaim("p4", "c4");
  framework::CycleState s4;
  ASSERT_TRUE(PreFilter(s4, *p4).IsSuccess());
  EXPECT_TRUE(Filter(s4, *p4, "n1").IsSuccess());
}

TEST_F(DynamicResourcesTest, UnreserveReleasesTheInFlightDevice) {
  AddClaim("c1");
  AddClaim("c2");
  auto p1 = PodWithClaim("p1", "c1");
  framework::CycleState s1;
  ASSERT_TRUE(PreFilter(s1, *p1).IsSuccess());
  ASSERT_TRUE(Filter(s1, *p1, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(s1, *p1, "n1").IsSuccess());
  As<framework::ReservePlugin>()->Unreserve(s1, *p1, "n1");
  auto p2 = PodWithClaim("p2", "c2");
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, *p2).IsSuccess());
  EXPECT_TRUE(Filter(s2, *p2, "n1").IsSuccess());
}

TEST_F(DynamicResourcesTest, AnAllocatedClaimElsewhereIsDeallocatedInPostFilter) {
  AddClaim("c1");
  auto claim = std::make_shared<api::ResourceClaim>(*objects().resource_claims.Get("default/c1"));
  api::AllocationResult alloc;
  api::DeviceRequestAllocationResult r;
  r.request = "gpu";
  r.driver = "gpu.example.com";
  r.pool = "n1";
  r.device = "gpu-0";
  alloc.devices.results.push_back(r);
  api::NodeSelectorRequirement by_name{"metadata.name", api::SelectorOperator::kIn, {"n1"}};
  api::NodeSelectorTerm term;
  term.match_fields.push_back(by_name);
  alloc.node_selector = api::NodeSelector{{term}};
  claim->status.allocation = alloc;
  objects().resource_claims.Upsert(claim);

  auto pod = PodWithClaim("p", "c1");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  EXPECT_TRUE(Filter(state, *pod, "n1").IsSuccess());
  Status s = Filter(state, *pod, "n2");
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "resourceclaim not available on the node");

  framework::NodeToStatus statuses;
  framework::PostFilterResult pf;
  s = As<framework::PostFilterPlugin>()->PostFilter(state, *pod, statuses, &pf);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "deallocation of ResourceClaim completed");
  auto updates = handle_->writer().ClaimStatusUpdates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_FALSE(updates[0].status.allocation.has_value());
}

TEST_F(DynamicResourcesTest, ScorePrefersEarlierSubrequests) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.namespace_ = "default";
  c->metadata.name = "c";
  c->metadata.uid = "uid-c";
  api::DeviceRequest r;
  r.name = "gpu";
  api::DeviceSubRequest h100;
  h100.name = "h100";
  h100.device_class_name = "gpu";
  h100.selectors.push_back(
      api::DeviceSelector{"device.attributes[\"gpu.example.com\"].model == \"h100\""});
  api::DeviceSubRequest any = h100;
  any.name = "any";
  any.selectors.clear();
  r.first_available = {h100, any};
  c->spec.devices.requests.push_back(r);
  objects().resource_claims.Upsert(c);
  auto slice = std::make_shared<api::ResourceSlice>(*objects().resource_slices.Get("n1-gpus"));
  slice->metadata.name = "n2-gpus";
  slice->spec.pool.name = "n2";
  slice->spec.node_name = "n2";
  slice->spec.devices = {Gpu("gpu-0", "h100")};
  objects().resource_slices.Upsert(slice);

  auto pod = PodWithClaim("p", "c");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  ASSERT_TRUE(Filter(state, *pod, "n1").IsSuccess());
  ASSERT_TRUE(Filter(state, *pod, "n2").IsSuccess());
  auto* scorer = As<framework::ScorePlugin>();
  EXPECT_EQ(scorer->UniformScore(state, *pod), std::nullopt);
  int64_t s1 = -1, s2 = -1;
  ASSERT_TRUE(scorer->Score(state, *pod, Node("n1"), &s1).IsSuccess());
  ASSERT_TRUE(scorer->Score(state, *pod, Node("n2"), &s2).IsSuccess());
  EXPECT_EQ(s1, 7);  // "any", the second subrequest: 8 - 1
  EXPECT_EQ(s2, 8);  // "h100", the first: 8 - 0
  framework::NodeScoreList list{{&Node("n1").name(), s1}, {&Node("n2").name(), s2}};
  ASSERT_TRUE(scorer->NormalizeScore(state, *pod, list).IsSuccess());
  EXPECT_EQ(list[0].score, 87);
  EXPECT_EQ(list[1].score, 100);
}

// ---- DRA-backed extended resources (upstream's extendeddynamicresources_test.go and the
// extended-resource rows of dynamicresources_test.go) ----

std::shared_ptr<api::DeviceClass> Class(const std::string& name,
                                        std::optional<std::string> extended = std::nullopt) {
  auto c = std::make_shared<api::DeviceClass>();
  c->metadata.name = name;
  c->spec.extended_resource_name = std::move(extended);
  return c;
}

std::vector<std::string> RequestStrings(const std::vector<api::DeviceRequest>& requests) {
  std::vector<std::string> out;
  for (const auto& r : requests) {
    out.push_back(r.name + " " + r.exactly->device_class_name + " " +
                  std::to_string(r.exactly->count));
  }
  return out;
}

std::vector<std::string> MappingStrings(
    const std::vector<api::ContainerExtendedResourceRequest>& mappings) {
  std::vector<std::string> out;
  for (const auto& m : mappings) {
    out.push_back(m.container_name + " " + m.resource_name + " " + m.request_name);
  }
  return out;
}

TEST(CreateRequestsAndMappings, UpstreamCases) {
  api::Store<api::DeviceClass> classes;
  classes.Upsert(Class("class", "example.com/gpu"));
  classes.Upsert(Class("class1", "example.com/gpu1"));
  classes.Upsert(Class("classInit", "example.com/gpuinit"));
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<std::string> resources;
    std::vector<std::string> want_requests;
    std::vector<std::string> want_mappings;
  };
  const api::Pod pod1 =
      MakePod("p").Req({{"example.com/gpu", "1"}, {"example.com/gpu1", "2"}}).Obj();
  const api::Pod pod2 =
      MakePod("p").Req({{"example.com/gpu", "1"}}).Req({{"example.com/gpu1", "2"}}).Obj();
  const api::Pod init1 =
      MakePod("p").Req({{"example.com/gpu", "1"}}).InitReq({{"example.com/gpuinit", "2"}}).Obj();
  const api::Pod init2 = MakePod("p")
                             .Req({{"example.com/gpu", "1"}})
                             .InitReq({{"example.com/gpuinit", "1"}})
                             .InitReq({{"example.com/gpuinit", "2"}})
                             .Obj();
  const api::Pod init3 = MakePod("p")
                             .Req({{"example.com/gpu", "1"}})
                             .InitReq({{"example.com/gpuinit", "1"}})
                             .InitReq({{"example.com/gpuinit", "1"}}, /*sidecar=*/true)
                             .InitReq({{"example.com/gpuinit", "2"}})
                             .Obj();
  // An implicit name (deviceclass.resource.kubernetes.io/<class>) and a fraction (no request).
  const api::Pod implicit =
      MakePod("p")
          .Req({{"deviceclass.resource.kubernetes.io/class1", "1"}, {"example.com/gpu", "500m"}})
          .Obj();
  const std::vector<Case> cases = {
      {"nil", pod1, {}, {}, {}},
      {"one resource match",
       pod1,
       {"example.com/gpu"},
       {"container-0-request-0 class 1"},
       {"c0 example.com/gpu container-0-request-0"}},
      {"one resource match, one resource not match",
       pod1,
       {"example.com/gpu", "example.com/other"},
       {"container-0-request-0 class 1"},
       {"c0 example.com/gpu container-0-request-0"}},
      {"two resources match",
       pod1,
       {"example.com/gpu", "example.com/gpu1"},
       {"container-0-request-0 class 1", "container-0-request-1 class1 2"},
       {"c0 example.com/gpu container-0-request-0", "c0 example.com/gpu1 container-0-request-1"}},
      {"two containers match",
       pod2,
       {"example.com/gpu", "example.com/gpu1"},
       {"container-0-request-0 class 1", "container-1-request-0 class1 2"},
       {"c0 example.com/gpu container-0-request-0", "c1 example.com/gpu1 container-1-request-0"}},
      {"one init container, one regular container",
       init1,
       {"example.com/gpu", "example.com/gpuinit"},
       {"container-0-request-0 classInit 2", "container-1-request-0 class 1"},
       {"c0 example.com/gpu container-1-request-0",
        "init0 example.com/gpuinit container-0-request-0"}},
      // The larger init request serves both init containers.
      {"two init containers, one regular container",
       init2,
       {"example.com/gpu", "example.com/gpuinit"},
       {"container-1-request-0 classInit 2", "container-2-request-0 class 1"},
       {"c0 example.com/gpu container-2-request-0",
        "init0 example.com/gpuinit container-1-request-0",
        "init1 example.com/gpuinit container-1-request-0"}},
      // The first init container reuses the sidecar's device.
      {"three init containers, one sidecar, one regular container",
       init3,
       {"example.com/gpu", "example.com/gpuinit"},
       {"container-1-request-0 classInit 1", "container-2-request-0 classInit 2",
        "container-3-request-0 class 1"},
       {"c0 example.com/gpu container-3-request-0",
        "init1 example.com/gpuinit container-1-request-0",
        "init0 example.com/gpuinit container-1-request-0",
        "init2 example.com/gpuinit container-2-request-0"}},
      {"implicit class name, fractional quantity",
       implicit,
       {"deviceclass.resource.kubernetes.io/class1", "example.com/gpu"},
       {"container-0-request-0 class1 1"},
       {"c0 deviceclass.resource.kubernetes.io/class1 container-0-request-0"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<api::DeviceRequest> requests;
    std::vector<api::ContainerExtendedResourceRequest> mappings;
    CreateRequestsAndMappings(c.pod, c.resources, classes, &requests, &mappings);
    EXPECT_EQ(RequestStrings(requests), c.want_requests);
    EXPECT_EQ(MappingStrings(mappings), c.want_mappings);
  }
}

class ExtendedResourcesTest : public DynamicResourcesTest {
 protected:
  ExtendedResourcesTest() {
    // n1: a gpu through DRA; n2: nothing; n3: the resource from a device plugin.
    std::vector<framework::NodeInfo> nodes;
    for (const char* n : {"n1", "n2"}) {
      nodes.emplace_back(std::make_shared<const api::Node>(MakeNode(n).Obj()));
    }
    nodes.emplace_back(std::make_shared<const api::Node>(
        MakeNode("n3").Capacity({{"example.com/gpu", "1"}}).Obj()));
    handle_->SetNodes(std::move(nodes));
    auto cls = std::make_shared<api::DeviceClass>(*objects().device_classes.Get("gpu"));
    cls->spec.extended_resource_name = "example.com/gpu";
    objects().device_classes.Upsert(cls);
    // The API server: a created claim reaches the informer at once.
    handle_->writer().on_create_claim = [this](const api::ResourceClaim& c) {
      api::ResourceClaim out = c;
      out.metadata.name = c.metadata.generate_name + "abcde";
      out.metadata.uid = "created-uid";
      out.metadata.resource_version = "1";
      objects().resource_claims.Upsert(std::make_shared<api::ResourceClaim>(out));
      return Result<api::ResourceClaim>(out);
    };
    handle_->writer().on_claim_status = [](const api::ResourceClaim& c) {
      api::ResourceClaim stored = c;
      stored.metadata.resource_version = "2";
      return Result<api::ResourceClaim>(stored);
    };
  }

  framework::PodInfoPtr GpuPod(const std::string& name, const std::string& count = "1") {
    return MakePod(name).Uid("uid-" + name).Req({{"example.com/gpu", count}}).Info();
  }
};

TEST_F(ExtendedResourcesTest, AllocatesThroughAGeneratedClaim) {
  auto pod = GpuPod("p");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  EXPECT_TRUE(Filter(state, *pod, "n1").IsSuccess());
  Status n2 = Filter(state, *pod, "n2");
  EXPECT_EQ(n2.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(n2.Message(), "cannot allocate all claims");
  // The device plugin serves it on n3: nothing for DRA to do there.
  EXPECT_TRUE(Filter(state, *pod, "n3").IsSuccess());

  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(state, *pod, "n1").IsSuccess());
  // In flight: another pod finds no gpu on n1.
  auto other = GpuPod("q");
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, *other).IsSuccess());
  EXPECT_EQ(Filter(s2, *other, "n1").Message(), "cannot allocate all claims");

  ASSERT_TRUE(As<framework::PreBindPlugin>()->PreBind(state, *pod, "n1").IsSuccess());
  auto created = handle_->writer().CreatedClaims();
  ASSERT_EQ(created.size(), 1u);
  const api::ResourceClaim& c = created[0];
  EXPECT_EQ(c.metadata.name, "");
  EXPECT_EQ(c.metadata.uid, "");
  EXPECT_EQ(c.metadata.generate_name, "p-extended-resources-");
  EXPECT_EQ(c.metadata.namespace_, "default");
  EXPECT_EQ(c.metadata.annotations.at("resource.kubernetes.io/extended-resource-claim"), "true");
  ASSERT_EQ(c.metadata.owner_references.size(), 1u);
  EXPECT_EQ(c.metadata.owner_references[0].kind, "Pod");
  EXPECT_EQ(c.metadata.owner_references[0].name, "p");
  EXPECT_EQ(c.metadata.owner_references[0].uid, "uid-p");
  EXPECT_TRUE(c.metadata.owner_references[0].controller);
  EXPECT_FALSE(c.status.allocation.has_value());
  EXPECT_EQ(RequestStrings(c.spec.devices.requests),
            (std::vector<std::string>{"container-0-request-0 gpu 1"}));

  auto finalizers = handle_->writer().ClaimFinalizerUpdates();
  ASSERT_EQ(finalizers.size(), 1u);
  EXPECT_EQ(finalizers[0].metadata.name, "p-extended-resources-abcde");
  auto updates = handle_->writer().ClaimStatusUpdates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].metadata.name, "p-extended-resources-abcde");
  ASSERT_TRUE(updates[0].status.allocation.has_value());
  ASSERT_EQ(updates[0].status.allocation->devices.results.size(), 1u);
  EXPECT_EQ(updates[0].status.allocation->devices.results[0].device, "gpu-0");
  EXPECT_EQ(updates[0].status.allocation->devices.results[0].request, "container-0-request-0");
  ASSERT_EQ(updates[0].status.reserved_for.size(), 1u);
  EXPECT_EQ(updates[0].status.reserved_for[0].uid, "uid-p");

  auto statuses = handle_->writer().PodExtendedStatuses();
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_EQ(statuses[0].first, "default/p");
  EXPECT_EQ(statuses[0].second.resource_claim_name, "p-extended-resources-abcde");
  EXPECT_EQ(MappingStrings(statuses[0].second.request_mappings),
            (std::vector<std::string>{"c0 example.com/gpu container-0-request-0"}));
}

TEST_F(ExtendedResourcesTest, DevicePluginNodeNeedsNoClaim) {
  auto pod = GpuPod("p");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  EXPECT_TRUE(Filter(state, *pod, "n3").IsSuccess());
  EXPECT_TRUE(As<framework::ReservePlugin>()->Reserve(state, *pod, "n3").IsSuccess());
  EXPECT_TRUE(As<framework::PreBindPlugin>()->PreBind(state, *pod, "n3").IsSuccess());
  EXPECT_TRUE(handle_->writer().CreatedClaims().empty());
  EXPECT_TRUE(handle_->writer().ClaimStatusUpdates().empty());
  EXPECT_TRUE(handle_->writer().PodExtendedStatuses().empty());
}

TEST_F(ExtendedResourcesTest, PodsWithoutMappedResourcesAreSkipped) {
  framework::CycleState state;
  EXPECT_EQ(PreFilter(state, *MakePod("p").Req({{"example.com/other", "1"}}).Info()).code(),
            Code::kSkip);
  // A zero request does not count.
  framework::CycleState s2;
  EXPECT_EQ(PreFilter(s2, *GpuPod("z", "0")).code(), Code::kSkip);
}

TEST_F(ExtendedResourcesTest, AnUnservedResourceDoesNotFit) {
  auto pod = MakePod("p").Req({{"example.com/gpu", "1"}, {"example.com/other", "1"}}).Info();
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  Status s = Filter(state, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot fit resource");
}

TEST_F(ExtendedResourcesTest, TheImplicitClassNameWorksToo) {
  auto pod =
      MakePod("p").Uid("uid-p").Req({{"deviceclass.resource.kubernetes.io/gpu", "1"}}).Info();
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  EXPECT_TRUE(Filter(state, *pod, "n1").IsSuccess());
  EXPECT_EQ(Filter(state, *pod, "n2").Message(), "cannot allocate all claims");
}

// A claim an earlier cycle created (PreBind, then binding failed) is deleted in PostFilter, and
// the next attempt starts anew.
TEST_F(ExtendedResourcesTest, AClaimOfAnEarlierCycleIsDeleted) {
  auto stale = std::make_shared<api::ResourceClaim>();
  stale->metadata.namespace_ = "default";
  stale->metadata.name = "p-extended-resources-xyz12";
  stale->metadata.uid = "stale-uid";
  stale->metadata.resource_version = "5";
  stale->metadata.annotations["resource.kubernetes.io/extended-resource-claim"] = "true";
  stale->metadata.owner_references.push_back({"v1", "Pod", "p", "uid-p", true});
  stale->finalizers.push_back("resource.kubernetes.io/delete-protection");
  api::DeviceRequest r;
  r.name = "container-0-request-0";
  r.exactly.emplace();
  r.exactly->device_class_name = "gpu";
  stale->spec.devices.requests.push_back(r);
  objects().resource_claims.Upsert(stale);

  auto pod = GpuPod("p");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  Status s = Filter(state, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot schedule extended resource claim");
  framework::NodeToStatus statuses;
  framework::PostFilterResult pf;
  Status post = As<framework::PostFilterPlugin>()->PostFilter(state, *pod, statuses, &pf);
  EXPECT_EQ(post.code(), Code::kUnschedulable);
  EXPECT_EQ(post.Message(), "deletion of ResourceClaim completed");
  auto finalizers = handle_->writer().ClaimFinalizerUpdates();
  ASSERT_EQ(finalizers.size(), 1u);
  EXPECT_TRUE(finalizers[0].finalizers.empty());
  EXPECT_EQ(handle_->writer().DeletedClaims(),
            (std::vector<std::string>{"default/p-extended-resources-xyz12"}));
}

// Unreserve after PreBind created the claim (a later PreBind plugin failed): the claim is deleted
// and its devices are free again.
TEST_F(ExtendedResourcesTest, UnreserveDeletesTheCreatedClaim) {
  auto pod = GpuPod("p");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  ASSERT_TRUE(Filter(state, *pod, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(state, *pod, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::PreBindPlugin>()->PreBind(state, *pod, "n1").IsSuccess());
  As<framework::ReservePlugin>()->Unreserve(state, *pod, "n1");
  EXPECT_EQ(handle_->writer().DeletedClaims(),
            (std::vector<std::string>{"default/p-extended-resources-abcde"}));
}

TEST_F(ExtendedResourcesTest, UnreserveBeforePreBindReleasesTheDevice) {
  auto pod = GpuPod("p");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  ASSERT_TRUE(Filter(state, *pod, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(state, *pod, "n1").IsSuccess());
  As<framework::ReservePlugin>()->Unreserve(state, *pod, "n1");
  EXPECT_TRUE(handle_->writer().DeletedClaims().empty());
  auto other = GpuPod("q");
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, *other).IsSuccess());
  EXPECT_TRUE(Filter(s2, *other, "n1").IsSuccess());
}

// upstream's "extended-resource-one-device-plugin-one-dra": the node advertises one resource
// (device plugin) and DRA serves the other; the claim asks only for the latter.
TEST_F(ExtendedResourcesTest, OneResourceByDevicePluginOneByDRA) {
  std::vector<framework::NodeInfo> nodes;
  nodes.emplace_back(
      std::make_shared<const api::Node>(MakeNode("n1").Capacity({{"example.com/gpu", "1"}}).Obj()));
  handle_->SetNodes(std::move(nodes));
  auto gpu2 = Class("gpu2", "example.com/gpu2");
  gpu2->spec.selectors.push_back(api::DeviceSelector{"device.driver == \"gpu.example.com\""});
  objects().device_classes.Upsert(gpu2);
  auto pod =
      MakePod("p").Uid("uid-p").Req({{"example.com/gpu", "1"}, {"example.com/gpu2", "1"}}).Info();
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  ASSERT_TRUE(Filter(state, *pod, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(state, *pod, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::PreBindPlugin>()->PreBind(state, *pod, "n1").IsSuccess());
  auto created = handle_->writer().CreatedClaims();
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(RequestStrings(created[0].spec.devices.requests),
            (std::vector<std::string>{"container-0-request-1 gpu2 1"}));
  auto statuses = handle_->writer().PodExtendedStatuses();
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_EQ(MappingStrings(statuses[0].second.request_mappings),
            (std::vector<std::string>{"c0 example.com/gpu2 container-0-request-1"}));
}

// upstream's "extended-resource-name-with-resources-fail-patch": the pod status patch fails,
// PreBind fails, and Unreserve deletes the claim PreBind created.
TEST_F(ExtendedResourcesTest, AFailedPodStatusPatchFailsPreBind) {
  handle_->writer().on_pod_extended_status = [](const api::Pod&,
                                                const api::PodExtendedResourceClaimStatus&) {
    return Ok(Error{"patch error", ErrorCode::kInvalid});
  };
  auto pod = GpuPod("p");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  ASSERT_TRUE(Filter(state, *pod, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(state, *pod, "n1").IsSuccess());
  Status s = As<framework::PreBindPlugin>()->PreBind(state, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "update pod default/p ExtendedResourceClaimStatus: patch error");
  As<framework::ReservePlugin>()->Unreserve(state, *pod, "n1");
  EXPECT_EQ(handle_->writer().DeletedClaims(),
            (std::vector<std::string>{"default/p-extended-resources-abcde"}));
}

// A node advertising the resource with zero allocatable gets it through DRA (upstream's
// "extended-resource-name-with-zero-allocatable").
TEST_F(ExtendedResourcesTest, ZeroAllocatableIsServedByDRA) {
  std::vector<framework::NodeInfo> nodes;
  nodes.emplace_back(
      std::make_shared<const api::Node>(MakeNode("n1").Capacity({{"example.com/gpu", "0"}}).Obj()));
  handle_->SetNodes(std::move(nodes));
  auto pod = GpuPod("p");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, *pod).IsSuccess());
  ASSERT_TRUE(Filter(state, *pod, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(state, *pod, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::PreBindPlugin>()->PreBind(state, *pod, "n1").IsSuccess());
  EXPECT_EQ(handle_->writer().CreatedClaims().size(), 1u);
}

}  // namespace
}  // namespace berth::plugins::dynamic_resources

namespace berth::plugins::dynamic_resources {
namespace {

// DRADeviceBindingConditions (beta, on in v1.37): a device that needs the driver to attach it
// first. PreBind writes the allocation, then waits (polling the informer's claim every 5 s, up
// to DynamicResourcesArgs.bindingTimeout) until every binding condition is True; a binding failure
// condition, or the timeout, fails the attempt with upstream's error.
class BindingConditionsTest : public DynamicResourcesTest {
 protected:
  BindingConditionsTest() {
    auto slice =
        std::make_shared<api::ResourceSlice>(*objects().resource_slices.Get("", "n1-gpus"));
    slice->spec.devices[0].binding_conditions = {"example.com/attached"};
    slice->spec.devices[0].binding_failure_conditions = {"example.com/failed"};
    objects().resource_slices.Upsert(slice);
    AddClaim("c1");
  }
  // The driver's answer: the claim as written, with `condition` set to True in status.devices,
  // delivered by the informer when the status is written.
  void DriverReports(const std::string& condition) {
    handle_->writer().on_claim_status = [this, condition](const api::ResourceClaim& c) {
      api::ResourceClaim stored = c;
      stored.metadata.resource_version = "2";
      if (!condition.empty()) {
        api::AllocatedDeviceStatus d;
        d.driver = "gpu.example.com";
        d.pool = "n1";
        d.device = "gpu-0";
        d.conditions.push_back({condition, "True", "Driver", "said so", 0, std::nullopt});
        stored.status.devices.push_back(d);
      }
      objects().resource_claims.Upsert(std::make_shared<api::ResourceClaim>(stored));
      return Result<api::ResourceClaim>(stored);
    };
  }
  Status Schedule(const framework::PodInfo& pod, framework::CycleState& s) {
    EXPECT_TRUE(PreFilter(s, pod).IsSuccess());
    EXPECT_TRUE(Filter(s, pod, "n1").IsSuccess());
    EXPECT_TRUE(As<framework::ReservePlugin>()->Reserve(s, pod, "n1").IsSuccess());
    return As<framework::PreBindPlugin>()->PreBind(s, pod, "n1");
  }
};

TEST_F(BindingConditionsTest, PreBindWaitsUntilTheDriverAttachesTheDevice) {
  DriverReports("example.com/attached");
  auto pod = PodWithClaim("p1", "c1");
  framework::CycleState s;
  const auto start = handle_->fake_clock().Now();
  Status st = Schedule(*pod, s);
  EXPECT_TRUE(st.IsSuccess()) << st.Message();
  EXPECT_EQ(handle_->fake_clock().Now(), start);  // ready at the first look: no sleep
  auto updates = handle_->writer().ClaimStatusUpdates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].status.allocation->devices.results[0].binding_conditions,
            (std::vector<std::string>{"example.com/attached"}));
  EXPECT_EQ(handle_->writer().PodEvents(),
            (std::vector<std::string>{"default/p1 Normal BindingConditionsPending: waiting for "
                                      "binding conditions for device on node n1"}));
}

TEST_F(BindingConditionsTest, AFailureConditionFailsTheAttempt) {
  DriverReports("example.com/failed");
  auto pod = PodWithClaim("p1", "c1");
  framework::CycleState s;
  Status st = Schedule(*pod, s);
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(), "device binding failed: claim=c1, reason=Driver, message=\"said so\"");
  // The next attempt finds the claim allocated but failed: not available anywhere, so PostFilter
  // may deallocate it.
  auto pod2 = PodWithClaim("p1", "c1");
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, *pod2).IsSuccess());
  Status f = Filter(s2, *pod2, "n1");
  EXPECT_EQ(f.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(f.Message(), "resourceclaim not available on the node");
}

TEST_F(BindingConditionsTest, NoAnswerTimesOutAfterBindingTimeout) {
  DriverReports("");
  auto pod = PodWithClaim("p1", "c1");
  framework::CycleState s;
  const auto start = handle_->fake_clock().Now();
  Status st = Schedule(*pod, s);
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message().rfind("device binding timeout", 0), 0u) << st.Message();
  // Polled every 5 s for the default 600 s.
  EXPECT_EQ(handle_->fake_clock().Now() - start, std::chrono::seconds(600));
}

TEST_F(BindingConditionsTest, ShutdownStopsTheWait) {
  DriverReports("");
  auto pod = PodWithClaim("p1", "c1");
  framework::CycleState s;
  ASSERT_TRUE(PreFilter(s, *pod).IsSuccess());
  ASSERT_TRUE(Filter(s, *pod, "n1").IsSuccess());
  ASSERT_TRUE(As<framework::ReservePlugin>()->Reserve(s, *pod, "n1").IsSuccess());
  handle_->stopping = true;  // after Filter, which would stop its device search too
  Status st = As<framework::PreBindPlugin>()->PreBind(s, *pod, "n1");
  EXPECT_EQ(st.Message(), "waiting for binding conditions: scheduler is shutting down");
}

api::Value ArgsOf(std::vector<std::pair<std::string, std::string>> fields) {
  api::Value v = api::Value::MakeObject();
  for (auto& [k, f] : fields) v.Set(k, api::Value::String(f));
  return v;
}

// DynamicResourcesArgs.filterTimeout bounds the device search per node; running out is an error
// (retried with backoff), naming the node, as upstream.
TEST_F(DynamicResourcesTest, FilterTimeoutEndsTheSearchWithAnError) {
  AddClaim("c1");
  api::Value args = ArgsOf({{"filterTimeout", "1ns"}});
  framework::PluginContext ctx;
  ctx.handle = handle_.get();
  ctx.args = &args;
  auto p = New(ctx);
  ASSERT_TRUE(p.ok()) << p.error();
  plugin_ = *p;
  auto pod = PodWithClaim("p1", "c1");
  framework::CycleState s;
  ASSERT_TRUE(PreFilter(s, *pod).IsSuccess());
  Status st = Filter(s, *pod, "n1");
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(), "node n1: timed out trying to allocate devices");
}

// At shutdown the device search stops; the node is Unschedulable with upstream's message for a
// cancelled context.
TEST_F(DynamicResourcesTest, ShutdownStopsTheDeviceSearch) {
  AddClaim("c1");
  auto pod = PodWithClaim("p1", "c1");
  framework::CycleState s;
  ASSERT_TRUE(PreFilter(s, *pod).IsSuccess());
  handle_->stopping = true;
  Status st = Filter(s, *pod, "n1");
  EXPECT_EQ(st.code(), Code::kUnschedulable);
  EXPECT_EQ(st.Message(), "asked by caller to stop allocating devices: context canceled");
}

TEST(DynamicResourcesArgsTest, DefaultsValidationAndFieldNames) {
  testing::FakeHandle handle;
  auto make = [&](const api::Value& args) {
    framework::PluginContext ctx;
    ctx.handle = &handle;
    ctx.args = &args;
    ctx.args_path = "profiles[0].pluginConfig[0].args";
    return New(ctx);
  };
  EXPECT_TRUE(make(ArgsOf({})).ok());
  EXPECT_TRUE(make(ArgsOf({{"filterTimeout", "0s"}, {"bindingTimeout", "1m"}})).ok());
  auto negative = make(ArgsOf({{"filterTimeout", "-1s"}}));
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error(),
            "profiles[0].pluginConfig[0].args.filterTimeout: Invalid value: \"-1s\": must be zero "
            "or positive");
  auto short_binding = make(ArgsOf({{"bindingTimeout", "500ms"}}));
  ASSERT_FALSE(short_binding.ok());
  EXPECT_EQ(short_binding.error(),
            "profiles[0].pluginConfig[0].args.bindingTimeout: Invalid value: \"500ms\": must be at "
            "least 1 second");
  auto bad = make(ArgsOf({{"filterTimeout", "ten"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind("profiles[0].pluginConfig[0].args.filterTimeout: ", 0), 0u)
      << bad.error();
  auto unknown = make(ArgsOf({{"timeout", "1s"}}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("unknown field"), std::string::npos) << unknown.error();
}

}  // namespace
}  // namespace berth::plugins::dynamic_resources
