#include "plugins/volume_binding/volume_binding.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plugins/volume_binding/binder.h"
#include "plugins/volume_binding/pv_util.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::volume_binding {
namespace {

using framework::Code;
using framework::QueueingHint;
using testing::MakeNode;
using testing::MakePod;

constexpr const char kWaitSC[] = "wait-sc";
constexpr const char kImmediateSC[] = "immediate-sc";
constexpr const char kProvisionSC[] = "provision-sc";

api::PersistentVolumeClaim Claim(const std::string& name, const std::string& sc,
                                 const std::string& size = "1Gi") {
  api::PersistentVolumeClaim c;
  c.metadata.namespace_ = "default";
  c.metadata.name = name;
  c.metadata.uid = "uid-" + name;
  c.metadata.resource_version = "1";
  c.spec.storage_class_name = sc;
  c.spec.access_modes = {"ReadWriteOnce"};
  c.spec.resources.requests[api::kResourceStorage] = *api::Quantity::Parse(size);
  return c;
}
api::PersistentVolumeClaim BoundClaim(const std::string& name, const std::string& pv) {
  auto c = Claim(name, kWaitSC);
  c.spec.volume_name = pv;
  c.metadata.annotations[kAnnBindCompleted] = "yes";
  c.status.phase = "Bound";
  return c;
}
api::PersistentVolume Volume(const std::string& name, const std::string& sc,
                             const std::string& size = "1Gi") {
  api::PersistentVolume pv;
  pv.metadata.name = name;
  pv.metadata.resource_version = "1";
  pv.spec.storage_class_name = sc;
  pv.spec.access_modes = {"ReadWriteOnce"};
  pv.spec.capacity[api::kResourceStorage] = *api::Quantity::Parse(size);
  pv.phase = "Available";
  return pv;
}
api::NodeSelector HostAffinity(const std::string& node) {
  api::NodeSelectorTerm term;
  term.match_expressions.push_back({"kubernetes.io/hostname", api::SelectorOperator::kIn, {node}});
  return api::NodeSelector{{term}};
}
api::StorageClass Class(const std::string& name, const std::string& mode,
                        const std::string& provisioner) {
  api::StorageClass sc;
  sc.metadata.name = name;
  sc.volume_binding_mode = mode;
  sc.provisioner = provisioner;
  return sc;
}
api::Pod PodWithClaims(const std::string& name, std::vector<std::string> claims) {
  MakePod b(name);
  b.Namespace("default").Uid("uid-" + name);
  for (auto& c : claims) {
    api::Volume v;
    v.name = c;
    v.pvc_claim_name = c;
    b.Mutable().spec.volumes.push_back(v);
  }
  return b.Obj();
}

class VolumeBindingTest : public ::testing::Test {
 protected:
  VolumeBindingTest()
      : handle_({MakeNode("node-a")
                     .Label("kubernetes.io/hostname", "node-a")
                     .Label("topology.kubernetes.io/zone", "a")
                     .Info(),
                 MakeNode("node-b")
                     .Label("kubernetes.io/hostname", "node-b")
                     .Label("topology.kubernetes.io/zone", "b")
                     .Info()}) {
    auto& o = handle_.mutable_objects();
    o.storage_classes.Upsert(std::make_shared<api::StorageClass>(
        Class(kWaitSC, "WaitForFirstConsumer", "kubernetes.io/no-provisioner")));
    o.storage_classes.Upsert(
        std::make_shared<api::StorageClass>(Class(kImmediateSC, "Immediate", "example.com/csi")));
    o.storage_classes.Upsert(std::make_shared<api::StorageClass>(
        Class(kProvisionSC, "WaitForFirstConsumer", "example.com/csi")));
  }

  void Add(const api::PersistentVolumeClaim& c) {
    handle_.mutable_objects().pvcs.Upsert(std::make_shared<api::PersistentVolumeClaim>(c));
  }
  void Add(const api::PersistentVolume& pv) {
    handle_.mutable_objects().pvs.Upsert(std::make_shared<api::PersistentVolume>(pv));
  }
  void Add(const api::StorageClass& sc) {
    handle_.mutable_objects().storage_classes.Upsert(std::make_shared<api::StorageClass>(sc));
  }

