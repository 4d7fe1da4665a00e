#pragma once
// A small replicated-storage world for the ReplicatedStorage plugin tests: storage nodes with
// LVMVolumeGroups, pools, classes, claims, volumes and replicas, and helpers that run the plugin's
// extension points over every node.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugins/replicated_storage/replicated_storage.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::replicated_storage {

inline constexpr int64_t kGi = int64_t{1} << 30;

inline api::Quantity Gi(int64_t n) { return api::Quantity::FromValue(n * kGi); }

class ReplicatedStorageFixture : public ::testing::Test {
 protected:
  // The nodes: storage nodes in zones; `extra` for the non-storage / offline ones.
  void SetNodes(std::vector<api::Node> nodes) {
    std::vector<framework::NodeInfo> infos;
    node_names_.clear();
    for (auto& n : nodes) {
      node_names_.push_back(n.metadata.name);
      infos.emplace_back(std::make_shared<api::Node>(std::move(n)));
    }
    h_.SetNodes(std::move(infos));
  }
  static api::Node StorageNode(const std::string& name, const std::string& zone = "zone-a") {
    return testing::MakeNode(name)
        .Label(api::kReplicatedStorageNodeLabel, "")
        .Label("topology.kubernetes.io/zone", zone)
        .Obj();
  }
  api::ClusterObjects& o() { return h_.mutable_objects(); }

  void Lvg(const std::string& name, const std::string& node, int64_t size_gi, int64_t free_gi,
           std::vector<api::LVMThinPoolStatus> thin = {}, const std::string& phase = "Ready") {
    auto g = std::make_shared<api::LVMVolumeGroup>();
    g->metadata.name = name;
    g->phase = phase;
    g->node_names = {node};
    g->vg_size = size_gi * kGi;
    g->vg_free = free_gi * kGi;
    g->thin_pools = std::move(thin);
    o().lvm_volume_groups.Upsert(g);
  }
  void Rsp(const std::string& name, const std::string& type,
           std::vector<api::ReplicatedStoragePoolVolumeGroup> groups) {
    auto p = std::make_shared<api::ReplicatedStoragePool>();
    p->metadata.name = name;
    p->type = type;
    p->lvm_volume_groups = std::move(groups);
    o().replicated_storage_pools.Upsert(p);
  }
  // A StorageClass of the replicated provisioner and its ReplicatedStorageClass.
  void Class(const std::string& name, const std::string& access, const std::string& pool,
             std::vector<std::string> zones = {}) {
    auto sc = std::make_shared<api::StorageClass>();
    sc->metadata.name = name;
    sc->provisioner = api::kReplicatedCsiProvisioner;
    sc->volume_binding_mode = "WaitForFirstConsumer";
    o().storage_classes.Upsert(sc);
    auto rsc = std::make_shared<api::ReplicatedStorageClass>();
    rsc->metadata.name = name;
    rsc->volume_access = access;
    rsc->status_storage_pool_name = pool;
    rsc->zones = std::move(zones);
    o().replicated_storage_classes.Upsert(rsc);
  }
  void Claim(const std::string& name, const std::string& sc, int64_t gi, const std::string& pv = "",
             int64_t pv_gi = 0) {
    auto c = std::make_shared<api::PersistentVolumeClaim>();
    c->metadata.namespace_ = "default";
    c->metadata.name = name;
    c->spec.storage_class_name = sc;
    c->spec.resources.requests[api::kResourceStorage] = Gi(gi);
    c->spec.volume_name = pv;
    o().pvcs.Upsert(c);
    if (!pv.empty()) {
      auto v = std::make_shared<api::PersistentVolume>();
      v->metadata.name = pv;
      v->spec.capacity[api::kResourceStorage] = Gi(pv_gi == 0 ? gi : pv_gi);
      v->spec.csi_driver = api::kReplicatedCsiProvisioner;
      v->spec.storage_class_name = sc;
      o().pvs.Upsert(v);
    }
  }
  void Replicas(const std::string& pv, std::vector<std::pair<std::string, std::string>> members) {
    auto rv = std::make_shared<api::ReplicatedVolume>();
    rv->metadata.name = pv;
    for (auto& [type, node] : members) rv->members.push_back({pv + "-" + node, type, node});
    o().replicated_volumes.Upsert(rv);
  }
  void Llv(const std::string& name, const std::string& lvg, int64_t gi,
           std::optional<std::string> thin = std::nullopt, const std::string& phase = "Created") {
    auto l = std::make_shared<api::LVMLogicalVolume>();
    l->metadata.name = name;
    l->lvm_volume_group_name = lvg;
    l->size = gi * kGi;
    l->thin_pool_name = std::move(thin);
    l->phase = phase;
    l->actual_size = phase == "Created" ? gi * kGi : 0;
    o().lvm_logical_volumes.Upsert(l);
  }
  static framework::PodInfoPtr PodWith(const std::string& name, std::vector<std::string> claims) {
    testing::MakePod b(name);
    for (auto& c : claims) {
      api::Volume v;
      v.name = c;
      v.pvc_claim_name = c;
      b.Mutable().spec.volumes.push_back(v);
    }
    return b.Info();
  }

