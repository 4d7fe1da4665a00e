#include "cmd/berth/app/run/options.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

#include "api/json/parse.h"
#include "base/strings.h"
#include "config/duration.h"
#include "config/encode.h"
#include "config/load.h"

namespace berth::run {

namespace {

using app::FlagSpec;

// Upstream calls these deprecated and ignores them when --config is given.
const char* const kDeprecatedFlags[] = {"kubeconfig",     "kube-api-qps",
                                        "kube-api-burst", "kube-api-content-type",
                                        "profiling",      "contention-profiling"};

Result<std::chrono::milliseconds> DurationFlag(const app::Flags& f, const std::string& name) {
  auto d = config::ParseGoDuration(f.Get(name));
  if (!d.ok()) return Error{"--" + name + ": " + d.error()};
  if (d->count() <= 0) return Error{"--" + name + ": must be greater than zero"};
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

Result<long long> IntFlag(const app::Flags& f, const std::string& name, long long lo,
                          long long hi) {
  const std::string v = f.Get(name);
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || n < lo || n > hi) {
    return Error{"--" + name + ": invalid value " + Quote(v) + ": want an integer from " +
                 std::to_string(lo) + " to " + std::to_string(hi)};
  }
  return n;
}

// The leader-election flags override the config whenever given (ApplyLeaderElectionTo).
Result<bool> ApplyLeaderElection(const app::Flags& f, config::LeaderElection& le) {
  if (f.Has("leader-elect")) le.leader_elect = f.Bool("leader-elect");
  const std::pair<const char*, std::chrono::milliseconds config::LeaderElection::*> durations[] = {
      {"leader-elect-lease-duration", &config::LeaderElection::lease_duration},
      {"leader-elect-renew-deadline", &config::LeaderElection::renew_deadline},
      {"leader-elect-retry-period", &config::LeaderElection::retry_period},
  };
  for (const auto& [name, field] : durations) {
    if (!f.Has(name)) continue;
    auto d = DurationFlag(f, name);
    if (!d.ok()) return Error{d.error()};
    le.*field = *d;
  }
  if (f.Has("leader-elect-resource-lock")) {
    const std::string lock = f.Get("leader-elect-resource-lock");
    if (lock != "leases") {
      return Error{"--leader-elect-resource-lock " + Quote(lock) +
                   ": berth supports only \"leases\" (as kube-scheduler since v1.24)"};
    }
    le.resource_lock = lock;
  }
  if (f.Has("leader-elect-resource-name")) {
    le.resource_name = f.Get("leader-elect-resource-name");
    if (le.resource_name.empty()) return Error{"--leader-elect-resource-name: must not be empty"};
  }
  if (f.Has("leader-elect-resource-namespace")) {
    le.resource_namespace = f.Get("leader-elect-resource-namespace");
  }
  if (le.leader_elect && le.lease_duration <= le.renew_deadline) {
    return Error{"leader election: lease duration (" + config::FormatGoDuration(le.lease_duration) +
                 ") must be greater than the renew deadline (" +
                 config::FormatGoDuration(le.renew_deadline) + ")"};
  }
  return true;
}

// The deprecated flags, applied only without --config (ApplyDeprecated).
Result<bool> ApplyDeprecated(const app::Flags& f, config::SchedulerConfiguration& cfg) {
  if (f.Has("kubeconfig")) cfg.client_connection.kubeconfig = f.Get("kubeconfig");
  if (f.Has("kube-api-qps")) {
    const std::string v = f.Get("kube-api-qps");
    char* end = nullptr;
    const float qps = std::strtof(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !std::isfinite(qps)) {
      return Error{"--kube-api-qps: invalid value " + Quote(v) + ": want a number"};
    }
    cfg.client_connection.qps = qps;
  }
  if (f.Has("kube-api-burst")) {
    auto burst = IntFlag(f, "kube-api-burst", 0, 2147483647);
    if (!burst.ok()) return Error{burst.error()};
    cfg.client_connection.burst = static_cast<int32_t>(*burst);
  }
  if (f.Has("kube-api-content-type")) {
    const std::string type = f.Get("kube-api-content-type");
    if (type != "application/json") {
      return Error{"--kube-api-content-type " + Quote(type) +
                   ": berth speaks only application/json to the API server"};
    }
    cfg.client_connection.content_type = type;
  }
  if (f.Has("profiling")) cfg.enable_profiling = f.Bool("profiling");
  if (f.Has("contention-profiling")) {
    cfg.enable_contention_profiling = f.Bool("contention-profiling");
  }
  return true;
}

Result<bool> ApplyServing(const app::Flags& f, HttpServerOptions& http) {
  const std::string bind = f.Get("bind-address", "0.0.0.0");
  std::string port = "10259";
  if (f.Has("secure-port")) {
    auto p = IntFlag(f, "secure-port", 0, 65535);
    if (!p.ok()) return Error{p.error()};
    port = std::to_string(*p);
  }
  http.secure_address =
      bind.find(':') != std::string::npos ? "[" + bind + "]:" + port : bind + ":" + port;
  http.cert_file = f.Get("tls-cert-file");
  http.key_file = f.Get("tls-private-key-file");
  if (http.cert_file.empty() != http.key_file.empty()) {
    return Error{"--tls-cert-file and --tls-private-key-file go together"};
  }
  // --cert-dir is ignored when a certificate is given; an existing pair there is reused.
  if (http.cert_file.empty() && !f.Get("cert-dir").empty()) {
    const std::string base = f.Get("cert-dir") + "/" + std::string(kSelfSignedPairName);
    if (access((base + ".crt").c_str(), R_OK) == 0 && access((base + ".key").c_str(), R_OK) == 0) {
      http.cert_file = base + ".crt";
      http.key_file = base + ".key";
    } else {
      http.cert_dir = f.Get("cert-dir");
    }
  }
  if (f.Has("tls-min-version")) {
    const std::string v = f.Get("tls-min-version");
    if (v == "VersionTLS12") {
      http.tls_min_version = 0x0303;
    } else if (v == "VersionTLS13") {
      http.tls_min_version = 0x0304;
    } else if (v == "VersionTLS10" || v == "VersionTLS11") {
      return Error{"--tls-min-version " + v + ": berth serves TLS 1.2 or newer only"};
    } else {
      return Error{"--tls-min-version " + Quote(v) +
                   ": unknown version (VersionTLS12, VersionTLS13)"};
    }
  }
  if (f.Has("tls-cipher-suites")) {
    auto list = OpenSslCipherList(f.Get("tls-cipher-suites"));
    if (!list.ok()) return Error{list.error()};
    http.cipher_list = *list;
  }
  // SO_REUSEADDR is always set, as Go sets it on every listener: true and false both behave
  // as kube-scheduler's on Linux.
  if (f.Has("permit-address-sharing")) (void)f.Bool("permit-address-sharing");
  if (f.Has("metrics-bind-address")) http.plain_address = f.Get("metrics-bind-address");
  if (f.Has("max-connections")) {
    auto n = IntFlag(f, "max-connections", 1, 1LL << 40);
    if (!n.ok()) {
      return Error{"--max-connections wants a positive integer, not " +
                   Quote(f.Get("max-connections"))};
    }
    http.max_connections = static_cast<size_t>(*n);
  }
  return true;
}

Result<bool> ApplyLoggingFlags(const app::Flags& f, RunSettings& s) {
  if (f.Has("v")) {
    auto v = IntFlag(f, "v", 0, 2147483647);
    if (!v.ok()) return Error{v.error()};
    s.verbosity = static_cast<int>(*v);
  }
  s.vmodule = f.Get("vmodule");
  if (!s.vmodule.empty()) {
    // Validate now (installing happens in ApplyLogging).
    const std::string err = log::SetVmodule(s.vmodule);
    log::SetVmodule("");
    if (!err.empty()) return Error{"--vmodule: " + err};
  }
  const std::string format = f.Get("logging-format", "text");
  if (format == "text") {
    s.logging_format = log::Format::kText;
  } else if (format == "json") {
    s.logging_format = log::Format::kJson;
  } else {
    return Error{"--logging-format " + Quote(format) + ": unsupported (text, json)"};
  }
  return true;
}

Result<bool> CheckFeatureGates(const app::Flags& f) {
  const std::string gates = f.Get("feature-gates");
  if (gates.empty()) return true;
  const std::string first = gates.substr(0, gates.find(','));
  return Error{"--feature-gates: cannot set " + Quote(first.substr(0, first.find('='))) +
               ": berth runs kube-scheduler v1.37.2's default feature gates and has none to "
               "switch"};
}

}  // namespace

const std::vector<FlagSpec>& RunFlagSpecs() {
  static const std::vector<FlagSpec> specs = {
      // misc
      {"config", "The path to the configuration file (KubeSchedulerConfiguration v1)."},
      {"write-config-to", "If set, write the configuration values to this file and exit."},
      {"master", "The address of the Kubernetes API server (overrides any value in kubeconfig)."},
      {"policy-config-file",
       "A legacy scheduler Policy file used instead of the config's profiles (berth only)."},
      {"namespace",
       "Namespace of the leader-election lease when the config leaves it empty (berth only).",
       false, "$POD_NAMESPACE, else the kubeconfig's"},
      // secure serving
      {"bind-address", "The IP address on which to listen for the --secure-port port.", false,
       "0.0.0.0"},
      {"secure-port",
       "The port on which to serve HTTPS (/healthz /livez /readyz /metrics /configz). 0 picks a "
       "free port (berth; upstream: no HTTPS).",
       false, "10259"},
      {"cert-dir",
       "The directory where the self-signed pair kube-scheduler.crt/.key is kept. Ignored with "
       "--tls-cert-file."},
      {"tls-cert-file", "File containing the default x509 certificate for HTTPS (PEM)."},
      {"tls-private-key-file", "File containing the x509 private key matching --tls-cert-file."},
      {"tls-min-version", "Minimum TLS version supported: VersionTLS12, VersionTLS13.", false,
       "VersionTLS12"},
      {"tls-cipher-suites", "Comma-separated list of cipher suites (Go names) for TLS 1.2."},
      {"permit-address-sharing",
       "If true, SO_REUSEADDR is used when binding the port (berth always sets it, as Go does).",
       true, "false"},
      {"metrics-bind-address",
       "Also serve the endpoints over plain HTTP on HOST:PORT (berth only)."},
      {"max-connections", "Most connections open at once; more are refused (berth only).", false,
       "1024"},
      {"explain-placed-pods",
       "How many of the last placed pods keep their diagnosis for /debug/explain; unschedulable "
       "pods always keep theirs (berth only).",
       false, "0"},
      // the secure port's delegated authentication / authorization (serving/auth_options.h)
      {"authentication-kubeconfig",
       "kubeconfig pointing at the 'core' kubernetes server with "
       "enough rights to create tokenreviews."},
      {"authorization-kubeconfig",
       "kubeconfig pointing at the 'core' kubernetes server with "
       "enough rights to create subjectaccessreviews."},
      {"authentication-skip-lookup",
       "If false, the authentication-kubeconfig will be used to lookup missing authentication "
       "configuration from the cluster.",
       true, "false"},
      {"authentication-tolerate-lookup-failure",
       "If true, failures to look up missing authentication configuration from the cluster are "
       "not considered fatal.",
       true, "true"},
      {"client-ca-file",
       "If set, any request presenting a client certificate signed by one of "
       "the authorities in the client-ca-file is authenticated."},
      {"authorization-always-allow-paths", "A list of HTTP paths to skip during authorization.",
       false, "/healthz,/readyz,/livez"},
      // deprecated (ignored with --config)
      {"kubeconfig",
       "DEPRECATED: path to kubeconfig file with authorization and master location information. "
       "Ignored if --config is given."},
      {"kube-api-qps",
       "DEPRECATED: QPS to use while talking with the API server. Ignored if "
       "--config is given.",
       false, "50"},
      {"kube-api-burst",
       "DEPRECATED: burst to use while talking with the API server. Ignored "
       "if --config is given.",
       false, "100"},
      {"kube-api-content-type",
       "DEPRECATED: content type of requests sent to the API server; berth accepts only "
       "application/json. Ignored if --config is given."},
      {"profiling",
       "DEPRECATED: enable /debug/flags/v (berth serves no /debug/pprof). Ignored if --config "
       "is given.",
       true, "true"},
      {"contention-profiling",
       "DEPRECATED: accepted for compatibility; berth has no block profiler. Ignored if --config "
       "is given.",
       true, "true"},
      // leader election
      {"leader-elect", "Start a leader election client and gain leadership before scheduling.",
       true, "true"},
      {"leader-elect-lease-duration", "Duration non-leader candidates wait before taking over.",
       false, "15s"},
      {"leader-elect-renew-deadline", "Interval within which the leader must renew.", false, "10s"},
      {"leader-elect-retry-period", "Duration between acquire and renew attempts.", false, "2s"},
      {"leader-elect-resource-lock", "The lock object type; berth supports only leases.", false,
       "leases"},
      {"leader-elect-resource-name", "The name of the lease object.", false, "berth-scheduler"},
      {"leader-elect-resource-namespace", "The namespace of the lease object.", false,
       "berth's namespace"},
      // feature gates
      {"feature-gates",
       "A set of key=value pairs for alpha/experimental features; berth has none to switch."},
      // logs
      {"v", "Number for the log level verbosity.", false, "0"},
      {"vmodule", "Comma-separated list of pattern=N settings for file-filtered logging."},
      {"logging-format", "Sets the log format: text, json.", false, "text"},
  };
  return specs;
}

Result<RunSettings> ReadRunFlags(const app::Flags& f,
                                 const std::vector<std::string>& known_plugins) {
  RunSettings s;
  if (auto ok = ApplyLoggingFlags(f, s); !ok.ok()) return Error{ok.error()};
  if (auto ok = CheckFeatureGates(f); !ok.ok()) return Error{ok.error()};
  if (f.Has("config")) {
    auto loaded = config::LoadConfigFile(f.Get("config"), known_plugins);
    if (!loaded.ok()) return Error{loaded.error()};
    s.config = std::move(*loaded);
    for (const char* name : kDeprecatedFlags) {
      if (f.Has(name)) s.ignored.push_back(std::string("--") + name);
    }
  } else {
    s.config = config::DefaultConfig(known_plugins);
    if (auto ok = ApplyDeprecated(f, s.config); !ok.ok()) return Error{ok.error()};
  }
  if (auto ok = ApplyLeaderElection(f, s.config.leader_election); !ok.ok()) {
    return Error{ok.error()};
  }
  if (auto ok = ApplyServing(f, s.http); !ok.ok()) return Error{ok.error()};
  s.kubeconfig = s.config.client_connection.kubeconfig;
  s.master = f.Get("master");
  s.lease_namespace_flag = f.Get("namespace");
  s.policy_config_file = f.Get("policy-config-file");
  s.write_config_to = f.Get("write-config-to");
  if (f.Has("explain-placed-pods")) {
    auto n = IntFlag(f, "explain-placed-pods", 0, 1000000);
    if (!n.ok()) {
      return Error{"--explain-placed-pods wants an integer from 0 to 1000000, not " +
                   Quote(f.Get("explain-placed-pods"))};
    }
    s.explain_placed_pods = static_cast<size_t>(*n);
  }
  return s;
}

void ApplyLogging(const RunSettings& s) {
  log::Verbosity() = s.verbosity;
  log::SetVmodule(s.vmodule);
  log::OutputFormat() = s.logging_format;
}

Result<std::string> OpenSslCipherList(const std::string& go_names) {
  static const std::map<std::string, std::string> kTls12 = {
      {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"},
      {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"},
      {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"},
      {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"},
      {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA"},
      {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA"},
      {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA"},
      {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA"},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA-AES128-SHA256"},
      {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA-AES128-SHA256"},
      {"TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256"},
      {"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"},
      {"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA"},
      {"TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA"},
      {"TLS_RSA_WITH_AES_128_CBC_SHA256", "AES128-SHA256"},
  };
  static const char* const kTls13[] = {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                                       "TLS_CHACHA20_POLY1305_SHA256"};
  std::string out;
  size_t start = 0;
  while (start <= go_names.size()) {
    size_t comma = go_names.find(',', start);
    if (comma == std::string::npos) comma = go_names.size();
    std::string name = go_names.substr(start, comma - start);
    start = comma + 1;
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (name.empty()) continue;
    if (std::find(std::begin(kTls13), std::end(kTls13), name) != std::end(kTls13)) continue;
    auto it = kTls12.find(name);
    if (it == kTls12.end()) {
      return Error{"--tls-cipher-suites: " + Quote(name) +
                   ": unknown or unsupported cipher suite (berth has no RC4 or 3DES suites)"};
    }
    if (!out.empty()) out += ":";
    out += it->second;
  }
  return out;
}

std::string RenderConfigForWrite(const config::SchedulerConfiguration& cfg) {
  return api::json::ToJson(config::EncodeConfig(cfg)) + "\n";
}

}  // namespace berth::run
