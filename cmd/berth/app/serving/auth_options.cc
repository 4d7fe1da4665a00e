#include "cmd/berth/app/serving/auth_options.h"

#include <iostream>

namespace berth::serving {

const std::vector<std::string>& AuthValueFlags() {
  static const std::vector<std::string> kFlags = {
      "authentication-kubeconfig", "authorization-kubeconfig", "client-ca-file",
      "authorization-always-allow-paths", "authentication-tolerate-lookup-failure"};
  return kFlags;
}

const std::vector<std::string>& AuthBoolFlags() {
  static const std::vector<std::string> kFlags = {"authentication-skip-lookup"};
  return kFlags;
}

namespace {

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    std::string item = s.substr(start, comma - start);
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

}  // namespace

bool ParseAuthOptions(const std::string& command, const app::Flags& f, AuthOptions* out) {
  out->authentication_kubeconfig = f.Get("authentication-kubeconfig");
  out->authorization_kubeconfig = f.Get("authorization-kubeconfig");
  out->client_ca_file = f.Get("client-ca-file");
  out->skip_lookup = f.Bool("authentication-skip-lookup");
  if (f.Has("authentication-tolerate-lookup-failure")) {
    // Given as --authentication-tolerate-lookup-failure=true|false.
    const std::string v = f.Get("authentication-tolerate-lookup-failure");
    if (v == "true" || v == "1") {
      out->tolerate_lookup_failure = true;
    } else if (v == "false" || v == "0") {
      out->tolerate_lookup_failure = false;
    } else {
      std::cerr << "berth " << command
                << ": --authentication-tolerate-lookup-failure wants true or false, not \"" << v
                << "\"\n";
      return false;
    }
  }
  if (f.Has("authorization-always-allow-paths")) {
    out->always_allow_paths = SplitCommas(f.Get("authorization-always-allow-paths"));
  }
  for (const auto& p : out->always_allow_paths) {
    if (p.size() > 1 && p.substr(0, p.size() - 1).find('*') != std::string::npos) {
      std::cerr << "berth " << command << ": --authorization-always-allow-paths: \"" << p
                << "\": only a trailing * is allowed\n";
      return false;
    }
  }
  return true;
}

}  // namespace berth::serving