  void MakePlugin(const api::Value* args = nullptr) {
    framework::PluginContext ctx;
    ctx.handle = &h_;
    ctx.args = args;
    ctx.args_path = "args";
    auto p = New(ctx);
    ASSERT_TRUE(p.ok()) << p.error();
    plugin_ = *p;
  }
  template <typename T>
  const T& As() const {
    return dynamic_cast<const T&>(*plugin_);
  }

  // PreFilter into a fresh state_; returns its status.
  framework::Status PreFilter(const framework::PodInfo& pod) {
    if (!plugin_) MakePlugin();
    state_ = std::make_unique<framework::CycleState>();
    framework::PreFilterResult r;
    std::vector<const framework::NodeInfo*> nodes;
    return As<framework::PreFilterPlugin>().PreFilter(*state_, pod, nodes, &r);
  }
  // Node -> Filter message ("" when it passes). PreFilter must have succeeded.
  std::map<std::string, std::string> Filter(const framework::PodInfoPtr& pod) {
    auto pre = PreFilter(*pod);
    EXPECT_TRUE(pre.IsSuccess()) << pre.Message();
    std::map<std::string, std::string> out;
    for (const auto& n : node_names_) {
      auto node = h_.snapshot().Get(n);
      auto s = As<framework::FilterPlugin>().Filter(*state_, *pod, *node);
      if (!s.IsSuccess()) {
        EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable) << s.Message();
      }
      out[n] = s.IsSuccess() ? "" : s.Message();
    }
    return out;
  }
  // Node -> Score (PreFilter and PreScore run first).
  std::map<std::string, int64_t> Score(const framework::PodInfoPtr& pod) {
    auto pre = PreFilter(*pod);
    EXPECT_TRUE(pre.IsSuccess()) << pre.Message();
    std::vector<const framework::NodeInfo*> nodes;
    auto ps = As<framework::PreScorePlugin>().PreScore(*state_, *pod, nodes);
    EXPECT_TRUE(ps.IsSuccess()) << ps.Message();
    std::map<std::string, int64_t> out;
    for (const auto& n : node_names_) {
      int64_t score = -1;
      auto s = As<framework::ScorePlugin>().Score(*state_, *pod, *h_.snapshot().Get(n), &score);
      EXPECT_TRUE(s.IsSuccess()) << s.Message();
      out[n] = score;
    }
    return out;
  }
  void Reserve(const framework::PodInfoPtr& pod, const std::string& node) {
    auto pre = PreFilter(*pod);
    ASSERT_TRUE(pre.IsSuccess()) << pre.Message();
    auto s = As<framework::ReservePlugin>().Reserve(*state_, *pod, node);
    ASSERT_TRUE(s.IsSuccess()) << s.Message();
  }
  void Unreserve(const framework::PodInfoPtr& pod, const std::string& node) {
    framework::CycleState state;
    As<framework::ReservePlugin>().Unreserve(state, *pod, node);
  }

  testing::FakeHandle h_;
  std::vector<std::string> node_names_;
  std::shared_ptr<framework::Plugin> plugin_;
  std::unique_ptr<framework::CycleState> state_;
};

}  // namespace berth::plugins::replicated_storage
