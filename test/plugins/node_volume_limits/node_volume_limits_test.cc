#include "plugins/node_volume_limits/node_volume_limits.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::node_volume_limits {
namespace {

using framework::Code;
using framework::QueueingHint;
using testing::MakeNode;
using testing::MakePod;

constexpr const char kEbs[] = "ebs.csi.aws.com";
constexpr const char kGce[] = "pd.csi.storage.gke.io";
constexpr const char kNode[] = "node-for-max-pd-test-1";
constexpr const char kScName[] = "csi-sc";

api::Volume PvcVolume(std::string claim) {
  api::Volume v;
  v.name = claim;
  v.pvc_claim_name = std::move(claim);
  return v;
}
api::Volume EphemeralVolume(const std::string& pod, const std::string& name) {
  api::Volume v;
  v.name = name;
  v.ephemeral = true;
  v.pvc_claim_name = pod + "-" + name;  // as the decoder names it
  return v;
}
api::Volume EbsVolume(std::string id) {
  api::Volume v;
  v.name = "ebs-" + id;
  v.aws_ebs_volume_id = std::move(id);
  return v;
}
api::Volume PlainVolume(std::string name) {  // configMap, secret, ...
  api::Volume v;
  v.name = std::move(name);
  return v;
}

api::Pod PodWith(std::string name, std::vector<api::Volume> volumes, std::string ns = "default") {
  MakePod b(std::move(name));
  b.Namespace(std::move(ns));
  b.Mutable().spec.volumes = std::move(volumes);
  return b.Obj();
}
api::Pod PvcPod(std::string name, std::vector<std::string> claims) {
  std::vector<api::Volume> volumes;
  for (auto& c : claims) volumes.push_back(PvcVolume(std::move(c)));
  return PodWith(std::move(name), std::move(volumes));
}

api::PersistentVolumeClaim Claim(std::string ns, std::string name) {
  api::PersistentVolumeClaim c;
  c.metadata.namespace_ = std::move(ns);
  c.metadata.name = std::move(name);
  return c;
}
api::PersistentVolumeClaim OwnedClaim(const api::Pod& pod, const std::string& volume) {
  auto c = Claim(pod.metadata.namespace_, pod.metadata.name + "-" + volume);
  c.metadata.owner_references.push_back({"v1", "Pod", pod.metadata.name, pod.metadata.uid, true});
  c.spec.storage_class_name = kScName;
  return c;
}

enum class LimitSource { kNone, kCSINode, kCSINodeWithoutLimit };

// Upstream's fake listers: for each driver, PVCs csi-<driver>-0..3 bound to CSI PVs of the same
// name and handle; csi-4 unbound with StorageClass csi-sc; csi-5 unbound without a class; csi-6
// bound to a missing PV but with csi-sc. csi-sc provisions with the first driver.
void Populate(testing::FakeHandle& h, const std::vector<std::string>& drivers, LimitSource source,
              int32_t max_vols) {
  auto& o = h.mutable_objects();
  for (const auto& d : drivers) {
    for (int j = 0; j < 4; ++j) {
      const std::string name = "csi-" + d + "-" + std::to_string(j);
      auto pv = std::make_shared<api::PersistentVolume>();
      pv->metadata.name = name;
      pv->spec.csi_driver = d;
      pv->spec.csi_volume_handle = name;
      o.pvs.Upsert(pv);
      auto c = Claim("default", name);
      c.spec.volume_name = name;
      o.pvcs.Upsert(std::make_shared<api::PersistentVolumeClaim>(c));
    }
  }
  auto c4 = Claim("default", "csi-4");
  c4.spec.storage_class_name = kScName;
  o.pvcs.Upsert(std::make_shared<api::PersistentVolumeClaim>(c4));
  o.pvcs.Upsert(std::make_shared<api::PersistentVolumeClaim>(Claim("default", "csi-5")));
  auto c6 = Claim("default", "csi-6");
  c6.spec.storage_class_name = kScName;
  c6.spec.volume_name = "missing-in-action";
  o.pvcs.Upsert(std::make_shared<api::PersistentVolumeClaim>(c6));
  auto sc = std::make_shared<api::StorageClass>();
  sc->metadata.name = kScName;
  sc->provisioner = drivers.front();
  o.storage_classes.Upsert(sc);
  if (source == LimitSource::kNone) return;
  auto csi = std::make_shared<api::CSINode>();
  csi->metadata.name = kNode;
  for (const auto& d : drivers) {
    api::CSINodeDriver driver;
    driver.name = d;
    driver.node_id = kNode;
    if (source == LimitSource::kCSINode) driver.allocatable_count = max_vols;
    csi->drivers.push_back(driver);
  }
  o.csi_nodes.Upsert(csi);
}

std::shared_ptr<framework::Plugin> MakePlugin(testing::FakeHandle& h) {
  framework::PluginContext ctx;
  ctx.handle = &h;
  auto p = New(ctx);
  EXPECT_TRUE(p.ok());
  return *p;
}

// Upstream's TestCSILimits cases that berth can express (no VolumeAttachments; in-tree PVs are
// replaced by inline in-tree volumes).
TEST(NodeVolumeLimitsTest, Filter) {
  const api::Pod running = PvcPod("running", {"csi-ebs.csi.aws.com-3"});
  const api::Pod pending_volume = PvcPod("pending", {"csi-4"});
  const api::Pod unbound_pvc_pod2 = PvcPod("pending2", {"csi-4"});
  const api::Pod missing_pv = PvcPod("missing-pv", {"csi-6"});
  const api::Pod no_sc = PvcPod("no-sc", {"csi-5"});
  const api::Pod gce_two =
      PvcPod("gce-two", {"csi-pd.csi.storage.gke.io-1", "csi-pd.csi.storage.gke.io-2"});
  const api::Pod ebs_one = PvcPod("ebs-one", {"csi-ebs.csi.aws.com-0"});
  const api::Pod ebs_two = PvcPod("ebs-two", {"csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2"});

  api::Pod ephemeral = PodWith("abc", {EphemeralVolume("abc", "xyz")}, "test");
  ephemeral.metadata.uid = "12345";
  const auto ephemeral_claim = OwnedClaim(ephemeral, "xyz");
  auto conflicting_claim = ephemeral_claim;
  conflicting_claim.metadata.owner_references.clear();
  api::Pod ephemeral_two =
      PodWith("abc", {EphemeralVolume("abc", "x"), EphemeralVolume("abc", "y")}, "test");
  ephemeral_two.metadata.uid = "12345II";
  const auto claim_x = OwnedClaim(ephemeral_two, "x");
  const auto claim_y = OwnedClaim(ephemeral_two, "y");

  const api::Pod only_config_and_secret =
      PodWith("cm", {PlainVolume("configmap"), PlainVolume("secret")});
  const api::Pod pvc_with_config_and_secret = PodWith(
      "cm-pvc",
      {PlainVolume("configmap"), PlainVolume("secret"), PvcVolume("csi-ebs.csi.aws.com-0")});
  const api::Pod ephemeral_with_config_and_secret = PodWith(
      "abc", {PlainVolume("configmap"), PlainVolume("secret"), EphemeralVolume("abc", "xyz")},
      "test");
  const api::Pod inline_one = PodWith("inline", {EbsVolume("aws-inline1")});
  const api::Pod inline_same_id = PodWith("inline-same", {EbsVolume("csi-ebs.csi.aws.com-1")});
  const api::Pod inline_two = PodWith("inline-two", {EbsVolume("vol-1"), EbsVolume("vol-2")});
  const api::Pod inline_with_config_and_secret = PodWith(
      "inline-cm", {PlainVolume("configmap"), PlainVolume("secret"), EbsVolume("aws-inline1")});

  const std::string kMissing =
      R"(looking up PVC test/abc-xyz: persistentvolumeclaims "abc-xyz" not found)";
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Pod> existing;
    std::vector<api::PersistentVolumeClaim> extra_claims;
    std::vector<std::string> drivers;
    int32_t max_vols;
    LimitSource source;
    Code want;
    std::string want_msg = "";
    bool want_skip = false;
  };
  const auto kCsi = LimitSource::kCSINode;
  const auto kNoLimit = LimitSource::kCSINodeWithoutLimit;
  const auto kU = Code::kUnschedulable;
  const auto kOK = Code::kSuccess;
  const std::string kExceeded = kErrReasonMaxVolumeCountExceeded;
  const std::vector<Case> cases = {
      {"fits when node volume limit >= new pods CSI volume",
       ebs_one,
       {running, ebs_two},
       {},
       {kEbs},
       4,
       kCsi,
       kOK},
      {"doesn't when node volume limit <= pods CSI volume",
       ebs_one,
       {running, ebs_two},
       {},
       {kEbs},
       2,
       kCsi,
       kU,
       kExceeded},
      {"should when driver does not support volume limits",
       ebs_one,
       {running, ebs_two},
       {},
       {kEbs},
       2,
       kNoLimit,
       kOK},
      {"count pending PVCs towards volume limit <= pods CSI volume",
       ebs_one,
       {pending_volume, ebs_two},
       {},
       {kEbs},
       2,
       kCsi,
       kU,
       kExceeded},
      {"count multiple pending pvcs towards volume limit >= pods CSI volume",
       ebs_one,
       {pending_volume, unbound_pvc_pod2, ebs_two},
       {},
       {kEbs},
       4,
       kCsi,
       kOK},
      {"should count PVCs with invalid PV name but valid SC",
       ebs_one,
       {missing_pv, ebs_two},
       {},
       {kEbs},
       2,
       kCsi,
       kU,
       kExceeded},
      {"don't count pvcs with missing SC towards volume limit",
       ebs_one,
       {running, no_sc},
       {},
       {kEbs},
       2,
       kCsi,
       kOK},
      {"count pvcs with the same type towards volume limit",
       ebs_one,
       {gce_two, ebs_two},
       {},
       {kEbs, kGce},
       2,
       kCsi,
       kU,
       kExceeded},
      {"don't count pvcs with different type towards volume limit",
       gce_two,
       {ebs_two, running},
       {},
       {kEbs, kGce},
       2,
       kCsi,
       kOK},
      // In-tree inline volumes count under their CSI driver where a CSINode exists.
      {"nil csi node", inline_one, {inline_two}, {}, {kEbs}, 2, LimitSource::kNone, kOK},
      {"should count in-tree inline volumes if migration is enabled",
       inline_one,
       {inline_two},
       {},
       {kEbs},
       2,
       kCsi,
       kU,
       kExceeded},
      {"should count in-tree and csi volumes (when scheduling in-tree volumes)",
       inline_one,
       {ebs_two},
       {},
       {kEbs},
       2,
       kCsi,
       kU,
       kExceeded},
      {"should count in-tree and csi volumes (when scheduling csi volumes)",
       ebs_one,
       {inline_two},
       {},
       {kEbs},
       2,
       kCsi,
       kU,
       kExceeded},
      {"should not count in-tree inline and csi volumes with the same ID twice",
       inline_same_id,
       {ebs_two},
       {},
       {kEbs},
       2,
       kCsi,
       kOK},
      {"should not limit pod if volume used does not report limits",
       inline_one,
       {inline_two},
       {},
       {kEbs},
       2,
       kNoLimit,
       kOK},
      // Generic ephemeral volumes.
      {"ephemeral volume missing",
       ephemeral,
       {},
       {},
       {kEbs},
       0,
       kNoLimit,
       Code::kUnschedulableAndUnresolvable,
       kMissing},
      {"ephemeral volume not owned",
       ephemeral,
       {},
       {conflicting_claim},
       {kEbs},
       0,
       kNoLimit,
       Code::kError,
       "PVC test/abc-xyz was not created for pod test/abc (pod is not owner)"},
      {"ephemeral volume unbound", ephemeral, {}, {ephemeral_claim}, {kEbs}, 0, kNoLimit, kOK},
      {"ephemeral doesn't when node volume limit <= pods CSI volume",
       ephemeral,
       {running, ebs_two},
       {ephemeral_claim},
       {kEbs},
       2,
       kCsi,
       kU,
       kExceeded},
      {"ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
       ebs_one,
       {running, ephemeral_two},
       {claim_x, claim_y},
       {kEbs},
       2,
       kCsi,
       kU,
       kExceeded},
      {"persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent "
       "volume",
       ebs_one,
       {running, ephemeral, ebs_two},
       {ephemeral_claim},
       {kEbs},
       3,
       kCsi,
       kU,
       kExceeded},
      {"persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
       ebs_one,
       {running, ephemeral, ebs_two},
       {ephemeral_claim},
       {kEbs},
       5,
       kCsi,
       kOK},
      {"skip Filter when the pod only uses secrets and configmaps",
       only_config_and_secret,
       {},
       {},
       {kEbs},
       2,
       kCsi,
       kOK,
       "",
       true},
      {"don't skip Filter when the pod has pvcs",
       pvc_with_config_and_secret,
       {},
       {},
       {kEbs},
       2,
       kCsi,
       kOK},
      {"don't skip Filter when the pod has ephemeral volumes",
       ephemeral_with_config_and_secret,
       {},
       {},
       {kEbs},
       0,
       kNoLimit,
       Code::kUnschedulableAndUnresolvable,
       kMissing},
      {"don't skip Filter when the pod has inline migratable volumes",
       inline_with_config_and_secret,
       {inline_two},
       {},
       {kEbs},
       2,
       kCsi,
       kU,
       kExceeded},
      // Berth additions.
      {"missing PVC is unresolvable even without a CSINode",
       PvcPod("p", {"nope"}),
       {},
       {},
       {kEbs},
       0,
       LimitSource::kNone,
       Code::kUnschedulableAndUnresolvable,
       R"(looking up PVC default/nope: persistentvolumeclaims "nope" not found)"},
      {"existing pod's missing PVC is ignored",
       ebs_one,
       {PvcPod("gone", {"nope"}), running},
       {},
       {kEbs},
       2,
       kCsi,
       kOK},
      {"a volume shared with a pod on the node is counted once",
       ebs_one,
       {PvcPod("sharer", {"csi-ebs.csi.aws.com-0"}), running},
       {},
       {kEbs},
       2,
       kCsi,
       kOK},
      {"the pod's own duplicate claims count once",
       PvcPod("dup", {"csi-ebs.csi.aws.com-0", "csi-ebs.csi.aws.com-0"}),
       {running},
       {},
       {kEbs},
       2,
       kCsi,
       kOK},
      {"bad EBS volume ID is an error where migration is on",
       PodWith("bad", {EbsVolume("aws://us-east-1a/bad")}),
       {},
       {},
       {kEbs},
       2,
       kCsi,
       Code::kError,
       "converting volume(ebs-aws://us-east-1a/bad) from inline to csi: failed to translate "
       "Kubernetes ID to EBS Volume ID Invalid format for AWS volume (aws://us-east-1a/bad)"},
      {"aws:// volume IDs are reduced to the volume",
       PodWith("url", {EbsVolume("aws://z/vol-1")}),
       {inline_two},
       {},
       {kEbs},
       2,
       kCsi,
       kOK},
  };
  for (const auto& c : cases) {
    testing::FakeHandle h;
    Populate(h, c.drivers, c.source, c.max_vols);
    for (const auto& claim : c.extra_claims) {
      h.mutable_objects().pvcs.Upsert(std::make_shared<api::PersistentVolumeClaim>(claim));
    }
    auto plugin = MakePlugin(h);
    auto* pre = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
    auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
    ASSERT_NE(pre, nullptr);
    ASSERT_NE(filter, nullptr);
    framework::NodeInfo ni(MakeNode(kNode).Ptr());
    for (const auto& e : c.existing) {
      auto bound = e;
      bound.spec.node_name = kNode;
      ni.AddPod(framework::MakePodInfo(std::make_shared<api::Pod>(bound)));
    }
    auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pst = pre->PreFilter(state, *pod, {}, &result);
    EXPECT_EQ(pst.IsSkip(), c.want_skip) << c.name;
    if (pst.IsSkip()) continue;
    ASSERT_TRUE(pst.IsSuccess()) << c.name << ": " << pst.Message();
    EXPECT_TRUE(result.AllNodes()) << c.name;
    auto st = filter->Filter(state, *pod, ni);
    EXPECT_EQ(st.code(), c.want) << c.name << ": " << st.Message();
    EXPECT_EQ(st.Message(), c.want_msg) << c.name;
  }
}

