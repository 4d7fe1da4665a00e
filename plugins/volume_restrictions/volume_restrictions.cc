#include "plugins/volume_restrictions/volume_restrictions.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "plugins/common/volume_hints.h"
#include "scheduler/framework/args.h"

namespace berth::plugins::volume_restrictions {
namespace {

using framework::Status;

const framework::StateKey& PreFilterKey() {
  static const framework::StateKey key("PreFilterVolumeRestrictions");
  return key;
}

// Inline volume types that can conflict between pods on one node.
bool NeedsRestrictionsCheck(const api::Volume& v) {
  return !v.gce_pd_name.empty() || !v.aws_ebs_volume_id.empty() || !v.rbd_image.empty() ||
         !v.rbd_monitors.empty() || !v.iscsi_iqn.empty();
}

bool HaveOverlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) {
    return std::find(b.begin(), b.end(), x) != b.end();
  });
}

// Same rules as upstream's isVolumeConflict.
bool IsVolumeConflict(const api::Volume& v, const api::Pod& existing) {
  for (const auto& e : existing.spec.volumes) {
    if (!v.gce_pd_name.empty() && v.gce_pd_name == e.gce_pd_name &&
        !(v.gce_pd_read_only && e.gce_pd_read_only)) {
      return true;
    }
    if (!v.aws_ebs_volume_id.empty() && v.aws_ebs_volume_id == e.aws_ebs_volume_id) return true;
    if (!v.iscsi_iqn.empty() && v.iscsi_iqn == e.iscsi_iqn &&
        !(v.iscsi_read_only && e.iscsi_read_only)) {
      return true;
    }
    const bool v_rbd = !v.rbd_image.empty() || !v.rbd_monitors.empty();
    const bool e_rbd = !e.rbd_image.empty() || !e.rbd_monitors.empty();
    if (v_rbd && e_rbd && HaveOverlap(v.rbd_monitors, e.rbd_monitors) && v.rbd_pool == e.rbd_pool &&
        v.rbd_image == e.rbd_image && !(v.rbd_read_only && e.rbd_read_only)) {
      return true;
    }
  }
  return false;
}

// The pod's ReadWriteOncePod claims and how many references scheduled pods hold to them.
struct PreFilterState final : framework::StateData {
  std::string ns;
  std::set<std::string, std::less<>> rwop_claims;
  int conflicting_refs = 0;

  int RefsOf(const api::Pod& pod) const {
    if (pod.metadata.namespace_ != ns) return 0;
    int n = 0;
    for (const auto& v : pod.spec.volumes) {
      if (!v.ephemeral && rwop_claims.count(v.pvc_claim_name) > 0) ++n;
    }
    return n;
  }
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

class VolumeRestrictions final : public framework::PreFilterPlugin,
                                 public framework::PreFilterExtensions,
                                 public framework::FilterPlugin,
                                 public framework::EnqueueExtensions {
 public:
  explicit VolumeRestrictions(framework::Handle* handle) : handle_(handle) {}

  std::string_view Name() const override { return kName; }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod_info,
                   const std::vector<const framework::NodeInfo*>&,
                   framework::PreFilterResult*) const override {
    const api::Pod& pod = pod_info.Pod();
    bool needs_check = false;
    bool has_claim = false;
    for (const auto& v : pod.spec.volumes) {
      needs_check = needs_check || NeedsRestrictionsCheck(v);
      has_claim = has_claim || (!v.ephemeral && !v.pvc_claim_name.empty());
    }
    if (!needs_check && !has_claim) return Status::Skip();
    auto s = std::make_unique<PreFilterState>();
    s->ns = pod.metadata.namespace_;
    for (const auto& v : pod.spec.volumes) {
      if (v.ephemeral || v.pvc_claim_name.empty()) continue;
      auto pvc = handle_->objects().pvcs.Get(s->ns, v.pvc_claim_name);
      if (pvc == nullptr) {
        return Status::Unresolvable("persistentvolumeclaim \"" + v.pvc_claim_name + "\" not found");
      }
      const auto& modes = pvc->spec.access_modes;
      if (std::find(modes.begin(), modes.end(), "ReadWriteOncePod") != modes.end()) {
        s->rwop_claims.insert(pvc->metadata.name);
      }
    }
    for (const auto& claim : s->rwop_claims) {
      // At most one pod can use a ReadWriteOncePod claim.
      if (handle_->snapshot().IsPVCUsedByPods(s->ns + "/" + claim)) ++s->conflicting_refs;
    }
    if (!needs_check && s->conflicting_refs == 0) return Status::Skip();
    state.Write(PreFilterKey(), std::move(s));
    return {};
  }

