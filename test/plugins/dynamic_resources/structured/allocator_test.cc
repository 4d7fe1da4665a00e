// The structured allocator on small hand-made clusters, after upstream's allocator test table
// (allocatortesting): search order and backtracking, pools, "all" mode, admin access,
// constraints, prioritized lists, taints, counters, configuration and node selectors. CEL is
// replaced by a table of named predicates; the CEL evaluator has its own tests, and the
// differential corpus (allocator_corpus_test) runs both together against upstream.

#include "plugins/dynamic_resources/structured/allocator.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

namespace berth::plugins::dynamic_resources::structured {
namespace {

// "expression" -> predicate over (driver, device); an expression not in the table is a compile
// error, "boom" a runtime error.
class FakeSelectors final : public SelectorEvaluator {
 public:
  using Pred = std::function<bool(const std::string&, const api::Device&)>;
  std::map<std::string, Pred> table;
  Outcome Evaluate(const std::string& expression, const std::string& driver,
                   const api::Device& device) const override {
    Outcome out;
    if (expression == "boom") {
      out.runtime_error = "no such key: numa";
      return out;
    }
    auto it = table.find(expression);
    if (it == table.end()) {
      out.compile_error = "undeclared reference to '" + expression + "'";
      return out;
    }
    out.matches = it->second(driver, device);
    return out;
  }
};

api::Device Dev(std::string name, std::string model = "a100") {
  api::Device d;
  d.name = std::move(name);
  api::DeviceAttribute a;
  a.string_value = std::move(model);
  d.attributes["model"] = a;
  return d;
}

api::ResourceSlice Slice(std::string name, std::string driver, std::string pool,
                         std::optional<std::string> node, std::vector<api::Device> devices,
                         int64_t generation = 1, int64_t count = 1) {
  api::ResourceSlice s;
  s.metadata.name = std::move(name);
  s.spec.driver = std::move(driver);
  s.spec.pool.name = std::move(pool);
  s.spec.pool.generation = generation;
  s.spec.pool.resource_slice_count = count;
  if (node) {
    s.spec.node_name = std::move(node);
  } else {
    s.spec.all_nodes = true;
  }
  s.spec.devices = std::move(devices);
  return s;
}

api::DeviceRequest Req(std::string name, std::string cls, int64_t count = 1,
                       std::vector<std::string> selectors = {}) {
  api::DeviceRequest r;
  r.name = std::move(name);
  r.exactly.emplace();
  r.exactly->device_class_name = std::move(cls);
  r.exactly->count = count;
  for (auto& s : selectors) r.exactly->selectors.push_back(api::DeviceSelector{std::move(s)});
  return r;
}

api::ResourceClaim Claim(std::string name, std::vector<api::DeviceRequest> requests) {
  api::ResourceClaim c;
  c.metadata.namespace_ = "default";
  c.metadata.name = std::move(name);
  c.spec.devices.requests = std::move(requests);
  return c;
}

class AllocatorTest : public ::testing::Test {
 protected:
  AllocatorTest() {
    node_.metadata.name = "node-1";
    node_.metadata.labels["region"] = "region-1";
    api::DeviceClass a;
    a.metadata.name = "class-a";
    a.spec.selectors.push_back(api::DeviceSelector{"driver-a"});
    classes_["class-a"] = a;
    api::DeviceClass any;
    any.metadata.name = "class-any";
    classes_["class-any"] = any;
    sel_.table["driver-a"] = [](const std::string& d, const api::Device&) {
      return d == "driver-a";
    };
    sel_.table["large"] = [](const std::string&, const api::Device& dev) {
      return dev.attributes.at("model").string_value == "h100";
    };
  }

  Result<Allocator::Outcome> Run(const std::vector<api::ResourceClaim>& claims,
                                 AllocatedState allocated = {}, Features features = {}) {
    std::vector<const api::ResourceSlice*> slices;
    for (const auto& s : slices_) slices.push_back(&s);
    allocator_ = std::make_unique<Allocator>(
        features, std::move(allocated),
        [this](const std::string& name) -> const api::DeviceClass* {
          auto it = classes_.find(name);
          return it == classes_.end() ? nullptr : &it->second;
        },
        slices, &sel_);
    std::vector<const api::ResourceClaim*> ptrs;
    for (const auto& c : claims) ptrs.push_back(&c);
    return allocator_->Allocate(node_, ptrs);
  }