TEST(NodeVolumeLimitsTest, UnboundClaimOfInTreeProvisionerCountsUnderItsCSIDriver) {
  testing::FakeHandle h;
  Populate(h, {kEbs}, LimitSource::kCSINode, 2);
  auto sc = std::make_shared<api::StorageClass>();
  sc->metadata.name = "gp2";
  sc->provisioner = "kubernetes.io/aws-ebs";
  h.mutable_objects().storage_classes.Upsert(sc);
  auto claim = Claim("default", "legacy");
  claim.metadata.annotations["volume.beta.kubernetes.io/storage-class"] = "gp2";
  h.mutable_objects().pvcs.Upsert(std::make_shared<api::PersistentVolumeClaim>(claim));
  auto plugin = MakePlugin(h);
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
  auto running = PvcPod("running", {"csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2"});
  running.spec.node_name = kNode;
  framework::NodeInfo ni(MakeNode(kNode).Ptr());
  ni.AddPod(framework::MakePodInfo(std::make_shared<api::Pod>(running)));
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(PvcPod("p", {"legacy"})));
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(pre->PreFilter(state, *pod, {}, &result).IsSuccess());
  EXPECT_EQ(filter->Filter(state, *pod, ni).code(), Code::kUnschedulable);
  // Without a CSINode the in-tree provisioner is not migrated: nothing is counted.
  h.mutable_objects().csi_nodes.Clear();
  EXPECT_TRUE(filter->Filter(state, *pod, ni).IsSuccess());
}

