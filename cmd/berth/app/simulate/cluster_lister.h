#pragma once
// The live stand-in for a cluster file: lists, once, every kind the cluster-file reader accepts
// from an API server (`berth simulate --kubeconfig`, `berth explain --offline`). Read-only: GETs
// of collections only, no watch, no write. Each collection is read in pages (`limit=500`,
// following `continue`; a continue token that expired (410) is followed by one full list of that
// collection (no `limit`), as client-go's pager does), through the caller's KubeClient, whose
// token bucket bounds the QPS. A list is bounded (client::PaginationGuard): a repeated continue
// token, more than ListBounds::max_items items or max_pages pages is an error.
//
// Objects are kept as listed (api::Value) with `apiVersion` and `kind` put first on each item
// (the API server leaves them out of a list's items), so that they can be read by the cluster
// file's reader (ToClusterFile: the same decoders and defaults) and saved as a `kind: List` file
// (ToListDocument) that `berth simulate --cluster` reads back to the same ClusterFile.
//
// Kinds whose API may be absent (the CRDs: PodGroups, storage.deckhouse.io) are skipped when the
// server answers 404; any other failure is an Error of one line naming the kind and the URL:
//   `list Pod (https://host/api/v1/pods): HTTP 403: pods is forbidden: ...`
//   `list StorageClass (https://host/apis/storage.k8s.io/v1/storageclasses): the server does not
//    serve this resource (404)`
//   `list Pod (https://host/api/v1/pods): the server repeated continue token "abc" (page 3)`
// Thread: the caller's; the client must be thread-safe only if shared.

#include <chrono>
#include <string>
#include <vector>

#include "api/value.h"
#include "base/result.h"
#include "cmd/berth/app/simulate/cluster_file.h"
#include "informers/client/kube_client.h"
#include "informers/client/pagination.h"

namespace berth::simulate {

// One collection the lister reads.
struct ListedKind {
  const char* kind;         // "Pod"
  const char* api_version;  // "v1", "storage.k8s.io/v1"
  const char* path;         // the collection, all namespaces: "/api/v1/pods"
  bool optional;            // a CRD that may not be installed: 404 = none
};

// Every kind the cluster-file reader accepts, in the order they are listed (and saved).
const std::vector<ListedKind>& ListedKinds();

struct LiveCluster {
  std::string server;  // for messages
  struct List {
    ListedKind kind;
    std::vector<api::Value> items;  // as listed, apiVersion and kind set
    bool absent = false;            // an optional kind the server does not serve
  };
  std::vector<List> lists;  // in ListedKinds() order
};

struct ListOptions {
  int page_size = 500;
  // Per page request (the client's retries included per attempt).
  std::chrono::milliseconds request_timeout{60000};
  // Bounds of one collection's list.
  client::ListBounds bounds;
};

// Lists every kind of ListedKinds() through `client` (see the header comment for errors).
Result<LiveCluster> ListCluster(client::KubeClient& client, const ListOptions& options = {});

// Lists one collection, following `continue`. `absent` (may be null) is set for a 404 when
// `kind.optional`; other failures are errors as above.
Result<std::vector<api::Value>> ListAll(client::KubeClient& client, const ListedKind& kind,
                                        const ListOptions& options, bool* absent);

// The objects read as a cluster file's would be; errors name `<server><path>`, the object and
// the field: `https://host/api/v1/pods: Pod default/web-1: spec...: invalid quantity "x"`.
Result<ClusterFile> ToClusterFile(const LiveCluster& live);

// The snapshot as a cluster file: one JSON `{"apiVersion":"v1","kind":"List","items":[...]}`,
// one item per line (valid YAML too), for `berth simulate --save`.
std::string ToListDocument(const LiveCluster& live);

// Writes ToListDocument to `path` (replacing it). Error: `<path>: cannot write: <why>`.
Ok SaveClusterFile(const LiveCluster& live, const std::string& path);

}  // namespace berth::simulate
