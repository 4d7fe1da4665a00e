#include "cmd/berth/app/flags.h"

#include <algorithm>
#include <iostream>

#include "base/strings.h"
#include "config/policy.h"

namespace berth::app {

const char kUsage[] =
    "usage: berth <command> [flags]\n"
    "\n"
    "commands:\n"
    "  simulate --cluster FILE [--config FILE] [--policy-config-file FILE] [--explain]\n"
    "      [--seed N]\n"
    "      Schedule the pending pods of a cluster file (kubectl get ... -o yaml) offline and\n"
    "      print where each goes and why, as JSON.\n"
    "  run [--config FILE] [--policy-config-file FILE] [--kubeconfig FILE] [--namespace NS]\n"
    "      [--v N]\n"
    "      [--bind-address IP] [--secure-port N] [--tls-cert-file F --tls-private-key-file F]\n"
    "      [--metrics-bind-address HOST:PORT] [--max-connections N]\n"
    "      [--authentication-kubeconfig FILE] [--authorization-kubeconfig FILE]\n"
    "      [--authentication-skip-lookup] [--authentication-tolerate-lookup-failure=false]\n"
    "      [--client-ca-file FILE] [--authorization-always-allow-paths P1,P2]\n"
    "      Schedule pods of the configured profiles in a cluster. Without --kubeconfig (and\n"
    "      no clientConnection.kubeconfig in the config) berth uses the in-cluster config.\n"
    "      /healthz /livez /readyz /metrics /configz are served over HTTPS on the secure port\n"
    "      (10259; 0 picks a free one) with a self-signed certificate unless one is given, and\n"
    "      over plain HTTP on --metrics-bind-address when set. At most --max-connections\n"
    "      (default 1024) connections are open at once; more are refused. HTTPS requests are\n"
    "      authenticated (TokenReview, client certificates, front proxy) and authorized\n"
    "      (SubjectAccessReview) through the API server as kube-scheduler's; the\n"
    "      --authorization-always-allow-paths (default /healthz,/readyz,/livez) need no review.\n"
    "  extender --config FILE --listen ADDR [--kubeconfig FILE] [--profile NAME]\n"
    "      [--tls-cert FILE --tls-key FILE] [--max-request-bytes N] [--max-connections N]\n"
    "      [--v N]\n"
    "      Serve the Filter and Score plugins of the config's first profile (or --profile) as a\n"
    "      scheduler extender: POST /filter and /prioritize (also under /scheduler/), for the\n"
    "      default kube-scheduler's `extenders:`. Plain HTTP unless a certificate is given.\n"
    "      Request bodies over --max-request-bytes (default 16 MiB) are answered 413; at most\n"
    "      --max-connections (default 1024) connections are open at once, more are refused.\n"
    "  version\n"
    "      Print berth's version.\n"
    "\n"
    "--policy-config-file FILE reads a legacy scheduler Policy (kind: Policy, removed upstream in\n"
    "v1.23) and uses it instead of the config's profiles, under the first profile's name.\n";

bool Flags::Bool(const std::string& name) const {
  return std::find(bools.begin(), bools.end(), name) != bools.end();
}

std::string Flags::Get(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

Flags ParseFlags(int argc, char** argv, int first, const std::vector<std::string>& with_value,
                 const std::vector<std::string>& booleans) {
  Flags f;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      f.error = "unexpected argument \"" + arg + "\"";
      return f;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (std::find(booleans.begin(), booleans.end(), name) != booleans.end()) {
      f.bools.push_back(name);
      continue;
    }
    if (std::find(with_value.begin(), with_value.end(), name) == with_value.end()) {
      f.error = "unknown flag --" + name;
      return f;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        f.error = "flag --" + name + " needs a value";
        return f;
      }
      value = argv[++i];
    }
    f.values[name] = value;
  }
  return f;
}

bool PositiveFlag(const std::string& command, const Flags& f, const std::string& name,
                  size_t fallback, size_t* out) {
  if (!f.Has(name)) {
    *out = fallback;
    return true;
  }
  const std::string v = f.Get(name);
  size_t n = 0;
  bool ok = !v.empty() && v.size() <= 18 && v.find_first_not_of("0123456789") == std::string::npos;
  if (ok) n = std::stoull(v);
  if (!ok || n == 0) {
    std::cerr << "berth " << command << ": --" << name << " wants a positive integer, not \"" << v
              << "\"\n";
    return false;
  }
  *out = n;
  return true;
}

bool ApplyPolicyFile(const std::string& command, const std::string& path,
                     const std::vector<std::string>& known, config::SchedulerConfiguration& cfg) {
  const std::string name = cfg.profiles.empty() ? std::string(config::kDefaultSchedulerName)
                                                : cfg.profiles[0].scheduler_name;
  auto policy = config::LoadPolicyFile(path, known, name);
  if (!policy.ok()) {
    std::cerr << "berth " << command << ": " << OneLine(policy.error()) << "\n";
    return false;
  }
  cfg.profiles.clear();
  cfg.profiles.push_back(std::move(policy->profile));
  if (!policy->extenders.empty()) cfg.extenders = std::move(policy->extenders);
  return true;
}

bool LoadClient(const std::string& command, const std::string& kubeconfig,
                client::ClientConfig* out) {
  if (!kubeconfig.empty()) {
    auto c = client::LoadKubeconfig(kubeconfig);
    if (!c.ok()) {
      std::cerr << "berth " << command << ": " << OneLine(c.error()) << "\n";
      return false;
    }
    *out = std::move(*c);
    return true;
  }
  auto c = client::InClusterConfig();
  if (!c.ok()) {
    std::cerr << "berth " << command
              << ": no --kubeconfig given and not running in a cluster: " << OneLine(c.error())
              << "\n";
    return false;
  }
  *out = std::move(*c);
  return true;
}

}  // namespace berth::app
