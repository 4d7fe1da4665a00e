// The structured allocator on small hand-made clusters, after upstream's allocator test table
// (allocatortesting): search order and backtracking, pools, "all" mode, admin access,
// constraints, prioritized lists, taints, counters, configuration and node selectors. CEL is
// replaced by a table of named predicates; the CEL evaluator has its own tests, and the
// differential corpus (allocator_corpus_test) runs both together against upstream.

#include "plugins/dynamic_resources/structured/allocator.h"

#include <gtest/gtest.h>

#include <climits>
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
  using SelectorEvaluator::Evaluate;
  Outcome Evaluate(const std::string& expression, const std::string& driver,
                   const api::Device& device, const Interruption&) const override {
    Outcome out;
    if (expression == "boom") {
      out.runtime_error = "no such key: numa";
      return out;
    }
    // A selector cut short by the search's interruption, as CelSelectors reports it.
    if (expression == "slow-timeout") {
      out.interrupted = "context deadline exceeded";
      return out;
    }
    if (expression == "slow-stop") {
      out.interrupted = "context canceled";
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

// A selector interrupted by the deadline or by shutdown ends the search as the deadline does
// (upstream's CEL error wraps context.DeadlineExceeded / context.Canceled), not as a CEL error.
TEST_F(AllocatorTest, AnInterruptedSelectorEndsTheSearch) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1")})};
  auto out = Run({Claim("c", {Req("r", "class-a", 1, {"slow-timeout"})})});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_TRUE(out->timed_out);
  EXPECT_FALSE(out->stopped);
  out = Run({Claim("c", {Req("r", "class-a", 1, {"slow-stop"})})});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_TRUE(out->stopped);
  EXPECT_FALSE(out->timed_out);
  // Shutdown seen between devices.
  std::vector<const api::ResourceSlice*> slices;
  for (const auto& s : slices_) slices.push_back(&s);
  Allocator a(
      Features{}, {}, [this](const std::string& n) { return &classes_.at(n); }, slices, &sel_);
  api::ResourceClaim c = Claim("c", {Req("r", "class-a")});
  auto stopped = a.Allocate(node_, {&c}, Interruption{std::nullopt, [] { return true; }});
  ASSERT_TRUE(stopped.ok()) << stopped.error();
  EXPECT_TRUE(stopped->stopped);
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

// ---- consumable capacity (DRAConsumableCapacity), after upstream's consumable-capacity and
// allow-multiple-allocations cases ----

constexpr const char* kCap = "capacity-0";

api::Quantity Q(int64_t value) { return api::Quantity::FromValue(value); }

api::Device Multi(api::Device d) {
  d.allow_multiple_allocations = true;
  return d;
}

// A capacity without a request policy.
api::Device WithCap(api::Device d, int64_t value, const std::string& name = kCap) {
  d.capacity[name].value = Q(value);
  return d;
}

// Upstream's withCapacityRequestPolicyRange: default 2, validRange {min 2, step 2, max 4}.
api::Device WithRange(api::Device d, int64_t value) {
  api::DeviceCapacity c;
  c.value = Q(value);
  api::CapacityRequestPolicy p;
  p.default_value = Q(2);
  p.valid_range = api::CapacityRequestPolicyRange{Q(2), Q(4), Q(2)};
  c.request_policy = p;
  d.capacity[kCap] = c;
  return d;
}

// Upstream's withCapacityRequestPolicyValidValues: the default first, then `more`.
api::Device WithValues(api::Device d, int64_t value, int64_t def, std::vector<int64_t> more) {
  api::DeviceCapacity c;
  c.value = Q(value);
  api::CapacityRequestPolicy p;
  p.default_value = Q(def);
  p.valid_values.push_back(Q(def));
  for (int64_t v : more) p.valid_values.push_back(Q(v));
  c.request_policy = p;
  d.capacity[kCap] = c;
  return d;
}

api::DeviceRequest CapReq(api::DeviceRequest r, api::Quantity amount) {
  r.exactly->capacity.emplace();
  r.exactly->capacity->requests[kCap] = amount;
  return r;
}

api::DeviceRequest AllReq(std::string name, std::string cls) {
  api::DeviceRequest r = Req(std::move(name), std::move(cls), 0);
  r.exactly->allocation_mode = api::kDeviceAllocationModeAll;
  return r;
}

// "request=device[ share][ name:amount...]" per result of claim `i`.
std::vector<std::string> Shares(const Allocator::Outcome& out, size_t i) {
  std::vector<std::string> v;
  for (const auto& r : out.results[i].devices.results) {
    std::string s = r.request + "=" + r.device;
    if (r.share_id) s += " share";
    for (const auto& [name, q] : r.consumed_capacity) s += " " + name + ":" + q.ToString();
    v.push_back(s);
  }
  return v;
}

using Strings = std::vector<std::string>;

TEST_F(AllocatorTest, CapacityRequestsNeedTheFeature) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Dev("dev-1")})};
  Features off;
  off.consumable_capacity = false;
  auto out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1))})}, {}, off);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "claim default/claim-0, request req-0: has capacity requests, but the "
            "DRAConsumableCapacity feature is disabled");
  api::DeviceRequest list;
  list.name = "req-0";
  for (const char* name : {"subReq-0", "subReq-1"}) {
    api::DeviceSubRequest sub;
    sub.name = name;
    sub.device_class_name = "class-a";
    sub.capacity.emplace();
    sub.capacity->requests[kCap] = Q(1);
    list.first_available.push_back(sub);
  }
  out = Run({Claim("claim-0", {list})}, {}, off);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "claim default/claim-0, subrequest subReq-0: has capacity requests, but the "
            "DRAConsumableCapacity feature is disabled");
}