  std::shared_ptr<framework::Plugin> Plugin(const std::string& args_yaml = "") {
    framework::PluginContext ctx;
    ctx.handle = &handle_;
    api::Value args = api::Value::MakeObject();
    if (!args_yaml.empty()) args.Set("bindTimeoutSeconds", api::Value::Int(std::stoi(args_yaml)));
    ctx.args = &args;
    ctx.args_path = "args";
    auto p = New(ctx);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error());
    return *p;
  }

  // Runs PreFilter, then Filter on every node; returns the PreFilter status and fills per-node
  // Filter messages ("" = fits).
  framework::Status Run(framework::Plugin& p, framework::CycleState& state, const api::Pod& pod,
                        std::map<std::string, std::string>* filter = nullptr) {
    auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
    auto& pre = dynamic_cast<framework::PreFilterPlugin&>(p);
    framework::PreFilterResult r;
    framework::Status s = pre.PreFilter(state, *info, handle_.snapshot().List(), &r);
    if (!s.IsSuccess() || filter == nullptr) return s;
    auto& f = dynamic_cast<framework::FilterPlugin&>(p);
    for (const auto* n : handle_.snapshot().List()) {
      framework::Status fs = f.Filter(state, *info, *n);
      (*filter)[n->name()] = fs.IsSuccess() ? "" : fs.Message();
      if (!fs.IsSuccess()) {
        EXPECT_EQ(fs.code(), Code::kUnschedulableAndUnresolvable) << fs.Message();
      }
    }
    return s;
  }

  testing::FakeHandle handle_;
};

TEST_F(VolumeBindingTest, PodWithoutClaimsIsSkipped) {
  auto p = Plugin();
  framework::CycleState state;
  MakePod b("no-pvc");
  api::Volume cm;
  cm.name = "config";
  b.Mutable().spec.volumes.push_back(cm);
  EXPECT_EQ(Run(*p, state, b.Obj()).code(), Code::kSkip);
  // Reserve and PreBind have nothing to do.
  auto info = b.Info();
  EXPECT_TRUE(
      dynamic_cast<framework::ReservePlugin&>(*p).Reserve(state, *info, "node-a").IsSuccess());
  EXPECT_TRUE(
      dynamic_cast<framework::PreBindPlugin&>(*p).PreBind(state, *info, "node-a").IsSuccess());
}

