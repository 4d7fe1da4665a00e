#include "cmd/berth/app/kube_flags.h"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "base/strings.h"
#include "config/duration.h"
#include "informers/client/beast_client.h"

namespace berth::app {

std::vector<FlagSpec> KubeFlagSpecs() {
  return {
      {"kubeconfig", "The kubeconfig to reach the API server with.", false,
       "$KUBECONFIG, else ~/.kube/config, else in-cluster"},
      {"context", "The kubeconfig context to use.", false, "the current context"},
      {"kube-api-qps", "Requests per second to the API server (client-side limit).", false, "50"},
      {"kube-api-burst", "Burst of requests to the API server above --kube-api-qps.", false, "100"},
      RequestTimeoutFlagSpec(),
  };
}

FlagSpec RequestTimeoutFlagSpec() {
  return {"request-timeout",
          "How long the command waits for the API server, all requests and retries together "
          "(a duration such as 30s or 2m, seconds as a bare integer, 0 for no limit).",
          false, "60s"};
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

// --request-timeout: kubectl's syntax (clientcmd.ParseTimeout: a bare integer of seconds, or a
// Go duration) and error text; berth also refuses a negative duration. A value beyond what
// milliseconds hold is no limit.
bool ParseRequestTimeout(const std::string& command, const std::string& text,
                         std::chrono::milliseconds* out) {
  constexpr int64_t kNoLimitSeconds = int64_t{100} * 365 * 24 * 3600;
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    int64_t seconds = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc() || seconds > kNoLimitSeconds) seconds = 0;
    *out = std::chrono::seconds(seconds);
    return true;
  }
  auto d = config::ParseGoDuration(text);
  if (!d.ok() || d->count() < 0) {
    std::cerr << "berth " << command << ": --request-timeout " << Quote(text)
              << ": Invalid timeout value. Timeout must be a single integer in seconds, or an "
                 "integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)\n";
    return false;
  }
  *out = std::chrono::ceil<std::chrono::milliseconds>(*d);
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
  std::chrono::milliseconds timeout = kDefaultRequestTimeout;
  if (f.Has("request-timeout")) {
    if (!ParseRequestTimeout(command, f.Get("request-timeout"), &timeout)) return false;
    out->request_timeout_text = "--request-timeout " + f.Get("request-timeout");
  }
  // 0, or a deadline past a century, is none (and would overflow the clock).
  if (timeout.count() > 0 && timeout < std::chrono::hours(24 * 365 * 100)) {
    out->deadline = std::chrono::steady_clock::now() + timeout;
  }
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

client::ClientOptions WithDeadline(const KubeAccess& access, client::ClientOptions opts) {
  opts.deadline = access.deadline;
  opts.deadline_source = access.request_timeout_text;
  return opts;
}

std::unique_ptr<client::KubeClient> NewKubeClient(const KubeAccess& access) {
  client::ClientOptions opts;
  opts.user_agent = std::string("berth/") + kVersion;
  return client::NewBeastClient(access.config, access.qps, access.burst,
                                WithDeadline(access, std::move(opts)));
}

}  // namespace berth::app
