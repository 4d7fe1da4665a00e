#include "plugins/volume_binding/volume_binding.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "plugins/volume_binding/binder.h"
#include "plugins/volume_binding/pv_util.h"
#include "plugins/volume_binding/scorer.h"
#include "scheduler/framework/args.h"

namespace berth::plugins::volume_binding {
namespace {

using framework::Status;

const framework::StateKey& StateKey() {
  static const framework::StateKey key(kName);
  return key;
}

// Per-cycle state (upstream's stateData). Filter workers add per-node results under mu.
struct StateData final : framework::StateData {
  PodVolumeClaims claims;
  mutable std::mutex mu;  // guards by_node
  mutable std::map<std::string, PodVolumes, std::less<>> by_node;
  // Set by Reserve (scheduling thread), read by PreBind/Unreserve.
  bool all_bound = false;
  std::string reserved_node;
  PodVolumes reserved;  // the assumed objects
  api::Labels node_labels;

  StateData() = default;
  StateData(const StateData& o)
      : claims(o.claims),
        all_bound(o.all_bound),
        reserved_node(o.reserved_node),
        reserved(o.reserved),
        node_labels(o.node_labels) {
    std::lock_guard lock(o.mu);
    by_node = o.by_node;
  }
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<StateData>(*this);
  }
};

bool IsControlledBy(const api::PersistentVolumeClaim& pvc, const api::Pod& pod) {
  for (const auto& ref : pvc.metadata.owner_references) {
    if (ref.controller) return ref.uid == pod.metadata.uid;
  }
  return false;
}

class VolumeBinding final : public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::PreScorePlugin,
                            public framework::ScorePlugin,
                            public framework::ReservePlugin,
                            public framework::PreBindPlugin,
                            public framework::EnqueueExtensions {
 public:
  VolumeBinding(framework::Handle* handle, framework::Duration bind_timeout,
                std::vector<UtilizationShapePoint> shape)
      : handle_(handle), binder_(handle, bind_timeout), shape_(std::move(shape)) {}

  std::string_view Name() const override { return kName; }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod_info,
                   const std::vector<const framework::NodeInfo*>&,
                   framework::PreFilterResult*) const override {
    const api::Pod& pod = pod_info.Pod();
    bool has_pvc = false;
    for (const auto& v : pod.spec.volumes) {
      const std::string name = PodClaimName(pod, v);
      if (name.empty()) continue;
      has_pvc = true;
      if (Status s = CheckClaim(pod, v, name); !s.IsSuccess()) return s;
    }
    if (!has_pvc) return Status::Skip();
    auto s = std::make_unique<StateData>();
    s->claims = binder_.GetPodVolumeClaims(pod);
    if (!s->claims.unbound_immediate.empty()) {
      // Requeued when the PV controller binds them (PersistentVolumeClaim/Update).
      return Status::Unresolvable(kErrReasonUnboundImmediate);
    }
    state.Write(StateKey(), std::move(s));
    return {};
  }

  Status Filter(const framework::CycleState& state, const framework::PodInfo&,
                const framework::NodeInfo& node) const override {
    const auto* s = state.Read<StateData>(StateKey());
    if (s == nullptr) return {};
    if (node.node() == nullptr) return Status::Error("node not found");
    PodVolumes volumes;
    if (Status st = binder_.FindPodVolumes(s->claims, *node.node(), &volumes); !st.IsSuccess()) {
      return st;
    }
    // Only nodes that need API work keep an entry; none means "nothing to bind" in Reserve.
    if (!volumes.Empty()) {
      std::lock_guard lock(s->mu);
      s->by_node[node.name()] = std::move(volumes);
    }
    return {};
  }

  // StorageCapacityScoring is on: every pod is scored (0 without static bindings).
  Status PreScore(framework::CycleState&, const framework::PodInfo&,
                  const std::vector<const framework::NodeInfo*>&) const override {
    return {};
  }

  // Upstream's Score with StorageCapacityScoring: the node's static bindings grouped by the PV's
  // class (requested claim size against PV capacity). Without static bindings upstream scores
  // the dynamic provisions against CSIStorageCapacity, which berth does not model: 0.
  Status Score(const framework::CycleState& state, const framework::PodInfo&,
               const framework::NodeInfo& node, int64_t* score) const override {
    *score = 0;
    const auto* s = state.Read<StateData>(StateKey());
    if (s == nullptr) return {};
    std::map<std::string, StorageResource> classes;
    {
      std::lock_guard lock(s->mu);
      auto it = s->by_node.find(node.name());
      if (it == s->by_node.end()) return {};
      for (const BindingInfo& b : it->second.static_bindings) {
        StorageResource& r = classes[b.pv->spec.storage_class_name];
        r.requested += RequestedBytes(*b.pvc);
        r.capacity += CapacityBytes(*b.pv);
      }
    }
    *score = ScoreClasses(shape_, classes);
    return {};
  }

