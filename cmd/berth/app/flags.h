#pragma once
// The command line shared by berth's subcommands: the usage text, the flag parser (CLI11), and
// the loading steps more than one subcommand does (a legacy Policy file, the kube client config).
// Errors are printed to stderr as `berth <command>: <why>`; callers exit with 2.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/version.h"
#include "config/types.h"
#include "informers/client/config.h"

namespace berth::app {

inline constexpr const char* kVersion = kBerthVersion;  // base/version.h

// The usage text printed by `berth help` and after flag errors.
extern const char kUsage[];

// One flag of a subcommand, for the parser and its --help.
struct FlagSpec {
  FlagSpec(std::string name, std::string help, bool boolean = false, std::string default_text = "",
           char short_name = 0)
      : name(std::move(name)),
        help(std::move(help)),
        boolean(boolean),
        default_text(std::move(default_text)),
        short_name(short_name) {}

  std::string name;  // without dashes: "leader-elect"; "v" is also accepted as -v
  std::string help;
  bool boolean = false;      // --name, --name=true, --name=false (never a separate `true` word)
  std::string default_text;  // shown in --help when not empty
  char short_name = 0;       // e.g. 'n' for -n NS, -n=NS, -nNS (0: none)
};

// What the command line gave: every flag given, by name (booleans as "true"/"false"), after
// parsing with CLI11. `help` is set (and the help printed to stdout) for -h/--help.
struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::string> positionals;  // only when the parser was asked to keep them
  std::vector<std::string> bools;        // boolean flags given as true
  std::string error;
  bool help = false;

  bool Has(const std::string& name) const { return values.count(name) > 0; }
  bool Bool(const std::string& name) const;
  // The flag's value, or `fallback` when it was not given.
  std::string Get(const std::string& name, const std::string& fallback = "") const;
};

// Parses argv[2..] (argv[1] is the subcommand) with CLI11: --name VALUE, --name=VALUE, -v N,
// -v=N, boolean --name[=true|false]. A flag given twice keeps the last value (as pflag).
// `error` is set for an unknown flag ("unknown flag: --x"), a positional argument, a missing
// value or a boolean that is not true/false. `usage` heads the --help text. With
// `keep_positionals`, arguments that are not flags go to Flags::positionals (in order, wherever
// they stand among the flags) instead of being an error.
Flags ParseFlags(const std::string& command, const std::string& usage, int argc, char** argv,
                 const std::vector<FlagSpec>& specs, bool keep_positionals = false);

// The command line with the subcommand first: kubectl passes a plugin's global flags where the
// user typed them (`kubectl berth --context C explain POD`), so the first argument that names one
// of `commands` (and is not the value of a flag before it) moves to the front. Unchanged when
// args[0] is already a command or none is found.
std::vector<std::string> SubcommandFirst(std::vector<std::string> args,
                                         const std::vector<std::string>& commands);

// The former parser's signature (flag names only, no help texts), kept for callers not yet
// converted to FlagSpec.
Flags ParseFlags(int argc, char** argv, int first, const std::vector<std::string>& with_value,
                 const std::vector<std::string>& booleans);

// -v/--v, --vmodule and --logging-format (text, json), installed process-wide. Returns false
// after printing `berth <command>: --<flag> ...`.
bool ApplyLoggingFlags(const std::string& command, const Flags& f);

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