TEST_F(VolumeBindingTest, PreFilterRejections) {
  auto p = Plugin();
  struct Case {
    std::string name;
    std::vector<api::PersistentVolumeClaim> claims;
    std::vector<std::string> pod_claims;
    std::string want;
  };
  auto lost = BoundClaim("pvc-lost", "pv-gone");
  lost.status.phase = "Lost";
  auto deleting = Claim("pvc-deleting", kWaitSC);
  deleting.metadata.deletion_timestamp = api::Time{1};
  std::vector<Case> cases = {
      {"PVC does not exist", {}, {"pvc-a"}, "persistentvolumeclaim \"pvc-a\" not found"},
      {"part of PVCs do not exist",
       {BoundClaim("pvc-a", "pv-a")},
       {"pvc-a", "pvc-b"},
       "persistentvolumeclaim \"pvc-b\" not found"},
      {"immediate claims not bound",
       {Claim("pvc-i", kImmediateSC)},
       {"pvc-i"},
       kErrReasonUnboundImmediate},
      {"claim without class is immediate",
       {Claim("pvc-n", "")},
       {"pvc-n"},
       kErrReasonUnboundImmediate},
      {"claim of a missing class is immediate",
       {Claim("pvc-m", "nope")},
       {"pvc-m"},
       kErrReasonUnboundImmediate},
      {"claim lost",
       {lost},
       {"pvc-lost"},
       "persistentvolumeclaim \"pvc-lost\" bound to non-existent persistentvolume \"pv-gone\""},
      {"claim being deleted",
       {deleting},
       {"pvc-deleting"},
       "persistentvolumeclaim \"pvc-deleting\" is being deleted"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    handle_.mutable_objects().pvcs.Clear();
    for (const auto& claim : c.claims) Add(claim);
    framework::CycleState state;
    auto s = Run(*p, state, PodWithClaims("pod", c.pod_claims));
    EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_EQ(s.Message(), c.want);
  }
}

TEST_F(VolumeBindingTest, EphemeralClaimNotYetCreatedOrNotOwned) {
  auto p = Plugin();
  MakePod b("web");
  b.Namespace("default").Uid("uid-web");
  api::Volume v;
  v.name = "scratch";
  v.ephemeral = true;
  v.pvc_claim_name = "web-scratch";
  b.Mutable().spec.volumes.push_back(v);
  framework::CycleState s1;
  EXPECT_EQ(Run(*p, s1, b.Obj()).Message(),
            "waiting for ephemeral volume controller to create the persistentvolumeclaim "
            "\"web-scratch\"");
  Add(Claim("web-scratch", kProvisionSC));
  framework::CycleState s2;
  EXPECT_EQ(Run(*p, s2, b.Obj()).Message(),
            "PVC default/web-scratch was not created for pod default/web (pod is not owner)");
}

TEST_F(VolumeBindingTest, BoundClaims) {
  auto p = Plugin();
  auto local = Volume("pv-local", kWaitSC);
  local.spec.node_affinity = HostAffinity("node-a");
  Add(local);
  Add(Volume("pv-anywhere", kWaitSC));
  Add(BoundClaim("pvc-local", "pv-local"));
  Add(BoundClaim("pvc-anywhere", "pv-anywhere"));
  Add(BoundClaim("pvc-missing-pv", "pv-missing"));

  std::map<std::string, std::string> f;
  framework::CycleState s1;
  ASSERT_TRUE(Run(*p, s1, PodWithClaims("all-bound", {"pvc-anywhere"}), &f).IsSuccess());
  EXPECT_EQ(f, (std::map<std::string, std::string>{{"node-a", ""}, {"node-b", ""}}));

  framework::CycleState s2;
  ASSERT_TRUE(Run(*p, s2, PodWithClaims("local", {"pvc-anywhere", "pvc-local"}), &f).IsSuccess());
  EXPECT_EQ(f["node-a"], "");
  EXPECT_EQ(f["node-b"], kErrReasonNodeConflict);

  framework::CycleState s3;
  ASSERT_TRUE(Run(*p, s3, PodWithClaims("pv-gone", {"pvc-missing-pv"}), &f).IsSuccess());
  EXPECT_EQ(f["node-a"], kErrReasonPVNotExist);
}

TEST_F(VolumeBindingTest, BoundAndUnboundUnsatisfied) {
  // Upstream's "bound and unbound unsatisfied": both reasons on the node.
  auto p = Plugin();
  auto pv = Volume("pv-a", kWaitSC);
  pv.spec.node_affinity = HostAffinity("node-b");
  pv.spec.claim_ref =
      api::ObjectReference{"PersistentVolumeClaim", "default", "pvc-a", "uid-pvc-a"};
  pv.phase = "Bound";
  Add(pv);
  Add(BoundClaim("pvc-a", "pv-a"));
  Add(Claim("pvc-b", kWaitSC));
  std::map<std::string, std::string> f;
  framework::CycleState state;
  ASSERT_TRUE(Run(*p, state, PodWithClaims("pod", {"pvc-a", "pvc-b"}), &f).IsSuccess());
  EXPECT_EQ(f["node-a"], std::string(kErrReasonNodeConflict) + ", " + kErrReasonBindConflict);
  EXPECT_EQ(f["node-b"], kErrReasonBindConflict);
}

TEST_F(VolumeBindingTest, StaticBindingPicksTheSmallestFitOnTheNode) {
  auto p = Plugin();
  auto small = Volume("pv-small", kWaitSC, "1Gi");
  auto medium_a = Volume("pv-medium-a", kWaitSC, "5Gi");
  medium_a.spec.node_affinity = HostAffinity("node-a");
  auto large = Volume("pv-large", kWaitSC, "10Gi");
  auto bound_elsewhere = Volume("pv-taken", kWaitSC, "5Gi");
  bound_elsewhere.spec.claim_ref = api::ObjectReference{"PersistentVolumeClaim", "other", "c", "u"};
  auto rwx = Volume("pv-rwx-only", kWaitSC, "5Gi");
  rwx.spec.access_modes = {"ReadWriteMany"};
  auto released = Volume("pv-released", kWaitSC, "5Gi");
  released.phase = "Released";
  for (const auto& v : {small, medium_a, large, bound_elsewhere, rwx, released}) Add(v);
  Add(Claim("pvc", kWaitSC, "4Gi"));

  framework::CycleState state;
  std::map<std::string, std::string> f;
  auto pod = PodWithClaims("pod", {"pvc"});
  ASSERT_TRUE(Run(*p, state, pod, &f).IsSuccess());
  EXPECT_EQ(f["node-a"], "");
  EXPECT_EQ(f["node-b"], "");
  // Reserve on node-a pre-binds the 5Gi PV, on node-b the 10Gi one; PreBind writes the claimRef.
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
  auto& reserve = dynamic_cast<framework::ReservePlugin&>(*p);
  ASSERT_TRUE(reserve.Reserve(state, *info, "node-a").IsSuccess());
  handle_.writer().on_pv_patch = [&](const api::PersistentVolume& pv,
                                     const api::ObjectReference& ref) {
    // The PV controller completes the binding.
    auto bound = BoundClaim("pvc", pv.metadata.name);
    Add(bound);
    auto updated = pv;
    updated.metadata.resource_version = "2";
    Add(updated);
    return framework::Status();
  };
  handle_.mutable_objects().pods.Upsert(std::make_shared<api::Pod>(pod));
  ASSERT_TRUE(
      dynamic_cast<framework::PreBindPlugin&>(*p).PreBind(state, *info, "node-a").IsSuccess());
  ASSERT_EQ(handle_.writer().pv_claim_refs.size(), 1u);
  EXPECT_EQ(handle_.writer().pv_claim_refs[0],
            (std::pair<std::string, std::string>{"pv-medium-a", "default/pvc"}));
  EXPECT_TRUE(handle_.writer().pvc_patches.empty());
}

TEST_F(VolumeBindingTest, AssumedPVIsNotChosenTwice) {
  auto p = Plugin();
  Add(Volume("pv-only", kWaitSC));
  Add(Claim("pvc-1", kWaitSC));
  Add(Claim("pvc-2", kWaitSC));
  auto& reserve = dynamic_cast<framework::ReservePlugin&>(*p);
  auto pod1 = PodWithClaims("pod-1", {"pvc-1"});
  framework::CycleState s1;
  std::map<std::string, std::string> f;
  ASSERT_TRUE(Run(*p, s1, pod1, &f).IsSuccess());
  ASSERT_EQ(f["node-a"], "");
  auto info1 = framework::MakePodInfo(std::make_shared<api::Pod>(pod1));
  ASSERT_TRUE(reserve.Reserve(s1, *info1, "node-a").IsSuccess());

  // The only PV is assumed for pvc-1; pvc-2 (no provisioner) finds nothing.
  framework::CycleState s2;
  ASSERT_TRUE(Run(*p, s2, PodWithClaims("pod-2", {"pvc-2"}), &f).IsSuccess());
  EXPECT_EQ(f["node-a"], kErrReasonBindConflict);

  // Unreserve releases it.
  reserve.Unreserve(s1, *info1, "node-a");
  framework::CycleState s3;
  ASSERT_TRUE(Run(*p, s3, PodWithClaims("pod-2", {"pvc-2"}), &f).IsSuccess());
  EXPECT_EQ(f["node-a"], "");
}

TEST_F(VolumeBindingTest, DynamicProvisioningHonoursAllowedTopologies) {
  auto p = Plugin();
  auto zonal = Class("zonal", "WaitForFirstConsumer", "example.com/csi");
  api::NodeSelectorTerm term;
  term.match_expressions.push_back(
      {"topology.kubernetes.io/zone", api::SelectorOperator::kIn, {"b"}});
  zonal.allowed_topologies = {term};
  Add(zonal);
  Add(Claim("pvc", "zonal"));
  std::map<std::string, std::string> f;
  framework::CycleState state;
  ASSERT_TRUE(Run(*p, state, PodWithClaims("pod", {"pvc"}), &f).IsSuccess());
  EXPECT_EQ(f["node-a"], kErrReasonBindConflict);
  EXPECT_EQ(f["node-b"], "");
}

TEST_F(VolumeBindingTest, MissingStorageClassOfAClaimToProvisionIsAnError) {
  auto p = Plugin();
  Add(Claim("pvc", kProvisionSC));
  framework::CycleState state;
  auto pod = PodWithClaims("pod", {"pvc"});
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
  auto& pre = dynamic_cast<framework::PreFilterPlugin&>(*p);
  framework::PreFilterResult r;
  ASSERT_TRUE(pre.PreFilter(state, *info, handle_.snapshot().List(), &r).IsSuccess());
  handle_.mutable_objects().storage_classes.Remove(kProvisionSC);
  auto s = dynamic_cast<framework::FilterPlugin&>(*p).Filter(state, *info,
                                                             *handle_.snapshot().Get("node-a"));
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "failed to find storage class \"provision-sc\"");
}