  // "request=driver/pool/device" per result of claim `i`.
  static std::vector<std::string> Devices(const Allocator::Outcome& out, size_t i) {
    std::vector<std::string> v;
    for (const auto& r : out.results[i].devices.results) {
      v.push_back(r.request + "=" + r.driver + "/" + r.pool + "/" + r.device);
    }
    return v;
  }

  api::Node node_;
  std::vector<api::ResourceSlice> slices_;
  std::map<std::string, api::DeviceClass> classes_;
  FakeSelectors sel_;
  std::unique_ptr<Allocator> allocator_;
};

TEST_F(AllocatorTest, SimpleTakesTheFirstDeviceAndPinsToTheNode) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1"), Dev("dev-2")})};
  auto out = Run({Claim("c", {Req("req-0", "class-a")})});
  ASSERT_TRUE(out.ok()) << out.error();
  ASSERT_TRUE(out->allocated);
  EXPECT_EQ(Devices(*out, 0), (std::vector<std::string>{"req-0=driver-a/pool-1/dev-1"}));
  ASSERT_TRUE(out->results[0].node_selector.has_value());
  const auto& term = out->results[0].node_selector->terms.at(0);
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_EQ(term.match_fields[0].key, "metadata.name");
  EXPECT_EQ(term.match_fields[0].values, (std::vector<std::string>{"node-1"}));
}

TEST_F(AllocatorTest, DevicesOfOtherNodesAreNotCandidates) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-2", {Dev("dev-1")})};
  auto out = Run({Claim("c", {Req("req-0", "class-a")})});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_FALSE(out->allocated);
  EXPECT_FALSE(out->failed_on_node.has_value());
}

TEST_F(AllocatorTest, NetworkAttachedDevicesNeedNoNodeSelector) {
  slices_ = {Slice("s1", "driver-a", "pool-1", std::nullopt, {Dev("dev-1")})};
  auto out = Run({Claim("c", {Req("req-0", "class-a")})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_FALSE(out->results[0].node_selector.has_value());
}

TEST_F(AllocatorTest, BacktracksWhenAnEarlierChoiceBlocksALaterRequest) {
  // req-0 takes any device and gets the large one first (slice order); req-1 needs the large
  // one, so req-0's choice is undone and it takes the small one.
  slices_ = {
      Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-large", "h100"), Dev("dev-small")})};
  auto out = Run({Claim("c", {Req("req-0", "class-a"), Req("req-1", "class-a", 1, {"large"})})});
  ASSERT_TRUE(out.ok()) << out.error();
  ASSERT_TRUE(out->allocated);
  EXPECT_EQ(Devices(*out, 0), (std::vector<std::string>{"req-0=driver-a/pool-1/dev-small",
                                                        "req-1=driver-a/pool-1/dev-large"}));
}

TEST_F(AllocatorTest, AlreadyAllocatedDevicesAreSkippedUnlessAdminAccess) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1")})};
  AllocatedState taken;
  taken.allocated_devices.insert(DeviceId{"driver-a", "pool-1", "dev-1"});
  auto out = Run({Claim("c", {Req("req-0", "class-a")})}, taken);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);

  auto admin = Claim("c", {Req("req-0", "class-a")});
  admin.spec.devices.requests[0].exactly->admin_access = true;
  out = Run({admin}, taken);
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(out->results[0].devices.results[0].admin_access, std::optional<bool>(true));

  Features off;
  off.admin_access = false;
  out = Run({admin}, taken, off);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "claim default/c, request req-0: admin access is requested, but the feature is "
            "disabled");
}

TEST_F(AllocatorTest, TwoClaimsNeverShareADevice) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1"), Dev("dev-2")})};
  auto out = Run({Claim("c0", {Req("r", "class-a")}), Claim("c1", {Req("r", "class-a")})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Devices(*out, 0), (std::vector<std::string>{"r=driver-a/pool-1/dev-1"}));
  EXPECT_EQ(Devices(*out, 1), (std::vector<std::string>{"r=driver-a/pool-1/dev-2"}));
  out = Run({Claim("c0", {Req("r", "class-a", 2)}), Claim("c1", {Req("r", "class-a")})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
}

TEST_F(AllocatorTest, AllModeTakesEveryMatchingDeviceAndFailsOnAnIncompletePool) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1"), Dev("dev-2")})};
  auto all = Claim("c", {Req("r", "class-a")});
  all.spec.devices.requests[0].exactly->allocation_mode = "All";
  auto out = Run({all});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(out->results[0].devices.results.size(), 2u);

  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1")}, 1, 2)};
  out = Run({all});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "claim default/c, request r: asks for all devices, but resource pool driver-a/pool-1 "
            "is currently being updated");
}