// Upstream's TestVolumeLimitScalingGate cases (the gate is on in v1.37).
TEST(NodeVolumeLimitsTest, DriverThatMustBeInstalled) {
  struct Case {
    const char* name;
    bool driver_object;
    bool prevent_if_missing;
    bool node_lists_driver;
    Code want;
  };
  const std::vector<Case> cases = {
      {"CSIDriver exists but preventPodSchedulingIfMissing is not set", true, false, false,
       Code::kSuccess},
      {"driver not installed and preventPodSchedulingIfMissing is true", true, true, false,
       Code::kUnschedulable},
      {"driver installed within limit", true, true, true, Code::kSuccess},
      {"CSIDriver object missing", false, false, false, Code::kSuccess},
  };
  for (const auto& c : cases) {
    testing::FakeHandle h;
    Populate(h, {kEbs}, c.node_lists_driver ? LimitSource::kCSINode : LimitSource::kNone, 2);
    if (!c.node_lists_driver) {  // a CSINode without drivers
      auto csi = std::make_shared<api::CSINode>();
      csi->metadata.name = kNode;
      h.mutable_objects().csi_nodes.Upsert(csi);
    }
    if (c.driver_object) {
      auto d = std::make_shared<api::CSIDriver>();
      d->metadata.name = kEbs;
      d->prevent_pod_scheduling_if_missing = c.prevent_if_missing;
      h.mutable_objects().csi_drivers.Upsert(d);
    }
    auto plugin = MakePlugin(h);
    auto* pre = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
    auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
    auto pod =
        framework::MakePodInfo(std::make_shared<api::Pod>(PvcPod("p", {"csi-ebs.csi.aws.com-0"})));
    framework::CycleState state;
    framework::PreFilterResult result;
    ASSERT_TRUE(pre->PreFilter(state, *pod, {}, &result).IsSuccess()) << c.name;
    framework::NodeInfo ni(MakeNode(kNode).Ptr());
    auto st = filter->Filter(state, *pod, ni);
    EXPECT_EQ(st.code(), c.want) << c.name;
    if (c.want == Code::kUnschedulable) {
      EXPECT_EQ(st.Message(), "ebs.csi.aws.com CSI driver is not installed on the node") << c.name;
    }
  }
}

