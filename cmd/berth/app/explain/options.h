#pragma once
// `berth explain`'s command line: which pod, where to ask (the leader through the API server's
// pod proxy, the chart's Service, a URL, or an offline re-evaluation), and how to print.
//
//   berth explain POD [-n NS] [--kubeconfig F] [--context C] [-o text|json]
//                 [--lease-namespace NS] [--lease-name NAME] [--scheduler-port N]
//                 [--via-service [--service NAME] [--service-port PORT]]
//                 [--scheduler-url URL [--certificate-authority F | --insecure-skip-tls-verify]]
//                 [--offline] [--config FILE]
//
// Flags and POD may come in any order (kubectl passes its global flags where they were typed).

#include <string>
#include <vector>

#include "base/result.h"
#include "cmd/berth/app/flags.h"

namespace berth::explain {

// Where the lease lives when --lease-namespace is not given: the namespace the README installs
// the chart into (`helm install ... --namespace berth-system`); `berth run` keeps its Lease in
// its own namespace.
inline constexpr char kDefaultLeaseNamespace[] = "berth-system";
inline constexpr char kDefaultLeaseName[] = "berth-scheduler";  // chart and `berth run` default
inline constexpr int kDefaultSchedulerPort = 10259;             // `berth run --secure-port`
// The chart's Service (<fullname>-metrics, fullname "berth" for `helm install berth`) and the
// name of its port.
inline constexpr char kDefaultServiceName[] = "berth-metrics";
inline constexpr char kDefaultServicePort[] = "https-metrics";

enum class Mode {
  kLeaderPod,  // the Lease's holder, through the pod proxy (default)
  kService,    // --via-service: the chart's Service, through the service proxy
  kUrl,        // --scheduler-url: straight to the scheduler's secure port
  kOffline,    // --offline: list the cluster and re-evaluate the pod here
};

struct ExplainOptions {
  std::string pod;
  std::string pod_namespace;  // empty: the kubeconfig context's namespace
  bool json = false;          // -o json
  Mode mode = Mode::kLeaderPod;
  std::string lease_namespace = kDefaultLeaseNamespace;
  std::string lease_name = kDefaultLeaseName;
  int scheduler_port = kDefaultSchedulerPort;
  std::string service_name = kDefaultServiceName;
  std::string service_port = kDefaultServicePort;
  std::string scheduler_url;  // without a trailing '/'
  std::string certificate_authority;
  bool insecure_skip_tls_verify = false;
  std::string config;  // --config for the offline re-evaluation
};

// Every flag, for the parser and --help (app::KubeFlagSpecs() included).
const std::vector<app::FlagSpec>& ExplainFlagSpecs();

// Reads parsed flags (f.positionals holds POD). Errors (kInvalid), one line:
//   `exactly one pod name expected, got 2: a, b`   `-o "yaml": want text or json`
//   `--offline and --scheduler-url exclude each other`   `--scheduler-port "x": ...`
//   `pod name "a/b": not a valid name`
Result<ExplainOptions> ReadExplainOptions(const app::Flags& f);

// Whether `s` can be a namespace or pod name in a URL path (DNS-1123 subdomain characters).
bool ValidName(const std::string& s);

}  // namespace berth::explain
