#pragma once
// The command line shared by berth's subcommands: the usage text, the flag parser, and the
// loading steps more than one subcommand does (a legacy Policy file, the kube client config).
// Errors are printed to stderr as `berth <command>: <why>`; callers exit with 2.

#include <map>
#include <string>
#include <vector>

#include "base/version.h"
#include "config/types.h"
#include "informers/client/config.h"

namespace berth::app {

inline constexpr const char* kVersion = kBerthVersion;  // base/version.h

// The usage text printed by `berth help` and after flag errors.
extern const char kUsage[];

// Parses --name VALUE / --name=VALUE / boolean --name flags from argv[first..]. Unknown flags and
// positional arguments set `error`.
struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::string> bools;
  std::string error;

  bool Has(const std::string& name) const { return values.count(name) > 0; }
  bool Bool(const std::string& name) const;
  // The flag's value, or `fallback` when it was not given.
  std::string Get(const std::string& name, const std::string& fallback = "") const;
};
Flags ParseFlags(int argc, char** argv, int first, const std::vector<std::string>& with_value,
                 const std::vector<std::string>& booleans);

// A positive integer flag (e.g. --max-connections 1024), or `fallback` when not given. Returns
// false after printing `berth <command>: --<name> wants a positive integer, not "x"`.
bool PositiveFlag(const std::string& command, const Flags& f, const std::string& name,
                  size_t fallback, size_t* out);

// --policy-config-file: the Policy replaces the profiles (one profile, named after the config's
// first profile) and brings its extenders. Returns false after printing the error.
bool ApplyPolicyFile(const std::string& command, const std::string& path,
                     const std::vector<std::string>& known, config::SchedulerConfiguration& cfg);

// Loads `kubeconfig`, else the in-cluster config. Returns false after printing the error.
bool LoadClient(const std::string& command, const std::string& kubeconfig,
                client::ClientConfig* out);

}  // namespace berth::app