TEST_F(AllocatorTest, ARequestForACapacityTheDeviceLacksDoesNotFit) {
  slices_ = {
      Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithCap(Dev("dev-1"), 1, "capacity-1"))})};
  auto out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1))})});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_FALSE(out->allocated);
  out = Run({Claim("claim-0", {CapReq(AllReq("req-0", "class-a"), Q(1))})});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_FALSE(out->allocated);
}

TEST_F(AllocatorTest, SharesOfADeviceWithoutCapacitiesConsumeNothing) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(Dev("dev-1"))})};
  auto out = Run(
      {Claim("claim-0", {Req("req-0", "class-a")}), Claim("claim-1", {Req("req-0", "class-a")})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share"});
  EXPECT_EQ(Shares(*out, 1), Strings{"req-0=dev-1 share"});
  // Each share has its own, well-formed ID.
  const auto& a = *out->results[0].devices.results[0].share_id;
  const auto& b = *out->results[1].devices.results[0].share_id;
  EXPECT_NE(a, b);
  ASSERT_EQ(a.size(), 36u);
  EXPECT_EQ(a[8], '-');
  EXPECT_EQ(a[14], '4');
}

TEST_F(AllocatorTest, WithoutPolicyOrRequestAShareConsumesTheWholeCapacity) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1",
                   {Multi(WithCap(Dev("dev-1"), 1)), Multi(WithCap(Dev("dev-2"), 1))})};
  auto out = Run(
      {Claim("claim-0", {Req("req-0", "class-a")}), Claim("claim-1", {Req("req-0", "class-a")})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:1"});
  EXPECT_EQ(Shares(*out, 1), Strings{"req-0=dev-2 share capacity-0:1"});

  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithCap(Dev("dev-1"), 2))})};
  out = Run(
      {Claim("claim-0", {Req("req-0", "class-a")}), Claim("claim-1", {Req("req-0", "class-a")})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);

  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1))}),
             Claim("claim-1", {CapReq(Req("req-0", "class-a"), Q(1))})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:1"});
  EXPECT_EQ(Shares(*out, 1), Strings{"req-0=dev-1 share capacity-0:1"});
}

TEST_F(AllocatorTest, RequestPolicyDefaultsAndRoundsUp) {
  // Without a request: the default (2) each.
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithRange(Dev("dev-1"), 4))})};
  auto out = Run(
      {Claim("claim-0", {Req("req-0", "class-a")}), Claim("claim-1", {Req("req-0", "class-a")})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:2"});
  EXPECT_EQ(Shares(*out, 1), Strings{"req-0=dev-1 share capacity-0:2"});
  // 1 rounds up to the minimum, 3 to the next step.
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1))}),
             Claim("claim-1", {CapReq(Req("req-0", "class-a"), Q(1))})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 1), Strings{"req-0=dev-1 share capacity-0:2"});
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(3))})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:4"});
  // 6 rounds to 6, above the policy's max of 4, though the device has 10.
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithRange(Dev("dev-1"), 10))})};
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(6))})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
  // 1 and 2 round to 2 each: 4 do not fit into 2.
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithRange(Dev("dev-1"), 2))})};
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1))}),
             Claim("claim-1", {CapReq(Req("req-0", "class-a"), Q(2))})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
}

