// Decoding of the storage.deckhouse.io/v1alpha1 kinds (api/decode_replicated.cc).

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "api/decode.h"
#include "api/json/parse.h"

namespace berth::api {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

Value Yaml(const std::string& text) {
  auto docs = json::ParseYamlDocuments(text);
  EXPECT_TRUE(docs.ok()) << docs.error();
  if (!docs.ok() || docs->size() != 1) {
    ADD_FAILURE() << "want exactly one document";
    return Value();
  }
  return (*docs)[0];
}

std::string ErrorOf(const std::string& yaml) {
  auto r = DecodeReplicatedStorageObject(Yaml(yaml));
  return r.ok() ? std::string("<ok>") : r.error();
}

// The reference's fixtures (replicated-storage.md, "Example fixture YAML"), trimmed.
TEST(DecodeReplicatedTest, ReferenceFixtures) {
  auto rsc = DecodeReplicatedStorageObject(Yaml(R"(
apiVersion: storage.deckhouse.io/v1alpha1
kind: ReplicatedStorageClass
metadata: {name: replicated-local}
spec:
  storagePool: rsp-old
  reclaimPolicy: Delete
  replication: Availability
  volumeAccess: Local
  topology: Ignored
  zones: [zone-a, zone-b]
status: {storagePoolName: rsp-thick}
)"));
  ASSERT_TRUE(rsc.ok()) << rsc.error();
  const auto& c = std::get<ReplicatedStorageClass>(*rsc);
  EXPECT_EQ(c.metadata.name, "replicated-local");
  EXPECT_EQ(c.VolumeAccess(), "Local");
  EXPECT_EQ(c.StoragePoolName(), "rsp-thick");
  EXPECT_EQ(c.zones, (std::vector<std::string>{"zone-a", "zone-b"}));

  auto rsp = DecodeReplicatedStorageObject(Yaml(R"(
apiVersion: storage.deckhouse.io/v1alpha1
kind: ReplicatedStoragePool
metadata: {name: rsp-thin}
spec:
  type: LVMThin
  lvmVolumeGroups: [{name: vg-node-1, thinPoolName: tp0}, {name: vg-node-2}]
  systemNetworkNames: [Internal]
)"));
  ASSERT_TRUE(rsp.ok()) << rsp.error();
  const auto& p = std::get<ReplicatedStoragePool>(*rsp);
  EXPECT_TRUE(p.Thin());
  ASSERT_EQ(p.lvm_volume_groups.size(), 2u);
  EXPECT_EQ(p.lvm_volume_groups[0].thin_pool_name, "tp0");
  EXPECT_EQ(p.lvm_volume_groups[1].name, "vg-node-2");

  auto lvg = DecodeReplicatedStorageObject(Yaml(R"(
apiVersion: storage.deckhouse.io/v1alpha1
kind: LVMVolumeGroup
metadata: {name: vg-node-1}
spec: {type: Local, local: {nodeName: node-1}, actualVGNameOnTheNode: data}
status:
  phase: Ready
  nodes: [{name: node-1, devices: []}]
  vgSize: 100Gi
  vgFree: 53687091200
  thinPools:
  - {name: tp0, actualSize: 40Gi, usedSize: 5Gi, allocatedSize: 10Gi, availableSpace: 30Gi,
     allocationLimit: "150%", ready: true}
)"));
  ASSERT_TRUE(lvg.ok()) << lvg.error();
  const auto& g = std::get<LVMVolumeGroup>(*lvg);
  EXPECT_EQ(g.phase, "Ready");
  EXPECT_EQ(g.node_names, std::vector<std::string>{"node-1"});
  EXPECT_EQ(g.vg_size, 100 * kGi);
  EXPECT_EQ(g.vg_free, 50 * kGi);
  ASSERT_EQ(g.thin_pools.size(), 1u);
  EXPECT_EQ(g.thin_pools[0].allocated_size, 10 * kGi);
  EXPECT_EQ(g.thin_pools[0].available_space, 30 * kGi);

  auto llv = DecodeReplicatedStorageObject(Yaml(R"(
apiVersion: storage.deckhouse.io/v1alpha1
kind: LVMLogicalVolume
metadata: {name: pvc-1111-vg-node-1}
spec: {actualLVNameOnTheNode: pvc-1111, type: Thin, size: 10Gi, lvmVolumeGroupName: vg-node-1,
       thin: {poolName: tp0}}
status: {phase: Created, actualSize: 10Gi}
)"));
  ASSERT_TRUE(llv.ok()) << llv.error();
  const auto& l = std::get<LVMLogicalVolume>(*llv);
  EXPECT_EQ(l.lvm_volume_group_name, "vg-node-1");
  EXPECT_EQ(l.actual_lv_name_on_the_node, "pvc-1111");
  EXPECT_EQ(l.size, 10 * kGi);
  EXPECT_EQ(l.thin_pool_name, std::optional<std::string>("tp0"));
  EXPECT_EQ(l.phase, "Created");

  auto thick = DecodeLVMLogicalVolume(
      Yaml("metadata: {name: x}\nspec: {size: 1Gi, lvmVolumeGroupName: vg, thin: null}\n"));
  ASSERT_TRUE(thick.ok()) << thick.error();
  EXPECT_FALSE(thick->thin_pool_name.has_value());

  auto rv = DecodeReplicatedStorageObject(Yaml(R"(
apiVersion: storage.deckhouse.io/v1alpha1
kind: ReplicatedVolume
metadata: {name: pvc-2222}
spec: {size: 1Gi, replicatedStorageClassName: replicated-local}
status:
  datamesh:
    quorum: 2
    members:
    - {name: pvc-2222-0, type: Diskful, nodeName: node-1, attached: false}
    - {name: pvc-2222-1, type: ShadowDiskful, nodeName: node-2}
    - {name: pvc-2222-2, type: TieBreaker, nodeName: node-3}
)"));
  ASSERT_TRUE(rv.ok()) << rv.error();
  const auto& v = std::get<ReplicatedVolume>(*rv);
  ASSERT_EQ(v.members.size(), 3u);
  EXPECT_TRUE(v.members[0].Diskful());
  EXPECT_TRUE(v.members[1].Diskful());
  EXPECT_FALSE(v.members[2].Diskful());
  EXPECT_EQ(v.members[2].node_name, "node-3");
}

TEST(DecodeReplicatedTest, DefaultsAndFallbacks) {
  auto rsc = DecodeReplicatedStorageClass(Yaml("metadata: {name: a}\nspec: {storagePool: p}\n"));
  ASSERT_TRUE(rsc.ok()) << rsc.error();
  EXPECT_EQ(rsc->VolumeAccess(), "PreferablyLocal");  // the API default
  EXPECT_EQ(rsc->StoragePoolName(), "p");             // deprecated spec.storagePool
}

TEST(DecodeReplicatedTest, ErrorsNameTheObjectAndTheField) {
  EXPECT_EQ(ErrorOf("apiVersion: storage.deckhouse.io/v1alpha1\nkind: LVMVolumeGroup\n"
                    "metadata: {name: vg-1}\nstatus: {vgFree: lots}\n"),
            "LVMVolumeGroup vg-1: status.vgFree: invalid quantity \"lots\"");
  EXPECT_EQ(
      ErrorOf("apiVersion: storage.deckhouse.io/v1alpha1\nkind: LVMVolumeGroup\n"
              "metadata: {name: vg-1}\nstatus: {thinPools: [{name: tp0, availableSpace: -1Gi}]}\n"),
      "LVMVolumeGroup vg-1: status.thinPools[0].availableSpace: must not be negative");
  EXPECT_EQ(ErrorOf("apiVersion: storage.deckhouse.io/v1alpha1\nkind: ReplicatedStorageClass\n"
                    "metadata: {name: r}\nspec: {volumeAccess: Remote}\n"),
            "ReplicatedStorageClass r: spec.volumeAccess: unsupported value \"Remote\": supported "
            "values: \"Local\", \"EventuallyLocal\", \"PreferablyLocal\", \"Any\"");
  EXPECT_EQ(ErrorOf("apiVersion: storage.deckhouse.io/v1alpha1\nkind: ReplicatedStoragePool\n"
                    "metadata: {name: p}\nspec: {lvmVolumeGroups: [{thinPoolName: tp0}]}\n"),
            "ReplicatedStoragePool p: spec.lvmVolumeGroups[0].name: name is required");
  EXPECT_EQ(ErrorOf("apiVersion: storage.deckhouse.io/v1alpha1\nkind: LVMLogicalVolume\n"
                    "metadata: {name: l}\nspec: {size: [1]}\n"),
            "LVMLogicalVolume l: spec.size: expected quantity (string or number), got array");
  EXPECT_EQ(
      ErrorOf("apiVersion: storage.deckhouse.io/v1alpha1\nkind: ReplicatedVolume\n"
              "metadata: {name: v}\nstatus: {datamesh: {members: [{nodeName: 7}]}}\n"),
      "ReplicatedVolume v: status.datamesh.members[0].nodeName: expected string, got integer");
}

TEST(DecodeReplicatedTest, OnlyTheFiveKindsOfTheGroup) {
  EXPECT_TRUE(IsReplicatedStorageKind(
      Yaml("apiVersion: storage.deckhouse.io/v1alpha1\nkind: LVMVolumeGroup\n")));
  EXPECT_FALSE(IsReplicatedStorageKind(
      Yaml("apiVersion: storage.deckhouse.io/v1alpha1\nkind: DRBDResource\n")));
  EXPECT_FALSE(IsReplicatedStorageKind(Yaml("apiVersion: v1\nkind: LVMVolumeGroup\n")));
  // Other kinds are still "unsupported" in DecodeObject, so the cluster file ignores them.
  auto other =
      DecodeObject(Yaml("apiVersion: storage.deckhouse.io/v1alpha1\nkind: LVMVolumeGroup\n"
                        "metadata: {name: x}\n"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().rfind("unsupported kind", 0), 0u) << other.error();
}

}  // namespace
}  // namespace berth::api
