#include "plugins/replicated_storage/replicated_storage.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "test/plugins/replicated_storage/fixture.h"

namespace berth::plugins::replicated_storage {
namespace {

using Results = std::map<std::string, std::string>;

const std::string kSpace10 =
    "PVC default/data: not enough space in ReplicatedStoragePool thick on the node (needs 10Gi)";
const std::string kNoLvg =
    "PVC default/data: node has no Ready LVMVolumeGroup of ReplicatedStoragePool thick";
std::string NoReplica(const std::string& access) {
  return "PVC default/data: node has no diskful replica of volume pv-data (volumeAccess " + access +
         ")";
}

// n1: vg-1 (100Gi, 50Gi free); n2: vg-2 (100Gi, 5Gi free); n3: no volume group; plain: not a
// storage node. Pool "thick" = [vg-1, vg-2]; one class per volumeAccess. Volume pv-data has a
// Diskful replica on n1, a TieBreaker on n2 and a ShadowDiskful one on n3.
class ReplicatedStorageTest : public ReplicatedStorageFixture {
 protected:
  void SetUp() override {
    SetNodes({StorageNode("n1"), StorageNode("n2"), StorageNode("n3", "zone-b"),
              testing::MakeNode("plain").Obj()});
    Lvg("vg-1", "n1", 100, 50);
    Lvg("vg-2", "n2", 100, 5);
    Rsp("thick", "LVM", {{"vg-1", ""}, {"vg-2", ""}});
    for (const char* access : {"Local", "EventuallyLocal", "PreferablyLocal", "Any"}) {
      Class(access, access, "thick");
    }
    Replicas("pv-data", {{"Diskful", "n1"}, {"TieBreaker", "n2"}, {"ShadowDiskful", "n3"}});
  }
};

TEST_F(ReplicatedStorageTest, EveryVolumeAccessBoundAndUnbound) {
  const std::string kNotStorage = kReasonNotStorageNode;
  struct Case {
    std::string access;
    bool bound;
    Results want;
  };
  const std::vector<Case> cases = {
      // Unbound Local/EventuallyLocal/PreferablyLocal: room in the node's pool.
      {"Local", false, {{"n1", ""}, {"n2", kSpace10}, {"n3", kNoLvg}, {"plain", kNotStorage}}},
      {"EventuallyLocal",
       false,
       {{"n1", ""}, {"n2", kSpace10}, {"n3", kNoLvg}, {"plain", kNotStorage}}},
      {"PreferablyLocal",
       false,
       {{"n1", ""}, {"n2", kSpace10}, {"n3", kNoLvg}, {"plain", kNotStorage}}},
      {"Any", false, {{"n1", ""}, {"n2", ""}, {"n3", ""}, {"plain", kNotStorage}}},
      // Bound Local: a diskful (Diskful or ShadowDiskful) replica; a TieBreaker is not one.
      {"Local", true, {{"n1", ""}, {"n2", NoReplica("Local")}, {"n3", ""}, {"plain", kNotStorage}}},
      // Bound EventuallyLocal: a replica and room (for the growth, here 0) in the pool.
      {"EventuallyLocal",
       true,
       {{"n1", ""}, {"n2", NoReplica("EventuallyLocal")}, {"n3", kNoLvg}, {"plain", kNotStorage}}},
      {"PreferablyLocal", true, {{"n1", ""}, {"n2", ""}, {"n3", ""}, {"plain", kNotStorage}}},
      {"Any", true, {{"n1", ""}, {"n2", ""}, {"n3", ""}, {"plain", kNotStorage}}},
  };
  for (const auto& c : cases) {
    Claim("data", c.access, 10, c.bound ? "pv-data" : "");
    EXPECT_EQ(Filter(PodWith("p", {"data"})), c.want)
        << c.access << (c.bound ? " bound" : " unbound");
  }
}

TEST_F(ReplicatedStorageTest, BoundLocalWithoutReplicatedVolumePassesEveryStorageNode) {
  // Production lets a node pass when the ReplicatedVolume cannot be read.
  Claim("data", "Local", 10, "pv-unknown");
  EXPECT_EQ(Filter(PodWith("p", {"data"})),
            (Results{{"n1", ""}, {"n2", ""}, {"n3", ""}, {"plain", kReasonNotStorageNode}}));
}

TEST_F(ReplicatedStorageTest, BoundEventuallyLocalNeedsRoomForItsGrowth) {
  Replicas("pv-data", {{"Diskful", "n1"}, {"Diskful", "n2"}});
  Claim("data", "EventuallyLocal", 12, "pv-data", /*pv_gi=*/3);  // grows by 9Gi
  auto got = Filter(PodWith("p", {"data"}));
  EXPECT_EQ(got["n1"], "");
  EXPECT_EQ(got["n2"],
            "PVC default/data: not enough space in ReplicatedStoragePool thick on the node "
            "(needs 9Gi)");
}

TEST_F(ReplicatedStorageTest, ThickPoolCountsLogicalVolumesAlreadyCarved) {
  // vg-1: 100Gi, vgFree 50Gi. A 30Gi volume on disk and a 10Gi one not created yet (vgFree does
  // not show it): unaccounted = 100 - 30 - 50 = 20, available = min(100 - 40 - 20, 50) = 40Gi.
  Llv("a", "vg-1", 30);
  Llv("b", "vg-1", 10, std::nullopt, "Pending");
  Llv("thin-elsewhere", "vg-1", 25, std::string("tp0"));  // a thin volume: not in the thick pool
  Claim("data", "Local", 40);
  EXPECT_EQ(Filter(PodWith("p", {"data"}))["n1"], "");
  Claim("data", "Local", 41);
  EXPECT_EQ(Filter(PodWith("p", {"data"}))["n1"],
            "PVC default/data: not enough space in ReplicatedStoragePool thick on the node "
            "(needs 41Gi)");
}

TEST_F(ReplicatedStorageTest, ThinPoolUsesThinPoolSpaceAndItsOwnVolumes) {
  // vg-t1/tp0: allocatedSize 10Gi + availableSpace 20Gi = 30Gi total; a 5Gi thin volume not yet
  // created: unaccounted = 30 - 0 - 20 = 10, available = min(30 - 5 - 10, 20) = 15Gi. The thick
  // 40Gi volume on the same group does not count against the thin pool.
  Lvg("vg-t1", "n1", 100, 100, {{"tp0", 10 * kGi, 20 * kGi}});
  Lvg("vg-t2", "n2", 100, 100, {{"tp0", 0, 50 * kGi}, {"tp1", 0, 1 * kGi}});
  Rsp("thin", "LVMThin", {{"vg-t1", "tp0"}, {"vg-t2", "tp1"}});
  Class("thin-local", "Local", "thin");
  Llv("t", "vg-t1", 5, std::string("tp0"), "Pending");
  Llv("thick", "vg-t1", 40);
  Claim("data", "thin-local", 15);
  auto got = Filter(PodWith("p", {"data"}));
  EXPECT_EQ(got["n1"], "");
  // n2's pool is tp1 (1Gi), not the roomy tp0.
  EXPECT_EQ(got["n2"],
            "PVC default/data: not enough space in ReplicatedStoragePool thin on the node "
            "(needs 15Gi)");
  Claim("data", "thin-local", 16);
  EXPECT_NE(Filter(PodWith("p", {"data"}))["n1"], "");
}

TEST_F(ReplicatedStorageTest, NotReadyVolumeGroupIsSkippedForTheNextOne) {
  Lvg("vg-1", "n1", 100, 50, {}, "Pending");
  Lvg("vg-1b", "n1", 100, 80);
  Rsp("thick", "LVM", {{"vg-1", ""}, {"vg-1b", ""}, {"vg-2", ""}});
  Claim("data", "Local", 60);
  EXPECT_EQ(Filter(PodWith("p", {"data"}))["n1"], "");
}

TEST_F(ReplicatedStorageTest, SeveralClaimsOnOnePoolAreDeductedInTurn) {
  Lvg("vg-2", "n2", 100, 70);
  Claim("d1", "Local", 30);
  Claim("d2", "Local", 30);
  auto got = Filter(PodWith("p", {"d1", "d2"}));
  EXPECT_EQ(got["n1"],
            "PVC default/d2: not enough space in ReplicatedStoragePool thick on the node "
            "(needs 30Gi)");
  EXPECT_EQ(got["n2"], "");
}

TEST_F(ReplicatedStorageTest, ZonesOfTheClassRestrictNodes) {
  SetNodes({StorageNode("n1"), StorageNode("n2"), StorageNode("n3", "zone-b"),
            testing::MakeNode("nozone").Label(api::kReplicatedStorageNodeLabel, "true").Obj()});
  Class("zonal", "Any", "thick", {"zone-a", "zone-c"});
  Claim("data", "zonal", 1);
  const std::string kZone =
      "PVC default/data: node is not in a zone of ReplicatedStorageClass zonal (zone-a, zone-c)";
  EXPECT_EQ(Filter(PodWith("p", {"data"})),
            (Results{{"n1", ""}, {"n2", ""}, {"n3", kZone}, {"nozone", kZone}}));
}

TEST_F(ReplicatedStorageTest, OfflineNodesAreRejected) {
  auto not_ready = StorageNode("not-ready");
  not_ready.status.conditions = {{"Ready", "False", "", ""}};
  auto unknown = StorageNode("no-condition");
  unknown.status.conditions.clear();
  auto unreachable = StorageNode("unreachable");
  unreachable.spec.taints.push_back({"node.kubernetes.io/unreachable", "", "NoExecute"});
  auto tainted = StorageNode("tainted-not-ready");
  tainted.spec.taints.push_back({"node.kubernetes.io/not-ready", "", "NoSchedule"});
  SetNodes({StorageNode("n1"), not_ready, unknown, unreachable, tainted});
  Claim("data", "Any", 1);
  EXPECT_EQ(
      Filter(PodWith("p", {"data"})),
      (Results{{"n1", ""},
               {"not-ready", kReasonNotReady},
               {"no-condition", kReasonNotReady},
               {"unreachable", "node(s) are offline: taint node.kubernetes.io/unreachable"},
               {"tainted-not-ready", "node(s) are offline: taint node.kubernetes.io/not-ready"}}));
}

TEST_F(ReplicatedStorageTest, PodsWithoutReplicatedClaimsAreSkipped) {
  EXPECT_TRUE(PreFilter(*PodWith("none", {})).IsSkip());
  auto sc = std::make_shared<api::StorageClass>();
  sc->metadata.name = "other";
  sc->provisioner = "ebs.csi.aws.com";
  o().storage_classes.Upsert(sc);
  Claim("plain-data", "other", 1);
  EXPECT_TRUE(PreFilter(*PodWith("other", {"plain-data"})).IsSkip());
  EXPECT_TRUE(PreFilter(*PodWith("missing", {"no-such-claim"})).IsSkip());
  std::vector<const framework::NodeInfo*> nodes;
  framework::CycleState empty;
  EXPECT_TRUE(
      As<framework::PreScorePlugin>().PreScore(empty, *PodWith("none", {}), nodes).IsSkip());
}

TEST_F(ReplicatedStorageTest, ProvisionerAnnotationMakesAClaimReplicated) {
  auto sc = std::make_shared<api::StorageClass>();
  sc->metadata.name = "Local";  // the RSC of this name exists
  sc->provisioner = "";
  o().storage_classes.Upsert(sc);
  Claim("data", "Local", 10);
  auto pvc = std::make_shared<api::PersistentVolumeClaim>(*o().pvcs.Get("default/data"));
  pvc->metadata.annotations["volume.kubernetes.io/storage-provisioner"] =
      api::kReplicatedCsiProvisioner;
  o().pvcs.Upsert(pvc);
  EXPECT_EQ(Filter(PodWith("p", {"data"}))["n2"], kSpace10);
}

TEST_F(ReplicatedStorageTest, EphemeralVolumesAndExtraPvcsAnnotationAreClaimsToo) {
  // A generic ephemeral volume's claim is "<pod>-<volume>"; KubeVirt hot-plug disks come in the
  // scheduler.deckhouse.io/extra-pvcs annotation (a missing one is skipped).
  Claim("vm-scratch", "Local", 10);
  Claim("hotplug", "Local", 45);
  testing::MakePod b("vm");
  api::Volume eph;
  eph.name = "scratch";
  eph.ephemeral = true;
  b.Mutable().spec.volumes.push_back(eph);
  b.Mutable().metadata.annotations["scheduler.deckhouse.io/extra-pvcs"] = "hotplug, missing";
  auto got = Filter(b.Info());
  // n1: 50Gi free; 10Gi for the scratch claim, then 45Gi for the hot-plug disk do not fit.
  EXPECT_EQ(got["n1"],
            "PVC default/hotplug: not enough space in ReplicatedStoragePool thick on the node "
            "(needs 45Gi)");
  EXPECT_EQ(got["n2"],
            "PVC default/vm-scratch: not enough space in ReplicatedStoragePool thick on the node "
            "(needs 10Gi)");
}

TEST_F(ReplicatedStorageTest, MissingClassOrPoolRejectsThePodInPreFilter) {
  auto sc = std::make_shared<api::StorageClass>();
  sc->metadata.name = "orphan";
  sc->provisioner = api::kReplicatedCsiProvisioner;
  o().storage_classes.Upsert(sc);
  Claim("data", "orphan", 1);
  auto s = PreFilter(*PodWith("p", {"data"}));
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "PVC default/data: ReplicatedStorageClass \"orphan\" not found");
  Class("orphan", "Local", "gone");
  s = PreFilter(*PodWith("p", {"data"}));
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "PVC default/data: ReplicatedStoragePool \"gone\" not found");
}

