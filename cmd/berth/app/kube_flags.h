#pragma once
// The flags that reach an API server from a workstation, shared by `berth simulate --kubeconfig`
// and `berth explain`: --kubeconfig, --context, --kube-api-qps, --kube-api-burst, and the client
// they make (informers/client's BeastClient: TLS, credentials, the QPS/burst token bucket,
// retries).

#include <memory>
#include <string>
#include <vector>

#include "cmd/berth/app/flags.h"
#include "informers/client/config.h"
#include "informers/client/kube_client.h"

namespace berth::app {

// kubectl's defaults are looser than a scheduler's; these bound a one-off listing.
inline constexpr float kDefaultCliQps = 50;
inline constexpr int kDefaultCliBurst = 100;

// --kubeconfig, --context, --kube-api-qps, --kube-api-burst.
std::vector<FlagSpec> KubeFlagSpecs();

struct KubeAccess {
  client::ClientConfig config;
  std::string kubeconfig;  // the file read; empty for the in-cluster config
  float qps = kDefaultCliQps;
  int burst = kDefaultCliBurst;
};

// Which kubeconfig to read, as kubectl chooses: --kubeconfig, else the first existing file of
// $KUBECONFIG (colon-separated; files are not merged), else ~/.kube/config when it exists, else
// "" (the in-cluster config).
std::string ResolveKubeconfig(const Flags& f);

// Reads the flags: the kubeconfig (ResolveKubeconfig, or only --kubeconfig when
// `kubeconfig_required`), its --context, QPS and burst. False after printing
// `berth <command>: <why>` (the kubeconfig's errors name the file and the field).
bool ReadKubeAccess(const std::string& command, const Flags& f, bool kubeconfig_required,
                    KubeAccess* out);

// The client for `access` (never fails here: a bad CA or certificate is the first request's
// error).
std::unique_ptr<client::KubeClient> NewKubeClient(const KubeAccess& access);

}  // namespace berth::app
