#include "config/policy.h"
#include "base/strings.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "config/internal.h"
#include "config/policy_internal.h"
#include "api/json/parse.h"

namespace berth::config {
namespace {

using api::Value;
using namespace policy_internal;  // NOLINT: the legacy registry tables


// Strict object reading: every member must be one of `allowed`.
Ok CheckFields(const Value& v, const std::string& path,
               std::initializer_list<std::string_view> allowed) {
  if (!v.IsObject()) return Error{path + ": expected object, got " + std::string(v.TypeName())};
  std::set<std::string, std::less<>> seen;
  for (const auto& [key, value] : v.AsObject()) {
    if (!seen.insert(key).second) {
      return Error{"strict decoding error: duplicate field " + Quote(path + "." + key)};
    }
    bool ok = false;
    for (auto a : allowed) ok = ok || a == key;
    if (!ok) return Error{"strict decoding error: unknown field " + Quote(path + "." + key)};
  }
  return Ok();
}

// A field that is present and not null.
const Value* Get(const Value& obj, std::string_view key) {
  const Value* v = obj.Find(key);
  return v == nullptr || v->IsNull() ? nullptr : v;
}

Result<std::string> GetString(const Value& obj, const std::string& path, std::string_view key) {
  const Value* v = Get(obj, key);
  if (v == nullptr) return std::string();
  if (!v->IsString()) {
    return Error{path + "." + std::string(key) + ": expected string, got " +
                 std::string(v->TypeName())};
  }
  return v->AsString();
}

Result<bool> GetBool(const Value& obj, const std::string& path, std::string_view key) {
  const Value* v = Get(obj, key);
  if (v == nullptr) return false;
  if (!v->IsBool()) {
    return Error{path + "." + std::string(key) + ": expected boolean, got " +
                 std::string(v->TypeName())};
  }
  return v->AsBool();
}

Result<int64_t> GetInt(const Value& obj, const std::string& path, std::string_view key) {
  const Value* v = Get(obj, key);
  if (v == nullptr) return int64_t{0};
  if (!v->IsInt()) {
    return Error{path + "." + std::string(key) + ": expected integer, got " +
                 std::string(v->TypeName())};
  }
  return v->AsInt();
}

Result<std::vector<std::string>> GetStrings(const Value& obj, const std::string& path,
                                            std::string_view key) {
  std::vector<std::string> out;
  const Value* v = Get(obj, key);
  if (v == nullptr) return out;
  const std::string p = path + "." + std::string(key);
  if (!v->IsArray())
    return Error{p + ": expected array of strings, got " + std::string(v->TypeName())};
  for (size_t i = 0; i < v->AsArray().size(); ++i) {
    const Value& e = v->AsArray()[i];
    if (!e.IsString()) {
      return Error{p + "[" + std::to_string(i) + "]: expected string, got " +
                   std::string(e.TypeName())};
    }
    out.push_back(e.AsString());
  }
  return out;
}

const Value* GetArray(const Value& obj, std::string_view key) {
  const Value* v = Get(obj, key);
  return v != nullptr && v->IsArray() ? v : nullptr;
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
  if (Ok ok = CheckFields(args, path, {"shape", "resources"}); !ok) return Error{ok.error()};
  Value strategy = SimpleStrategy("RequestedToCapacityRatio");
  Value shape = Value::MakeArray();
  if (const Value* s = Get(args, "shape")) {
    if (!s->IsArray())
      return Error{path + ".shape: expected array, got " + std::string(s->TypeName())};
    for (size_t i = 0; i < s->AsArray().size(); ++i) {
      const Value& point = s->AsArray()[i];
      const std::string p = path + ".shape[" + std::to_string(i) + "]";
      if (Ok ok = CheckFields(point, p, {"utilization", "score"}); !ok) return Error{ok.error()};
      auto u = GetInt(point, p, "utilization");
      if (!u) return Error{u.error()};
      auto sc = GetInt(point, p, "score");
      if (!sc) return Error{sc.error()};
      Value out = Value::MakeObject();
      out.Set("utilization", Value::Int(*u));
      out.Set("score", Value::Int(*sc));
      shape.Push(std::move(out));
    }
  }
  Value rtcr = Value::MakeObject();
  rtcr.Set("shape", std::move(shape));
  if (const Value* r = Get(args, "resources")) {
    if (!r->IsArray()) {
      return Error{path + ".resources: expected array, got " + std::string(r->TypeName())};
    }
    Value resources = Value::MakeArray();
    for (size_t i = 0; i < r->AsArray().size(); ++i) {
      const Value& res = r->AsArray()[i];
      const std::string p = path + ".resources[" + std::to_string(i) + "]";
      if (Ok ok = CheckFields(res, p, {"name", "weight"}); !ok) return Error{ok.error()};
      auto name = GetString(res, p, "name");
      if (!name) return Error{name.error()};
      auto weight = GetInt(res, p, "weight");
      if (!weight) return Error{weight.error()};
      Value out = Value::MakeObject();
      out.Set("name", Value::String(*name));
      // Upstream defaulted a zero weight to 1.
      out.Set("weight", Value::Int(*weight == 0 ? 1 : *weight));
      resources.Push(std::move(out));
    }
    if (!resources.AsArray().empty()) strategy.Set("resources", std::move(resources));
  }
  strategy.Set("requestedToCapacityRatio", std::move(rtcr));
  return strategy;
}

Ok ProcessPredicate(const Value& entry, const std::string& path, Translation& t) {
  if (Ok ok = CheckFields(entry, path, {"name", "argument"}); !ok) return ok;
  auto name = GetString(entry, path, "name");
  if (!name) return Error{name.error()};
  if (name->empty()) return Error{path + ".name: Required value"};
  const Value* arg = Get(entry, "argument");
  if (arg == nullptr) {
    std::string key = *name == "PodFitsPorts" ? "PodFitsHostPorts" : *name;  // upstream's alias
    if (!PredicateTable().count(key)) {
      return Error{path + ".name: unknown predicate " + Quote(*name) +
                   " (a custom name needs an argument: labelsPresence or serviceAffinity); "
                   "known predicates: " +
                   Join(LegacyPredicateNames())};
    }
    t.predicates.emplace(key, path + ".name");
    return Ok();
  }
  const std::string apath = path + ".argument";
  if (Ok ok = CheckFields(*arg, apath, {"serviceAffinity", "labelsPresence"}); !ok) return ok;
  const Value* sa = Get(*arg, "serviceAffinity");
  const Value* lp = Get(*arg, "labelsPresence");
  const int n = (sa != nullptr) + (lp != nullptr);
  if (n != 1) {
    return Error{apath + ": exactly one of serviceAffinity, labelsPresence is required, found " +
                 std::to_string(n)};
  }
  if (sa != nullptr) {
    const std::string p = apath + ".serviceAffinity";
    if (Ok ok = CheckFields(*sa, p, {"labels"}); !ok) return ok;
    auto labels = GetStrings(*sa, p, "labels");
    if (!labels) return Error{labels.error()};
    if (labels->empty()) return Error{p + ".labels: Required value: at least one label"};
    t.affinity_labels.insert(t.affinity_labels.end(), labels->begin(), labels->end());
    t.predicates.emplace("CheckServiceAffinity", path);
  } else {
    const std::string p = apath + ".labelsPresence";
    if (Ok ok = CheckFields(*lp, p, {"labels", "presence"}); !ok) return ok;
    auto labels = GetStrings(*lp, p, "labels");
    if (!labels) return Error{labels.error()};
    if (labels->empty()) return Error{p + ".labels: Required value: at least one label"};
    auto presence = GetBool(*lp, p, "presence");
    if (!presence) return Error{presence.error()};
    auto& dst = *presence ? t.present : t.absent;
    dst.insert(dst.end(), labels->begin(), labels->end());
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

Ok ProcessPriority(const Value& entry, const std::string& path, Translation& t) {
  if (Ok ok = CheckFields(entry, path, {"name", "weight", "argument"}); !ok) return ok;
  auto name = GetString(entry, path, "name");
  if (!name) return Error{name.error()};
  if (name->empty()) return Error{path + ".name: Required value"};
  auto weight = GetInt(entry, path, "weight");
  if (!weight) return Error{weight.error()};
  if (*name == "EqualPriority") return Ok();  // upstream skips it
  // Upstream's ValidatePolicy: weight in (0, MaxWeight); berth's weights are int32.
  if (*weight <= 0 || *weight > std::numeric_limits<int32_t>::max()) {
    return Error{path + ".weight: Invalid value: " + std::to_string(*weight) + ": priority " +
                 Quote(*name) + " needs a positive weight (at most 2147483647)"};
  }
  const Value* arg = Get(entry, "argument");
  if (arg == nullptr) {
    std::string key = *name == "ServiceSpreadingPriority" ? "SelectorSpreadPriority" : *name;
    if (!PriorityTable().count(key) || key == "NodeLabel" || key == "ServiceAffinity") {
      return Error{path + ".name: unknown priority " + Quote(*name) +
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
      Ok ok = SetFitStrategy(
          t, SimpleStrategy(key == "LeastRequestedPriority" ? "LeastAllocated" : "MostAllocated"),
          path);
      if (!ok) return ok;
    }
    // A name given twice keeps the last weight, as upstream's map did.
    t.priorities[key] = {*weight, path + ".name"};
    return Ok();
  }
  const std::string apath = path + ".argument";
  if (Ok ok = CheckFields(
          *arg, apath,
          {"serviceAntiAffinity", "labelPreference", "requestedToCapacityRatioArguments"});
      !ok) {
    return ok;
  }
  const Value* saa = Get(*arg, "serviceAntiAffinity");
  const Value* lp = Get(*arg, "labelPreference");
  const Value* rtcr = Get(*arg, "requestedToCapacityRatioArguments");
  const int n = (saa != nullptr) + (lp != nullptr) + (rtcr != nullptr);
  if (n != 1) {
    return Error{apath +
                 ": exactly one of serviceAntiAffinity, labelPreference, "
                 "requestedToCapacityRatioArguments is required, found " +
                 std::to_string(n)};
  }
  if (saa != nullptr) {
    const std::string p = apath + ".serviceAntiAffinity";
    if (Ok ok = CheckFields(*saa, p, {"label"}); !ok) return ok;
    auto label = GetString(*saa, p, "label");
    if (!label) return Error{label.error()};
    if (label->empty()) return Error{p + ".label: Required value"};
    if (Ok ok = SameWeight(t.anti_affinity_weight, t.anti_affinity_path, *weight, path,
                           "serviceAntiAffinity");
        !ok) {
      return ok;
    }
    t.anti_affinity_labels.push_back(*label);
    t.priorities["ServiceAffinity"] = {*weight, path};
  } else if (lp != nullptr) {
    const std::string p = apath + ".labelPreference";
    if (Ok ok = CheckFields(*lp, p, {"label", "presence"}); !ok) return ok;
    auto label = GetString(*lp, p, "label");
    if (!label) return Error{label.error()};
    if (label->empty()) return Error{p + ".label: Required value"};
    auto presence = GetBool(*lp, p, "presence");
    if (!presence) return Error{presence.error()};
    if (Ok ok =
            SameWeight(t.label_pref_weight, t.label_pref_path, *weight, path, "labelPreference");
        !ok) {
      return ok;
    }
    (*presence ? t.present_pref : t.absent_pref).push_back(*label);
    t.priorities["NodeLabel"] = {*weight, path};
  } else {
    const std::string p = apath + ".requestedToCapacityRatioArguments";
    auto strategy = RequestedToCapacityRatio(*rtcr, p);
    if (!strategy) return Error{strategy.error()};
    if (Ok ok = SetFitStrategy(t, std::move(*strategy), path); !ok) return ok;
    t.priorities["RequestedToCapacityRatioPriority"] = {*weight, path};
  }
  return Ok();
}

}  // namespace

Result<PolicyResult> ParsePolicy(std::string_view text, const std::string& source,
                                 const std::vector<std::string>& known_plugins,
                                 const std::string& scheduler_name) {
  const std::string prefix = source + ": ";
  auto fail = [&](const std::string& message) -> Result<PolicyResult> {
    return Error{prefix + message};
  };
  auto docs = api::json::ParseYamlDocuments(text);
  if (!docs) return fail(docs.error());
  if (docs->size() != 1) {
    return fail("expected one Policy document, found " + std::to_string(docs->size()));
  }
  const Value& root = (*docs)[0];
  if (!root.IsObject())
    return fail("expected a Policy object, got " + std::string(root.TypeName()));
  const Value* kind = Get(root, "kind");
  if (kind == nullptr || !kind->IsString() || kind->AsString() != "Policy") {
    return fail("kind: want \"Policy\"" +
                std::string(kind != nullptr && kind->IsString()
                                ? ", got " + Quote(kind->AsString()) +
                                      (kind->AsString() == "KubeSchedulerConfiguration"
                                           ? " (pass it with --config)"
                                           : "")
                                : ""));
  }
  const Value* api_version = Get(root, "apiVersion");
  if (api_version != nullptr &&
      (!api_version->IsString() || (api_version->AsString() != "v1" &&
                                    api_version->AsString() != "kubescheduler.config.k8s.io/v1"))) {
    return fail("apiVersion: want \"v1\"");
  }
  if (Ok ok = CheckFields(root, "",
                          {"kind", "apiVersion", "predicates", "priorities", "extenders",
                           "hardPodAffinitySymmetricWeight", "alwaysCheckAllPredicates"});
      !ok) {
    // Root paths read ".field"; drop the dot.
    std::string e = ok.error();
    if (auto pos = e.find("\"."); pos != std::string::npos) e.erase(pos + 1, 1);
    return fail(e);
  }

  Translation t;
  std::set<std::string> from_defaults;  // keys whose plugin may be missing silently
  if (const Value* preds = Get(root, "predicates")) {
    if (!preds->IsArray())
      return fail("predicates: expected array, got " + std::string(preds->TypeName()));
    for (size_t i = 0; i < preds->AsArray().size(); ++i) {
      Ok ok = ProcessPredicate(preds->AsArray()[i], "predicates[" + std::to_string(i) + "]", t);
      if (!ok) return fail(ok.error());
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
  if (const Value* prios = Get(root, "priorities")) {
    if (!prios->IsArray())
      return fail("priorities: expected array, got " + std::string(prios->TypeName()));
    for (size_t i = 0; i < prios->AsArray().size(); ++i) {
      Ok ok = ProcessPriority(prios->AsArray()[i], "priorities[" + std::to_string(i) + "]", t);
      if (!ok) return fail(ok.error());
    }
  } else {
    for (const auto& [name, weight] : DefaultPriorities()) {
      t.priorities[name] = {weight, ""};
      default_priorities.insert(name);
    }
    t.fit_strategy = SimpleStrategy("LeastAllocated");
  }

  auto hard_weight = GetInt(root, "", "hardPodAffinitySymmetricWeight");
  if (!hard_weight) return fail(hard_weight.error().substr(1));
  if (*hard_weight < 0 || *hard_weight > 100) {
    return fail("hardPodAffinitySymmetricWeight: Invalid value: " + std::to_string(*hard_weight) +
                ": not in valid range [0-100]");
  }
  // alwaysCheckAllPredicates only changed whether upstream's old generic scheduler stopped at the
  // first failing predicate; the framework (and berth) always reports every Filter's reason.
  if (auto always = GetBool(root, "", "alwaysCheckAllPredicates"); !always) {
    return fail(always.error().substr(1));
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
    Ok ok = apply(PredicateTable().at(key), 0, from_defaults.count(key) > 0,
                  "predicate " + Quote(key), it->second);
    if (!ok) return fail(ok.error());
  }
  // Priorities in name order, as upstream's sorted key set.
  for (const auto& [key, wp] : t.priorities) {
    int64_t weight = wp.first;
    if (key == "NodeLabel")
      weight *= static_cast<int64_t>(t.present_pref.size() + t.absent_pref.size());
    if (key == "ServiceAffinity") weight *= static_cast<int64_t>(t.anti_affinity_labels.size());
    if (weight > std::numeric_limits<int32_t>::max()) {
      return fail(wp.second + ": weight " + std::to_string(weight) + " overflows");
    }
    const std::string what = key == "NodeLabel"         ? "labelPreference priority"
                             : key == "ServiceAffinity" ? "serviceAntiAffinity priority"
                                                        : "priority " + Quote(key);
    Ok ok = apply(PriorityTable().at(key), static_cast<int32_t>(weight),
                  default_priorities.count(key) > 0, what, wp.second);
    if (!ok) return fail(ok.error());
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
  if (*hard_weight != 0 && enabled_anywhere("InterPodAffinity")) {
    Value args = Value::MakeObject();
    args.Set("hardPodAffinityWeight", Value::Int(*hard_weight));
    add_config("InterPodAffinity", std::move(args));
  }

  if (const Value* ext = Get(root, "extenders")) {
    auto extenders = policy_internal::DecodeLegacyExtenders(*ext, "extenders");
    if (!extenders) return fail(extenders.error());
    result.extenders = std::move(*extenders);
  }
  return result;
}

Result<PolicyResult> LoadPolicyFile(const std::string& path,
                                    const std::vector<std::string>& known_plugins,
                                    const std::string& scheduler_name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot read file: " + std::strerror(errno)};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ParsePolicy(ss.str(), path, known_plugins, scheduler_name);
}

}  // namespace berth::config
