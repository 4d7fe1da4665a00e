// Validation of KubeSchedulerConfiguration v1. Messages follow apimachinery's field.Error format
// (`<path>: Invalid value: <v>: <detail>`, `<path>: Required value`, `<path>: Duplicate value:
// <v>`) with upstream's details, from pkg/scheduler/apis/config/validation/validation.go,
// component-base config/validation and client-go leaderelection.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "api/json/parse.h"
#include "base/strings.h"
#include "config/defaults.h"
#include "config/duration.h"
#include "config/internal.h"

namespace berth::config::internal {
namespace {

using api::Value;

// Plugins removed from kubescheduler.config.k8s.io/v1 (upstream's invalidPluginsByVersion).
constexpr std::string_view kRemovedPlugins[] = {"AzureDiskLimits", "CinderLimits", "EBSLimits",
                                                "GCEPDLimits"};

// client-go leaderelection.JitterFactor: renewDeadline must exceed retryPeriod by this factor.
constexpr double kJitterFactor = 1.2;
constexpr int64_t kMaxNodeScore = 100;

std::string Invalid(const std::string& path, const std::string& value, std::string_view detail) {
  return path + ": Invalid value: " + value + ": " + std::string(detail);
}

std::string Required(const std::string& path) { return path + ": Required value"; }

std::string Duplicate(const std::string& path, const std::string& value) {
  return path + ": Duplicate value: " + value;
}

std::string QuotedDuration(std::chrono::milliseconds d) { return Quote(FormatGoDuration(d)); }

bool IsRemoved(std::string_view name) {
  return std::find(std::begin(kRemovedPlugins), std::end(kRemovedPlugins), name) !=
         std::end(kRemovedPlugins);
}

std::string RemovedMessage(const std::string& path, const std::string& name) {
  return Invalid(path, Quote(name),
                 "was invalid in version " + Quote(kApiVersion) +
                     " (KubeSchedulerConfiguration is version " + Quote(kApiVersion) + ")");
}

bool IsUpstreamDefault(const std::string& name) {
  for (const PluginRef& p : UpstreamDefaultPlugins()) {
    if (p.name == name) return true;
  }
  return false;
}

class KnownPlugins {
 public:
  explicit KnownPlugins(const std::vector<std::string>& names)
      : names_(names.begin(), names.end()) {}
  bool Has(const std::string& name) const { return names_.count(name) != 0; }
  std::string Unknown(const std::string& path, const std::string& name) const {
    std::string list;
    for (const std::string& n : names_) list += (list.empty() ? "" : ", ") + n;
    return path + ": unknown plugin " + Quote(name) + "; known plugins: " + list;
  }

