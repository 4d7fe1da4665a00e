#include "cmd/berth/app/flags.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>

#include "base/log.h"
#include "base/strings.h"
#include "config/policy.h"

namespace berth::app {

const char kUsage[] =
    "usage: berth <command> [flags]\n"
    "\n"
    "commands:\n"
    "  simulate (--cluster FILE | --kubeconfig FILE [--context C] [--save FILE]\n"
    "      [--request-timeout T]) [--config FILE] [--policy-config-file FILE] [--explain]\n"
    "      [--seed N]\n"
    "      Schedule the pending pods of a cluster file (kubectl get ... -o yaml), or of a\n"
    "      snapshot listed from a live API server (read-only; --save keeps it as a cluster\n"
    "      file), offline and print where each goes and why, as JSON.\n"
    "  explain POD [-n NS] [--kubeconfig FILE] [--context C] [-o text|json] [--offline]\n"
    "      [--lease-namespace NS] [--lease-name NAME] [--via-service] [--scheduler-url URL]\n"
    "      [--request-timeout T]\n"
    "      Say why a pod is pending: the running berth's diagnosis (its leader, through the\n"
    "      API server's pod proxy), or a re-evaluation of the current cluster state (--offline,\n"
    "      or when the scheduler cannot be reached). As a kubectl plugin: kubectl berth explain.\n"
    "      With an API server, all requests together end by --request-timeout (default 60s;\n"
    "      0 for none), as simulate --kubeconfig's.\n"
    "  run [--config FILE] [--kubeconfig FILE] [--leader-elect=BOOL] [--v N] ...\n"
    "      Schedule pods of the configured profiles in a cluster. Takes kube-scheduler's flags\n"
    "      (--config, --kubeconfig, --master, --leader-elect*, --kube-api-*, --bind-address,\n"
    "      --secure-port, --cert-dir, --tls-*, --profiling, --feature-gates, --write-config-to,\n"
    "      -v, --vmodule, --logging-format) with upstream's precedence (--kubeconfig and the\n"
    "      other deprecated flags are ignored with --config), plus --namespace,\n"
    "      --policy-config-file, --metrics-bind-address HOST:PORT and --max-connections N, and\n"
    "      the secure port's --authentication-kubeconfig, --authorization-kubeconfig,\n"
    "      --authentication-skip-lookup, --authentication-tolerate-lookup-failure,\n"
    "      --client-ca-file and --authorization-always-allow-paths.\n"
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
    "`berth <command> --help` lists every flag of a command.\n"
    "--policy-config-file FILE reads a legacy scheduler Policy (kind: Policy, removed upstream in\n"
    "v1.23) and uses it instead of the config's profiles, under the first profile's name.\n";

bool Flags::Bool(const std::string& name) const {
  return std::find(bools.begin(), bools.end(), name) != bools.end();
}

std::string Flags::Get(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

Flags ParseFlags(const std::string& command, const std::string& usage, int argc, char** argv,
                 const std::vector<FlagSpec>& specs, bool keep_positionals) {
  Flags f;
  CLI::App app(usage, "berth " + command);
  app.allow_extras();
  std::vector<std::pair<const FlagSpec*, CLI::Option*>> options;
  std::vector<std::string> strings(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    const FlagSpec& spec = specs[i];
    std::string names = spec.name == "v" ? "-v,--v" : "--" + spec.name;
    if (spec.short_name != 0) names = std::string("-") + spec.short_name + "," + names;
    std::string help = spec.help;
    if (!spec.default_text.empty()) help += " (default " + spec.default_text + ")";
    CLI::Option* opt = nullptr;
    if (spec.boolean) {
      opt = app.add_flag(names, strings[i], help);  // the text given: "true" for a bare --name
      opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    } else {
      opt = app.add_option(names, strings[i], help);
      opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
    options.emplace_back(&spec, opt);
  }
  // klog's -v=N (and -n=NS): CLI11 reads a short option's "=N" as part of the value.
  std::vector<std::string> args;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("-v=", 0) == 0) a = "--v=" + a.substr(3);
    for (const FlagSpec& spec : specs) {
      if (spec.short_name != 0 && a.size() > 2 && a[0] == '-' && a[1] == spec.short_name &&
          a[2] == '=') {
        a = "--" + spec.name + a.substr(2);
      }
    }
    args.push_back(std::move(a));
  }
  std::reverse(args.begin(), args.end());  // CLI11's vector form takes them reversed
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    f.help = true;
    return f;
  } catch (const CLI::ParseError& e) {
    f.error = e.what();
    return f;
  }
  for (const std::string& extra : app.remaining()) {
    if (extra.rfind("-", 0) == 0 && extra != "-") {
      f.error = "unknown flag: " + extra.substr(0, extra.find('='));
    } else if (keep_positionals) {
      f.positionals.push_back(extra);
      continue;
    } else {
      f.error = "unexpected argument \"" + extra + "\"";
    }
    return f;
  }
  for (size_t i = 0; i < options.size(); ++i) {
    const auto& [spec, opt] = options[i];
    if (opt->count() == 0) continue;
    if (!spec->boolean) {
      f.values[spec->name] = strings[i];
      continue;
    }
    // Go's strconv.ParseBool, as pflag.
    const std::string& raw = strings[i];
    bool on = false;
    if (raw == "true" || raw == "1" || raw == "t" || raw == "T" || raw == "TRUE" || raw == "True") {
      on = true;
    } else if (raw == "false" || raw == "0" || raw == "f" || raw == "F" || raw == "FALSE" ||
               raw == "False") {
      on = false;
    } else {
      f.error =
          "invalid argument \"" + raw + "\" for \"--" + spec->name + "\" flag: want true or false";
      return f;
    }
    f.values[spec->name] = on ? "true" : "false";
    if (on) f.bools.push_back(spec->name);
  }
  return f;
}