TEST_F(ReplicatedStorageTest, ReserveHoldsSpaceUntilUnreserve) {
  Lvg("vg-2", "n2", 100, 40);
  Claim("a", "Local", 30);
  Claim("b", "Local", 30);
  auto a = PodWith("a", {"a"});
  auto b = PodWith("b", {"b"});
  Reserve(a, "n1");  // n1: 50Gi free, 30Gi now held for a
  auto got = Filter(b);
  EXPECT_EQ(got["n1"],
            "PVC default/b: not enough space in ReplicatedStoragePool thick on the node "
            "(needs 30Gi)");
  EXPECT_EQ(got["n2"], "");
  // The hold does not count against the pod that holds it (a retry of the same pod).
  EXPECT_EQ(Filter(a)["n1"], "");
  Unreserve(a, "n1");
  EXPECT_EQ(Filter(b)["n1"], "");
}

TEST_F(ReplicatedStorageTest, HoldEndsWhenTheLogicalVolumeAppears) {
  Claim("a", "Local", 30);
  Claim("b", "Local", 25);
  Claim("c", "Local", 15);
  auto a = PodWith("a", {"a"});
  Reserve(a, "n1");  // n1: 50Gi free, 20Gi left
  EXPECT_NE(Filter(PodWith("b", {"b"}))["n1"], "");
  // a's claim gets its volume and the volume its LVMLogicalVolume (not carved yet, so vgFree
  // still says 50Gi): the LLV now accounts for the 30Gi and the hold must go, or the space
  // would be counted twice (50 - 30 - 30 < 15).
  Claim("a", "Local", 30, "pv-a");
  Llv("pv-a-vg-1", "vg-1", 30, std::nullopt, "Pending");
  EXPECT_EQ(Filter(PodWith("c", {"c"}))["n1"], "");
  EXPECT_NE(Filter(PodWith("b", {"b"}))["n1"], "");  // and the 30Gi are still taken
}

