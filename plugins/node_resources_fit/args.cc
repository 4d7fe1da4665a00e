#include "plugins/node_resources_fit/args.h"

#include <algorithm>
#include <regex>

#include "base/strings.h"
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

// The args as written: the strategy's type is still a string, nothing is defaulted yet.
struct RawFitArgs {
  FitArgs args;
  std::string type = "LeastAllocated";
  bool has_rtcr_param = false;  // scoringStrategy.requestedToCapacityRatio is present
};

Ok ReadScoringStrategy(const api::Reader& sr, RawFitArgs& raw) {
  // A strategy without a type is an unsupported "" rather than the default.
  raw.type.clear();
  BERTH_RETURN_IF_ERROR(sr.String("type", &raw.type));
  BERTH_RETURN_IF_ERROR(sr.List("resources", &raw.args.resources,
                                [](const api::Reader& er, ResourceSpec* spec) -> Ok {
                                  spec->weight = 0;
                                  BERTH_RETURN_IF_ERROR(er.String("name", &spec->name));
                                  return er.Int64("weight", &spec->weight);
                                }));
  return sr.Object("requestedToCapacityRatio", [&](const api::Reader& rr) -> Ok {
    raw.has_rtcr_param = true;
    return rr.List("shape", &raw.args.shape,
                   [](const api::Reader& pr, UtilizationShapePoint* point) -> Ok {
                     BERTH_RETURN_IF_ERROR(pr.Int64("utilization", &point->utilization));
                     return pr.Int64("score", &point->score);
                   });
  });
}

Result<RawFitArgs> ReadFitArgs(const api::Reader& r) {
  RawFitArgs raw;
  BERTH_RETURN_IF_ERROR(r.Strings("ignoredResources", &raw.args.ignored_resources));
  BERTH_RETURN_IF_ERROR(r.Strings("ignoredResourceGroups", &raw.args.ignored_resource_groups));
  BERTH_RETURN_IF_ERROR(r.Object("scoringStrategy", [&](const api::Reader& sr) -> Ok {
    return ReadScoringStrategy(sr, raw);
  }));
  BERTH_RETURN_IF_ERROR(r.Done());
  return raw;
}

// v1 defaulting: cpu and memory when no resources are given; weight 0 means 1.
void SetDefaults(FitArgs& args) {
  if (args.resources.empty()) args.resources = {{"cpu", 1}, {"memory", 1}};
  for (auto& res : args.resources) {
    if (res.weight == 0) res.weight = 1;
  }
}

// The validators below mirror upstream's ValidateNodeResourcesFitArgs and its helpers: each
// appends its field errors to `errs` so that one pass reports them all.

void ValidateIgnoredResources(const std::vector<std::string>& names, const std::string& path,
                              std::vector<std::string>& errs) {
  for (size_t i = 0; i < names.size(); ++i) {
    for (const auto& m : QualifiedNameErrors(names[i])) {
      errs.push_back(Invalid(Index(path, i), Quote(names[i]), m));
    }
  }
}

void ValidateIgnoredResourceGroups(const std::vector<std::string>& groups, const std::string& path,
                                   std::vector<std::string>& errs) {
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string& g = groups[i];
    const std::string p = Index(path, i);
    if (g.find('/') != std::string::npos) {
      errs.push_back(Invalid(p, Quote(g), "resource group name can't contain '/'"));
    }
    for (const auto& m : QualifiedNameErrors(g)) errs.push_back(Invalid(p, Quote(g), m));
  }
}

// Sets `strategy` from `type` when it is one of the supported types.
void ValidateStrategyType(const std::string& type, const std::string& strategy_path,
                          ScoringStrategyType& strategy, std::vector<std::string>& errs) {
  if (type == "LeastAllocated") {
    strategy = ScoringStrategyType::kLeastAllocated;
  } else if (type == "MostAllocated") {
    strategy = ScoringStrategyType::kMostAllocated;
  } else if (type == "RequestedToCapacityRatio") {
    strategy = ScoringStrategyType::kRequestedToCapacityRatio;
  } else {
    errs.push_back(strategy_path + ".type: Unsupported value: " + Quote(type) +
                   ": supported values: \"LeastAllocated\", \"MostAllocated\", "
                   "\"RequestedToCapacityRatio\"");
  }
}

// Upstream's validateResources.
void ValidateResources(const std::vector<ResourceSpec>& resources, const std::string& path,
                       std::vector<std::string>& errs) {
  for (size_t i = 0; i < resources.size(); ++i) {
    const auto& res = resources[i];
    if (res.weight <= 0 || res.weight > 100) {
      errs.push_back(Invalid(Index(path, i) + ".weight", std::to_string(res.weight),
                             "resource weight of " + res.name + " not in valid range (0, 100]"));
    }
  }
}

// Upstream's validateFunctionShape: reports only the first out-of-order point.
void ValidateFunctionShape(const std::vector<UtilizationShapePoint>& shape, const std::string& path,
                           std::vector<std::string>& errs) {
  if (shape.empty()) {
    errs.push_back(path + ": Required value: at least one point must be specified");
    return;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs.push_back(Invalid(Index(path, i) + ".utilization", std::to_string(shape[i].utilization),
                             "values must be sorted in increasing order"));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const auto& p = shape[i];
    if (p.utilization < 0 || p.utilization > 100) {
      errs.push_back(Invalid(Index(path, i) + ".utilization", std::to_string(p.utilization),
                             "not in valid range [0, 100]"));
    }
    if (p.score < 0 || p.score > kMaxCustomPriorityScore) {
      errs.push_back(Invalid(Index(path, i) + ".score", std::to_string(p.score),
                             "not in valid range [0, 10]"));
    }
  }
}

// Upstream's utilerrors aggregate: one error alone, several as "[e1, e2]".
Ok Aggregate(const std::vector<std::string>& errs) {
  if (errs.empty()) return Ok();
  if (errs.size() == 1) return Error{errs[0]};
  std::string msg = "[";
  for (size_t i = 0; i < errs.size(); ++i) msg += (i ? ", " : "") + errs[i];
  return Error{msg + "]"};
}

}  // namespace

Result<FitArgs> ParseFitArgs(const api::Value* args, const std::string& path) {
  BERTH_ASSIGN_OR_RETURN(api::Reader r, framework::ReadArgs(args, path));
  BERTH_ASSIGN_OR_RETURN(RawFitArgs raw, ReadFitArgs(r));
  FitArgs& out = raw.args;
  SetDefaults(out);

  const std::string strategy_path = r.PathOf("scoringStrategy");
  std::vector<std::string> errs;
  ValidateIgnoredResources(out.ignored_resources, r.PathOf("ignoredResources"), errs);
  ValidateIgnoredResourceGroups(out.ignored_resource_groups, r.PathOf("ignoredResourceGroups"),
                                errs);
  ValidateStrategyType(raw.type, strategy_path, out.strategy, errs);
  ValidateResources(out.resources, strategy_path + ".resources", errs);
  // Upstream validates the shape only when requestedToCapacityRatio is set (and would crash on a
  // RequestedToCapacityRatio strategy without it); berth requires the shape for that strategy.
  if (raw.has_rtcr_param || out.strategy == ScoringStrategyType::kRequestedToCapacityRatio) {
    ValidateFunctionShape(out.shape, strategy_path + ".requestedToCapacityRatio.shape", errs);
  }
  BERTH_RETURN_IF_ERROR(Aggregate(errs));
  return std::move(out);
}

}  // namespace berth::plugins::node_resources_fit