Flags ParseFlags(int argc, char** argv, int first, const std::vector<std::string>& with_value,
                 const std::vector<std::string>& booleans) {
  std::vector<FlagSpec> specs;
  for (const auto& n : with_value) specs.push_back({n, "", false, ""});
  for (const auto& n : booleans) specs.push_back({n, "", true, ""});
  return ParseFlags(argc > 1 ? argv[1] : "", "", argc, argv, specs);
}

std::vector<std::string> SubcommandFirst(std::vector<std::string> args,
                                         const std::vector<std::string>& commands) {
  auto is_command = [&](const std::string& a) {
    return std::find(commands.begin(), commands.end(), a) != commands.end();
  };
  if (args.empty() || is_command(args[0])) return args;
  // kubectl's global flags that take a value as the next word.
  static const std::vector<std::string> kValued = {
      "--kubeconfig", "--context", "--namespace", "-n",   "--cluster",  "--user",
      "--server",     "-s",        "--token",     "--as", "--as-group", "--request-timeout"};
  for (size_t i = 0; i < args.size(); ++i) {
    if (!is_command(args[i])) continue;
    if (i > 0 && std::find(kValued.begin(), kValued.end(), args[i - 1]) != kValued.end()) {
      continue;
    }
    std::string cmd = args[i];
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
    args.insert(args.begin(), std::move(cmd));
    return args;
  }
  return args;
}

bool ApplyLoggingFlags(const std::string& command, const Flags& f) {
  auto fail = [&](const std::string& why) {
    std::cerr << "berth " << command << ": " << why << "\n";
    return false;
  };
  int v = 0;
  if (f.Has("v")) {
    const std::string text = f.Get("v");
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos) {
      return fail("--v: invalid value " + Quote(text) + ": want a non-negative integer");
    }
    v = std::stoi(text);
  }
  const std::string format = f.Get("logging-format", "text");
  if (format != "text" && format != "json") {
    return fail("--logging-format " + Quote(format) + ": unsupported (text, json)");
  }
  if (std::string err = log::SetVmodule(f.Get("vmodule")); !err.empty()) {
    return fail("--vmodule: " + err);
  }
  log::Verbosity() = v;
  log::OutputFormat() = format == "json" ? log::Format::kJson : log::Format::kText;
  return true;
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
