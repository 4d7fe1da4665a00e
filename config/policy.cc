#include "config/policy.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "api/json/parse.h"
#include "api/reader.h"
#include "base/strings.h"
#include "config/internal.h"
#include "config/policy_internal.h"

namespace berth::config {
namespace {

using api::Value;
using namespace policy_internal;  // NOLINT: the legacy registry tables

using api::Reader;

// Readers of the Policy's objects: strict (unknown and duplicate fields are errors).
Result<Reader> Read(const Value& v, const std::string& path) {
  if (!v.IsObject()) return api::TypeError(path, "object", v);
  return Reader::Of(&v, path, api::kStrict);
}

Value StringArray(const std::vector<std::string>& v) {
  Value a = Value::MakeArray();
  for (const auto& s : v) a.Push(Value::String(s));
  return a;
}

// Everything the entries contribute, before the profile is assembled.
struct Translation {
  // predicate key -> path of the entry that asked for it ("" for defaults / mandatory).
  std::map<std::string, std::string> predicates;
  // priority key -> (weight, path).
  std::map<std::string, std::pair<int64_t, std::string>> priorities;
  std::vector<std::string> present, absent, present_pref, absent_pref;
  std::vector<std::string> affinity_labels, anti_affinity_labels;
  std::optional<Value> fit_strategy;
  std::string fit_strategy_path;
  std::optional<int64_t> label_pref_weight, anti_affinity_weight;
  std::string label_pref_path, anti_affinity_path;
};

Ok SetFitStrategy(Translation& t, Value strategy, const std::string& path) {
  if (t.fit_strategy.has_value()) {
    return Error{path + ": berth scores resources with one NodeResourcesFit scoringStrategy; " +
                 t.fit_strategy_path + " already sets " + t.fit_strategy->Find("type")->AsString()};
  }
  t.fit_strategy = std::move(strategy);
  t.fit_strategy_path = path;
  return Ok();
}

Value SimpleStrategy(const char* type) {
  Value v = Value::MakeObject();
  v.Set("type", Value::String(type));
  return v;
}

// requestedToCapacityRatioArguments -> NodeResourcesFit scoringStrategy (upstream's
// buildScoringFunctionShapePointsAndResourceSpecs; the v1 args keep scores on 0..10).
Result<Value> RequestedToCapacityRatio(const Value& args, const std::string& path) {
  BERTH_ASSIGN_OR_RETURN(Reader in, Read(args, path));
  Value strategy = SimpleStrategy("RequestedToCapacityRatio");
  Value shape = Value::MakeArray();
  struct Point {
    int64_t utilization = 0, score = 0;
  };
  std::vector<Point> points;
  BERTH_RETURN_IF_ERROR(in.List("shape", &points, [](const Reader& p, Point* out) -> Ok {
    BERTH_RETURN_IF_ERROR(p.Int64("utilization", &out->utilization));
    return p.Int64("score", &out->score);
  }));
  for (const Point& point : points) {
    Value out = Value::MakeObject();
    out.Set("utilization", Value::Int(point.utilization));
    out.Set("score", Value::Int(point.score));
    shape.Push(std::move(out));
  }
  Value rtcr = Value::MakeObject();
  rtcr.Set("shape", std::move(shape));
  struct Resource {
    std::string name;
    int64_t weight = 0;
  };
  std::vector<Resource> resources;
  BERTH_RETURN_IF_ERROR(in.List("resources", &resources, [](const Reader& r, Resource* out) -> Ok {
    BERTH_RETURN_IF_ERROR(r.String("name", &out->name));
    return r.Int64("weight", &out->weight);
  }));
  BERTH_RETURN_IF_ERROR(in.Done());
  Value list = Value::MakeArray();
  for (const Resource& resource : resources) {
    Value out = Value::MakeObject();
    out.Set("name", Value::String(resource.name));
    // Upstream defaulted a zero weight to 1.
    out.Set("weight", Value::Int(resource.weight == 0 ? 1 : resource.weight));
    list.Push(std::move(out));
  }
  if (!list.AsArray().empty()) strategy.Set("resources", std::move(list));
  strategy.Set("requestedToCapacityRatio", std::move(rtcr));
  return strategy;
}

// `labels` of serviceAffinity / labelsPresence: a non-empty list.
Result<std::vector<std::string>> Labels(const Reader& in) {
  std::vector<std::string> labels;
  BERTH_RETURN_IF_ERROR(in.Strings("labels", &labels));
  return labels;
}

Ok ProcessPredicate(const Value& entry, const std::string& path, Translation& t) {
  BERTH_ASSIGN_OR_RETURN(Reader in, Read(entry, path));
  std::string name;
  BERTH_RETURN_IF_ERROR(in.String("name", &name));
  const Value* arg = in.Get("argument");
  BERTH_RETURN_IF_ERROR(in.Done());
  if (name.empty()) return Error{path + ".name: Required value"};
  if (arg == nullptr) {
    std::string key = name == "PodFitsPorts" ? "PodFitsHostPorts" : name;  // upstream's alias
    if (!PredicateTable().count(key)) {
      return Error{path + ".name: unknown predicate " + Quote(name) +
                   " (a custom name needs an argument: labelsPresence or serviceAffinity); "
                   "known predicates: " +
                   Join(LegacyPredicateNames())};
    }
    t.predicates.emplace(key, path + ".name");
    return Ok();
  }
  const std::string apath = path + ".argument";
  BERTH_ASSIGN_OR_RETURN(Reader argument, Read(*arg, apath));
  const Value* sa = argument.Get("serviceAffinity");
  const Value* lp = argument.Get("labelsPresence");
  BERTH_RETURN_IF_ERROR(argument.Done());
  const int n = (sa != nullptr) + (lp != nullptr);
  if (n != 1) {
    return Error{apath + ": exactly one of serviceAffinity, labelsPresence is required, found " +
                 std::to_string(n)};
  }
  if (sa != nullptr) {
    const std::string p = apath + ".serviceAffinity";
    BERTH_ASSIGN_OR_RETURN(Reader affinity, Read(*sa, p));
    BERTH_ASSIGN_OR_RETURN(std::vector<std::string> labels, Labels(affinity));
    BERTH_RETURN_IF_ERROR(affinity.Done());
    if (labels.empty()) return Error{p + ".labels: Required value: at least one label"};
    t.affinity_labels.insert(t.affinity_labels.end(), labels.begin(), labels.end());
    t.predicates.emplace("CheckServiceAffinity", path);
  } else {
    const std::string p = apath + ".labelsPresence";
    BERTH_ASSIGN_OR_RETURN(Reader presence_in, Read(*lp, p));
    BERTH_ASSIGN_OR_RETURN(std::vector<std::string> labels, Labels(presence_in));
    bool presence = false;
    BERTH_RETURN_IF_ERROR(presence_in.Bool("presence", &presence));
    BERTH_RETURN_IF_ERROR(presence_in.Done());
    if (labels.empty()) return Error{p + ".labels: Required value: at least one label"};
    auto& dst = presence ? t.present : t.absent;
    dst.insert(dst.end(), labels.begin(), labels.end());
    t.predicates.emplace("CheckNodeLabelPresence", path);
  }
  return Ok();
}

// Same check as upstream's validateCustomPriorities: custom priorities of one kind share a weight.
Ok SameWeight(std::optional<int64_t>& weight, std::string& first_path, int64_t w,
              const std::string& path, const char* kind) {
  if (weight.has_value() && *weight != w) {
    return Error{path + ".weight: " + std::string(kind) + " priorities must all have the same " +
                 "weight: " + std::to_string(w) + " differs from " + std::to_string(*weight) +
                 " at " + first_path};
  }
  weight = w;
  if (first_path.empty()) first_path = path;
  return Ok();
}

// A priority named without an argument: a key of upstream's priority table.
Ok ProcessNamedPriority(const std::string& name, int64_t weight, const std::string& path,
                        Translation& t) {
  std::string key = name == "ServiceSpreadingPriority" ? "SelectorSpreadPriority" : name;
  if (!PriorityTable().count(key) || key == "NodeLabel" || key == "ServiceAffinity") {
    return Error{path + ".name: unknown priority " + Quote(name) +
                 " (a custom name needs an argument: labelPreference, serviceAntiAffinity or "
                 "requestedToCapacityRatioArguments); known priorities: " +
                 Join(LegacyPriorityNames())};
  }
  if (key == "RequestedToCapacityRatioPriority") {
    return Error{path +
                 ".argument: Required value: RequestedToCapacityRatioPriority needs "
                 "requestedToCapacityRatioArguments"};
  }
  if (key == "LeastRequestedPriority" || key == "MostRequestedPriority") {
    BERTH_RETURN_IF_ERROR(SetFitStrategy(
        t, SimpleStrategy(key == "LeastRequestedPriority" ? "LeastAllocated" : "MostAllocated"),
        path));
  }
  // A name given twice keeps the last weight, as upstream's map did.
  t.priorities[key] = {weight, path + ".name"};
  return Ok();
}

// argument.serviceAntiAffinity (at `p`) of the priority at `path`.
Ok ProcessServiceAntiAffinity(const Value& arg, const std::string& p, int64_t weight,
                              const std::string& path, Translation& t) {
  BERTH_ASSIGN_OR_RETURN(Reader anti, Read(arg, p));
  std::string label;
  BERTH_RETURN_IF_ERROR(anti.String("label", &label));
  BERTH_RETURN_IF_ERROR(anti.Done());
  if (label.empty()) return Error{p + ".label: Required value"};
  BERTH_RETURN_IF_ERROR(SameWeight(t.anti_affinity_weight, t.anti_affinity_path, weight, path,
                                   "serviceAntiAffinity"));
  t.anti_affinity_labels.push_back(label);
  t.priorities["ServiceAffinity"] = {weight, path};
  return Ok();
}

// argument.labelPreference (at `p`) of the priority at `path`.
Ok ProcessLabelPreference(const Value& arg, const std::string& p, int64_t weight,
                          const std::string& path, Translation& t) {
  BERTH_ASSIGN_OR_RETURN(Reader pref, Read(arg, p));
  std::string label;
  bool presence = false;
  BERTH_RETURN_IF_ERROR(pref.String("label", &label));
  BERTH_RETURN_IF_ERROR(pref.Bool("presence", &presence));
  BERTH_RETURN_IF_ERROR(pref.Done());
  if (label.empty()) return Error{p + ".label: Required value"};
  BERTH_RETURN_IF_ERROR(
      SameWeight(t.label_pref_weight, t.label_pref_path, weight, path, "labelPreference"));
  (presence ? t.present_pref : t.absent_pref).push_back(label);
  t.priorities["NodeLabel"] = {weight, path};
  return Ok();
}

// A custom priority: its `argument` names exactly one kind.
Ok ProcessCustomPriority(const Value& arg, int64_t weight, const std::string& path,
                         Translation& t) {
  const std::string apath = path + ".argument";
  BERTH_ASSIGN_OR_RETURN(Reader argument, Read(arg, apath));
  const Value* saa = argument.Get("serviceAntiAffinity");
  const Value* lp = argument.Get("labelPreference");
  const Value* rtcr = argument.Get("requestedToCapacityRatioArguments");
  BERTH_RETURN_IF_ERROR(argument.Done());
  const int n = (saa != nullptr) + (lp != nullptr) + (rtcr != nullptr);
  if (n != 1) {
    return Error{apath +
                 ": exactly one of serviceAntiAffinity, labelPreference, "
                 "requestedToCapacityRatioArguments is required, found " +
                 std::to_string(n)};
  }
  if (saa != nullptr) {
    return ProcessServiceAntiAffinity(*saa, apath + ".serviceAntiAffinity", weight, path, t);
  }
  if (lp != nullptr) {
    return ProcessLabelPreference(*lp, apath + ".labelPreference", weight, path, t);
  }
  BERTH_ASSIGN_OR_RETURN(Value strategy, RequestedToCapacityRatio(
                                             *rtcr, apath + ".requestedToCapacityRatioArguments"));
  BERTH_RETURN_IF_ERROR(SetFitStrategy(t, std::move(strategy), path));
  t.priorities["RequestedToCapacityRatioPriority"] = {weight, path};
  return Ok();
}

Ok ProcessPriority(const Value& entry, const std::string& path, Translation& t) {
  BERTH_ASSIGN_OR_RETURN(Reader in, Read(entry, path));
  std::string name;
  int64_t weight = 0;
  BERTH_RETURN_IF_ERROR(in.String("name", &name));
  BERTH_RETURN_IF_ERROR(in.Int64("weight", &weight));
  const Value* arg = in.Get("argument");
  BERTH_RETURN_IF_ERROR(in.Done());
  if (name.empty()) return Error{path + ".name: Required value"};
  if (name == "EqualPriority") return Ok();  // upstream skips it
  // Upstream's ValidatePolicy: weight in (0, MaxWeight); berth's weights are int32.
  if (weight <= 0 || weight > std::numeric_limits<int32_t>::max()) {
    return Error{path + ".weight: Invalid value: " + std::to_string(weight) + ": priority " +
                 Quote(name) + " needs a positive weight (at most 2147483647)"};
  }
  if (arg == nullptr) return ProcessNamedPriority(name, weight, path, t);
  return ProcessCustomPriority(*arg, weight, path, t);
}

// The Policy document `root` -> a profile and extenders. Errors name the field path (the caller
// adds the source).
Result<PolicyResult> Translate(const Value& root, const std::string& source,
                               const std::vector<std::string>& known_plugins,
                               const std::string& scheduler_name) {
  if (!root.IsObject()) {
    return Error{"expected a Policy object, got " + std::string(root.TypeName())};
  }
  BERTH_ASSIGN_OR_RETURN(Reader in, Read(root, ""));
  const Value* kind = in.Get("kind");
  if (kind == nullptr || !kind->IsString() || kind->AsString() != "Policy") {
    return Error{"kind: want \"Policy\"" +
                 std::string(kind != nullptr && kind->IsString()
                                 ? ", got " + Quote(kind->AsString()) +
                                       (kind->AsString() == "KubeSchedulerConfiguration"
                                            ? " (pass it with --config)"
                                            : "")
                                 : "")};
  }
  const Value* api_version = in.Get("apiVersion");
  if (api_version != nullptr &&
      (!api_version->IsString() || (api_version->AsString() != "v1" &&
                                    api_version->AsString() != "kubescheduler.config.k8s.io/v1"))) {
    return Error{"apiVersion: want \"v1\""};
  }
  BERTH_ASSIGN_OR_RETURN(const Value* preds, in.Array("predicates"));
  BERTH_ASSIGN_OR_RETURN(const Value* prios, in.Array("priorities"));
  BERTH_ASSIGN_OR_RETURN(const Value* ext, in.Array("extenders"));
  int64_t hard_weight = 0;
  BERTH_RETURN_IF_ERROR(in.Int64("hardPodAffinitySymmetricWeight", &hard_weight));
  // alwaysCheckAllPredicates only changed whether upstream's old generic scheduler stopped at the
  // first failing predicate; the framework (and berth) always reports every Filter's reason.
  bool always_check_all = false;
  BERTH_RETURN_IF_ERROR(in.Bool("alwaysCheckAllPredicates", &always_check_all));
  BERTH_RETURN_IF_ERROR(in.Done());

  Translation t;
  std::set<std::string> from_defaults;  // keys whose plugin may be missing silently
  if (preds != nullptr) {
    for (size_t i = 0; i < preds->AsArray().size(); ++i) {
      BERTH_RETURN_IF_ERROR(
          ProcessPredicate(preds->AsArray()[i], api::IndexPath("predicates", i), t));
    }
  } else {
    for (const auto& p : DefaultPredicates()) {
      t.predicates.emplace(p, "");
      from_defaults.insert(p);
    }
  }
  // Upstream's MandatoryPredicates.
  for (const char* p : {"PodToleratesNodeTaints", "CheckNodeUnschedulable"}) {
    if (t.predicates.emplace(p, "").second) from_defaults.erase(p);
  }

  std::set<std::string> default_priorities;
  if (prios != nullptr) {
    for (size_t i = 0; i < prios->AsArray().size(); ++i) {
      BERTH_RETURN_IF_ERROR(
          ProcessPriority(prios->AsArray()[i], api::IndexPath("priorities", i), t));
    }
  } else {
    for (const auto& [name, weight] : DefaultPriorities()) {
      t.priorities[name] = {weight, ""};
      default_priorities.insert(name);
    }
    t.fit_strategy = SimpleStrategy("LeastAllocated");
  }

  if (hard_weight < 0 || hard_weight > 100) {
    return Error{"hardPodAffinitySymmetricWeight: Invalid value: " + std::to_string(hard_weight) +
                 ": not in valid range [0-100]"};
  }

  PolicyResult result;
  Profile& profile = result.profile;
  profile.scheduler_name = scheduler_name;
  Plugins& plugins = profile.plugins;
  const std::set<std::string> known(known_plugins.begin(), known_plugins.end());
  auto enable = [](PluginSet& set, const std::string& name, int32_t weight) {
    for (const auto& r : set.enabled) {
      if (r.name == name) return;
    }
    set.enabled.push_back({name, weight});
  };
  auto apply = [&](const std::vector<PluginPoints>& list, int32_t weight, bool optional,
                   const std::string& what, const std::string& path) -> Ok {
    for (const auto& pp : list) {
      if (!known.count(pp.plugin)) {
        if (optional) continue;
        return Error{(path.empty() ? std::string("") : path + ": ") + what + " needs plugin " +
                     Quote(pp.plugin) + ", which berth does not have yet; remove it from the " +
                     "policy (berth's plugins: " + Join(known_plugins) + ")"};
      }
      if (pp.points & kPreFilter) enable(plugins.pre_filter, pp.plugin, 0);
      if (pp.points & kFilter) enable(plugins.filter, pp.plugin, 0);
      if (pp.points & kPreScore) enable(plugins.pre_score, pp.plugin, 0);
      if (pp.points & kScore) enable(plugins.score, pp.plugin, weight);
      if (pp.points & kReserve) enable(plugins.reserve, pp.plugin, 0);
      if (pp.points & kPreBind) enable(plugins.pre_bind, pp.plugin, 0);
    }
    return Ok();
  };

  for (const auto& key : PredicateOrdering()) {
    auto it = t.predicates.find(key);
    if (it == t.predicates.end()) continue;
    BERTH_RETURN_IF_ERROR(apply(PredicateTable().at(key), 0, from_defaults.count(key) > 0,
                                "predicate " + Quote(key), it->second));
  }
  // Priorities in name order, as upstream's sorted key set.
  for (const auto& [key, wp] : t.priorities) {
    int64_t weight = wp.first;
    if (key == "NodeLabel")
      weight *= static_cast<int64_t>(t.present_pref.size() + t.absent_pref.size());
    if (key == "ServiceAffinity") weight *= static_cast<int64_t>(t.anti_affinity_labels.size());
    if (weight > std::numeric_limits<int32_t>::max()) {
      return Error{wp.second + ": weight " + std::to_string(weight) + " overflows"};
    }
    const std::string what = key == "NodeLabel"         ? "labelPreference priority"
                             : key == "ServiceAffinity" ? "serviceAntiAffinity priority"
                                                        : "priority " + Quote(key);
    BERTH_RETURN_IF_ERROR(apply(PriorityTable().at(key), static_cast<int32_t>(weight),
                                default_priorities.count(key) > 0, what, wp.second));
  }

  // Always-on plugins that were never predicates or priorities.
  if (known.count("SchedulingGates")) enable(plugins.pre_enqueue, "SchedulingGates", 0);
  enable(plugins.queue_sort, "PrioritySort", 0);
  if (known.count("DefaultPreemption")) enable(plugins.post_filter, "DefaultPreemption", 0);
  enable(plugins.bind, "DefaultBinder", 0);

  auto enabled_anywhere = [&](std::string_view name) {
    for (const auto& ep : kExtensionPoints) {
      for (const auto& r : (plugins.*ep.set).enabled) {
        if (r.name == name) return true;
      }
    }
    return false;
  };
  auto add_config = [&](const std::string& name, Value args) {
    profile.plugin_config.push_back(
        {name, std::move(args), source + ": pluginConfig[" + name + "].args (from the policy)"});
  };
  if (!t.present.empty() || !t.absent.empty() || !t.present_pref.empty() ||
      !t.absent_pref.empty()) {
    Value args = Value::MakeObject();
    if (!t.present.empty()) args.Set("presentLabels", StringArray(t.present));
    if (!t.absent.empty()) args.Set("absentLabels", StringArray(t.absent));
    if (!t.present_pref.empty()) args.Set("presentLabelsPreference", StringArray(t.present_pref));
    if (!t.absent_pref.empty()) args.Set("absentLabelsPreference", StringArray(t.absent_pref));
    add_config("NodeLabel", std::move(args));
  }
  if (!t.affinity_labels.empty() || !t.anti_affinity_labels.empty()) {
    Value args = Value::MakeObject();
    if (!t.affinity_labels.empty()) args.Set("affinityLabels", StringArray(t.affinity_labels));
    if (!t.anti_affinity_labels.empty()) {
      args.Set("antiAffinityLabelsPreference", StringArray(t.anti_affinity_labels));
    }
    add_config("ServiceAffinity", std::move(args));
  }
  if (t.fit_strategy.has_value() && enabled_anywhere("NodeResourcesFit")) {
    Value args = Value::MakeObject();
    args.Set("scoringStrategy", std::move(*t.fit_strategy));
    add_config("NodeResourcesFit", std::move(args));
  }
  // Upstream (v1.21, DefaultPodTopologySpread on) gave EvenPodsSpreadPriority `defaultingType:
  // List`: the Policy's SelectorSpread already does the default spreading.
  if (t.priorities.count("EvenPodsSpreadPriority") && known.count("PodTopologySpread")) {
    Value args = Value::MakeObject();
    args.Set("defaultingType", Value::String("List"));
    add_config("PodTopologySpread", std::move(args));
  }
  if (hard_weight != 0 && enabled_anywhere("InterPodAffinity")) {
    Value args = Value::MakeObject();
    args.Set("hardPodAffinityWeight", Value::Int(hard_weight));
    add_config("InterPodAffinity", std::move(args));
  }

  if (ext != nullptr) {
    BERTH_ASSIGN_OR_RETURN(result.extenders,
                           policy_internal::DecodeLegacyExtenders(*ext, "extenders"));
  }
  return result;
}

}  // namespace

Result<PolicyResult> ParsePolicy(std::string_view text, const std::string& source,
                                 const std::vector<std::string>& known_plugins,
                                 const std::string& scheduler_name) {
  auto docs = api::json::ParseYamlDocuments(text);
  if (!docs) return docs.status().Wrap(source);
  if (docs->size() != 1) {
    return Error{source + ": expected one Policy document, found " + std::to_string(docs->size())};
  }
  auto result = Translate((*docs)[0], source, known_plugins, scheduler_name);
  if (!result) return result.status().Wrap(source);
  return result;
}

Result<PolicyResult> LoadPolicyFile(const std::string& path,
                                    const std::vector<std::string>& known_plugins,
                                    const std::string& scheduler_name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot read file: " + std::strerror(errno), ErrorCode::kNotFound};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ParsePolicy(ss.str(), path, known_plugins, scheduler_name);
}

}  // namespace berth::config