 private:
  std::set<std::string> names_;  // sorted for the message
};

void ValidateCustomSet(const PluginSet& set, const std::string& path, bool weighted,
                       const KnownPlugins& known, std::vector<std::string>* errs) {
  for (size_t k = 0; k < set.enabled.size(); ++k) {
    const PluginRef& p = set.enabled[k];
    const std::string entry = path + ".enabled[" + std::to_string(k) + "]";
    if (p.name.empty()) {
      errs->push_back(Required(entry + ".name"));
    } else if (IsRemoved(p.name)) {
      errs->push_back(RemovedMessage(entry, p.name));
    } else if (!known.Has(p.name)) {
      errs->push_back(known.Unknown(entry, p.name));
    }
    if (weighted && p.weight < 0) {
      errs->push_back(Invalid(entry + ".weight", std::to_string(p.weight), "must be non-negative"));
    }
  }
  for (size_t k = 0; k < set.disabled.size(); ++k) {
    const std::string& name = set.disabled[k];
    const std::string entry = path + ".disabled[" + std::to_string(k) + "]";
    // Disabling an upstream default berth lacks, or a removed plugin, is a no-op (upstream
    // accepts both), so files written for kube-scheduler keep working.
    if (name.empty()) {
      errs->push_back(Required(entry + ".name"));
    } else if (name != "*" && !known.Has(name) && !IsUpstreamDefault(name) && !IsRemoved(name)) {
      errs->push_back(known.Unknown(entry, name));
    }
  }
}

std::string DescribeSet(const PluginSet& set) {
  std::string out = "{enabled: [";
  for (size_t i = 0; i < set.enabled.size(); ++i) {
    if (i > 0) out += ", ";
    out += set.enabled[i].name;
    if (set.enabled[i].weight != 0) out += "(" + std::to_string(set.enabled[i].weight) + ")";
  }
  out += "], disabled: [";
  for (size_t i = 0; i < set.disabled.size(); ++i) {
    if (i > 0) out += ", ";
    out += set.disabled[i];
  }
  return out + "]}";
}

bool SetEqual(const PluginSet& a, const PluginSet& b) {
  if (a.enabled.size() != b.enabled.size() || a.disabled != b.disabled) return false;
  for (size_t i = 0; i < a.enabled.size(); ++i) {
    if (a.enabled[i].name != b.enabled[i].name || a.enabled[i].weight != b.enabled[i].weight) {
      return false;
    }
  }
  return true;
}

void ValidatePercentage(const std::string& path, int32_t value, std::vector<std::string>* errs) {
  if (value < 0 || value > 100) {
    errs->push_back(Invalid(path, std::to_string(value), "not in valid range [0-100]"));
  }
}

// The framework sums weight*MaxNodeScore over Score plugins in an int64; upstream's runtime
// rejects configurations where that could overflow. Counts every weighted entry (multiPoint and
// score; a score entry overrides the multiPoint weight of the same plugin).
void ValidateScoreOverflow(const Profile& profile, const std::string& path,
                           std::vector<std::string>* errs) {
  std::map<std::string, int64_t> weights;
  for (const PluginRef& p : profile.plugins.multi_point.enabled) weights[p.name] = p.weight;
  for (const PluginRef& p : profile.plugins.score.enabled) weights[p.name] = p.weight;
  int64_t total = 0;
  for (const auto& [name, weight] : weights) {
    int64_t w = weight == 0 ? 1 : weight;
    if (w < 0) continue;  // reported as a negative weight
    if (w * kMaxNodeScore > std::numeric_limits<int64_t>::max() - total) {
      errs->push_back(path + ".plugins.score: total score of Score plugins could overflow");
      return;
    }
    total += w * kMaxNodeScore;
  }
}

void ValidateQueueSort(const std::vector<Profile>& profiles, std::vector<std::string>* errs) {
  const PluginSet& canon = profiles[0].plugins.queue_sort;
  if (canon.enabled.size() > 1) {
    errs->push_back(Invalid("profiles[0].plugins.queueSort.enabled",
                            std::to_string(canon.enabled.size()),
                            "only one queue sort plugin can be enabled"));
  }
  const std::string sort_name = canon.enabled.empty() ? "" : canon.enabled[0].name;
  const Value* canon_args = sort_name.empty() ? nullptr : profiles[0].Args(sort_name);
  const Value null_args;
  for (size_t i = 1; i < profiles.size(); ++i) {
    const std::string path = "profiles[" + std::to_string(i) + "]";
    const PluginSet& curr = profiles[i].plugins.queue_sort;
    if (!SetEqual(canon, curr)) {
      errs->push_back(Invalid(path + ".plugins.queueSort", DescribeSet(curr),
                              "must be the same for all profiles"));
    }
    for (const PluginConfig& pc : profiles[i].plugin_config) {
      if (pc.name == sort_name && !ValueEqual(canon_args ? *canon_args : null_args, pc.args)) {
        errs->push_back(Invalid(pc.path, api::json::ToJson(pc.args),
                                "queueSort must be the same for all profiles"));
      }
    }
  }
}

void ValidateLeaderElection(const LeaderElection& le, std::vector<std::string>* errs) {
  if (!le.leader_elect) return;
  using std::chrono::milliseconds;
  const std::string path = "leaderElection";
  if (le.lease_duration <= milliseconds::zero()) {
    errs->push_back(Invalid(path + ".leaseDuration", QuotedDuration(le.lease_duration),
                            "must be greater than zero"));
  }
  if (le.renew_deadline <= milliseconds::zero()) {
    errs->push_back(Invalid(path + ".renewDeadline", QuotedDuration(le.renew_deadline),
                            "must be greater than zero"));
  }
  if (le.retry_period <= milliseconds::zero()) {
    errs->push_back(Invalid(path + ".retryPeriod", QuotedDuration(le.retry_period),
                            "must be greater than zero"));
  }
  if (le.lease_duration <= le.renew_deadline) {
    errs->push_back(
        Invalid(path + ".leaseDuration", QuotedDuration(le.lease_duration),
                "must be greater than renewDeadline (" + QuotedDuration(le.renew_deadline) + ")"));
  }
  const auto jittered = milliseconds(
      static_cast<int64_t>(kJitterFactor * static_cast<double>(le.retry_period.count())));
  if (le.renew_deadline > milliseconds::zero() && le.retry_period > milliseconds::zero() &&
      le.renew_deadline <= jittered) {
    errs->push_back(
        Invalid(path + ".renewDeadline", QuotedDuration(le.renew_deadline),
                "must be greater than retryPeriod*1.2 (" + QuotedDuration(jittered) + ")"));
  }
  if (le.resource_lock != "leases") {
    errs->push_back(Invalid(path + ".resourceLock", Quote(le.resource_lock),
                            "resourceLock value must be \"leases\""));
  }
  if (le.resource_name.empty()) errs->push_back(Required(path + ".resourceName"));
}

void ValidateExtenders(const std::vector<Extender>& extenders, std::vector<std::string>* errs) {
  int binders = 0;
  std::set<std::string> managed;
  for (size_t i = 0; i < extenders.size(); ++i) {
    const Extender& e = extenders[i];
    const std::string path = "extenders[" + std::to_string(i) + "]";
    if (e.url_prefix.empty()) errs->push_back(Required(path + ".urlPrefix"));
    if (!e.prioritize_verb.empty() && e.weight <= 0) {
      errs->push_back(Invalid(path + ".weight", std::to_string(e.weight),
                              "must have a positive weight applied to it"));
    }
    if (!e.bind_verb.empty()) ++binders;
    if (e.http_timeout < std::chrono::milliseconds::zero()) {
      errs->push_back(
          Invalid(path + ".httpTimeout", QuotedDuration(e.http_timeout), "must be non-negative"));
    }
    if (e.max_response_bytes <= 0) {
      errs->push_back(Invalid(path + ".maxResponseBytes", std::to_string(e.max_response_bytes),
                              "must be positive"));
    }
    for (size_t j = 0; j < e.managed_resources.size(); ++j) {
      const std::string name_path = path + ".managedResources[" + std::to_string(j) + "].name";
      const std::string& name = e.managed_resources[j].name;
      if (name.empty()) {
        errs->push_back(Required(name_path));
        continue;
      }
      if (!managed.insert(name).second) {
        errs->push_back(
            Invalid(name_path, Quote(name), "duplicate extender managed resource name"));
      }
    }
  }
  if (binders > 1) {
    errs->push_back(Invalid(
        "extenders", Quote("found " + std::to_string(binders) + " extenders implementing bind"),
        "only one extender can implement bind"));
  }
}

}  // namespace

bool ValueEqual(const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsInt() && b.IsInt()) return a.AsInt() == b.AsInt();
    return a.AsDouble() == b.AsDouble();
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Value::Type::kNull:
      return true;
    case Value::Type::kBool:
      return a.AsBool() == b.AsBool();
    case Value::Type::kString:
      return a.AsString() == b.AsString();
    case Value::Type::kArray: {
      if (a.AsArray().size() != b.AsArray().size()) return false;
      for (size_t i = 0; i < a.AsArray().size(); ++i) {
        if (!ValueEqual(a.AsArray()[i], b.AsArray()[i])) return false;
      }
      return true;
    }
    case Value::Type::kObject: {
      if (a.AsObject().size() != b.AsObject().size()) return false;
      for (const auto& [key, value] : a.AsObject()) {
        const Value* other = b.Find(key);
        if (other == nullptr || !ValueEqual(value, *other)) return false;
      }
      return true;
    }
    default:
      return false;  // numbers handled above
  }
}