TEST_F(ReplicatedStorageTest, HoldEndsAfterTheTimeout) {
  Claim("a", "Local", 30);
  Claim("b", "Local", 25);
  Reserve(PodWith("a", {"a"}), "n1");
  h_.fake_clock().Advance(std::chrono::seconds(59));
  EXPECT_NE(Filter(PodWith("b", {"b"}))["n1"], "");
  h_.fake_clock().Advance(std::chrono::seconds(1));  // 60 s: the default timeout
  EXPECT_EQ(Filter(PodWith("b", {"b"}))["n1"], "");
}

TEST_F(ReplicatedStorageTest, HoldOfABoundPodOutlivesTheTimeoutUntilReplicasArePlaced) {
  Claim("a", "Local", 30);
  Claim("b", "Local", 25);
  auto a = PodWith("a", {"a"});
  Reserve(a, "n1");
  auto bound = std::make_shared<api::Pod>(*a->pod);
  bound->spec.node_name = "n1";
  o().pods.Upsert(bound);
  h_.fake_clock().Advance(std::chrono::minutes(10));
  EXPECT_NE(Filter(PodWith("b", {"b"}))["n1"], "");  // a still waits for its volume on n1
  // The volume got its replicas on n2 only: nothing will be carved from n1's pool.
  Claim("a", "Local", 30, "pv-a");
  Replicas("pv-a", {{"Diskful", "n2"}, {"TieBreaker", "n1"}});
  EXPECT_EQ(Filter(PodWith("b", {"b"}))["n1"], "");
}

TEST_F(ReplicatedStorageTest, HoldEndsWhenTheClaimIsDeleted) {
  Claim("a", "Local", 30);
  Claim("b", "Local", 25);
  Reserve(PodWith("a", {"a"}), "n1");
  o().pvcs.Remove("default/a");
  EXPECT_EQ(Filter(PodWith("b", {"b"}))["n1"], "");
}

TEST_F(ReplicatedStorageTest, RegistersForStorageEvents) {
  MakePlugin();
  auto events = As<framework::EnqueueExtensions>().EventsToRegister();
  bool storage = false, node_label = false;
  for (const auto& e : events) {
    storage = storage || (e.event.resource == framework::EventResource::kReplicatedStorage &&
                          e.event.action_type == framework::action::kAll);
    node_label = node_label || (e.event.resource == framework::EventResource::kNode &&
                                (e.event.action_type & framework::action::kUpdateNodeLabel));
  }
  EXPECT_TRUE(storage);
  EXPECT_TRUE(node_label);
}

}  // namespace
}  // namespace berth::plugins::replicated_storage