class DynamicProvisioning : public VolumeBindingTest {
 protected:
  void SetUp() override {
    Add(Claim("pvc", kProvisionSC));
    pod_ = PodWithClaims("pod", {"pvc"});
    handle_.mutable_objects().pods.Upsert(std::make_shared<api::Pod>(pod_));
    info_ = framework::MakePodInfo(std::make_shared<api::Pod>(pod_));
  }
  // PreFilter, Filter, Reserve on node-b.
  void ScheduleOnNodeB(framework::Plugin& p, framework::CycleState& state) {
    std::map<std::string, std::string> f;
    ASSERT_TRUE(Run(p, state, pod_, &f).IsSuccess());
    ASSERT_EQ(f["node-b"], "");
    ASSERT_TRUE(
        dynamic_cast<framework::ReservePlugin&>(p).Reserve(state, *info_, "node-b").IsSuccess());
  }
  // The provisioner: a PV on the selected node and the claim bound to it.
  void Provision(const std::string& node) {
    auto pv = Volume("pvc-123", kProvisionSC);
    pv.spec.node_affinity = HostAffinity(node);
    Add(pv);
    auto c = Claim("pvc", kProvisionSC);
    c.metadata.resource_version = "3";
    c.metadata.annotations[kAnnSelectedNode] = node;
    c.metadata.annotations[kAnnBindCompleted] = "yes";
    c.spec.volume_name = "pvc-123";
    Add(c);
  }
  api::Pod pod_;
  framework::PodInfoPtr info_;
};