TEST_F(AllocatorTest, OnlyTheNewestGenerationOfAPoolCounts) {
  slices_ = {Slice("old", "driver-a", "pool-1", "node-1", {Dev("dev-old")}, 1),
             Slice("new", "driver-a", "pool-1", "node-1", {Dev("dev-new")}, 2)};
  auto out = Run({Claim("c", {Req("r", "class-a")})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Devices(*out, 0), (std::vector<std::string>{"r=driver-a/pool-1/dev-new"}));
}

TEST_F(AllocatorTest, DuplicateDeviceNamesMakeThePoolInvalidOnThisNode) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1")}, 1, 2),
             Slice("s2", "driver-a", "pool-1", "node-1", {Dev("dev-1")}, 1, 2)};
  auto out = Run({Claim("c", {Req("r", "class-a")})});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_FALSE(out->allocated);
  EXPECT_EQ(out->failed_on_node,
            std::optional<std::string>("invalid resource pools were encountered"));
}

TEST_F(AllocatorTest, MissingClassAndSelectorErrorsNameTheirOwner) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1")})};
  auto out = Run({Claim("c", {Req("r", "no-such")})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "claim default/c, request r: could not retrieve device class no-such: "
            "deviceclass.resource.k8s.io \"no-such\" not found");
  out = Run({Claim("c", {Req("r", "class-a", 1, {"boom"})})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "claim default/c: selector #0 on device driver-a/pool-1/dev-1: CEL runtime error: no "
            "such key: numa");
  out = Run({Claim("c", {Req("r", "class-a", 1, {"nonsense"})})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "claim default/c: selector #0: CEL compile error: undeclared reference to 'nonsense'");
}

TEST_F(AllocatorTest, MatchAttributeConstraintBacktracksToAMatchingPair) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1",
                   {Dev("dev-1", "a100"), Dev("dev-2", "h100"), Dev("dev-3", "h100")})};
  auto claim = Claim("c", {Req("r0", "class-a"), Req("r1", "class-a", 1, {"large"})});
  api::DeviceConstraint same;
  same.match_attribute = "driver-a/model";
  claim.spec.devices.constraints.push_back(same);
  auto out = Run({claim});
  ASSERT_TRUE(out.ok() && out->allocated) << (out.ok() ? "" : out.error());
  EXPECT_EQ(Devices(*out, 0),
            (std::vector<std::string>{"r0=driver-a/pool-1/dev-2", "r1=driver-a/pool-1/dev-3"}));

  claim.spec.devices.constraints[0].match_attribute.reset();
  claim.spec.devices.constraints[0].distinct_attribute = "driver-a/model";
  out = Run({claim});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Devices(*out, 0),
            (std::vector<std::string>{"r0=driver-a/pool-1/dev-1", "r1=driver-a/pool-1/dev-2"}));

  claim.spec.devices.constraints[0].distinct_attribute.reset();
  out = Run({claim});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "claim default/c, constraint #0: empty constraint (unsupported constraint type?)");
}

TEST_F(AllocatorTest, PrioritizedListUsesTheFirstSubrequestThatFits) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1")})};
  api::DeviceRequest r;
  r.name = "r";
  api::DeviceSubRequest two;
  two.name = "two";
  two.device_class_name = "class-a";
  two.count = 2;
  api::DeviceSubRequest one = two;
  one.name = "one";
  one.count = 1;
  r.first_available = {two, one};
  auto claim = Claim("c", {r});
  api::DeviceClaimConfiguration cfg;
  cfg.requests = {"r/one"};
  cfg.opaque = api::OpaqueDeviceConfiguration{"driver-a", {}};
  claim.spec.devices.config.push_back(cfg);
  auto out = Run({claim});
  ASSERT_TRUE(out.ok() && out->allocated) << (out.ok() ? "" : out.error());
  EXPECT_EQ(Devices(*out, 0), (std::vector<std::string>{"r/one=driver-a/pool-1/dev-1"}));
  // The claim's config names the used subrequest, i.e. every request: the list is cleared.
  ASSERT_EQ(out->results[0].devices.config.size(), 1u);
  EXPECT_EQ(out->results[0].devices.config[0].source, "FromClaim");
  EXPECT_TRUE(out->results[0].devices.config[0].requests.empty());

  Features off;
  off.prioritized_list = false;
  auto refused = Run({claim}, {}, off);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(),
            "claim default/c, request r: has subrequests, but the DRAPrioritizedList feature is "
            "disabled");
}