std::vector<std::string> ValidateCustomPlugins(const SchedulerConfiguration& config,
                                               const std::vector<std::string>& known_plugins) {
  std::vector<std::string> errs;
  const KnownPlugins known(known_plugins);
  for (size_t i = 0; i < config.profiles.size(); ++i) {
    const Profile& profile = config.profiles[i];
    const std::string path = "profiles[" + std::to_string(i) + "]";
    ValidateCustomSet(profile.plugins.multi_point,
                      path + ".plugins." + std::string(kMultiPoint.name),
                      /*weighted=*/true, known, &errs);
    for (const ExtensionPoint& ep : kExtensionPoints) {
      ValidateCustomSet(profile.plugins.*ep.set, path + ".plugins." + std::string(ep.name),
                        /*weighted=*/ep.set == &Plugins::score, known, &errs);
    }
    for (const PodGroupExtensionPoint& pg : kPodGroupExtensionPoints) {
      const PluginSet& set = profile.plugins.*pg.point.set;
      const std::string set_path = path + ".plugins." + std::string(pg.point.name);
      ValidateCustomSet(set, set_path, /*weighted=*/pg.point.set == &Plugins::placement_score,
                        known, &errs);
      // No berth plugin implements a pod-group point.
      for (size_t k = 0; k < set.enabled.size(); ++k) {
        const std::string& name = set.enabled[k].name;
        if (name.empty() || IsRemoved(name) || !known.Has(name)) continue;
        errs.push_back(set_path + ".enabled[" + std::to_string(k) + "]: plugin " + Quote(name) +
                       " does not extend " + std::string(pg.interface_name));
      }
    }
    std::set<std::string> seen;
    for (size_t j = 0; j < profile.plugin_config.size(); ++j) {
      const std::string& name = profile.plugin_config[j].name;
      const std::string entry = path + ".pluginConfig[" + std::to_string(j) + "]";
      if (name.empty()) {
        errs.push_back(Required(entry + ".name"));
        continue;
      }
      if (!seen.insert(name).second) errs.push_back(Duplicate(entry, Quote(name)));
      if (IsRemoved(name)) {
        errs.push_back(RemovedMessage(entry, name));
      } else if (!known.Has(name)) {
        errs.push_back(known.Unknown(entry, name));
      }
    }
  }
  return errs;
}

