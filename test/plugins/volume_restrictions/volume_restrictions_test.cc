#include "plugins/volume_restrictions/volume_restrictions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::volume_restrictions {
namespace {

using framework::Code;
using framework::QueueingHint;
using testing::MakeNode;
using testing::MakePod;

api::Volume Gce(const std::string& pd, bool ro = false) {
  api::Volume v;
  v.name = "gce-" + pd;
  v.gce_pd_name = pd;
  v.gce_pd_read_only = ro;
  return v;
}
api::Volume Ebs(const std::string& id) {
  api::Volume v;
  v.name = "ebs-" + id;
  v.aws_ebs_volume_id = id;
  return v;
}
api::Volume Rbd(std::vector<std::string> monitors, const std::string& image, bool ro = false) {
  api::Volume v;
  v.name = "rbd-" + image;
  v.rbd_monitors = std::move(monitors);
  v.rbd_pool = "rbd";
  v.rbd_image = image;
  v.rbd_read_only = ro;
  return v;
}
api::Volume Iscsi(const std::string& iqn, bool ro = false) {
  api::Volume v;
  v.name = "iscsi-" + iqn;
  v.iscsi_target_portal = "127.0.0.1:3260";
  v.iscsi_iqn = iqn;
  v.iscsi_read_only = ro;
  return v;
}
api::Volume Claim(const std::string& claim) {
  api::Volume v;
  v.name = claim;
  v.pvc_claim_name = claim;
  return v;
}
MakePod PodWith(const std::string& name, std::vector<api::Volume> volumes) {
  MakePod b(name);
  b.Namespace("default").Uid("uid-" + name);
  b.Mutable().spec.volumes = std::move(volumes);
  return b;
}

std::shared_ptr<framework::Plugin> MakePlugin(testing::FakeHandle& h) {
  framework::PluginContext ctx;
  ctx.handle = &h;
  auto p = New(ctx);
  EXPECT_TRUE(p.ok());
  return *p;
}

// PreFilter then Filter on the handle's only node; the Filter message, "" when it fits, or the
// PreFilter's code name and message when it did not succeed.
std::string Check(framework::Plugin& p, testing::FakeHandle& h, const api::Pod& pod) {
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
  framework::CycleState state;
  framework::PreFilterResult r;
  auto s =
      dynamic_cast<framework::PreFilterPlugin&>(p).PreFilter(state, *info, h.snapshot().List(), &r);
  if (s.IsSkip()) return "skip";
  if (!s.IsSuccess()) return std::string(framework::CodeName(s.code())) + ": " + s.Message();
  auto f = dynamic_cast<framework::FilterPlugin&>(p).Filter(state, *info, *h.snapshot().List()[0]);
  if (!f.IsSuccess()) EXPECT_EQ(f.code(), Code::kUnschedulable);
  return f.IsSuccess() ? "" : f.Message();
}

// Upstream's TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts and
// TestISCSIDiskConflicts.
TEST(VolumeRestrictionsTest, InlineDiskConflicts) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Volume> existing;
    std::string want;
  };
  std::vector<Case> cases = {
      {"nothing", MakePod("p").Obj(), {}, "skip"},
      {"one state", PodWith("p", {Gce("foo")}).Obj(), {}, ""},
      {"same GCE PD", PodWith("p", {Gce("foo")}).Obj(), {Gce("foo")}, kErrReasonDiskConflict},
      {"other GCE PD", PodWith("p", {Gce("bar")}).Obj(), {Gce("foo")}, ""},
      {"same GCE PD both read-only",
       PodWith("p", {Gce("foo", true)}).Obj(),
       {Gce("foo", true)},
       ""},
      {"same GCE PD one read-only",
       PodWith("p", {Gce("foo", true)}).Obj(),
       {Gce("foo")},
       kErrReasonDiskConflict},
      {"same EBS volume",
       PodWith("p", {Ebs("vol-1")}).Obj(),
       {Ebs("vol-1")},
       kErrReasonDiskConflict},
      {"other EBS volume", PodWith("p", {Ebs("vol-2")}).Obj(), {Ebs("vol-1")}, ""},
      {"RBD sharing a monitor",
       PodWith("p", {Rbd({"a", "b"}, "img")}).Obj(),
       {Rbd({"b", "c"}, "img")},
       kErrReasonDiskConflict},
      {"RBD other monitors", PodWith("p", {Rbd({"a"}, "img")}).Obj(), {Rbd({"c"}, "img")}, ""},
      {"RBD other image", PodWith("p", {Rbd({"a"}, "img2")}).Obj(), {Rbd({"a"}, "img")}, ""},
      {"RBD both read-only",
       PodWith("p", {Rbd({"a"}, "img", true)}).Obj(),
       {Rbd({"a"}, "img", true)},
       ""},
      {"same iSCSI IQN",
       PodWith("p", {Iscsi("iqn.a")}).Obj(),
       {Iscsi("iqn.a")},
       kErrReasonDiskConflict},
      {"same iSCSI IQN both read-only",
       PodWith("p", {Iscsi("iqn.a", true)}).Obj(),
       {Iscsi("iqn.a", true)},
       ""},
      {"other iSCSI IQN", PodWith("p", {Iscsi("iqn.b")}).Obj(), {Iscsi("iqn.a")}, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testing::FakeHandle h({MakeNode("n").Info({PodWith("existing", c.existing).Node("n").Info()})});
    auto p = MakePlugin(h);
    EXPECT_EQ(Check(*p, h, c.pod), c.want);
  }
}