TEST_F(AllocatorTest, TaintedDevicesNeedATolerationUnlessTheEffectIsNone) {
  auto tainted = Dev("dev-1");
  tainted.taints.push_back(api::DeviceTaint{"broken", "yes", "NoSchedule", std::nullopt});
  auto harmless = Dev("dev-2");
  harmless.taints.push_back(api::DeviceTaint{"note", "x", "None", std::nullopt});
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {tainted, harmless})};
  auto out = Run({Claim("c", {Req("r", "class-a")})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Devices(*out, 0), (std::vector<std::string>{"r=driver-a/pool-1/dev-2"}));

  auto tolerant = Claim("c", {Req("r", "class-a")});
  api::DeviceToleration t;
  t.key = "broken";
  t.operator_ = "Exists";
  tolerant.spec.devices.requests[0].exactly->tolerations.push_back(t);
  out = Run({tolerant});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Devices(*out, 0), (std::vector<std::string>{"r=driver-a/pool-1/dev-1"}));
  EXPECT_EQ(out->results[0].devices.results[0].tolerations.size(), 1u);
}

TEST_F(AllocatorTest, SharedCountersLimitPartitionsOfOneDevice) {
  api::ResourceSlice counters = Slice("a-counters", "driver-a", "pool-1", "node-1", {}, 1, 2);
  api::CounterSet set;
  set.name = "gpu-0";
  set.counters["memory"] = api::Quantity::FromValue(40);
  counters.spec.shared_counters.push_back(set);
  std::vector<api::Device> parts;
  for (const char* name : {"part-1", "part-2", "part-3"}) {
    auto d = Dev(name);
    api::DeviceCounterConsumption use;
    use.counter_set = "gpu-0";
    use.counters["memory"] = api::Quantity::FromValue(20);
    d.consumes_counters.push_back(use);
    parts.push_back(d);
  }
  slices_ = {counters, Slice("b-devices", "driver-a", "pool-1", "node-1", parts, 1, 2)};
  auto out = Run({Claim("c", {Req("r", "class-a", 2)})});
  ASSERT_TRUE(out.ok() && out->allocated) << (out.ok() ? "" : out.error());
  EXPECT_EQ(Devices(*out, 0),
            (std::vector<std::string>{"r=driver-a/pool-1/part-1", "r=driver-a/pool-1/part-2"}));
  out = Run({Claim("c", {Req("r", "class-a", 3)})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
  AllocatedState taken;
  taken.allocated_devices.insert(DeviceId{"driver-a", "pool-1", "part-1"});
  out = Run({Claim("c", {Req("r", "class-a", 2)})}, taken);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);  // part-1 holds 20 of the 40: only one more fits
}

TEST_F(AllocatorTest, TooManyDevicesForOneClaimIsAnError) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1")})};
  auto out = Run({Claim("c", {Req("r", "class-a", 33)})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "claim default/c, request r: adding 33 devices exceeds the claim limit of 32, with 0 "
            "already accounted for");
}

TEST_F(AllocatorTest, ClassConfigIsCopiedOncePerClassNamingEachRequest) {
  api::DeviceClassConfiguration cfg;
  cfg.opaque = api::OpaqueDeviceConfiguration{"driver-a", {}};
  classes_["class-a"].spec.config.push_back(cfg);
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1"), Dev("dev-2")}),
             Slice("s2", "driver-b", "pool-1", "node-1", {Dev("dev-3")})};
  auto out =
      Run({Claim("c", {Req("r0", "class-a"), Req("r1", "class-a"), Req("r2", "class-any")})});
  ASSERT_TRUE(out.ok() && out->allocated);
  ASSERT_EQ(out->results[0].devices.config.size(), 1u);
  EXPECT_EQ(out->results[0].devices.config[0].source, "FromClass");
  EXPECT_EQ(out->results[0].devices.config[0].requests, (std::vector<std::string>{"r0", "r1"}));
}

}  // namespace
}  // namespace berth::plugins::dynamic_resources::structured