TEST_F(DynamicProvisioning, AnnotatesTheClaimAndWaitsUntilBound) {
  auto p = Plugin();
  framework::CycleState state;
  ScheduleOnNodeB(*p, state);
  // Another pod sharing the claim now sees it as being provisioned for node-b.
  framework::CycleState other;
  std::map<std::string, std::string> f;
  ASSERT_TRUE(Run(*p, other, PodWithClaims("sibling", {"pvc"}), &f).IsSuccess());
  EXPECT_EQ(f["node-a"], kErrReasonBindConflict);
  EXPECT_EQ(f["node-b"], "");

  const auto start = handle_.clock().Now();
  int patches = 0;
  handle_.writer().on_pvc_patch = [&](const api::PersistentVolumeClaim& c, const api::Labels& ann) {
    // The API server applies the patch; nobody provisions.
    auto annotated = c;
    for (const auto& [k, v] : ann) annotated.metadata.annotations[k] = v;
    annotated.metadata.resource_version = "2";
    Add(annotated);
    ++patches;
    return framework::Status();
  };
  auto s = dynamic_cast<framework::PreBindPlugin&>(*p).PreBind(state, *info_, "node-b");
  // Not bound by anyone: times out after bindTimeoutSeconds (600 by default) of virtual time.
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "binding volumes: timed out after 600s waiting for PersistentVolumeClaim "
            "\"default/pvc\" to be bound");
  EXPECT_EQ(handle_.clock().Now() - start, std::chrono::seconds(600));
  ASSERT_EQ(handle_.writer().pvc_patches.size(), 1u);
  EXPECT_EQ(handle_.writer().pvc_patches[0].first, "default/pvc");
  EXPECT_EQ(handle_.writer().pvc_patches[0].second,
            (api::Labels{{"volume.kubernetes.io/selected-node", "node-b"}}));
  EXPECT_EQ(patches, 1);

  // Second attempt with a provisioner that binds at once.
  dynamic_cast<framework::ReservePlugin&>(*p).Unreserve(state, *info_, "node-b");
  handle_.mutable_objects().pvcs.Upsert(
      std::make_shared<api::PersistentVolumeClaim>(Claim("pvc", kProvisionSC)));
  framework::CycleState again;
  ScheduleOnNodeB(*p, again);
  handle_.writer().on_pvc_patch = [&](const api::PersistentVolumeClaim&, const api::Labels&) {
    Provision("node-b");
    return framework::Status();
  };
  EXPECT_TRUE(
      dynamic_cast<framework::PreBindPlugin&>(*p).PreBind(again, *info_, "node-b").IsSuccess());
}

