#include "cmd/berth/app/simulate/cluster_file.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "api/decode.h"
#include "api/json/parse.h"
#include "base/read_file.h"
#include "scheduler/framework/pod_requests.h"

namespace berth::simulate {

void ApplyPodDefaults(api::Pod& pod, size_t index) {
  if (pod.metadata.namespace_.empty()) pod.metadata.namespace_ = "default";
  if (pod.metadata.uid.empty()) {
    pod.metadata.uid =
        "sim-" + std::to_string(index) + "-" + pod.metadata.namespace_ + "-" + pod.metadata.name;
  }
  auto default_requests = [](std::vector<api::Container>& containers) {
    for (auto& c : containers) {
      for (const auto& [name, q] : c.resources.limits) {
        c.resources.requests.emplace(name, q);  // keeps an explicit request
      }
    }
  };
  default_requests(pod.spec.containers);
  default_requests(pod.spec.init_containers);
  DefaultPodLevelRequests(pod);
}

void DefaultPodLevelRequests(api::Pod& pod) {
  api::ResourceRequirements& plr = pod.spec.resources;
  if (plr.requests.empty() && plr.limits.empty()) return;
  framework::PodRequestsOptions containers_only;
  containers_only.skip_pod_level_resources = true;
  containers_only.exclude_overhead = true;
  // defaultHugePagePodLevelLimits: the containers' aggregated hugepage limits (the same sidecar
  // formula, over limits) where the pod level sets neither a request nor a limit.
  api::Pod limits_view;
  limits_view.spec.containers = pod.spec.containers;
  limits_view.spec.init_containers = pod.spec.init_containers;
  for (auto* list : {&limits_view.spec.containers, &limits_view.spec.init_containers}) {
    for (auto& c : *list) c.resources.requests = c.resources.limits;
  }
  for (const auto& [name, q] : framework::PodRequestList(limits_view, containers_only)) {
    if (!framework::IsHugePageResourceName(name) || plr.requests.contains(name)) continue;
    plr.limits.emplace(name, q);
  }
  // defaultPodLevelRequests: cpu and memory from the containers' aggregated requests, then any
  // supported resource from the pod-level limit.
  for (const auto& [name, q] : framework::PodRequestList(pod, containers_only)) {
    if (name == api::kResourceCPU || name == api::kResourceMemory) plr.requests.emplace(name, q);
  }
  for (const auto& [name, q] : plr.limits) {
    if (framework::IsSupportedPodLevelResource(name)) plr.requests.emplace(name, q);
  }
}

namespace {

template <typename T>
void SetNamespace(T& obj) {
  if (obj.metadata.namespace_.empty()) obj.metadata.namespace_ = "default";
}

struct Loader {
  ClusterFile out;
  std::map<std::string, int> ignored;  // kind -> count, in first-seen order via `order`
  std::vector<std::string> order;
  std::set<std::string> seen;  // "Kind/ns/name"