  // Nodes without static bindings score 0: when no node has any, every node does.
  std::optional<int64_t> UniformScore(const framework::CycleState& state,
                                      const framework::PodInfo&) const override {
    const auto* s = state.Read<StateData>(StateKey());
    if (s == nullptr) return 0;
    std::lock_guard lock(s->mu);
    for (const auto& [name, volumes] : s->by_node) {
      if (!volumes.static_bindings.empty()) return std::nullopt;
    }
    return 0;
  }

  Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& node) const override {
    auto* s = state.Read<StateData>(StateKey());
    if (s == nullptr) return {};
    PodVolumes volumes;
    {
      std::lock_guard lock(s->mu);
      auto it = s->by_node.find(node);
      if (it == s->by_node.end()) {
        s->all_bound = true;
        return {};
      }
      volumes = it->second;
    }
    bool all_bound = false;
    if (Status st = binder_.AssumePodVolumes(pod.Pod(), node, &volumes, &all_bound);
        !st.IsSuccess()) {
      return st;
    }
    s->all_bound = all_bound;
    if (all_bound) return {};
    s->reserved_node = node;
    s->reserved = std::move(volumes);
    state.binding_may_block = true;  // PreBind waits for the PV controller / provisioner
    if (const framework::NodeInfo* ni = handle_->snapshot().Get(node);
        ni != nullptr && ni->node() != nullptr) {
      s->node_labels = ni->node()->metadata.labels;
    }
    return {};
  }

  void Unreserve(framework::CycleState& state, const framework::PodInfo&,
                 const std::string& node) const override {
    auto* s = state.Read<StateData>(StateKey());
    if (s == nullptr || s->reserved_node != node) return;
    binder_.RevertAssumedPodVolumes(s->reserved);
    s->reserved = PodVolumes();
    s->reserved_node.clear();
  }

  Status PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& node) const override {
    const auto* s = state.Read<StateData>(StateKey());
    if (s == nullptr || s->all_bound) return {};
    if (s->reserved_node != node) {
      return Status::Error("no pod volumes found for node \"" + node + "\"");
    }
    return binder_.BindPodVolumes(pod.Pod(), node, s->node_labels, s->reserved);
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  // Upstream's podHasPVCs checks for one claim.
  Status CheckClaim(const api::Pod& pod, const api::Volume& v, const std::string& name) const {
    auto pvc = binder_.pvc_cache().Get(pod.metadata.namespace_ + "/" + name);
    if (pvc == nullptr) {
      if (v.ephemeral) {
        return Status::Unresolvable(
            "waiting for ephemeral volume controller to create the persistentvolumeclaim \"" +
            name + "\"");
      }
      return Status::Unresolvable("persistentvolumeclaim \"" + name + "\" not found");
    }
    if (pvc->status.phase == "Lost") {
      return Status::Unresolvable("persistentvolumeclaim \"" + name +
                                  "\" bound to non-existent persistentvolume \"" +
                                  pvc->spec.volume_name + "\"");
    }
    if (pvc->metadata.deletion_timestamp) {
      return Status::Unresolvable("persistentvolumeclaim \"" + name + "\" is being deleted");
    }
    if (v.ephemeral && !IsControlledBy(*pvc, pod)) {
      return Status::Unresolvable("PVC " + pvc->metadata.namespace_ + "/" + name +
                                  " was not created for pod " + pod.Key() + " (pod is not owner)");
    }
    return {};
  }

  framework::Handle* handle_;
  mutable VolumeBinder binder_;  // thread-safe; its assume caches outlive cycles by design
  std::vector<UtilizationShapePoint> shape_;  // VolumeBindingArgs.shape (defaulted)
};

using framework::QueueingHint;