TEST_F(DynamicProvisioning, HonoursBindTimeoutSeconds) {
  auto p = Plugin("5");
  framework::CycleState state;
  ScheduleOnNodeB(*p, state);
  handle_.writer().on_pvc_patch = [&](const api::PersistentVolumeClaim& c, const api::Labels&) {
    Add(c);  // the API server applies the patch (the assumed claim carries the annotation)
    return framework::Status();
  };
  const auto start = handle_.clock().Now();
  auto s = dynamic_cast<framework::PreBindPlugin&>(*p).PreBind(state, *info_, "node-b");
  EXPECT_EQ(s.Message(),
            "binding volumes: timed out after 5s waiting for PersistentVolumeClaim "
            "\"default/pvc\" to be bound");
  EXPECT_EQ(handle_.clock().Now() - start, std::chrono::seconds(5));
}

TEST_F(DynamicProvisioning, ShutdownStopsTheWait) {
  auto p = Plugin();
  framework::CycleState state;
  ScheduleOnNodeB(*p, state);
  handle_.writer().on_pvc_patch = [&](const api::PersistentVolumeClaim& c, const api::Labels&) {
    Add(c);
    return framework::Status();
  };
  handle_.stopping = true;
  const auto start = handle_.clock().Now();
  auto s = dynamic_cast<framework::PreBindPlugin&>(*p).PreBind(state, *info_, "node-b");
  EXPECT_EQ(s.Message(),
            "binding volumes: scheduler is shutting down (waiting for PersistentVolumeClaim "
            "\"default/pvc\" to be bound)");
  EXPECT_EQ(handle_.clock().Now(), start);
}

TEST_F(DynamicProvisioning, ProvisionerGivingUpFailsTheBinding) {
  auto p = Plugin();
  framework::CycleState state;
  ScheduleOnNodeB(*p, state);
  handle_.writer().on_pvc_patch = [&](const api::PersistentVolumeClaim& c, const api::Labels&) {
    // The provisioner failed and removed the selected-node annotation.
    auto failed = c;
    failed.metadata.resource_version = "5";
    failed.metadata.annotations.erase(kAnnSelectedNode);
    failed.metadata.annotations["other"] = "x";
    Add(failed);
    return framework::Status();
  };
  auto s = dynamic_cast<framework::PreBindPlugin&>(*p).PreBind(state, *info_, "node-b");
  EXPECT_EQ(s.Message(), "binding volumes: provisioning failed for PVC \"pvc\"");
}

TEST_F(DynamicProvisioning, PvOnTheWrongNodeFailsTheBinding) {
  auto p = Plugin();
  framework::CycleState state;
  ScheduleOnNodeB(*p, state);
  handle_.writer().on_pvc_patch = [&](const api::PersistentVolumeClaim&, const api::Labels&) {
    Provision("node-b");
    auto pv = Volume("pvc-123", kProvisionSC);
    pv.spec.node_affinity = HostAffinity("node-a");
    Add(pv);
    return framework::Status();
  };
  auto s = dynamic_cast<framework::PreBindPlugin&>(*p).PreBind(state, *info_, "node-b");
  EXPECT_EQ(s.Message(),
            "binding volumes: pv \"pvc-123\" node affinity doesn't match node \"node-b\": no "
            "matching NodeSelectorTerms");
}

