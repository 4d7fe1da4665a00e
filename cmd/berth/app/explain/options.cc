#include "cmd/berth/app/explain/options.h"

#include "base/strings.h"
#include "cmd/berth/app/kube_flags.h"

namespace berth::explain {

const std::vector<app::FlagSpec>& ExplainFlagSpecs() {
  static const std::vector<app::FlagSpec> specs = [] {
    std::vector<app::FlagSpec> v = {
        {"namespace", "The pod's namespace.", false, "the kubeconfig context's, else default", 'n'},
        {"output", "Output format: text or json.", false, "text", 'o'},
        {"lease-namespace", "Namespace of berth's leader election Lease.", false,
         kDefaultLeaseNamespace},
        {"lease-name", "Name of berth's leader election Lease.", false, kDefaultLeaseName},
        {"scheduler-port", "berth's secure port, for the pod proxy.", false,
         std::to_string(kDefaultSchedulerPort)},
        {"via-service",
         "Ask through the chart's Service (service proxy) instead of the leader pod.", true,
         "false"},
        {"service", "With --via-service: the Service's name (in --lease-namespace).", false,
         kDefaultServiceName},
        {"service-port", "With --via-service: the Service's port name.", false,
         kDefaultServicePort},
        {"scheduler-url",
         "Ask this scheduler directly (https://host:port), with the kubeconfig's credentials."},
        {"certificate-authority", "With --scheduler-url: the CA file to verify it against."},
        {"insecure-skip-tls-verify", "With --scheduler-url: do not verify its certificate.", true,
         "false"},
        {"offline",
         "Do not ask the scheduler: list the cluster and re-evaluate the pod here (also done "
         "when the scheduler cannot be reached).",
         true, "false"},
        {"config", "The scheduler configuration for --offline (KubeSchedulerConfiguration v1).",
         false, "the default profile"},
    };
    for (auto& s : app::KubeFlagSpecs()) v.push_back(std::move(s));
    return v;
  }();
  return specs;
}

bool ValidName(const std::string& s) {
  if (s.empty() || s.size() > 253 || s == "." || s == "..") return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  }
  return true;
}

Result<ExplainOptions> ReadExplainOptions(const app::Flags& f) {
  ExplainOptions o;
  if (f.positionals.size() != 1) {
    if (f.positionals.empty()) return Error{"a pod name is required: berth explain POD [-n NS]"};
    return Error{"exactly one pod name expected, got " + std::to_string(f.positionals.size()) +
                 ": " + Join(f.positionals, ", ")};
  }
  o.pod = f.positionals[0];
  if (!ValidName(o.pod)) return Error{"pod name " + Quote(o.pod) + ": not a valid name"};
  o.pod_namespace = f.Get("namespace");
  if (f.Has("namespace") && !ValidName(o.pod_namespace)) {
    return Error{"--namespace " + Quote(o.pod_namespace) + ": not a valid namespace"};
  }
  const std::string output = f.Get("output", "text");
  if (output != "text" && output != "json") {
    return Error{"-o " + Quote(output) + ": want text or json"};
  }
  o.json = output == "json";
  o.lease_namespace = f.Get("lease-namespace", kDefaultLeaseNamespace);
  o.lease_name = f.Get("lease-name", kDefaultLeaseName);
  if (!ValidName(o.lease_namespace) || !ValidName(o.lease_name)) {
    return Error{"lease " + Quote(o.lease_namespace + "/" + o.lease_name) +
                 ": not a valid namespace/name"};
  }
  if (f.Has("scheduler-port")) {
    const std::string p = f.Get("scheduler-port");
    const bool digits =
        !p.empty() && p.size() <= 5 && p.find_first_not_of("0123456789") == std::string::npos;
    const int port = digits ? std::stoi(p) : 0;
    if (port < 1 || port > 65535) {
      return Error{"--scheduler-port " + Quote(p) + ": want a port number (1-65535)"};
    }
    o.scheduler_port = port;
  }
  o.service_name = f.Get("service", kDefaultServiceName);
  o.service_port = f.Get("service-port", kDefaultServicePort);
  if (!ValidName(o.service_name) || !ValidName(o.service_port)) {
    return Error{"service " + Quote(o.service_name + ":" + o.service_port) +
                 ": not a valid name and port"};
  }
  o.scheduler_url = f.Get("scheduler-url");
  while (!o.scheduler_url.empty() && o.scheduler_url.back() == '/') o.scheduler_url.pop_back();
  if (f.Has("scheduler-url") && o.scheduler_url.rfind("https://", 0) != 0 &&
      o.scheduler_url.rfind("http://", 0) != 0) {
    return Error{"--scheduler-url " + Quote(f.Get("scheduler-url")) + ": want https://host:port"};
  }
  o.certificate_authority = f.Get("certificate-authority");
  o.insecure_skip_tls_verify = f.Bool("insecure-skip-tls-verify");
  o.config = f.Get("config");

  const bool offline = f.Bool("offline");
  const bool url = f.Has("scheduler-url");
  const bool service = f.Bool("via-service");
  if (offline + url + service > 1) {
    return Error{std::string("--offline, --scheduler-url and --via-service exclude each other")};
  }
  if (!url && (f.Has("certificate-authority") || o.insecure_skip_tls_verify)) {
    return Error{"--certificate-authority and --insecure-skip-tls-verify need --scheduler-url"};
  }
  if (!o.certificate_authority.empty() && o.insecure_skip_tls_verify) {
    return Error{"--certificate-authority and --insecure-skip-tls-verify exclude each other"};
  }
  if (!service && (f.Has("service") || f.Has("service-port"))) {
    return Error{"--service and --service-port need --via-service"};
  }
  o.mode = offline   ? Mode::kOffline
           : url     ? Mode::kUrl
           : service ? Mode::kService
                     : Mode::kLeaderPod;
  return o;
}

}  // namespace berth::explain