TEST(NodeVolumeLimitsTest, FilterWithoutPreFilterIsError) {
  testing::FakeHandle h;
  auto plugin = MakePlugin(h);
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
  framework::CycleState state;
  framework::NodeInfo ni(MakeNode("n").Ptr());
  EXPECT_TRUE(filter->Filter(state, *MakePod("p").Info(), ni).IsError());
}

TEST(NodeVolumeLimitsTest, NeedsHandle) { EXPECT_FALSE(New(framework::PluginContext{}).ok()); }

const framework::QueueingHintFn& HintFor(const std::vector<framework::ClusterEventWithHint>& evs,
                                         framework::EventResource r, uint32_t action) {
  for (const auto& e : evs) {
    if (e.event.resource == r && e.event.action_type == action) return e.hint;
  }
  static const framework::QueueingHintFn kNone;
  ADD_FAILURE() << "event not registered";
  return kNone;
}

TEST(NodeVolumeLimitsTest, EventsToRegister) {
  testing::FakeHandle h;
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin(h));
  auto events = ext->EventsToRegister();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_FALSE(HintFor(events, framework::EventResource::kCSINode, framework::action::kAdd));
  EXPECT_TRUE(HintFor(events, framework::EventResource::kCSINode, framework::action::kUpdate));
  EXPECT_TRUE(HintFor(events, framework::EventResource::kAssignedPod, framework::action::kDelete));
  EXPECT_TRUE(
      HintFor(events, framework::EventResource::kPersistentVolumeClaim, framework::action::kAdd));
}