  const framework::PreFilterExtensions* Extensions() const override { return this; }

  Status AddPod(framework::CycleState& state, const framework::PodInfo&,
                const framework::PodInfo& pod_to_add, const framework::NodeInfo&) const override {
    if (auto* s = state.Read<PreFilterState>(PreFilterKey())) {
      s->conflicting_refs += s->RefsOf(pod_to_add.Pod());
    }
    return {};
  }

  Status RemovePod(framework::CycleState& state, const framework::PodInfo&,
                   const framework::PodInfo& pod_to_remove,
                   const framework::NodeInfo&) const override {
    if (auto* s = state.Read<PreFilterState>(PreFilterKey())) {
      s->conflicting_refs -= s->RefsOf(pod_to_remove.Pod());
    }
    return {};
  }

  Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                const framework::NodeInfo& node) const override {
    for (const auto& v : pod.Pod().spec.volumes) {
      if (!NeedsRestrictionsCheck(v)) continue;
      for (const auto& existing : node.pods()) {
        if (IsVolumeConflict(v, existing->Pod())) {
          return Status::Unschedulable(kErrReasonDiskConflict);
        }
      }
    }
    const auto* s = state.Read<PreFilterState>(PreFilterKey());
    if (s != nullptr && s->conflicting_refs > 0) {
      return Status::Unschedulable(kErrReasonReadWriteOncePodConflict);
    }
    return {};
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  framework::Handle* handle_;
};

using framework::QueueingHint;

QueueingHint PodDeleted(const api::Pod& pod, const framework::EventObject& old_obj,
                        const framework::EventObject&) {
  const auto* o = std::get_if<const api::Pod*>(&old_obj);
  if (o == nullptr || *o == nullptr) return QueueingHint::kQueue;
  const api::Pod& deleted = **o;
  if (deleted.spec.node_name.empty()) return QueueingHint::kQueueSkip;
  for (const auto& v : pod.spec.volumes) {
    if (NeedsRestrictionsCheck(v) && IsVolumeConflict(v, deleted)) return QueueingHint::kQueue;
    if (v.pvc_claim_name.empty() || v.ephemeral) continue;
    if (deleted.metadata.namespace_ != pod.metadata.namespace_) continue;
    for (const auto& dv : deleted.spec.volumes) {
      if (!dv.ephemeral && dv.pvc_claim_name == v.pvc_claim_name) return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

std::vector<framework::ClusterEventWithHint> VolumeRestrictions::EventsToRegister() const {
  using framework::ClusterEvent;
  using framework::EventResource;
  namespace action = framework::action;
  return {
      {ClusterEvent{EventResource::kAssignedPod, action::kDelete, "AssignedPodDelete"}, PodDeleted},
      {ClusterEvent{EventResource::kNode, action::kAdd, "NodeAdd"}, nullptr},
      {ClusterEvent{EventResource::kPersistentVolumeClaim, action::kAdd,
                    "PersistentVolumeClaimAdd"},
       common::QueueIfPodMountsClaim},
  };
}

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  if (ctx.handle == nullptr)
    return Error{"VolumeRestrictions: the plugin needs a framework handle"};
  return std::shared_ptr<framework::Plugin>(std::make_shared<VolumeRestrictions>(ctx.handle));
}

}  // namespace berth::plugins::volume_restrictions