QueueingHint StorageClassChanged(const api::Pod&, const framework::EventObject& old_obj,
                                 const framework::EventObject& new_obj) {
  const auto* o = std::get_if<const api::StorageClass*>(&old_obj);
  const auto* n = std::get_if<const api::StorageClass*>(&new_obj);
  if (o == nullptr || *o == nullptr || n == nullptr || *n == nullptr) return QueueingHint::kQueue;
  const auto& a = (*o)->allowed_topologies;
  const auto& b = (*n)->allowed_topologies;
  auto same_req = [](const api::NodeSelectorRequirement& x, const api::NodeSelectorRequirement& y) {
    return x.key == y.key && x.op == y.op && x.values == y.values;
  };
  bool same = a.size() == b.size();
  for (size_t i = 0; same && i < a.size(); ++i) {
    same = std::equal(a[i].match_expressions.begin(), a[i].match_expressions.end(),
                      b[i].match_expressions.begin(), b[i].match_expressions.end(), same_req);
  }
  return same ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
}

QueueingHint ClaimChanged(const api::Pod& pod, const framework::EventObject&,
                          const framework::EventObject& new_obj) {
  const auto* n = std::get_if<const api::PersistentVolumeClaim*>(&new_obj);
  if (n == nullptr || *n == nullptr) return QueueingHint::kQueue;
  if ((*n)->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::kQueueSkip;
  for (const auto& v : pod.spec.volumes) {
    if (PodClaimName(pod, v) == (*n)->metadata.name) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

QueueingHint CSINodeChanged(const api::Pod&, const framework::EventObject& old_obj,
                            const framework::EventObject& new_obj) {
  const auto* o = std::get_if<const api::CSINode*>(&old_obj);
  const auto* n = std::get_if<const api::CSINode*>(&new_obj);
  if (o == nullptr || *o == nullptr || n == nullptr || *n == nullptr) return QueueingHint::kQueue;
  constexpr const char kMigrated[] = "storage.alpha.kubernetes.io/migrated-plugins";
  auto value = [&](const api::CSINode& c) {
    auto it = c.metadata.annotations.find(kMigrated);
    return it == c.metadata.annotations.end() ? std::string() : it->second;
  };
  return value(**o) != value(**n) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

std::vector<framework::ClusterEventWithHint> VolumeBinding::EventsToRegister() const {
  using framework::ClusterEvent;
  using framework::EventResource;
  namespace action = framework::action;
  return {
      {ClusterEvent{EventResource::kStorageClass, action::kAdd | action::kUpdate,
                    "StorageClassAdd|Update"},
       StorageClassChanged},
      {ClusterEvent{EventResource::kPersistentVolumeClaim, action::kAdd | action::kUpdate,
                    "PersistentVolumeClaimAdd|Update"},
       ClaimChanged},
      {ClusterEvent{EventResource::kPersistentVolume, action::kAdd | action::kUpdate,
                    "PersistentVolumeAdd|Update"},
       nullptr},
      {ClusterEvent{EventResource::kNode, action::kAdd | action::kUpdateNodeLabel,
                    "NodeAdd|UpdateNodeLabel"},
       nullptr},
      {ClusterEvent{EventResource::kCSINode, action::kAdd | action::kUpdate, "CSINodeAdd|Update"},
       CSINodeChanged},
  };
}

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_ASSIGN_OR_RETURN(api::Reader r, framework::ReadArgs(ctx.args, ctx.args_path));
  int64_t seconds = kDefaultBindTimeoutSeconds;
  BERTH_RETURN_IF_ERROR(r.Int64("bindTimeoutSeconds", &seconds));
  std::vector<UtilizationShapePoint> shape;
  BERTH_RETURN_IF_ERROR(ReadShape(r, &shape));
  BERTH_RETURN_IF_ERROR(r.Done());
  // SetDefaults_VolumeBindingArgs: an empty shape gets the default (the gate is on).
  if (shape.empty()) shape = DefaultShape();
  std::vector<std::string> errs;
  if (seconds < 0) {
    errs.push_back(r.PathOf("bindTimeoutSeconds") + ": Invalid value: " + std::to_string(seconds) +
                   ": invalid BindTimeoutSeconds, should not be a negative value");
  }
  ValidateShape(shape, r.PathOf("shape"), &errs);
  if (errs.size() == 1) return Error{errs[0]};
  if (!errs.empty()) {
    // utilerrors' aggregate of several errors.
    std::string msg = "[";
    for (size_t i = 0; i < errs.size(); ++i) msg += (i ? ", " : "") + errs[i];
    return Error{msg + "]"};
  }
  if (ctx.handle == nullptr) return Error{"VolumeBinding: the plugin needs a framework handle"};
  return std::shared_ptr<framework::Plugin>(
      std::make_shared<VolumeBinding>(ctx.handle, std::chrono::seconds(seconds), std::move(shape)));
}

}  // namespace berth::plugins::volume_binding