// Upstream's TestCSILimitsQHint.
TEST(NodeVolumeLimitsTest, PodDeletedHint) {
  testing::FakeHandle h;
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin(h));
  const auto events = ext->EventsToRegister();
  const auto& hint =
      HintFor(events, framework::EventResource::kAssignedPod, framework::action::kDelete);
  const api::Pod pod = PvcPod("p", {"csi-ebs.csi.aws.com-2"});
  auto bound = [](api::Pod p) {
    p.spec.node_name = kNode;
    return p;
  };
  const api::Pod with_pvc = bound(PvcPod("d", {"placeholder"}));
  const api::Pod with_inline = bound(PodWith("d", {EbsVolume("")}));
  const api::Pod no_volume = bound(PodWith("d", {}));
  const api::Pod not_scheduled = PvcPod("d", {"csi-ebs.csi.aws.com-0"});
  api::Pod with_inline_id = with_inline;
  with_inline_id.spec.volumes[0].aws_ebs_volume_id = "vol-1";
  const api::Node not_a_pod = MakeNode("n").Obj();
  struct Case {
    const char* name;
    framework::EventObject old_obj;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"return a Queue when a deleted pod has a PVC", &with_pvc, QueueingHint::kQueue},
      {"return a Queue when a deleted pod has a inline migratable volume", &with_inline_id,
       QueueingHint::kQueue},
      {"return a QueueSkip when a deleted pod doesn't have any volume", &no_volume,
       QueueingHint::kQueueSkip},
      {"return a QueueSkip when a deleted pod is not scheduled.", &not_scheduled,
       QueueingHint::kQueueSkip},
      {"wrong object", &not_a_pod, QueueingHint::kQueue},
  };
  for (const auto& c : cases) EXPECT_EQ(hint(pod, c.old_obj, {}), c.want) << c.name;
}

