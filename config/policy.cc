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
#include "base/read_file.h"
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
  // Keys that came from upstream's defaults, not the file: their plugins may be missing silently.
  std::set<std::string> default_predicates, default_priorities;
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

// The Policy's top-level fields; the entries are read later, in their own phases.
struct PolicyFields {
  const Value* predicates = nullptr;
  const Value* priorities = nullptr;
  const Value* extenders = nullptr;
  int64_t hard_weight = 0;
};

Result<PolicyFields> ReadPolicyFields(const Value& root) {
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
  PolicyFields fields;
  BERTH_ASSIGN_OR_RETURN(fields.predicates, in.Array("predicates"));
  BERTH_ASSIGN_OR_RETURN(fields.priorities, in.Array("priorities"));
  BERTH_ASSIGN_OR_RETURN(fields.extenders, in.Array("extenders"));
  BERTH_RETURN_IF_ERROR(in.Int64("hardPodAffinitySymmetricWeight", &fields.hard_weight));
  // alwaysCheckAllPredicates only changed whether upstream's old generic scheduler stopped at the
  // first failing predicate; the framework (and berth) always reports every Filter's reason.
  bool always_check_all = false;
  BERTH_RETURN_IF_ERROR(in.Bool("alwaysCheckAllPredicates", &always_check_all));
  BERTH_RETURN_IF_ERROR(in.Done());
  return fields;
}

// The `predicates` entries, or upstream's defaults when the list is absent; plus the mandatory
// ones.
Ok TranslatePredicates(const Value* preds, Translation& t) {
  if (preds != nullptr) {
    for (size_t i = 0; i < preds->AsArray().size(); ++i) {
      BERTH_RETURN_IF_ERROR(
          ProcessPredicate(preds->AsArray()[i], api::IndexPath("predicates", i), t));
    }
  } else {
    for (const auto& p : DefaultPredicates()) {
      t.predicates.emplace(p, "");
      t.default_predicates.insert(p);
    }
  }
  // Upstream's MandatoryPredicates.
  for (const char* p : {"PodToleratesNodeTaints", "CheckNodeUnschedulable"}) {
    if (t.predicates.emplace(p, "").second) t.default_predicates.erase(p);
  }
  return Ok();
}

// The `priorities` entries, or upstream's defaults (and their LeastAllocated scoring) when absent.
Ok TranslatePriorities(const Value* prios, Translation& t) {
  if (prios != nullptr) {
    for (size_t i = 0; i < prios->AsArray().size(); ++i) {
      BERTH_RETURN_IF_ERROR(
          ProcessPriority(prios->AsArray()[i], api::IndexPath("priorities", i), t));
    }
  } else {
    for (const auto& [name, weight] : DefaultPriorities()) {
      t.priorities[name] = {weight, ""};
      t.default_priorities.insert(name);
    }
    t.fit_strategy = SimpleStrategy("LeastAllocated");
  }
  return Ok();
}

// Enables plugins at their extension points of one profile, refusing plugins berth lacks.
class PluginEnabler {
 public:
  PluginEnabler(Plugins& plugins, const std::vector<std::string>& known_plugins)
      : plugins_(plugins),
        known_plugins_(known_plugins),
        known_(known_plugins.begin(), known_plugins.end()) {}

  bool Known(const std::string& name) const { return known_.count(name) > 0; }

  // The first weight a plugin is enabled with stays.
  void Enable(PluginSet Plugins::*set, const std::string& name, int32_t weight) {
    for (const auto& r : (plugins_.*set).enabled) {
      if (r.name == name) return;
    }
    (plugins_.*set).enabled.push_back({name, weight});
  }

  // Every plugin of `list` at its points (Score ones with `weight`). A plugin berth lacks is
  // skipped when `optional`, else an error naming `what` (at `path`, when it came from the file).
  Ok Apply(const std::vector<PluginPoints>& list, int32_t weight, bool optional,
           const std::string& what, const std::string& path) {
    for (const auto& pp : list) {
      if (!Known(pp.plugin)) {
        if (optional) continue;
        return Error{(path.empty() ? std::string("") : path + ": ") + what + " needs plugin " +
                     Quote(pp.plugin) + ", which berth does not have yet; remove it from the " +
                     "policy (berth's plugins: " + Join(known_plugins_) + ")"};
      }
      if (pp.points & kPreFilter) Enable(&Plugins::pre_filter, pp.plugin, 0);
      if (pp.points & kFilter) Enable(&Plugins::filter, pp.plugin, 0);
      if (pp.points & kPreScore) Enable(&Plugins::pre_score, pp.plugin, 0);
      if (pp.points & kScore) Enable(&Plugins::score, pp.plugin, weight);
      if (pp.points & kReserve) Enable(&Plugins::reserve, pp.plugin, 0);
      if (pp.points & kPreBind) Enable(&Plugins::pre_bind, pp.plugin, 0);
    }
    return Ok();
  }

  bool EnabledAnywhere(std::string_view name) const {
    for (const auto& ep : kExtensionPoints) {
      for (const auto& r : (plugins_.*ep.set).enabled) {
        if (r.name == name) return true;
      }
    }
    return false;
  }

 private:
  Plugins& plugins_;
  const std::vector<std::string>& known_plugins_;
  const std::set<std::string> known_;
};

Ok EnablePredicatePlugins(const Translation& t, PluginEnabler& enabler) {
  for (const auto& key : PredicateOrdering()) {
    auto it = t.predicates.find(key);
    if (it == t.predicates.end()) continue;
    BERTH_RETURN_IF_ERROR(enabler.Apply(PredicateTable().at(key), 0,
                                        t.default_predicates.count(key) > 0,
                                        "predicate " + Quote(key), it->second));
  }
  return Ok();
}