TEST_F(DynamicProvisioning, FailedWriteAndDeletedPod) {
  auto p = Plugin();
  framework::CycleState state;
  ScheduleOnNodeB(*p, state);
  handle_.writer().on_pvc_patch = [](const api::PersistentVolumeClaim&, const api::Labels&) {
    return framework::Status::Error("PATCH persistentvolumeclaims default/pvc: HTTP 403: denied");
  };
  auto s = dynamic_cast<framework::PreBindPlugin&>(*p).PreBind(state, *info_, "node-b");
  EXPECT_EQ(s.Message(), "PATCH persistentvolumeclaims default/pvc: HTTP 403: denied");

  framework::CycleState again;
  dynamic_cast<framework::ReservePlugin&>(*p).Unreserve(state, *info_, "node-b");
  ScheduleOnNodeB(*p, again);
  handle_.writer().on_pvc_patch = nullptr;
  handle_.mutable_objects().pods.Remove(pod_.Key());
  s = dynamic_cast<framework::PreBindPlugin&>(*p).PreBind(again, *info_, "node-b");
  EXPECT_EQ(s.Message(), "binding volumes: pod does not exist any more: pods \"pod\" not found");
}

// Upstream's "local volumes with close capacity are preferred" cases (StorageCapacityScoring on,
// the default shape): the node whose PV leaves the most room scores higher.
TEST_F(VolumeBindingTest, ScoresStaticBindingsByUtilization) {
  constexpr const char kHddSC[] = "wait-hdd";
  Add(Class(kHddSC, "WaitForFirstConsumer", "kubernetes.io/no-provisioner"));
  auto local = [&](const std::string& name, const std::string& sc, const std::string& size,
                   const std::string& node) {
    auto pv = Volume(name, sc, size);
    pv.spec.node_affinity = HostAffinity(node);
    Add(pv);
  };
  local("pv-a-0", kWaitSC, "200Gi", "node-a");
  local("pv-a-1", kWaitSC, "200Gi", "node-a");
  local("pv-a-2", kHddSC, "200Gi", "node-a");
  local("pv-b-0", kWaitSC, "100Gi", "node-b");
  local("pv-b-1", kWaitSC, "100Gi", "node-b");
  local("pv-b-2", kHddSC, "100Gi", "node-b");
  Add(Claim("pvc-0", kWaitSC, "50Gi"));
  Add(Claim("pvc-1", kHddSC, "100Gi"));
  auto p = Plugin();
  auto scores = [&](const api::Pod& pod) {
    framework::CycleState state;
    std::map<std::string, std::string> f;
    const framework::Status pre = Run(*p, state, pod, &f);
    EXPECT_TRUE(pre.IsSuccess() || pre.code() == Code::kSkip) << pre.Message();
    auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
    EXPECT_TRUE(dynamic_cast<framework::PreScorePlugin&>(*p)
                    .PreScore(state, *info, handle_.snapshot().List())
                    .IsSuccess());
    std::vector<int64_t> out;
    for (const auto* n : handle_.snapshot().List()) {
      int64_t score = -1;
      EXPECT_TRUE(
          dynamic_cast<framework::ScorePlugin&>(*p).Score(state, *info, *n, &score).IsSuccess());
      out.push_back(score);
    }
    return out;
  };
  EXPECT_EQ(scores(PodWithClaims("pod", {"pvc-0"})), (std::vector<int64_t>{75, 50}));
  // Two classes: the mean of 75 and 50 rounds to 63 on node-a; 50 and 0 give 25 on node-b.
  EXPECT_EQ(scores(PodWithClaims("pod", {"pvc-0", "pvc-1"})), (std::vector<int64_t>{63, 25}));
  // A pod without claims scores 0 everywhere.
  EXPECT_EQ(scores(MakePod("no-pvc").Obj()), (std::vector<int64_t>{0, 0}));
}