// Upstream's TestCSILimitsAddedPVCQHint.
TEST(NodeVolumeLimitsTest, PvcAddedHint) {
  testing::FakeHandle h;
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin(h));
  const auto events = ext->EventsToRegister();
  const auto& hint =
      HintFor(events, framework::EventResource::kPersistentVolumeClaim, framework::action::kAdd);
  struct Case {
    const char* name;
    api::Pod pod;
    api::PersistentVolumeClaim added;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"a pod isn't in the same namespace as an added PVC", PodWith("p", {}, "ns1"),
       Claim("ns2", "pvc"), QueueingHint::kQueueSkip},
      {"a pod is in the same namespace as an added PVC", PodWith("p", {PvcVolume("pvc1")}, "ns1"),
       Claim("ns1", "pvc1"), QueueingHint::kQueue},
      {"a pod has an ephemeral volume related to an added PVC",
       PodWith("pod1", {EphemeralVolume("pod1", "ephemeral")}, "ns1"),
       Claim("ns1", "pod1-ephemeral"), QueueingHint::kQueue},
      {"a pod doesn't have the same PVC as an added PVC", PodWith("p", {PvcVolume("pvc1")}, "ns1"),
       Claim("ns1", "pvc2"), QueueingHint::kQueueSkip},
      {"a pod doesn't have any PVC attached", PodWith("p", {}, "ns1"), Claim("ns1", "pvc2"),
       QueueingHint::kQueueSkip},
  };
  for (const auto& c : cases) EXPECT_EQ(hint(c.pod, {}, &c.added), c.want) << c.name;
}

