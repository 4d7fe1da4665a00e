#include "cmd/berth/app/kube_flags.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "base/strings.h"
#include "informers/client/beast_client.h"

namespace berth::app {

std::vector<FlagSpec> KubeFlagSpecs() {
  return {
      {"kubeconfig", "The kubeconfig to reach the API server with.", false,
       "$KUBECONFIG, else ~/.kube/config, else in-cluster"},
      {"context", "The kubeconfig context to use.", false, "the current context"},
      {"kube-api-qps", "Requests per second to the API server (client-side limit).", false, "50"},
      {"kube-api-burst", "Burst of requests to the API server above --kube-api-qps.", false, "100"},
  };
}

std::string ResolveKubeconfig(const Flags& f) {
  if (f.Has("kubeconfig")) return f.Get("kubeconfig");
  std::error_code ec;
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::stringstream paths(env);
    std::string p;
    while (std::getline(paths, p, ':')) {
      if (!p.empty() && std::filesystem::exists(p, ec)) return p;
    }
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    std::string p = std::string(home) + "/.kube/config";
    if (std::filesystem::exists(p, ec)) return p;
  }
  return "";
}

namespace {

bool ParseQps(const std::string& command, const std::string& text, float* out) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0) || v > 1e6) {
    std::cerr << "berth " << command << ": --kube-api-qps: invalid value " << Quote(text)
              << ": want a non-negative number\n";
    return false;
  }
  *out = static_cast<float>(v);
  return true;
}

}  // namespace

bool ReadKubeAccess(const std::string& command, const Flags& f, bool kubeconfig_required,
                    KubeAccess* out) {
  out->kubeconfig = kubeconfig_required ? f.Get("kubeconfig") : ResolveKubeconfig(f);
  if (f.Has("kube-api-qps") && !ParseQps(command, f.Get("kube-api-qps"), &out->qps)) {
    return false;
  }
  size_t burst = static_cast<size_t>(out->burst);
  if (!PositiveFlag(command, f, "kube-api-burst", burst, &burst)) return false;
  if (burst > 100000) burst = 100000;
  out->burst = static_cast<int>(burst);
  if (out->kubeconfig.empty()) {
    if (f.Has("context")) {
      std::cerr << "berth " << command << ": --context " << Quote(f.Get("context"))
                << " needs a kubeconfig (none given, none in $KUBECONFIG or ~/.kube/config)\n";
      return false;
    }
    return LoadClient(command, "", &out->config);
  }
  auto c = client::LoadKubeconfig(out->kubeconfig, f.Get("context"));
  if (!c.ok()) {
    std::cerr << "berth " << command << ": " << OneLine(c.error()) << "\n";
    return false;
  }
  out->config = std::move(*c);
  return true;
}

std::unique_ptr<client::KubeClient> NewKubeClient(const KubeAccess& access) {
  client::ClientOptions opts;
  opts.user_agent = std::string("berth/") + kVersion;
  return client::NewBeastClient(access.config, access.qps, access.burst, opts);
}

}  // namespace berth::app
