#include "plugins/common/default_selector.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "api/selector.h"
#include "test/testing/builders.h"

namespace berth::plugins::common {
namespace {

using testing::MakePod;

constexpr char kNs[] = "test";

// Upstream's TestDefaultSelector fixtures: one object of each kind, each selecting its own label.
class DefaultSelectorTest : public ::testing::Test {
 protected:
  void AddService() {
    auto svc = std::make_shared<api::Service>();
    svc->metadata = Meta("test-service");
    svc->selector = {{"podLabelKey", "podLabelVal"}};
    objects_.services.Upsert(svc);
  }
  void AddReplicaSet() {
    auto rs = std::make_shared<api::ReplicaSet>();
    rs->metadata = Meta("test-replicaset");
    rs->selector = api::LabelSelector{{{"replicaSetLabelKey", "replicaSetLabelVal"}}, {}};
    objects_.replica_sets.Upsert(rs);
  }
  void AddReplicationController() {
    auto rc = std::make_shared<api::ReplicationController>();
    rc->metadata = Meta("test-replicationcontroller");
    rc->selector = {{"replicationLabelKey", "replicationLabelVal"}};
    objects_.replication_controllers.Upsert(rc);
  }
  void AddStatefulSet() {
    auto ss = std::make_shared<api::StatefulSet>();
    ss->metadata = Meta("test-statefulset");
    ss->selector = api::LabelSelector{{{"statefulSetLabelKey", "statefulSetLabelVal"}}, {}};
    objects_.stateful_sets.Upsert(ss);
  }
  static api::ObjectMeta Meta(const std::string& name) {
    api::ObjectMeta m;
    m.name = name;
    m.namespace_ = kNs;
    return m;
  }
  // The pod of upstream's cases, owned (controller: true) by `kind` `name` when given.
  static api::Pod Pod(const std::string& api_version = "", const std::string& kind = "",
                      const std::string& name = "") {
    auto p = MakePod("test-pod").Namespace(kNs).Label("podLabelKey", "podLabelVal");
    if (!kind.empty()) {
      p.Mutable().metadata.owner_references.push_back({api_version, kind, name, "uid", true});
    }
    return p.Obj();
  }
  // The selector as a set of labels it requires (`key=value` / `key in (value)`), sorted.
  api::Labels Required(const api::LabelSelector& s) {
    api::Labels out = s.match_labels;
    for (const auto& r : s.match_expressions) {
      EXPECT_EQ(r.op, api::SelectorOperator::kIn);
      EXPECT_EQ(r.values.size(), 1u);
      out[r.key] = r.values.at(0);
    }
    return out;
  }