// Upstream's TestAccessModeConflicts.
TEST(VolumeRestrictionsTest, ReadWriteOncePod) {
  auto claim = [](const std::string& name, std::string mode) {
    auto c = std::make_shared<api::PersistentVolumeClaim>();
    c->metadata.namespace_ = "default";
    c->metadata.name = name;
    c->spec.access_modes = {std::move(mode)};
    return c;
  };
  const auto running = PodWith("running", {Claim("rwop")}).Node("other-node");
  testing::FakeHandle h({MakeNode("n").Info(), MakeNode("other-node").Info({running.Info()})});
  h.mutable_objects().pvcs.Upsert(claim("rwop", "ReadWriteOncePod"));
  h.mutable_objects().pvcs.Upsert(claim("rwop-free", "ReadWriteOncePod"));
  h.mutable_objects().pvcs.Upsert(claim("rwo", "ReadWriteOnce"));
  auto p = MakePlugin(h);

  EXPECT_EQ(Check(*p, h, PodWith("p", {Claim("rwop")}).Obj()), kErrReasonReadWriteOncePodConflict);
  EXPECT_EQ(Check(*p, h, PodWith("p", {Claim("rwop-free")}).Obj()), "skip");
  EXPECT_EQ(Check(*p, h, PodWith("p", {Claim("rwo")}).Obj()), "skip");
  EXPECT_EQ(Check(*p, h, PodWith("p", {Claim("missing")}).Obj()),
            "UnschedulableAndUnresolvable: persistentvolumeclaim \"missing\" not found");
  // The same claim name in another namespace is another claim.
  auto other_ns = PodWith("p", {Claim("rwop")});
  other_ns.Namespace("other");
  h.mutable_objects().pvcs.Upsert([&] {
    auto c = claim("rwop", "ReadWriteOncePod");
    c->metadata.namespace_ = "other";
    return c;
  }());
  EXPECT_EQ(Check(*p, h, other_ns.Obj()), "skip");
}

TEST(VolumeRestrictionsTest, RemovingTheUserForPreemptionClearsTheConflict) {
  auto c = std::make_shared<api::PersistentVolumeClaim>();
  c->metadata.namespace_ = "default";
  c->metadata.name = "rwop";
  c->spec.access_modes = {"ReadWriteOncePod"};
  const auto running = PodWith("running", {Claim("rwop")}).Node("n");
  testing::FakeHandle h({MakeNode("n").Info({running.Info()})});
  h.mutable_objects().pvcs.Upsert(c);
  auto p = MakePlugin(h);
  auto info = PodWith("p", {Claim("rwop")}).Info();
  framework::CycleState state;
  framework::PreFilterResult r;
  auto& pre = dynamic_cast<framework::PreFilterPlugin&>(*p);
  ASSERT_TRUE(pre.PreFilter(state, *info, h.snapshot().List(), &r).IsSuccess());
  auto& f = dynamic_cast<framework::FilterPlugin&>(*p);
  const auto& node = *h.snapshot().List()[0];
  EXPECT_EQ(f.Filter(state, *info, node).Message(), kErrReasonReadWriteOncePodConflict);
  ASSERT_NE(pre.Extensions(), nullptr);
  ASSERT_TRUE(pre.Extensions()->RemovePod(state, *info, *running.Info(), node).IsSuccess());
  EXPECT_TRUE(f.Filter(state, *info, node).IsSuccess());
  ASSERT_TRUE(pre.Extensions()->AddPod(state, *info, *running.Info(), node).IsSuccess());
  EXPECT_FALSE(f.Filter(state, *info, node).IsSuccess());
}

TEST(VolumeRestrictionsTest, QueueingHints) {
  testing::FakeHandle h;
  auto p = MakePlugin(h);
  auto events = dynamic_cast<framework::EnqueueExtensions&>(*p).EventsToRegister();
  ASSERT_EQ(events.size(), 3u);
  const auto pod = PodWith("p", {Gce("foo"), Claim("data")}).Obj();
  framework::QueueingHintFn deleted = events[0].hint;
  const auto gce_user = PodWith("a", {Gce("foo")}).Node("n").Obj();
  const auto claim_user = PodWith("b", {Claim("data")}).Node("n").Obj();
  const auto unrelated = PodWith("c", {Gce("bar")}).Node("n").Obj();
  const auto pending = PodWith("d", {Gce("foo")}).Obj();
  EXPECT_EQ(deleted(pod, &gce_user, std::monostate{}), QueueingHint::kQueue);
  EXPECT_EQ(deleted(pod, &claim_user, std::monostate{}), QueueingHint::kQueue);
  EXPECT_EQ(deleted(pod, &unrelated, std::monostate{}), QueueingHint::kQueueSkip);
  EXPECT_EQ(deleted(pod, &pending, std::monostate{}), QueueingHint::kQueueSkip);
  api::PersistentVolumeClaim added;
  added.metadata.namespace_ = "default";
  added.metadata.name = "data";
  EXPECT_EQ(events[2].hint(pod, std::monostate{}, &added), QueueingHint::kQueue);
  added.metadata.name = "other";
  EXPECT_EQ(events[2].hint(pod, std::monostate{}, &added), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace berth::plugins::volume_restrictions