namespace {
constexpr double kMinQps = 0.001;
constexpr int64_t kMaxBackoffSeconds = 1'000'000'000;  // about 31 years
}  // namespace

std::vector<std::string> Validate(const SchedulerConfiguration& config) {
  std::vector<std::string> errs;
  const ClientConnection& cc = config.client_connection;
  std::ostringstream qps;
  qps << cc.qps;
  if (!std::isfinite(cc.qps)) {
    errs.push_back(Invalid("clientConnection.qps", qps.str(), "must be a finite number"));
  } else if (cc.qps < 0) {
    errs.push_back(Invalid("clientConnection.qps", qps.str(), "must be non-negative"));
  } else if (cc.qps > 0 && cc.qps < kMinQps) {
    // One request per 1000 s: below that the limiter's wait does not fit a clock duration.
    errs.push_back(Invalid("clientConnection.qps", qps.str(),
                           "must be 0 (the default, 50) or at least 0.001"));
  }
  if (cc.burst < 0) {
    errs.push_back(
        Invalid("clientConnection.burst", std::to_string(cc.burst), "must be non-negative"));
  }
  ValidateLeaderElection(config.leader_election, &errs);
  if (config.parallelism <= 0) {
    errs.push_back(Invalid("parallelism", std::to_string(config.parallelism),
                           "should be an integer value greater than zero"));
  }
  if (config.profiles.empty()) {
    errs.push_back(Required("profiles"));
  } else {
    std::map<std::string, size_t> names;
    for (size_t i = 0; i < config.profiles.size(); ++i) {
      const Profile& profile = config.profiles[i];
      const std::string path = "profiles[" + std::to_string(i) + "]";
      if (profile.scheduler_name.empty()) {
        errs.push_back(Required(path + ".schedulerName"));
      } else if (auto [it, inserted] = names.emplace(profile.scheduler_name, i); !inserted) {
        errs.push_back(Duplicate(path + ".schedulerName", Quote(profile.scheduler_name)));
      }
      if (profile.percentage_of_nodes_to_score) {
        ValidatePercentage(path + ".percentageOfNodesToScore",
                           *profile.percentage_of_nodes_to_score, &errs);
      }
      ValidateScoreOverflow(profile, path, &errs);
    }
    ValidateQueueSort(config.profiles, &errs);
  }
  ValidatePercentage("percentageOfNodesToScore", config.percentage_of_nodes_to_score, &errs);
  if (config.pod_initial_backoff_seconds <= 0) {
    errs.push_back(Invalid("podInitialBackoffSeconds",
                           std::to_string(config.pod_initial_backoff_seconds),
                           "must be greater than 0"));
  }
  if (config.pod_max_backoff_seconds < config.pod_initial_backoff_seconds) {
    errs.push_back(Invalid("podMaxBackoffSeconds", std::to_string(config.pod_max_backoff_seconds),
                           "must be greater than or equal to PodInitialBackoffSeconds"));
  }
  // Backoffs are kept in microseconds and doubled: bounded so neither overflows.
  for (const auto& [field, value] :
       {std::pair{"podInitialBackoffSeconds", config.pod_initial_backoff_seconds},
        std::pair{"podMaxBackoffSeconds", config.pod_max_backoff_seconds}}) {
    if (value > kMaxBackoffSeconds) {
      errs.push_back(Invalid(field, std::to_string(value),
                             "must be at most " + std::to_string(kMaxBackoffSeconds)));
    }
  }
  ValidateExtenders(config.extenders, &errs);
  return errs;
}

}  // namespace berth::config::internal
