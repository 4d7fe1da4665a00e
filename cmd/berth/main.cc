// berth: a secondary Kubernetes scheduler. Subcommands: simulate, version.
// This file only parses flags and wires components; the logic lives in the libraries.

#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "config/load.h"
#include "informers/api/json/parse.h"
#include "plugins/registry.h"
#include "simulate/cluster_file.h"
#include "simulate/simulator.h"

namespace {

constexpr const char kVersion[] = "0.1.0";

constexpr const char kUsage[] =
    "usage: berth <command> [flags]\n"
    "\n"
    "commands:\n"
    "  simulate --cluster FILE [--config FILE] [--explain] [--seed N]\n"
    "      Schedule the pending pods of a cluster file (kubectl get ... -o yaml) offline and\n"
    "      print where each goes and why, as JSON.\n"
    "  version\n"
    "      Print berth's version.\n";

// Parses --name VALUE / --name=VALUE / boolean --name flags. Unknown flags are errors.
struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::string> bools;
  std::string error;
};

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

int Simulate(int argc, char** argv) {
  Flags f = ParseFlags(argc, argv, 2, {"cluster", "config", "seed"}, {"explain"});
  if (!f.error.empty()) {
    std::cerr << "berth simulate: " << f.error << "\n" << kUsage;
    return 2;
  }
  if (!f.values.count("cluster")) {
    std::cerr << "berth simulate: --cluster FILE is required\n" << kUsage;
    return 2;
  }
  berth::simulate::Options options;
  options.explain = std::find(f.bools.begin(), f.bools.end(), "explain") != f.bools.end();
  if (f.values.count("seed")) {
    const std::string& s = f.values["seed"];
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno != 0 || s[0] == '-') {
      std::cerr << "berth simulate: --seed: invalid value \"" << s
                << "\": must be a non-negative integer\n";
      return 2;
    }
    options.seed = v;
  }
  const berth::framework::Registry registry = berth::plugins::NewInTreeRegistry();
  const std::vector<std::string> known = registry.Names();
  berth::config::SchedulerConfiguration cfg;
  if (f.values.count("config")) {
    auto loaded = berth::config::LoadConfigFile(f.values["config"], known);
    if (!loaded.ok()) {
      std::cerr << "berth simulate: " << loaded.error() << "\n";
      return 2;
    }
    cfg = std::move(*loaded);
  } else {
    cfg = berth::config::DefaultConfig(known);
  }
  auto cluster = berth::simulate::LoadClusterFile(f.values["cluster"]);
  if (!cluster.ok()) {
    std::cerr << "berth simulate: " << cluster.error() << "\n";
    return 2;
  }
  for (const auto& w : cluster->warnings) std::cerr << "berth simulate: warning: " << w << "\n";
  auto out = berth::simulate::Run(*cluster, cfg, registry, options);
  if (!out.ok()) {
    std::cerr << "berth simulate: " << (f.values.count("config") ? f.values["config"] + ": " : "")
              << out.error() << "\n";
    return 2;
  }
  std::cout << berth::api::json::ToJson(*out) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "simulate") return Simulate(argc, argv);
  if (cmd == "version" || cmd == "--version") {
    std::cout << "berth " << kVersion << "\n";
    return 0;
  }
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::cout << kUsage;
    return 0;
  }
  std::cerr << "berth: unknown command \"" << cmd << "\"\n" << kUsage;
  return 2;
}