TEST(VolumeBindingArgs, Validation) {
  testing::FakeHandle h;
  auto make = [&](api::Value args) {
    framework::PluginContext ctx;
    ctx.handle = &h;
    ctx.args = &args;
    ctx.args_path = "profiles[0].pluginConfig[0].args";
    return New(ctx);
  };
  api::Value neg = api::Value::MakeObject();
  neg.Set("bindTimeoutSeconds", api::Value::Int(-1));
  auto r = make(neg);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid "
            "BindTimeoutSeconds, should not be a negative value");
  // StorageCapacityScoring is on in v1.37: shape is validated, not forbidden.
  auto point = [](int64_t utilization, int64_t score) {
    api::Value p = api::Value::MakeObject();
    p.Set("utilization", api::Value::Int(utilization));
    p.Set("score", api::Value::Int(score));
    return p;
  };
  api::Value shape = api::Value::MakeObject();
  api::Value points = api::Value::MakeArray();
  points.Push(point(50, 3));
  points.Push(point(40, 11));
  shape.Set("shape", std::move(points));
  shape.Set("bindTimeoutSeconds", api::Value::Int(-1));
  r = make(shape);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "[profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid "
            "BindTimeoutSeconds, should not be a negative value, "
            "profiles[0].pluginConfig[0].args.shape[1].utilization: Invalid value: 40: values "
            "must be sorted in increasing order, profiles[0].pluginConfig[0].args.shape[1].score: "
            "Invalid value: 11: not in valid range [0, 10]]");
  api::Value good = api::Value::MakeObject();
  api::Value good_points = api::Value::MakeArray();
  good_points.Push(point(0, 0));
  good_points.Push(point(100, 10));
  good.Set("shape", std::move(good_points));
  EXPECT_TRUE(make(good).ok());
  api::Value unknown = api::Value::MakeObject();
  unknown.Set("bindTimeout", api::Value::Int(1));
  EXPECT_FALSE(make(unknown).ok());
}

TEST_F(VolumeBindingTest, QueueingHints) {
  auto p = Plugin();
  auto events = dynamic_cast<framework::EnqueueExtensions&>(*p).EventsToRegister();
  auto pod = PodWithClaims("pod", {"pvc-a"});
  auto hint_for = [&](framework::EventResource r) -> framework::QueueingHintFn {
    for (const auto& e : events) {
      if (e.event.resource == r) return e.hint;
    }
    ADD_FAILURE() << "no event registered";
    return nullptr;
  };
  auto mine = Claim("pvc-a", kWaitSC);
  auto other = Claim("pvc-z", kWaitSC);
  auto pvc_hint = hint_for(framework::EventResource::kPersistentVolumeClaim);
  EXPECT_EQ(pvc_hint(pod, std::monostate{}, &mine), QueueingHint::kQueue);
  EXPECT_EQ(pvc_hint(pod, std::monostate{}, &other), QueueingHint::kQueueSkip);
  auto sc_hint = hint_for(framework::EventResource::kStorageClass);
  auto sc = Class("x", "WaitForFirstConsumer", "p");
  auto sc2 = sc;
  sc2.parameters["k"] = "v";
  EXPECT_EQ(sc_hint(pod, std::monostate{}, &sc), QueueingHint::kQueue);
  EXPECT_EQ(sc_hint(pod, &sc, &sc2), QueueingHint::kQueueSkip);
  api::NodeSelectorTerm term;
  term.match_expressions.push_back({"zone", api::SelectorOperator::kIn, {"a"}});
  sc2.allowed_topologies = {term};
  EXPECT_EQ(sc_hint(pod, &sc, &sc2), QueueingHint::kQueue);
  EXPECT_EQ(hint_for(framework::EventResource::kPersistentVolume), nullptr);
  auto csi_hint = hint_for(framework::EventResource::kCSINode);
  api::CSINode before;
  before.metadata.name = "node-a";
  api::CSINode after = before;
  after.drivers.push_back({"ebs.csi.aws.com", "i-1", 3, {}});
  EXPECT_EQ(csi_hint(pod, std::monostate{}, &before), QueueingHint::kQueue);
  EXPECT_EQ(csi_hint(pod, &before, &after), QueueingHint::kQueueSkip);
  after.metadata.annotations["storage.alpha.kubernetes.io/migrated-plugins"] =
      "kubernetes.io/gce-pd";
  EXPECT_EQ(csi_hint(pod, &before, &after), QueueingHint::kQueue);
}

}  // namespace
}  // namespace berth::plugins::volume_binding
