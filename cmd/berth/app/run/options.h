#pragma once
// `berth run`'s command line: kube-scheduler's flags (cmd/kube-scheduler/app/options), with the
// same names, defaults and precedence, plus berth's own (--namespace, --policy-config-file,
// --metrics-bind-address, --max-connections).
//
// Precedence, as upstream's Options.ApplyTo:
//  - The leader-election flags (--leader-elect*) override the config file's leaderElection
//    fields whenever they are given, with or without --config.
//  - The deprecated flags (--kubeconfig, --kube-api-qps, --kube-api-burst,
//    --kube-api-content-type, --profiling, --contention-profiling) apply only without --config;
//    with --config they are ignored (upstream ignores them silently; berth lists them in
//    `ignored`, which the caller logs as a warning).
//  - --master overrides the kubeconfig's server in both cases.
//  - Serving (--bind-address, --secure-port, --cert-dir, --tls-*) and logging flags are never
//    in the config file.
// Values berth cannot honour are errors naming the flag, never silent no-ops:
//   --leader-elect-resource-lock other than "leases", --kube-api-content-type other than
//   application/json (berth speaks JSON to the API server), --feature-gates naming any gate
//   (berth runs v1.37.2's defaults and has no gates to switch), --tls-min-version below
//   VersionTLS12, an unknown --tls-cipher-suites name, --logging-format other than text/json.
// Where berth differs: --secure-port 0 picks a free port (upstream: no HTTPS at all); the
// leader-election defaults are berth's (lease berth-scheduler in the pod's namespace), not
// kube-scheduler/kube-system, so that berth never takes the default scheduler's lease.

#include <string>
#include <vector>

#include "base/log.h"
#include "base/result.h"
#include "cmd/berth/app/flags.h"
#include "cmd/berth/app/serving/http_server.h"
#include "config/types.h"

namespace berth::run {

// The flags `berth run` accepts, with their help texts (for --help).
const std::vector<app::FlagSpec>& RunFlagSpecs();

// The effective settings of one `berth run` invocation.
struct RunSettings {
  config::SchedulerConfiguration config;
  HttpServerOptions http;
  // The kubeconfig to load (the config's clientConnection.kubeconfig, or --kubeconfig without
  // --config); empty = in-cluster. `master` overrides its server when not empty.
  std::string kubeconfig;
  std::string master;
  // --namespace (empty: $POD_NAMESPACE, then the kubeconfig's namespace).
  std::string lease_namespace_flag;
  std::string policy_config_file;
  // --write-config-to: write the config there and exit 0.
  std::string write_config_to;
  // --explain-placed-pods: placements kept for /debug/explain (0: only unschedulable pods).
  size_t explain_placed_pods = 0;
  int verbosity = 0;
  std::string vmodule;
  log::Format logging_format = log::Format::kText;
  // Flags given but ignored because --config was given (for a warning), e.g. "--kubeconfig".
  std::vector<std::string> ignored;
};

// Reads the flags into settings: loads --config (or the defaults) with `known_plugins` and
// applies the precedence above. Errors are one line, e.g.
//   `--leader-elect-resource-lock "endpoints": berth supports only "leases"`
//   `--leader-elect-lease-duration: time: invalid duration "x"`
//   `<config path>: ...` (config::LoadConfigFile's errors)
Result<RunSettings> ReadRunFlags(const app::Flags& f,
                                 const std::vector<std::string>& known_plugins);

// Installs the logging settings (-v, --vmodule, --logging-format) process-wide.
void ApplyLogging(const RunSettings& s);

// Go cipher suite names (crypto/tls, as --tls-cipher-suites takes them) to an OpenSSL cipher
// list. TLS 1.3 suites are accepted and skipped (not configurable in Go either).
Result<std::string> OpenSslCipherList(const std::string& go_names);

// The config as --write-config-to writes it: the whole defaulted kubescheduler.config.k8s.io/v1
// document (config/encode.h, as /configz shows it without the componentconfig wrapper), in JSON,
// which is valid YAML.
std::string RenderConfigForWrite(const config::SchedulerConfiguration& cfg);

}  // namespace berth::run