TEST(NodeVolumeLimitsTest, CSINodeUpdatedHint) {
  testing::FakeHandle h;
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin(h));
  const auto events = ext->EventsToRegister();
  const auto& hint =
      HintFor(events, framework::EventResource::kCSINode, framework::action::kUpdate);
  auto csi = [](std::vector<std::pair<std::string, std::optional<int32_t>>> drivers) {
    api::CSINode n;
    n.metadata.name = kNode;
    for (auto& [name, count] : drivers) n.drivers.push_back({name, kNode, count, {}});
    return n;
  };
  const api::Pod pod = PvcPod("p", {"c"});
  struct Case {
    const char* name;
    api::CSINode old_node, new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"limit raised", csi({{kEbs, 2}}), csi({{kEbs, 3}}), QueueingHint::kQueue},
      {"limit removed", csi({{kEbs, 2}}), csi({{kEbs, std::nullopt}}), QueueingHint::kQueue},
      {"driver removed", csi({{kEbs, 2}}), csi({}), QueueingHint::kQueue},
      {"limit lowered", csi({{kEbs, 2}}), csi({{kEbs, 1}}), QueueingHint::kQueueSkip},
      {"limit added", csi({{kEbs, std::nullopt}}), csi({{kEbs, 1}}), QueueingHint::kQueueSkip},
      {"unchanged", csi({{kEbs, 2}, {kGce, 1}}), csi({{kEbs, 2}, {kGce, 1}}),
       QueueingHint::kQueueSkip},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(hint(pod, &c.old_node, &c.new_node), c.want) << c.name;
  }
}

}  // namespace
}  // namespace berth::plugins::node_volume_limits
