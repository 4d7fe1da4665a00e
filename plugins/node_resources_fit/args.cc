#include "plugins/node_resources_fit/args.h"
#include "base/strings.h"

#include <algorithm>
#include <regex>

#include "scheduler/framework/args.h"

namespace berth::plugins::node_resources_fit {
namespace {

constexpr char kQualifiedNameFmt[] = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr char kQualifiedNameErrMsg[] =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr char kDNS1123SubdomainFmt[] =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr char kDNS1123SubdomainErrMsg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

// apimachinery's validation.RegexError.
std::string RegexError(const std::string& msg, const std::string& fmt,
                       const std::vector<std::string>& examples) {
  std::string out = msg + " (e.g. ";
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    out += "'" + examples[i] + "', ";
  }
  return out + "regex used for validation is '" + fmt + "')";
}

// apimachinery's validation.IsQualifiedName (what metav1 ValidateLabelName applies).
std::vector<std::string> QualifiedNameErrors(const std::string& value) {
  static const std::regex name_re(std::string("^") + kQualifiedNameFmt + "$");
  static const std::regex subdomain_re(std::string("^") + kDNS1123SubdomainFmt + "$");
  std::vector<std::string> errs;
  std::string name = value;
  const size_t slashes = std::count(value.begin(), value.end(), '/');
  if (slashes > 1) {
    errs.push_back(
        "a qualified name " +
        RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errs;
  }
  if (slashes == 1) {
    const std::string prefix = value.substr(0, value.find('/'));
    name = value.substr(value.find('/') + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > 253) errs.push_back("prefix part must be no more than 253 characters");
      if (!std::regex_match(prefix, subdomain_re)) {
        errs.push_back("prefix part " +
                       RegexError(kDNS1123SubdomainErrMsg, kDNS1123SubdomainFmt, {"example.com"}));
      }
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part must be no more than 63 characters");
  }
  if (!std::regex_match(name, name_re)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}


std::string Invalid(const std::string& path, const std::string& value, const std::string& detail) {
  return path + ": Invalid value: " + value + ": " + detail;
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

}  // namespace

Result<FitArgs> ParseFitArgs(const api::Value* args, const std::string& path) {
  framework::ArgsReader r(args, path);
  FitArgs out;
  out.ignored_resources = r.StringList("ignoredResources").value_or(std::vector<std::string>{});
  out.ignored_resource_groups =
      r.StringList("ignoredResourceGroups").value_or(std::vector<std::string>{});

  const std::string strategy_path = r.Path("scoringStrategy");
  const std::string shape_path = strategy_path + ".requestedToCapacityRatio.shape";
  std::string type = "LeastAllocated";
  bool has_rtcr_param = false;
  if (const api::Value* strategy = r.Object("scoringStrategy")) {
    framework::ArgsReader sr(strategy, strategy_path);
    type = sr.String("type").value_or("");
    if (const api::Value* list = sr.Array("resources")) {
      for (size_t i = 0; i < list->AsArray().size(); ++i) {
        framework::ArgsReader er(&list->AsArray()[i], Index(sr.Path("resources"), i));
        ResourceSpec spec;
        spec.name = er.String("name").value_or("");
        spec.weight = er.Int("weight").value_or(0);
        if (auto ok = er.Finish(); !ok) return Error{ok.error()};
        out.resources.push_back(std::move(spec));
      }
    }
    if (const api::Value* rtcr = sr.Object("requestedToCapacityRatio")) {
      has_rtcr_param = true;
      framework::ArgsReader rr(rtcr, sr.Path("requestedToCapacityRatio"));
      if (const api::Value* shape = rr.Array("shape")) {
        for (size_t i = 0; i < shape->AsArray().size(); ++i) {
          framework::ArgsReader pr(&shape->AsArray()[i], Index(shape_path, i));
          UtilizationShapePoint p;
          p.utilization = pr.Int("utilization").value_or(0);
          p.score = pr.Int("score").value_or(0);
          if (auto ok = pr.Finish(); !ok) return Error{ok.error()};
          out.shape.push_back(p);
        }
      }
      if (auto ok = rr.Finish(); !ok) return Error{ok.error()};
    }
    if (auto ok = sr.Finish(); !ok) return Error{ok.error()};
  }
  if (auto ok = r.Finish(); !ok) return Error{ok.error()};

  // v1 defaulting: cpu and memory when no resources are given; weight 0 means 1.
  if (out.resources.empty()) out.resources = {{"cpu", 1}, {"memory", 1}};
  for (auto& res : out.resources) {
    if (res.weight == 0) res.weight = 1;
  }

  std::vector<std::string> errs;
  for (size_t i = 0; i < out.ignored_resources.size(); ++i) {
    for (const auto& m : QualifiedNameErrors(out.ignored_resources[i])) {
      errs.push_back(
          Invalid(Index(r.Path("ignoredResources"), i), Quote(out.ignored_resources[i]), m));
    }
  }
  for (size_t i = 0; i < out.ignored_resource_groups.size(); ++i) {
    const std::string& g = out.ignored_resource_groups[i];
    const std::string p = Index(r.Path("ignoredResourceGroups"), i);
    if (g.find('/') != std::string::npos) {
      errs.push_back(Invalid(p, Quote(g), "resource group name can't contain '/'"));
    }
    for (const auto& m : QualifiedNameErrors(g)) errs.push_back(Invalid(p, Quote(g), m));
  }
  if (type == "LeastAllocated") {
    out.strategy = ScoringStrategyType::kLeastAllocated;
  } else if (type == "MostAllocated") {
    out.strategy = ScoringStrategyType::kMostAllocated;
  } else if (type == "RequestedToCapacityRatio") {
    out.strategy = ScoringStrategyType::kRequestedToCapacityRatio;
  } else {
    errs.push_back(strategy_path + ".type: Unsupported value: " + Quote(type) +
                   ": supported values: \"LeastAllocated\", \"MostAllocated\", "
                   "\"RequestedToCapacityRatio\"");
  }
  for (size_t i = 0; i < out.resources.size(); ++i) {
    const auto& res = out.resources[i];
    if (res.weight <= 0 || res.weight > 100) {
      errs.push_back(Invalid(Index(strategy_path + ".resources", i) + ".weight",
                             std::to_string(res.weight),
                             "resource weight of " + res.name + " not in valid range (0, 100]"));
    }
  }
  // Upstream validates the shape only when requestedToCapacityRatio is set (and would crash on a
  // RequestedToCapacityRatio strategy without it); berth requires the shape for that strategy.
  if (has_rtcr_param || out.strategy == ScoringStrategyType::kRequestedToCapacityRatio) {
    if (out.shape.empty()) {
      errs.push_back(shape_path + ": Required value: at least one point must be specified");
    } else {
      for (size_t i = 1; i < out.shape.size(); ++i) {
        if (out.shape[i - 1].utilization >= out.shape[i].utilization) {
          errs.push_back(Invalid(Index(shape_path, i) + ".utilization",
                                 std::to_string(out.shape[i].utilization),
                                 "values must be sorted in increasing order"));
          break;
        }
      }
      for (size_t i = 0; i < out.shape.size(); ++i) {
        const auto& p = out.shape[i];
        if (p.utilization < 0 || p.utilization > 100) {
          errs.push_back(Invalid(Index(shape_path, i) + ".utilization",
                                 std::to_string(p.utilization), "not in valid range [0, 100]"));
        }
        if (p.score < 0 || p.score > kMaxCustomPriorityScore) {
          errs.push_back(Invalid(Index(shape_path, i) + ".score", std::to_string(p.score),
                                 "not in valid range [0, 10]"));
        }
      }
    }
  }
  if (!errs.empty()) {
    // Upstream's utilerrors aggregate: one error alone, several as "[e1, e2]".
    if (errs.size() == 1) return Error{errs[0]};
    std::string msg = "[";
    for (size_t i = 0; i < errs.size(); ++i) msg += (i ? ", " : "") + errs[i];
    return Error{msg + "]"};
  }
  return out;
}

}  // namespace berth::plugins::node_resources_fit