  api::ClusterObjects objects_;
};

TEST_F(DefaultSelectorTest, DefaultCase) {
  EXPECT_TRUE(IsEmptySelector(DefaultSelector(Pod(), objects_)));
}

TEST_F(DefaultSelectorTest, NoOwnerReference) {
  AddService();
  EXPECT_EQ(Required(DefaultSelector(Pod(), objects_)),
            (api::Labels{{"podLabelKey", "podLabelVal"}}));
}

TEST_F(DefaultSelectorTest, ReplicaSetOwner) {
  AddService();
  AddReplicaSet();
  EXPECT_EQ(
      Required(DefaultSelector(Pod("apps/v1", "ReplicaSet", "test-replicaset"), objects_)),
      (api::Labels{{"podLabelKey", "podLabelVal"}, {"replicaSetLabelKey", "replicaSetLabelVal"}}));
}

TEST_F(DefaultSelectorTest, ReplicationControllerOwner) {
  AddService();
  AddReplicationController();
  EXPECT_EQ(Required(DefaultSelector(
                Pod("v1", "ReplicationController", "test-replicationcontroller"), objects_)),
            (api::Labels{{"podLabelKey", "podLabelVal"},
                         {"replicationLabelKey", "replicationLabelVal"}}));
}

TEST_F(DefaultSelectorTest, StatefulSetOwner) {
  AddService();
  AddStatefulSet();
  EXPECT_EQ(Required(DefaultSelector(Pod("apps/v1", "StatefulSet", "test-statefulset"), objects_)),
            (api::Labels{{"podLabelKey", "podLabelVal"},
                         {"statefulSetLabelKey", "statefulSetLabelVal"}}));
}

// What berth got wrong before: any controller counted. Upstream ignores owners of other kinds or
// versions, owners that do not exist, and non-controller references.
TEST_F(DefaultSelectorTest, OtherOwnersAddNothing) {
  AddReplicaSet();
  AddStatefulSet();
  const api::Pod cases[] = {
      Pod("batch/v1", "Job", "test-replicaset"),
      Pod("apps/v1", "DaemonSet", "test-replicaset"),
      Pod("example.com/v1", "Custom", "test-replicaset"),
      Pod("apps/v1", "ReplicaSet", "gone"),
      Pod("extensions/v1beta1", "ReplicaSet", "test-replicaset"),
      Pod("apps/v1", "StatefulSet", "test-replicaset"),
  };
  for (const auto& pod : cases) {
    SCOPED_TRACE(pod.metadata.owner_references[0].kind);
    EXPECT_TRUE(IsEmptySelector(DefaultSelector(pod, objects_)));
  }
  api::Pod not_controller = Pod("apps/v1", "ReplicaSet", "test-replicaset");
  not_controller.metadata.owner_references[0].controller = false;
  EXPECT_TRUE(IsEmptySelector(DefaultSelector(not_controller, objects_)));
}

TEST_F(DefaultSelectorTest, ServicesOfOtherNamespacesOrWithoutSelectorDoNotCount) {
  auto other = std::make_shared<api::Service>();
  other->metadata.name = "other";
  other->metadata.namespace_ = "elsewhere";
  other->selector = {{"podLabelKey", "podLabelVal"}};
  objects_.services.Upsert(other);
  auto headless = std::make_shared<api::Service>();
  headless->metadata = Meta("no-selector");
  objects_.services.Upsert(headless);
  EXPECT_TRUE(IsEmptySelector(DefaultSelector(Pod(), objects_)));
}

// A ReplicaSet's selector is ANDed (selector.Add): a conflicting value matches nothing, and its
// expressions come along; an invalid or empty one adds no requirement.
TEST_F(DefaultSelectorTest, ReplicaSetRequirementsAreAnded) {
  AddService();
  auto rs = std::make_shared<api::ReplicaSet>();
  rs->metadata = Meta("rs");
  rs->selector = api::LabelSelector{{{"podLabelKey", "other"}},
                                    {{"tier", api::SelectorOperator::kExists, {}}}};
  objects_.replica_sets.Upsert(rs);
  const api::LabelSelector sel = DefaultSelector(Pod("apps/v1", "ReplicaSet", "rs"), objects_);
  EXPECT_FALSE(api::Matches(sel, {{"podLabelKey", "podLabelVal"}, {"tier", "x"}}));
  EXPECT_FALSE(api::Matches(sel, {{"podLabelKey", "other"}, {"tier", "x"}}));
  EXPECT_EQ(sel.match_expressions.size(), 2u);

  auto invalid = std::make_shared<api::ReplicaSet>();
  invalid->metadata = Meta("invalid");
  invalid->selector = api::LabelSelector{{{"a", "b"}}, {{"tier", api::SelectorOperator::kIn, {}}}};
  objects_.replica_sets.Upsert(invalid);
  EXPECT_EQ(Required(DefaultSelector(Pod("apps/v1", "ReplicaSet", "invalid"), objects_)),
            (api::Labels{{"podLabelKey", "podLabelVal"}}));

  auto empty = std::make_shared<api::ReplicaSet>();
  empty->metadata = Meta("empty");
  empty->selector = api::LabelSelector{};
  objects_.replica_sets.Upsert(empty);
  objects_.services.Clear();
  EXPECT_TRUE(IsEmptySelector(DefaultSelector(Pod("apps/v1", "ReplicaSet", "empty"), objects_)));
}

}  // namespace
}  // namespace berth::plugins::common