// Priorities in name order, as upstream's sorted key set.
Ok EnablePriorityPlugins(const Translation& t, PluginEnabler& enabler) {
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
    BERTH_RETURN_IF_ERROR(enabler.Apply(PriorityTable().at(key), static_cast<int32_t>(weight),
                                        t.default_priorities.count(key) > 0, what, wp.second));
  }
  return Ok();
}

// Always-on plugins that were never predicates or priorities.
void EnableAlwaysOnPlugins(PluginEnabler& enabler) {
  if (enabler.Known("SchedulingGates")) enabler.Enable(&Plugins::pre_enqueue, "SchedulingGates", 0);
  enabler.Enable(&Plugins::queue_sort, "PrioritySort", 0);
  if (enabler.Known("DefaultPreemption")) {
    enabler.Enable(&Plugins::post_filter, "DefaultPreemption", 0);
  }
  enabler.Enable(&Plugins::bind, "DefaultBinder", 0);
}

// NodeLabelArgs from the labelsPresence predicates and labelPreference priorities, if any.
std::optional<Value> NodeLabelArgs(const Translation& t) {
  if (t.present.empty() && t.absent.empty() && t.present_pref.empty() && t.absent_pref.empty()) {
    return std::nullopt;
  }
  Value args = Value::MakeObject();
  if (!t.present.empty()) args.Set("presentLabels", StringArray(t.present));
  if (!t.absent.empty()) args.Set("absentLabels", StringArray(t.absent));
  if (!t.present_pref.empty()) args.Set("presentLabelsPreference", StringArray(t.present_pref));
  if (!t.absent_pref.empty()) args.Set("absentLabelsPreference", StringArray(t.absent_pref));
  return args;
}

// ServiceAffinityArgs from the serviceAffinity predicates and serviceAntiAffinity priorities.
std::optional<Value> ServiceAffinityArgs(const Translation& t) {
  if (t.affinity_labels.empty() && t.anti_affinity_labels.empty()) return std::nullopt;
  Value args = Value::MakeObject();
  if (!t.affinity_labels.empty()) args.Set("affinityLabels", StringArray(t.affinity_labels));
  if (!t.anti_affinity_labels.empty()) {
    args.Set("antiAffinityLabelsPreference", StringArray(t.anti_affinity_labels));
  }
  return args;
}

// The profile's pluginConfig: what the entries and the global fields set, for enabled plugins.
void AddPluginConfigs(Translation& t, int64_t hard_weight, const PluginEnabler& enabler,
                      const std::string& source, Profile& profile) {
  auto add_config = [&](const std::string& name, Value args) {
    profile.plugin_config.push_back(
        {name, std::move(args), source + ": pluginConfig[" + name + "].args (from the policy)"});
  };
  if (std::optional<Value> args = NodeLabelArgs(t)) add_config("NodeLabel", std::move(*args));
  if (std::optional<Value> args = ServiceAffinityArgs(t)) {
    add_config("ServiceAffinity", std::move(*args));
  }
  if (t.fit_strategy.has_value() && enabler.EnabledAnywhere("NodeResourcesFit")) {
    Value args = Value::MakeObject();
    args.Set("scoringStrategy", std::move(*t.fit_strategy));
    add_config("NodeResourcesFit", std::move(args));
  }
  // Upstream (v1.21, DefaultPodTopologySpread on) gave EvenPodsSpreadPriority `defaultingType:
  // List`: the Policy's SelectorSpread already does the default spreading.
  if (t.priorities.count("EvenPodsSpreadPriority") && enabler.Known("PodTopologySpread")) {
    Value args = Value::MakeObject();
    args.Set("defaultingType", Value::String("List"));
    add_config("PodTopologySpread", std::move(args));
  }
  if (hard_weight != 0 && enabler.EnabledAnywhere("InterPodAffinity")) {
    Value args = Value::MakeObject();
    args.Set("hardPodAffinityWeight", Value::Int(hard_weight));
    add_config("InterPodAffinity", std::move(args));
  }
}

// The Policy document `root` -> a profile and extenders. Errors name the field path (the caller
// adds the source).
Result<PolicyResult> Translate(const Value& root, const std::string& source,
                               const std::vector<std::string>& known_plugins,
                               const std::string& scheduler_name) {
  BERTH_ASSIGN_OR_RETURN(PolicyFields fields, ReadPolicyFields(root));
  Translation t;
  BERTH_RETURN_IF_ERROR(TranslatePredicates(fields.predicates, t));
  BERTH_RETURN_IF_ERROR(TranslatePriorities(fields.priorities, t));
  if (fields.hard_weight < 0 || fields.hard_weight > 100) {
    return Error{"hardPodAffinitySymmetricWeight: Invalid value: " +
                 std::to_string(fields.hard_weight) + ": not in valid range [0-100]"};
  }

  PolicyResult result;
  result.profile.scheduler_name = scheduler_name;
  PluginEnabler enabler(result.profile.plugins, known_plugins);
  BERTH_RETURN_IF_ERROR(EnablePredicatePlugins(t, enabler));
  BERTH_RETURN_IF_ERROR(EnablePriorityPlugins(t, enabler));
  EnableAlwaysOnPlugins(enabler);
  AddPluginConfigs(t, fields.hard_weight, enabler, source, result.profile);

  if (fields.extenders != nullptr) {
    BERTH_ASSIGN_OR_RETURN(result.extenders,
                           policy_internal::DecodeLegacyExtenders(*fields.extenders, "extenders"));
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
  auto text = ReadFile(path, kMaxConfigFileBytes);
  if (!text.ok()) return Error{path + ": cannot read file: " + text.error(), text.code()};
  return ParsePolicy(*text, path, known_plugins, scheduler_name);
}

}  // namespace berth::config