TEST_F(AllocatorTest, ValidValuesPolicy) {
  // A default of zero: shares consume nothing; an explicit 1 is not a valid value.
  slices_ = {
      Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithValues(Dev("dev-1"), 1, 0, {}))})};
  auto out = Run(
      {Claim("claim-0", {Req("req-0", "class-a")}), Claim("claim-1", {Req("req-0", "class-a")})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 1), Strings{"req-0=dev-1 share capacity-0:0"});
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1))})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
  // 2 is valid; with [1, 3] it rounds up to 3.
  slices_ = {
      Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithValues(Dev("dev-1"), 4, 1, {2}))})};
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(2))})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:2"});
  slices_ = {
      Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithValues(Dev("dev-1"), 3, 1, {3}))})};
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(2))})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:3"});
}

TEST_F(AllocatorTest, FractionalRangesRoundInWholeUnitsUnlessTheFeatureIsOn) {
  // validRange {min 200m, step 100m, max 1}, default 200m, on a capacity of 1.
  api::Device d = Multi(Dev("dev-1"));
  api::DeviceCapacity c;
  c.value = Q(1);
  api::CapacityRequestPolicy p;
  p.default_value = api::Quantity::FromMilli(200);
  p.valid_range = api::CapacityRequestPolicyRange{api::Quantity::FromMilli(200), Q(1),
                                                  api::Quantity::FromMilli(100)};
  c.request_policy = p;
  d.capacity[kCap] = c;
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {d})};
  auto out =
      Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), api::Quantity::FromMilli(200))})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:1"});
  Features fractional;
  fractional.fractional_capacity_range = true;
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), api::Quantity::FromMilli(250))})},
            {}, fractional);
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:300m"});
}

TEST_F(AllocatorTest, UnusableCapacityAmountsAbortTheAllocation) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithCap(Dev("dev-1"), 10))})};
  auto out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(-5))})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(),
            "claim default/claim-0, request req-0: checking capacity for device "
            "driver-a/pool-1/dev-1: capacity \"capacity-0\": capacity value is negative");
  // Rounding up to the next step would pass the milli-value range.
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithRange(Dev("dev-1"), 4))})};
  Features fractional;
  fractional.fractional_capacity_range = true;
  out = Run(
      {Claim("claim-0", {CapReq(Req("req-0", "class-a"), api::Quantity::FromMilli(INT64_MAX))})},
      {}, fractional);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().find("cannot be represented"), std::string::npos) << out.error();
  out = Run(
      {Claim("claim-0", {CapReq(AllReq("req-0", "class-a"), api::Quantity::FromMilli(INT64_MAX))})},
      {}, fractional);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().find("request req-0: checking capacity for device dev-1: capacity "),
            std::string::npos)
      << out.error();
}

TEST_F(AllocatorTest, AllocatedSharesLeaveTheirCapacityTaken) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithRange(Dev("dev-1"), 4))})};
  AllocatedState state;
  state.aggregated_capacity[DeviceId{"driver-a", "pool-1", "dev-1"}][kCap] = Q(2);
  auto out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(2))})}, state);
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:2"});

  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1",
                   {Multi(WithRange(Dev("dev-1"), 2)), Multi(WithRange(Dev("dev-2"), 2))})};
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(2))})}, state);
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-2 share capacity-0:2"});

  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithRange(Dev("dev-1"), 2))})};
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(2))})}, state);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
}

TEST_F(AllocatorTest, SharesBacktrackLikeWholeDevices) {
  // claim-0 needs one device (match constraint) for two shares of 2: only dev-1 (4) has room.
  auto attr = [](api::Device d, const char* v) {
    api::DeviceAttribute a;
    a.string_value = v;
    d.attributes["stringAttribute"] = a;
    return d;
  };
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1",
                   {attr(Multi(WithRange(Dev("dev-2"), 2)), "v1"),
                    attr(Multi(WithRange(Dev("dev-1"), 4)), "v2")})};
  auto c0 = Claim("claim-0",
                  {CapReq(Req("req-0", "class-a"), Q(2)), CapReq(Req("req-1", "class-a"), Q(2))});
  api::DeviceConstraint match;
  match.match_attribute = "driver-a/stringAttribute";
  c0.spec.devices.constraints.push_back(match);
  auto out = Run({c0, Claim("claim-1", {CapReq(Req("req-0", "class-a"), Q(2))})});
  ASSERT_TRUE(out.ok() && out->allocated) << (out.ok() ? "" : out.error());
  EXPECT_EQ(Shares(*out, 0),
            (Strings{"req-0=dev-1 share capacity-0:2", "req-1=dev-1 share capacity-0:2"}));
  EXPECT_EQ(Shares(*out, 1), Strings{"req-0=dev-2 share capacity-0:2"});

  // A distinct constraint: two shares of one device are not distinct.
  slices_ = {
      Slice("s1", "driver-a", "pool-1", "node-1", {attr(Multi(WithRange(Dev("dev-1"), 2)), "v")})};
  auto c1 = Claim("claim-0",
                  {CapReq(Req("req-0", "class-a"), Q(1)), CapReq(Req("req-1", "class-a"), Q(1))});
  api::DeviceConstraint distinct;
  distinct.distinct_attribute = "driver-a/stringAttribute";
  c1.spec.devices.constraints.push_back(distinct);
  out = Run({c1});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
}

