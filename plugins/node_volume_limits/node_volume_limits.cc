#include "plugins/node_volume_limits/node_volume_limits.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduler/framework/args.h"

namespace berth::plugins::node_volume_limits {
namespace {

using framework::Code;
using framework::Status;

const framework::StateKey& PreFilterKey() {
  static const framework::StateKey key("PreFilterNodeVolumeLimits");
  return key;
}

// Placeholder handles of claims not bound yet: "<prefix><ns>/<claim>". The control character
// keeps them apart from real handles (upstream uses a random 32-character prefix).
constexpr std::string_view kUnboundHandlePrefix = "\x1funbound-";
constexpr const char kBetaStorageClassAnnotation[] = "volume.beta.kubernetes.io/storage-class";

// In-tree plugins csi-translation-lib can migrate, with their CSI drivers.
struct InTreePlugin {
  std::string_view name;
  std::string_view driver;
};
constexpr InTreePlugin kInTreePlugins[] = {
    {"kubernetes.io/aws-ebs", "ebs.csi.aws.com"},
    {"kubernetes.io/gce-pd", "pd.csi.storage.gke.io"},
    {"kubernetes.io/azure-disk", "disk.csi.azure.com"},
    {"kubernetes.io/azure-file", "file.csi.azure.com"},
    {"kubernetes.io/cinder", "cinder.csi.openstack.org"},
    {"kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"},
    {"kubernetes.io/portworx-volume", "pxd.portworx.com"},
    {"kubernetes.io/rbd", "rbd.csi.ceph.com"},
};
constexpr std::string_view kAwsEbsPlugin = "kubernetes.io/aws-ebs";
constexpr std::string_view kGcePdPlugin = "kubernetes.io/gce-pd";

const InTreePlugin* FindInTree(std::string_view name) {
  for (const auto& p : kInTreePlugins) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// Same as upstream's isCSIMigrationOn: the GA migrations are on wherever a CSINode exists;
// Portworx (gate on by default) also needs the node's migrated-plugins annotation; the rest
// (RBD, vSphere, Azure File) are off.
bool MigrationOn(const api::CSINode* csi_node, std::string_view plugin) {
  if (csi_node == nullptr || plugin.empty()) return false;
  if (plugin == kAwsEbsPlugin || plugin == kGcePdPlugin || plugin == "kubernetes.io/azure-disk" ||
      plugin == "kubernetes.io/cinder") {
    return true;
  }
  if (plugin != "kubernetes.io/portworx-volume") return false;
  auto it = csi_node->metadata.annotations.find(kMigratedPluginsAnnotation);
  if (it == csi_node->metadata.annotations.end()) return false;
  std::string_view list = it->second;
  while (!list.empty()) {
    auto comma = list.find(',');
    if (list.substr(0, comma) == plugin) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

// One volume a pod attaches, or why it could not be resolved.
struct PodVolume {
  // Set for in-tree volumes and provisioners: the entry applies only where MigrationOn().
  std::string_view in_tree_plugin;
  std::string driver;
  std::string unique_name;  // "<driver>/<handle>"
  Code error_code = Code::kSuccess;
  std::string error;
};

bool IsInlineMigratable(const api::Volume& v) {
  return !v.aws_ebs_volume_id.empty() || !v.gce_pd_name.empty() || !v.rbd_image.empty() ||
         !v.rbd_monitors.empty();
}

bool CountsTowardsLimits(const api::Volume& v) {
  return !v.pvc_claim_name.empty() || v.ephemeral || IsInlineMigratable(v);
}

std::string ClaimName(const api::Pod& pod, const api::Volume& v) {
  if (v.ephemeral && v.pvc_claim_name.empty()) return pod.metadata.name + "-" + v.name;
  return v.pvc_claim_name;
}

// csi-translation-lib's KubernetesVolumeIDToEBSVolumeID: "aws://<zone>/vol-..." or a bare ID.
std::optional<std::string> EbsVolumeId(const std::string& id) {
  constexpr std::string_view kScheme = "aws://";
  if (id.rfind(kScheme, 0) != 0) return id;
  std::string_view rest = std::string_view(id).substr(kScheme.size());
  auto slash = rest.find('/');
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.rfind("vol-", 0) != 0 || path.find('/') != std::string_view::npos) return std::nullopt;
  return std::string(path);
}

void AddInline(const api::Volume& v, std::vector<PodVolume>* out) {
  PodVolume pv;
  if (!v.aws_ebs_volume_id.empty()) {
    pv.in_tree_plugin = kAwsEbsPlugin;
    pv.driver = FindInTree(kAwsEbsPlugin)->driver;
    auto id = EbsVolumeId(v.aws_ebs_volume_id);
    if (!id) {
      pv.error_code = Code::kError;
      pv.error = "converting volume(" + v.name +
                 ") from inline to csi: failed to translate Kubernetes ID to EBS Volume ID "
                 "Invalid format for AWS volume (" +
                 v.aws_ebs_volume_id + ")";
    } else {
      pv.unique_name = pv.driver + "/" + *id;
    }
  } else if (!v.gce_pd_name.empty()) {
    pv.in_tree_plugin = kGcePdPlugin;
    pv.driver = FindInTree(kGcePdPlugin)->driver;
    pv.unique_name = pv.driver + "/projects/UNSPECIFIED/zones/UNSPECIFIED/disks/" + v.gce_pd_name;
  } else {
    return;  // RBD: migration is off, never counted.
  }
  out->push_back(std::move(pv));
}

// Upstream's getCSIDriverInfoFromSC: the provisioner and a placeholder handle; nothing when the
// claim has no (known) StorageClass — such a claim binds immediately, before scheduling.
void AddFromStorageClass(const api::PersistentVolumeClaim& pvc, const api::ClusterObjects& objects,
                         std::vector<PodVolume>* out) {
  std::string sc_name;
  if (auto it = pvc.metadata.annotations.find(kBetaStorageClassAnnotation);
      it != pvc.metadata.annotations.end()) {
    sc_name = it->second;
  } else if (pvc.spec.storage_class_name) {
    sc_name = *pvc.spec.storage_class_name;
  }
  if (sc_name.empty()) return;
  auto sc = objects.storage_classes.Get(sc_name);
  if (sc == nullptr || sc->provisioner.empty()) return;
  PodVolume pv;
  pv.driver = sc->provisioner;
  if (const auto* in_tree = FindInTree(sc->provisioner)) {
    pv.in_tree_plugin = in_tree->name;
    pv.driver = in_tree->driver;
  }
  pv.unique_name = pv.driver + "/";
  pv.unique_name += kUnboundHandlePrefix;
  pv.unique_name += pvc.metadata.namespace_ + "/" + pvc.metadata.name;
  out->push_back(std::move(pv));
}

// Upstream's filterAttachableVolumes without the node: appends the pod's volumes in spec order.
// For the pod being scheduled a missing claim is an UnschedulableAndUnresolvable entry; for pods
// already on a node it is skipped (no guarantee it belongs to them).
void ResolvePodVolumes(const api::Pod& pod, const api::ClusterObjects& objects, bool new_pod,
                       std::vector<PodVolume>* out) {
  const std::string& ns = pod.metadata.namespace_;
  for (const auto& v : pod.spec.volumes) {
    if (v.pvc_claim_name.empty() && !v.ephemeral) {
      AddInline(v, out);
      continue;
    }
    const std::string claim = ClaimName(pod, v);
    auto pvc = objects.pvcs.Get(ns, claim);
    if (pvc == nullptr) {
      if (new_pod) {
        PodVolume pv;
        pv.error_code = Code::kUnschedulableAndUnresolvable;
        pv.error = "looking up PVC " + ns + "/" + claim + ": persistentvolumeclaims \"" + claim +
                   "\" not found";
        out->push_back(std::move(pv));
      }
      continue;
    }
    if (v.ephemeral) {
      bool owned = false;
      for (const auto& ref : pvc->metadata.owner_references) {
        if (ref.controller && ref.uid == pod.metadata.uid) owned = true;
      }
      if (!owned || pvc->metadata.namespace_ != ns) {
        PodVolume pv;
        pv.error_code = Code::kError;
        pv.error = "PVC " + pvc->metadata.namespace_ + "/" + pvc->metadata.name +
                   " was not created for pod " + ns + "/" + pod.metadata.name +
                   " (pod is not owner)";
        out->push_back(std::move(pv));
        continue;
      }
    }
    if (pvc->spec.volume_name.empty()) {
      AddFromStorageClass(*pvc, objects, out);
      continue;
    }
    auto pv = objects.pvs.Get(pvc->spec.volume_name);
    if (pv == nullptr) {
      // Deleted, or the claim is pre-bound to a PV not created yet: count by StorageClass.
      AddFromStorageClass(*pvc, objects, out);
      continue;
    }
    if (pv->spec.csi_driver.empty() || pv->spec.csi_volume_handle.empty()) continue;
    PodVolume entry;
    entry.driver = pv->spec.csi_driver;
    entry.unique_name = entry.driver + "/" + pv->spec.csi_volume_handle;
    out->push_back(std::move(entry));
  }
}

// The volumes of `volumes` that apply on a node with this CSINode, as unique name -> driver
// (a view into the key: "<driver>/<handle>" starts with the driver). Returns the first
// resolution failure that applies.
Status Collect(const std::vector<PodVolume>& volumes, const api::CSINode* csi_node,
               std::map<std::string, std::string_view, std::less<>>* out) {
  for (const auto& v : volumes) {
    if (!v.in_tree_plugin.empty() && !MigrationOn(csi_node, v.in_tree_plugin)) continue;
    if (v.error_code != Code::kSuccess) return Status(v.error_code, v.error);
    auto [it, inserted] = out->emplace(v.unique_name, std::string_view());
    if (inserted) it->second = std::string_view(it->first).substr(0, v.driver.size());
  }
  return {};
}

// The pod's resolved volumes, computed once per cycle.
struct PreFilterState final : framework::StateData {
  std::vector<PodVolume> volumes;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

class NodeVolumeLimits final : public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::EnqueueExtensions {
 public:
  explicit NodeVolumeLimits(framework::Handle* handle) : handle_(handle) {}

  std::string_view Name() const override { return kName; }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                   const std::vector<const framework::NodeInfo*>&,
                   framework::PreFilterResult*) const override {
    bool any = false;
    for (const auto& v : pod.Pod().spec.volumes) any = any || CountsTowardsLimits(v);
    if (!any) return Status::Skip();
    auto s = std::make_unique<PreFilterState>();
    ResolvePodVolumes(pod.Pod(), handle_->objects(), /*new_pod=*/true, &s->volumes);
    state.Write(PreFilterKey(), std::move(s));
    return {};
  }

  Status Filter(const framework::CycleState& state, const framework::PodInfo&,
                const framework::NodeInfo& node) const override {
    const auto* s = state.Read<PreFilterState>(PreFilterKey());
    if (s == nullptr) {
      return Status::Error("reading \"PreFilterNodeVolumeLimits\" from cycleState: not found");
    }
    const auto csi_node = handle_->objects().csi_nodes.Get(node.name());
    std::map<std::string, std::string_view, std::less<>> new_volumes;
    if (auto st = Collect(s->volumes, csi_node.get(), &new_volumes); !st.IsSuccess()) return st;
    if (new_volumes.empty()) return {};
    // VolumeLimitScaling (beta, on in v1.37): a driver that opted in must be on the node.
    for (const auto& [name, driver] : new_volumes) {
      if (!DriverInstalled(driver, csi_node.get())) {
        return Status::Unschedulable(std::string(driver) +
                                     " CSI driver is not installed on the node");
      }
    }
    if (csi_node == nullptr) return {};

    std::map<std::string_view, int64_t, std::less<>> limits;
    for (const auto& d : csi_node->drivers) {
      if (d.allocatable_count) limits[d.name] = *d.allocatable_count;
    }
    // Only the pod's drivers are checked, so without a limit on one of them the node fits
    // whatever its pods use; this spares the scan of the node's pods.
    bool limited = false;
    for (const auto& [name, driver] : new_volumes) limited = limited || limits.count(driver) > 0;
    if (!limited) return {};

    std::map<std::string, std::string_view, std::less<>> attached;
    std::vector<PodVolume> existing;
    for (const auto& p : node.pods()) {
      existing.clear();
      ResolvePodVolumes(p->Pod(), handle_->objects(), /*new_pod=*/false, &existing);
      if (existing.empty()) continue;
      if (auto st = Collect(existing, csi_node.get(), &attached); !st.IsSuccess()) {
        return Status::Error(st.Message());
      }
    }

    std::map<std::string_view, int64_t, std::less<>> attached_count;
    for (const auto& [name, driver] : attached) {
      new_volumes.erase(name);  // a volume shared with a pod on the node is attached once
      ++attached_count[driver];
    }
    std::map<std::string_view, int64_t, std::less<>> new_count;
    for (const auto& [name, driver] : new_volumes) ++new_count[driver];
    for (const auto& [driver, count] : new_count) {
      auto it = limits.find(driver);
      if (it == limits.end()) continue;
      if (attached_count[driver] + count > it->second) {
        return Status::Unschedulable(kErrReasonMaxVolumeCountExceeded);
      }
    }
    return {};
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  // Upstream's checkCSIDriverOnNode: false only for a CSIDriver with
  // preventPodSchedulingIfMissing that the node's CSINode (if any) does not list.
  bool DriverInstalled(std::string_view driver, const api::CSINode* csi_node) const {
    const auto d = handle_->objects().csi_drivers.Get(std::string(driver));
    if (d == nullptr || !d->prevent_pod_scheduling_if_missing) return true;
    if (csi_node == nullptr) return false;
    for (const auto& nd : csi_node->drivers) {
      if (nd.name == driver) return true;
    }
    return false;
  }

  framework::Handle* handle_;
};

framework::QueueingHint CSINodeUpdated(const api::Pod&, const framework::EventObject& old_obj,
                                       const framework::EventObject& new_obj) {
  using framework::QueueingHint;
  const auto* o = std::get_if<const api::CSINode*>(&old_obj);
  const auto* n = std::get_if<const api::CSINode*>(&new_obj);
  if (o == nullptr || n == nullptr || *o == nullptr || *n == nullptr) return QueueingHint::kQueue;
  // Queue when some driver's limit rose or went away; new or lowered limits only restrict.
  for (const auto& od : (*o)->drivers) {
    if (!od.allocatable_count) continue;
    std::optional<int32_t> now;
    for (const auto& nd : (*n)->drivers) {
      if (nd.name == od.name) now = nd.allocatable_count;
    }
    if (!now || *now > *od.allocatable_count) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

framework::QueueingHint PodDeleted(const api::Pod&, const framework::EventObject& old_obj,
                                   const framework::EventObject&) {
  using framework::QueueingHint;
  const auto* o = std::get_if<const api::Pod*>(&old_obj);
  if (o == nullptr || *o == nullptr) return QueueingHint::kQueue;
  const api::Pod& deleted = **o;
  if (deleted.spec.volumes.empty() || deleted.spec.node_name.empty()) {
    return QueueingHint::kQueueSkip;
  }
  for (const auto& v : deleted.spec.volumes) {
    if (CountsTowardsLimits(v)) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

framework::QueueingHint PvcAdded(const api::Pod& pod, const framework::EventObject&,
                                 const framework::EventObject& new_obj) {
  using framework::QueueingHint;
  const auto* n = std::get_if<const api::PersistentVolumeClaim*>(&new_obj);
  if (n == nullptr || *n == nullptr) return QueueingHint::kQueue;
  const api::PersistentVolumeClaim& added = **n;
  if (added.metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::kQueueSkip;
  for (const auto& v : pod.spec.volumes) {
    if (v.pvc_claim_name.empty() && !v.ephemeral) continue;
    if (ClaimName(pod, v) == added.metadata.name) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

std::vector<framework::ClusterEventWithHint> NodeVolumeLimits::EventsToRegister() const {
  using framework::ClusterEvent;
  using framework::EventResource;
  namespace action = framework::action;
  return {
      // Any new CSINode may make a pod rejected for its CSI volumes schedulable.
      {ClusterEvent{EventResource::kCSINode, action::kAdd, "CSINodeAdd"}, nullptr},
      {ClusterEvent{EventResource::kCSINode, action::kUpdate, "CSINodeUpdate"}, CSINodeUpdated},
      {ClusterEvent{EventResource::kAssignedPod, action::kDelete, "AssignedPodDelete"}, PodDeleted},
      {ClusterEvent{EventResource::kPersistentVolumeClaim, action::kAdd,
                    "PersistentVolumeClaimAdd"},
       PvcAdded},
  };
}

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  if (ctx.handle == nullptr) return Error{"NodeVolumeLimits: the plugin needs a framework handle"};
  return std::shared_ptr<framework::Plugin>(std::make_shared<NodeVolumeLimits>(ctx.handle));
}

}  // namespace berth::plugins::node_volume_limits
