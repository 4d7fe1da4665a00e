#include "cmd/berth/app/simulate/cluster_lister.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "api/json/parse.h"
#include "api/kinds.h"
#include "base/strings.h"
#include "informers/client/api_status.h"
#include "informers/client/pagination.h"

namespace berth::simulate {
namespace {

namespace kind = api::kind;

using api::StringMember;
using client::StatusMessage;

// The item with apiVersion and kind first (the API server leaves them out of a list's items).
api::Value WithTypeMeta(api::Value item, const ListedKind& k) {
  api::Value out = api::Value::MakeObject();
  out.Set("apiVersion", api::Value::String(k.api_version));
  out.Set("kind", api::Value::String(k.kind));
  for (auto& [name, value] : item.MutableObject()) {
    if (name == "apiVersion" || name == "kind") continue;
    out.MutableObject().emplace_back(std::move(name), std::move(value));
  }
  return out;
}

#define BERTH_DECKHOUSE "/apis/storage.deckhouse.io/v1alpha1/"
#define BERTH_DECKHOUSE_V "storage.deckhouse.io/v1alpha1"

}  // namespace

const std::vector<ListedKind>& ListedKinds() {
  // The kinds of the cluster-file reader (cluster_file.cc) and of the daemon's informers
  // (informers/informer.cc), with the same optional CRDs.
  static const std::vector<ListedKind> kinds = {
      {kind::kNamespace, "v1", "/api/v1/namespaces", false},
      {kind::kNode, "v1", "/api/v1/nodes", false},
      {kind::kPod, "v1", "/api/v1/pods", false},
      {kind::kPersistentVolumeClaim, "v1", "/api/v1/persistentvolumeclaims", false},
      {kind::kPersistentVolume, "v1", "/api/v1/persistentvolumes", false},
      {kind::kStorageClass, "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/storageclasses", false},
      {kind::kCSINode, "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/csinodes", false},
      {kind::kCSIDriver, "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/csidrivers", false},
      {kind::kService, "v1", "/api/v1/services", false},
      {kind::kReplicationController, "v1", "/api/v1/replicationcontrollers", false},
      {kind::kReplicaSet, "apps/v1", "/apis/apps/v1/replicasets", false},
      {kind::kStatefulSet, "apps/v1", "/apis/apps/v1/statefulsets", false},
      {kind::kPodDisruptionBudget, "policy/v1", "/apis/policy/v1/poddisruptionbudgets", false},
      {kind::kPodGroup, "scheduling.x-k8s.io/v1alpha1",
       "/apis/scheduling.x-k8s.io/v1alpha1/podgroups", true},
      {kind::kDeviceClass, "resource.k8s.io/v1", "/apis/resource.k8s.io/v1/deviceclasses", false},
      {kind::kResourceSlice, "resource.k8s.io/v1", "/apis/resource.k8s.io/v1/resourceslices",
       false},
      {kind::kResourceClaim, "resource.k8s.io/v1", "/apis/resource.k8s.io/v1/resourceclaims",
       false},
      {kind::kResourceClaimTemplate, "resource.k8s.io/v1",
       "/apis/resource.k8s.io/v1/resourceclaimtemplates", false},
      {kind::kDeviceTaintRule, "resource.k8s.io/v1", "/apis/resource.k8s.io/v1/devicetaintrules",
       false},
      {kind::kReplicatedStorageClass, BERTH_DECKHOUSE_V, BERTH_DECKHOUSE "replicatedstorageclasses",
       true},
      {kind::kReplicatedStoragePool, BERTH_DECKHOUSE_V, BERTH_DECKHOUSE "replicatedstoragepools",
       true},
      {kind::kLVMVolumeGroup, BERTH_DECKHOUSE_V, BERTH_DECKHOUSE "lvmvolumegroups", true},
      {kind::kLVMLogicalVolume, BERTH_DECKHOUSE_V, BERTH_DECKHOUSE "lvmlogicalvolumes", true},
      {kind::kReplicatedVolume, BERTH_DECKHOUSE_V, BERTH_DECKHOUSE "replicatedvolumes", true},
  };
  return kinds;
}
#undef BERTH_DECKHOUSE
#undef BERTH_DECKHOUSE_V

Result<std::vector<api::Value>> ListAll(client::KubeClient& client, const ListedKind& k,
                                        const ListOptions& options, bool* absent) {
  if (absent != nullptr) *absent = false;
  const std::string what = std::string("list ") + k.kind + " (" + client.Server() + k.path + ")";
  std::vector<api::Value> items;
  std::string cont;
  client::PaginationGuard guard(what, options.bounds);
  bool full = false;  // the one full list after an expired continue token
  for (;;) {
    client::Request req;
    req.path = k.path;
    if (!full || !cont.empty()) {
      req.path += "?limit=" + std::to_string(options.page_size);
      if (!cont.empty()) req.path += "&continue=" + QueryEscape(cont);
    }
    req.timeout = options.request_timeout;
    auto resp = client.Do(req);
    if (!resp.ok()) return Error{what + ": " + resp.error(), resp.code()};
    if (resp->status == 404 && cont.empty()) {
      if (!k.optional) {
        return Error{what + ": the server does not serve this resource (404)",
                     ErrorCode::kNotFound};
      }
      if (absent != nullptr) *absent = true;
      return std::vector<api::Value>{};
    }
    if (resp->status == 410 && !cont.empty() && !full) {
      // The continue token expired mid-list: one full list (no limit), as client-go's pager
      // does; a second 410 is an error below.
      items.clear();
      cont.clear();
      guard.Restart();
      full = true;
      continue;
    }
    if (resp->status != 200) {
      return Error{what + ": HTTP " + std::to_string(resp->status) + ": " +
                   OneLine(StatusMessage(resp->body))};
    }
    auto doc = api::json::ParseJson(resp->body);
    if (!doc.ok()) return Error{what + ": " + doc.error()};
    if (!doc->IsObject()) return Error{what + ": expected a list object"};
    cont = StringMember(doc->Find("metadata"), "continue");
    const size_t before = items.size();
    for (auto& [name, value] : doc->MutableObject()) {
      if (name != "items") continue;
      if (value.IsNull()) break;
      if (!value.IsArray()) {
        return Error{what + ": items: expected array, got " + std::string(value.TypeName())};
      }
      for (auto& item : value.MutableArray()) {
        if (!item.IsObject()) {
          return Error{what + ": items: expected a Kubernetes object, got " +
                       std::string(item.TypeName())};
        }
        items.push_back(WithTypeMeta(std::move(item), k));
      }
    }
    BERTH_RETURN_IF_ERROR(guard.Page(static_cast<int64_t>(items.size() - before), cont));
    if (cont.empty()) return items;
  }
}

Result<LiveCluster> ListCluster(client::KubeClient& client, const ListOptions& options) {
  LiveCluster live;
  live.server = client.Server();
  for (const ListedKind& k : ListedKinds()) {
    LiveCluster::List list{k, {}, false};
    BERTH_ASSIGN_OR_RETURN(list.items, ListAll(client, k, options, &list.absent));
    live.lists.push_back(std::move(list));
  }
  return live;
}

Result<ClusterFile> ToClusterFile(const LiveCluster& live) {
  std::vector<SourcedObject> objects;
  for (const auto& list : live.lists) {
    const std::string where = live.server + list.kind.path;
    for (const auto& item : list.items) objects.push_back({where, &item});
  }
  return ClusterFileFromObjects(objects);
}

std::string ToListDocument(const LiveCluster& live) {
  std::string out = "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [";
  bool first = true;
  for (const auto& list : live.lists) {
    for (const auto& item : list.items) {
      out += first ? "\n" : ",\n";
      out += api::json::ToJson(item);
      first = false;
    }
  }
  out += "\n]}\n";
  return out;
}

Ok SaveClusterFile(const LiveCluster& live, const std::string& path) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Error{path + ": cannot write: " + std::strerror(errno)};
  f << ToListDocument(live);
  f.close();
  if (!f) return Error{path + ": cannot write: " + std::strerror(errno)};
  return {};
}

}  // namespace berth::simulate