TEST_F(AllocatorTest, SubrequestsWithCapacity) {
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithRange(Dev("dev-1"), 2))})};
  api::DeviceRequest list;
  list.name = "req-0";
  for (int64_t amount : {4, 2}) {
    api::DeviceSubRequest sub;
    sub.name = "subReq-" + std::to_string(list.first_available.size());
    sub.device_class_name = "class-a";
    sub.capacity.emplace();
    sub.capacity->requests[kCap] = Q(amount);
    list.first_available.push_back(sub);
  }
  auto out = Run({Claim("claim-0", {list})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0/subReq-1=dev-1 share capacity-0:2"});
}

TEST_F(AllocatorTest, AllModeWithCapacity) {
  // Devices without room at all for the request are no part of "all".
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1",
                   {Multi(WithCap(Dev("dev-1"), 2)), Multi(Dev("dev-2"))})};
  auto out = Run({Claim("claim-0", {CapReq(AllReq("req-0", "class-a"), Q(2))})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:2"});
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1",
                   {Multi(WithCap(Dev("dev-1"), 2)), Multi(WithCap(Dev("dev-2"), 1))})};
  out = Run({Claim("claim-0", {CapReq(AllReq("req-0", "class-a"), Q(2))})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share capacity-0:2"});
  // Room taken by this claim's other request or by allocated shares still counts: devices
  // whose room is used up stay in "all", which then fails.
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1)),
                               CapReq(AllReq("req-1", "class-a"), Q(1))})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0),
            (Strings{"req-0=dev-1 share capacity-0:1", "req-1=dev-1 share capacity-0:1",
                     "req-1=dev-2 share capacity-0:1"}));
  AllocatedState state;
  state.aggregated_capacity[DeviceId{"driver-a", "pool-1", "dev-1"}][kCap] = Q(1);
  out = Run({Claim("claim-0", {CapReq(AllReq("req-0", "class-a"), Q(1))})}, state);
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0),
            (Strings{"req-0=dev-1 share capacity-0:1", "req-0=dev-2 share capacity-0:1"}));
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1",
                   {Multi(WithCap(Dev("dev-1"), 1)), Multi(WithCap(Dev("dev-2"), 1))})};
  out = Run({Claim("claim-0", {CapReq(AllReq("req-0", "class-a"), Q(1))})}, state);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1)),
                               CapReq(AllReq("req-1", "class-a"), Q(1))})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
}

TEST_F(AllocatorTest, CapacityRequestsOnDevicesTakenWhole) {
  // An ordinary device fits a capacity request it has room for and is then taken whole.
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {WithCap(Dev("dev-1"), 1)})};
  auto out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1))})});
  ASSERT_TRUE(out.ok() && out->allocated);
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1"});
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {WithRange(Dev("dev-1"), 2)})};
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1))}),
             Claim("claim-1", {CapReq(Req("req-0", "class-a"), Q(1))})});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
  // A device that allows multiple allocations but is held whole is not shared.
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {Multi(WithRange(Dev("dev-1"), 2))})};
  AllocatedState whole;
  whole.allocated_devices.insert(DeviceId{"driver-a", "pool-1", "dev-1"});
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1))})}, whole);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
  // Capacity consumed by shares of a device that no longer allows them still counts.
  slices_ = {Slice("s1", "driver-a", "pool-1", "node-1", {WithRange(Dev("dev-1"), 2)})};
  AllocatedState shared;
  shared.aggregated_capacity[DeviceId{"driver-a", "pool-1", "dev-1"}][kCap] = Q(1);
  out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a"), Q(1))})}, shared);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
}

