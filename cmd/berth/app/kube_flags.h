#pragma once
// The flags that reach an API server from a workstation, shared by `berth simulate --kubeconfig`
// and `berth explain`: --kubeconfig, --context, --kube-api-qps, --kube-api-burst,
// --request-timeout, and the client they make (informers/client's BeastClient: TLS, credentials,
// the QPS/burst token bucket, retries, the command's deadline).

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cmd/berth/app/flags.h"
#include "informers/client/beast_client.h"
#include "informers/client/config.h"
#include "informers/client/kube_client.h"

namespace berth::app {

// kubectl's defaults are looser than a scheduler's; these bound a one-off listing.
inline constexpr float kDefaultCliQps = 50;
inline constexpr int kDefaultCliBurst = 100;
// --request-timeout's default. kubectl's is 0 (none); a command that lists a cluster must still
// end when the server never answers.
inline constexpr std::chrono::seconds kDefaultRequestTimeout{60};

// --kubeconfig, --context, --kube-api-qps, --kube-api-burst, --request-timeout.
std::vector<FlagSpec> KubeFlagSpecs();

// --request-timeout's spec (also in `berth simulate`'s own list).
FlagSpec RequestTimeoutFlagSpec();

struct KubeAccess {
  client::ClientConfig config;
  std::string kubeconfig;  // the file read; empty for the in-cluster config
  float qps = kDefaultCliQps;
  int burst = kDefaultCliBurst;
  // --request-timeout: every request of the command, retries included, ends by `deadline`
  // (time_point::max() for "0"); `request_timeout_text` names it in messages.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::string request_timeout_text = "--request-timeout 60s";
};

// Which kubeconfig to read, as kubectl chooses: --kubeconfig, else the first existing file of
// $KUBECONFIG (colon-separated; files are not merged), else ~/.kube/config when it exists, else
// "" (the in-cluster config).
std::string ResolveKubeconfig(const Flags& f);

// Reads the flags: the kubeconfig (ResolveKubeconfig, or only --kubeconfig when
// `kubeconfig_required`), its --context, QPS, burst and --request-timeout (as kubectl: a
// duration such as 30s or 2m, a bare integer of seconds, or 0 for no deadline; counted from
// this call, for all of the command's requests together). False after printing
// `berth <command>: <why>` (the kubeconfig's errors name the file and the field).
bool ReadKubeAccess(const std::string& command, const Flags& f, bool kubeconfig_required,
                    KubeAccess* out);

// The client for `access` (never fails here: a bad CA or certificate is the first request's
// error), bounded by access.deadline.
std::unique_ptr<client::KubeClient> NewKubeClient(const KubeAccess& access);

// `opts` with access's deadline (for a client a command builds itself).
client::ClientOptions WithDeadline(const KubeAccess& access, client::ClientOptions opts);

}  // namespace berth::app
