#include "plugins/volume_zone/volume_zone.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/common/volume_hints.h"
#include "scheduler/framework/args.h"

namespace berth::plugins::volume_zone {
namespace {

using framework::Status;

const framework::StateKey& PreFilterKey() {
  static const framework::StateKey key("PreFilterVolumeZone");
  return key;
}

// Upstream's topologyLabels, in its order.
constexpr std::string_view kTopologyLabels[] = {
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
};
constexpr const char kBetaStorageClass[] = "volume.beta.kubernetes.io/storage-class";

// Upstream's LabelZonesToSet: "a__b" -> {a, b}; an empty element makes the label unusable.
bool ParseZones(std::string_view value, std::set<std::string, std::less<>>* out) {
  constexpr std::string_view kDelimiter = "__";
  for (;;) {
    const size_t at = value.find(kDelimiter);
    std::string_view zone = value.substr(0, at);
    while (!zone.empty() && zone.front() == ' ') zone.remove_prefix(1);
    while (!zone.empty() && zone.back() == ' ') zone.remove_suffix(1);
    if (zone.empty()) return false;
    out->emplace(zone);
    if (at == std::string_view::npos) return true;
    value.remove_prefix(at + kDelimiter.size());
  }
}

struct PvTopology {
  std::string pv_name;
  std::string_view key;
  std::set<std::string, std::less<>> values;
};

struct PreFilterState final : framework::StateData {
  std::vector<PvTopology> topologies;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

class VolumeZone final : public framework::PreFilterPlugin,
                         public framework::FilterPlugin,
                         public framework::EnqueueExtensions {
 public:
  explicit VolumeZone(framework::Handle* handle) : handle_(handle) {}

  std::string_view Name() const override { return kName; }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                   const std::vector<const framework::NodeInfo*>&,
                   framework::PreFilterResult*) const override {
    bool has_claim = false;
    for (const auto& v : pod.Pod().spec.volumes) {
      has_claim = has_claim || (!v.ephemeral && !v.pvc_claim_name.empty());
    }
    if (!has_claim) return Status::Skip();
    auto s = std::make_unique<PreFilterState>();
    if (Status st = Collect(pod.Pod(), &s->topologies); !st.IsSuccess()) return st;
    if (s->topologies.empty()) return Status::Skip();
    state.Write(PreFilterKey(), std::move(s));
    return {};
  }

  Status Filter(const framework::CycleState& state, const framework::PodInfo&,
                const framework::NodeInfo& node) const override {
    const auto* s = state.Read<PreFilterState>(PreFilterKey());
    if (s == nullptr || node.node() == nullptr) return {};
    const api::Labels& labels = node.node()->metadata.labels;
    bool constrained = false;
    for (std::string_view key : kTopologyLabels) {
      constrained = constrained || labels.find(std::string(key)) != labels.end();
    }
    // A node without zone labels fits: single-zone clusters often have none.
    if (!constrained) return {};
    for (const PvTopology& t : s->topologies) {
      auto it = labels.find(std::string(t.key));
      if (it == labels.end() || t.values.count(it->second) == 0) {
        return Status::Unresolvable(kErrReasonConflict);
      }
    }
    return {};
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  // Upstream's getPVbyPod.
  Status Collect(const api::Pod& pod, std::vector<PvTopology>* out) const {
    const api::ClusterObjects& objects = handle_->objects();
    for (const auto& v : pod.spec.volumes) {
      if (v.ephemeral || v.pvc_claim_name.empty()) continue;
      auto pvc = objects.pvcs.Get(pod.metadata.namespace_, v.pvc_claim_name);
      if (pvc == nullptr) {
        return Status::Unresolvable("persistentvolumeclaim \"" + v.pvc_claim_name + "\" not found");
      }
      const std::string& pv_name = pvc->spec.volume_name;
      if (pv_name.empty()) {
        std::string cls = pvc->spec.storage_class_name.value_or("");
        if (auto it = pvc->metadata.annotations.find(kBetaStorageClass);
            it != pvc->metadata.annotations.end()) {
          cls = it->second;
        }
        if (cls.empty()) {
          return Status::Unresolvable("PersistentVolumeClaim had no pv name and storageClass name");
        }
        auto sc = objects.storage_classes.Get(cls);
        if (sc == nullptr) {
          return Status::Unresolvable("storageclass.storage.k8s.io \"" + cls + "\" not found");
        }
        if (sc->volume_binding_mode == "WaitForFirstConsumer") continue;  // bound later
        return Status::Unresolvable("PersistentVolume had no name");
      }
      auto pv = objects.pvs.Get(pv_name);
      if (pv == nullptr) {
        return Status::Unresolvable("persistentvolume \"" + pv_name + "\" not found");
      }
      for (std::string_view key : kTopologyLabels) {
        auto it = pv->metadata.labels.find(std::string(key));
        if (it == pv->metadata.labels.end()) continue;
        PvTopology t{pv_name, key, {}};
        if (!ParseZones(it->second, &t.values)) continue;  // malformed: ignored, as upstream
        out->push_back(std::move(t));
      }
    }
    return {};
  }

  framework::Handle* handle_;
};

std::vector<framework::ClusterEventWithHint> VolumeZone::EventsToRegister() const {
  using framework::ClusterEvent;
  using framework::EventResource;
  namespace action = framework::action;
  return {
      {ClusterEvent{EventResource::kStorageClass, action::kAdd, "StorageClassAdd"}, nullptr},
      {ClusterEvent{EventResource::kNode, action::kAdd | action::kUpdateNodeLabel,
                    "NodeAdd|UpdateNodeLabel"},
       nullptr},
      {ClusterEvent{EventResource::kPersistentVolumeClaim, action::kAdd | action::kUpdate,
                    "PersistentVolumeClaimAdd|Update"},
       common::QueueIfPodMountsClaim},
      {ClusterEvent{EventResource::kPersistentVolume, action::kAdd | action::kUpdate,
                    "PersistentVolumeAdd|Update"},
       nullptr},
  };
}

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  if (ctx.handle == nullptr) return Error{"VolumeZone: the plugin needs a framework handle"};
  return std::shared_ptr<framework::Plugin>(std::make_shared<VolumeZone>(ctx.handle));
}

}  // namespace berth::plugins::volume_zone