// Shared counters: a device with allowMultipleAllocations consumes them once for all its
// shares.
class SharedCounterTest : public AllocatorTest {
 protected:
  // Pool "pool-1" on node-1: a counter set "set-1" and devices that consume from it.
  void Pool(std::map<std::string, int64_t> counters, std::vector<api::Device> devices) {
    api::ResourceSlice set = Slice("a-counters", "driver-a", "pool-1", "node-1", {}, 1, 2);
    api::CounterSet cs;
    cs.name = "set-1";
    for (const auto& [name, v] : counters) cs.counters[name] = Q(v);
    set.spec.shared_counters.push_back(cs);
    slices_ = {set, Slice("b-devices", "driver-a", "pool-1", "node-1", std::move(devices), 1, 2)};
  }
  static api::Device Consumes(api::Device d, const std::string& counter, int64_t v) {
    api::DeviceCounterConsumption use;
    use.counter_set = "set-1";
    use.counters[counter] = Q(v);
    d.consumes_counters.push_back(use);
    return d;
  }
};

TEST_F(SharedCounterTest, ASharedDeviceIsNotChargedAgain) {
  Pool({{"c", 1}}, {Consumes(Multi(Dev("dev-1")), "c", 1)});
  AllocatedState state;
  state.allocated_shared_device_ids.insert(
      SharedDeviceId{DeviceId{"driver-a", "pool-1", "dev-1"}, "share-1"});
  auto out = Run({Claim("claim-0", {Req("req-0", "class-a")})}, state);
  ASSERT_TRUE(out.ok() && out->allocated) << (out.ok() ? "" : out.error());
  EXPECT_EQ(Shares(*out, 0), Strings{"req-0=dev-1 share"});
}

TEST_F(SharedCounterTest, AnAllocatedShareHoldsItsDevicesCounters) {
  auto mode = [](api::Device d, const char* v) {
    api::DeviceAttribute a;
    a.string_value = v;
    d.attributes["mode"] = a;
    return d;
  };
  Pool({{kCap, 1}}, {mode(Consumes(Multi(WithCap(Dev("dev-1"), 1)), kCap, 1), "a"),
                     mode(Consumes(Multi(WithCap(Dev("dev-2"), 1)), kCap, 1), "b")});
  sel_.table["mode b"] = [](const std::string&, const api::Device& d) {
    return d.attributes.at("mode").string_value == "b";
  };
  AllocatedState state;
  const DeviceId dev1{"driver-a", "pool-1", "dev-1"};
  state.allocated_shared_device_ids.insert(SharedDeviceId{dev1, "share-1"});
  state.aggregated_capacity[dev1][kCap] = Q(1);
  auto out = Run({Claim("claim-0", {CapReq(Req("req-0", "class-a", 1, {"mode b"}), Q(1))})}, state);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->allocated);
}

TEST_F(SharedCounterTest, ASecondShareInOneSearchDoesNotChargeAgain) {
  // dev-1 and dev-3 consume 4 of 8, dev-2 6. req-0 shares dev-1 (4 of its 4 memory); req-1
  // would rather have a device with 6 but only 4 counters are left, and dev-1's memory is used
  // up, so it gets dev-3.
  auto mem = [](api::Device d, int64_t v) {
    d.capacity["memory"].value = Q(v);
    return d;
  };
  Pool({{"memory", 8}}, {Consumes(Multi(mem(Dev("dev-1"), 4)), "memory", 4),
                         Consumes(Multi(mem(Dev("dev-2"), 6)), "memory", 6),
                         Consumes(Multi(mem(Dev("dev-3"), 4)), "memory", 4)});
  sel_.table[">=6"] = [](const std::string&, const api::Device& d) {
    return d.capacity.at("memory").value.milli >= 6000;
  };
  sel_.table[">=4"] = [](const std::string&, const api::Device& d) {
    return d.capacity.at("memory").value.milli >= 4000;
  };
  api::DeviceRequest list;
  list.name = "req-1";
  for (const char* s : {">=6", ">=4"}) {
    api::DeviceSubRequest sub;
    sub.name = "subReq-" + std::to_string(list.first_available.size());
    sub.device_class_name = "class-a";
    sub.selectors.push_back(api::DeviceSelector{s});
    list.first_available.push_back(sub);
  }
  auto out = Run({Claim("claim-0", {Req("req-0", "class-a"), list})});
  ASSERT_TRUE(out.ok() && out->allocated) << (out.ok() ? "" : out.error());
  EXPECT_EQ(Shares(*out, 0),
            (Strings{"req-0=dev-1 share memory:4", "req-1/subReq-1=dev-3 share memory:4"}));
}

}  // namespace
}  // namespace berth::plugins::dynamic_resources::structured