  // storage.deckhouse.io kinds (not in api::Object).
  Ok AddReplicatedStorage(const api::Value& doc, const std::string& where);
  Ok Add(const api::Value& doc, const std::string& where) {
    if (api::IsReplicatedStorageKind(doc)) return AddReplicatedStorage(doc, where);
    auto obj = api::DecodeObject(doc);
    if (!obj.ok()) {
      if (obj.code() == ErrorCode::kNotFound) {
        const api::Value* kind = doc.Find("kind");
        std::string k = kind && kind->IsString() ? kind->AsString() : "?";
        if (!ignored.count(k)) order.push_back(k);
        ignored[k]++;
        return {};
      }
      return obj.status().Wrap(where);
    }
    std::string dup_key;
    auto check_dup = [&](const std::string& kind, const api::ObjectMeta& m) -> Ok {
      dup_key = kind + "/" + m.namespace_ + "/" + m.name;
      if (m.name.empty()) return Error{where + ": " + kind + ": metadata.name: required"};
      if (!seen.insert(dup_key).second) {
        return Error{where + ": " + kind + " " +
                     (m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name) +
                     ": defined twice"};
      }
      return {};
    };
    return std::visit(
        [&](auto& o) -> Ok {
          using T = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<T, api::Pod>) {
            ApplyPodDefaults(o, out.pods.size());
            if (auto ok = check_dup("Pod", o.metadata); !ok) return ok;
            out.pods.push_back(std::make_shared<api::Pod>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::Node>) {
            if (auto ok = check_dup("Node", o.metadata); !ok) return ok;
            out.nodes.push_back(std::make_shared<api::Node>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::Namespace>) {
            if (auto ok = check_dup("Namespace", o.metadata); !ok) return ok;
            out.namespaces.push_back(std::make_shared<api::Namespace>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::PersistentVolumeClaim>) {
            SetNamespace(o);
            if (auto ok = check_dup("PersistentVolumeClaim", o.metadata); !ok) return ok;
            out.pvcs.push_back(std::make_shared<api::PersistentVolumeClaim>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::PersistentVolume>) {
            if (auto ok = check_dup("PersistentVolume", o.metadata); !ok) return ok;
            out.pvs.push_back(std::make_shared<api::PersistentVolume>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::StorageClass>) {
            if (auto ok = check_dup("StorageClass", o.metadata); !ok) return ok;
            out.storage_classes.push_back(std::make_shared<api::StorageClass>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::CSINode>) {
            if (auto ok = check_dup("CSINode", o.metadata); !ok) return ok;
            out.csi_nodes.push_back(std::make_shared<api::CSINode>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::CSIDriver>) {
            if (auto ok = check_dup("CSIDriver", o.metadata); !ok) return ok;
            out.csi_drivers.push_back(std::make_shared<api::CSIDriver>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::Service>) {
            SetNamespace(o);
            if (auto ok = check_dup("Service", o.metadata); !ok) return ok;
            out.services.push_back(std::make_shared<api::Service>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::ReplicationController>) {
            SetNamespace(o);
            if (auto ok = check_dup("ReplicationController", o.metadata); !ok) return ok;
            out.replication_controllers.push_back(
                std::make_shared<api::ReplicationController>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::ReplicaSet>) {
            SetNamespace(o);
            if (auto ok = check_dup("ReplicaSet", o.metadata); !ok) return ok;
            out.replica_sets.push_back(std::make_shared<api::ReplicaSet>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::StatefulSet>) {
            SetNamespace(o);
            if (auto ok = check_dup("StatefulSet", o.metadata); !ok) return ok;
            out.stateful_sets.push_back(std::make_shared<api::StatefulSet>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::PodGroup>) {
            SetNamespace(o);
            if (auto ok = check_dup("PodGroup", o.metadata); !ok) return ok;
            out.pod_groups.push_back(std::make_shared<api::PodGroup>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::PodDisruptionBudget>) {
            SetNamespace(o);
            if (auto ok = check_dup("PodDisruptionBudget", o.metadata); !ok) return ok;
            out.pdbs.push_back(std::make_shared<api::PodDisruptionBudget>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::DeviceClass>) {
            if (auto ok = check_dup("DeviceClass", o.metadata); !ok) return ok;
            out.device_classes.push_back(std::make_shared<api::DeviceClass>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::ResourceSlice>) {
            if (auto ok = check_dup("ResourceSlice", o.metadata); !ok) return ok;
            out.resource_slices.push_back(std::make_shared<api::ResourceSlice>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::ResourceClaim>) {
            SetNamespace(o);
            if (o.metadata.uid.empty()) {
              o.metadata.uid = "sim-resourceclaim-" + o.metadata.namespace_ + "-" + o.metadata.name;
            }
            if (auto ok = check_dup("ResourceClaim", o.metadata); !ok) return ok;
            out.resource_claims.push_back(std::make_shared<api::ResourceClaim>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::ResourceClaimTemplate>) {
            SetNamespace(o);
            if (auto ok = check_dup("ResourceClaimTemplate", o.metadata); !ok) return ok;
            out.resource_claim_templates.push_back(
                std::make_shared<api::ResourceClaimTemplate>(std::move(o)));
          } else if constexpr (std::is_same_v<T, api::DeviceTaintRule>) {
            if (auto ok = check_dup("DeviceTaintRule", o.metadata); !ok) return ok;
            out.device_taint_rules.push_back(std::make_shared<api::DeviceTaintRule>(std::move(o)));
          }
          return {};
        },
        *obj);
  }
};

}  // namespace

Ok Loader::AddReplicatedStorage(const api::Value& doc, const std::string& where) {
  auto obj = api::DecodeReplicatedStorageObject(doc);
  if (!obj.ok()) return Error{where + ": " + obj.error()};
  return std::visit(
      [&](auto& o) -> Ok {
        using T = std::decay_t<decltype(o)>;
        const std::string kind = doc.Find("kind")->AsString();
        if (o.metadata.name.empty())
          return Error{where + ": " + kind + ": metadata.name: required"};
        if (!seen.insert(kind + "//" + o.metadata.name).second) {
          return Error{where + ": " + kind + " " + o.metadata.name + ": defined twice"};
        }
        auto ptr = std::make_shared<T>(std::move(o));
        if constexpr (std::is_same_v<T, api::ReplicatedStorageClass>) {
          out.replicated_storage_classes.push_back(std::move(ptr));
        } else if constexpr (std::is_same_v<T, api::ReplicatedStoragePool>) {
          out.replicated_storage_pools.push_back(std::move(ptr));
        } else if constexpr (std::is_same_v<T, api::LVMVolumeGroup>) {
          out.lvm_volume_groups.push_back(std::move(ptr));
        } else if constexpr (std::is_same_v<T, api::LVMLogicalVolume>) {
          out.lvm_logical_volumes.push_back(std::move(ptr));
        } else {
          out.replicated_volumes.push_back(std::move(ptr));
        }
        return {};
      },
      *obj);
}

Result<ClusterFile> ParseClusterFile(const std::string& text, const std::string& source) {
  auto docs = api::json::ParseYamlDocuments(text);
  if (!docs.ok()) return Error{source + ": " + docs.error()};
  Loader loader;
  for (size_t d = 0; d < docs->size(); ++d) {
    const api::Value& doc = (*docs)[d];
    const std::string where = source + ": document " + std::to_string(d + 1);
    if (!doc.IsObject()) {
      return Error{where + ": expected a Kubernetes object, got " + std::string(doc.TypeName())};
    }
    const api::Value* kind = doc.Find("kind");
    // `kind: List` from kubectl, or a typed list (NodeList, PodList, ...) from the API.
    if (kind != nullptr && kind->IsString() && kind->AsString().ends_with("List") &&
        doc.Find("items") != nullptr) {
      const api::Value* items = doc.Find("items");
      if (items == nullptr || items->IsNull()) continue;
      if (!items->IsArray()) {
        return Error{where + ": items: expected array, got " + std::string(items->TypeName())};
      }
      for (size_t i = 0; i < items->AsArray().size(); ++i) {
        const api::Value& item = items->AsArray()[i];
        const std::string item_where = where + ": items[" + std::to_string(i) + "]";
        if (!item.IsObject()) {
          return Error{item_where + ": expected a Kubernetes object, got " +
                       std::string(item.TypeName())};
        }
        if (auto ok = loader.Add(item, item_where); !ok) return Error{ok.error()};
      }
      continue;
    }
    if (auto ok = loader.Add(doc, where); !ok) return Error{ok.error()};
  }
  for (const auto& k : loader.order) {
    loader.out.warnings.push_back(source + ": ignoring " + std::to_string(loader.ignored[k]) +
                                  " object(s) of kind \"" + k + "\"");
  }
  return std::move(loader.out);
}

Result<ClusterFile> ClusterFileFromObjects(const std::vector<SourcedObject>& objects) {
  Loader loader;
  for (const SourcedObject& o : objects) {
    if (o.object == nullptr || !o.object->IsObject()) {
      return Error{o.where + ": expected a Kubernetes object, got " +
                   std::string(o.object == nullptr ? "nothing" : o.object->TypeName())};
    }
    if (auto ok = loader.Add(*o.object, o.where); !ok) return Error{ok.error()};
  }
  for (const auto& k : loader.order) {
    loader.out.warnings.push_back("ignoring " + std::to_string(loader.ignored[k]) +
                                  " object(s) of kind \"" + k + "\"");
  }
  return std::move(loader.out);
}

Result<ClusterFile> LoadClusterFile(const std::string& path) {
  auto text = ReadFile(path, kMaxClusterFileBytes);
  if (!text.ok()) return Error{path + ": cannot read file: " + text.error()};
  return ParseClusterFile(*text, path);
}

}  // namespace berth::simulate
