#include "config/encode.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>
#include <vector>

#include "api/json/parse.h"
#include "config/duration.h"

namespace berth::config {

using api::Value;

namespace {

Value Str(std::string s) { return Value::String(std::move(s)); }

// A float32 as Go's encoder writes it: the shortest decimal that reads back as the same float
// (0.1f is 0.1, not 0.10000000149011612), and without a fraction when it has none (50).
Value Float32(float f) {
  if (f == std::floor(f) && std::fabs(f) < 1e15f) return Value::Int(static_cast<int64_t>(f));
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof(buf), f);
  return Value::Double(std::strtod(std::string(buf, res.ptr).c_str(), nullptr));
}

Value Weighted(std::initializer_list<const char*> names) {
  Value list = Value::MakeArray();
  for (const char* n : names) {
    Value r = Value::MakeObject();
    r.Set("name", Str(n));
    r.Set("weight", Value::Int(1));
    list.Push(std::move(r));
  }
  return list;
}

// The fields upstream's v1 defaulting sets on each known args kind, in its field order.
Value DefaultArgs(const std::string& plugin) {
  Value a = Value::MakeObject();
  a.Set("kind", Str(plugin + "Args"));
  a.Set("apiVersion", Str(std::string(kApiVersion)));
  if (plugin == "DefaultPreemption") {
    a.Set("minCandidateNodesPercentage", Value::Int(10));
    a.Set("minCandidateNodesAbsolute", Value::Int(100));
  } else if (plugin == "DynamicResources") {
    a.Set("filterTimeout", Str("10s"));
    a.Set("bindingTimeout", Str("10m0s"));
  } else if (plugin == "InterPodAffinity") {
    a.Set("hardPodAffinityWeight", Value::Int(1));
    a.Set("ignorePreferredTermsOfExistingPods", Value::Bool(false));
  } else if (plugin == "NodeAffinity") {
  } else if (plugin == "NodeResourcesBalancedAllocation") {
    a.Set("resources", Weighted({"cpu", "memory"}));
  } else if (plugin == "NodeResourcesFit") {
    Value s = Value::MakeObject();
    s.Set("type", Str("LeastAllocated"));
    s.Set("resources", Weighted({"cpu", "memory"}));
    a.Set("scoringStrategy", std::move(s));
  } else if (plugin == "PodTopologySpread") {
    a.Set("defaultingType", Str("System"));
  } else if (plugin == "VolumeBinding") {
    a.Set("bindTimeoutSeconds", Value::Int(600));
    Value shape = Value::MakeArray();
    for (auto [u, s] : {std::pair{0, 10}, std::pair{100, 0}}) {
      Value p = Value::MakeObject();
      p.Set("utilization", Value::Int(u));
      p.Set("score", Value::Int(s));
      shape.Push(std::move(p));
    }
    a.Set("shape", std::move(shape));
  } else {
    return Value();  // not a kind upstream's scheme knows: no default entry
  }
  return a;
}

// Given args completed as upstream's scheme.Default does: absent top-level fields take their
// defaults; NodeResourcesFit's strategy gets the default resources when it lists none, and a
// resource weight of 0 becomes 1 (as for NodeResourcesBalancedAllocation's resources).
Value DefaultGivenArgs(const std::string& plugin, const Value& given) {
  Value defaults = DefaultArgs(plugin);
  if (defaults.IsNull() || !given.IsObject()) return given;
  Value out = given;
  for (const auto& [key, v] : defaults.AsObject()) {
    if (out.Find(key) == nullptr) out.Set(key, v);
  }
  auto weights = [](Value* resources) {
    if (resources == nullptr || !resources->IsArray()) return;
    for (Value& r : resources->MutableArray()) {
      const Value* w = r.IsObject() ? r.Find("weight") : nullptr;
      if (r.IsObject() && (w == nullptr || (w->IsNumber() && w->AsDouble() == 0))) {
        r.Set("weight", Value::Int(1));
      }
    }
  };
  auto member = [](Value& obj, const std::string& key) -> Value* {
    for (auto& [k, v] : obj.MutableObject()) {
      if (k == key) return &v;
    }
    return nullptr;
  };
  if (plugin == "NodeResourcesFit") {
    if (Value* s = member(out, "scoringStrategy"); s != nullptr && s->IsObject()) {
      if (s->Find("type") == nullptr) s->Set("type", Str("LeastAllocated"));
      const Value* r = s->Find("resources");
      if (r == nullptr || !r->IsArray() || r->AsArray().empty()) {
        s->Set("resources", Weighted({"cpu", "memory"}));
      }
      weights(member(*s, "resources"));
    }
  }
  if (plugin == "NodeResourcesBalancedAllocation") weights(member(out, "resources"));
  return out;
}

Value EncodeSet(const PluginSet& set) {
  Value out = Value::MakeObject();
  if (!set.enabled.empty()) {
    Value list = Value::MakeArray();
    for (const PluginRef& p : set.enabled) {
      Value e = Value::MakeObject();
      e.Set("name", Str(p.name));
      e.Set("weight", Value::Int(p.weight));
      list.Push(std::move(e));
    }
    out.Set("enabled", std::move(list));
  }
  if (!set.disabled.empty()) {
    Value list = Value::MakeArray();
    for (const std::string& name : set.disabled) {
      Value e = Value::MakeObject();
      e.Set("name", Str(name));
      e.Set("weight", Value::Int(0));
      list.Push(std::move(e));
    }
    out.Set("disabled", std::move(list));
  }
  return out;
}

// Upstream's scheduler.New appends the resources extenders manage with ignoredByScheduler to
// NodeResourcesFit's ignoredResources (before scoringStrategy, in the args' field order).
void AddIgnoredResources(Value& args, const std::vector<std::string>& ignored) {
  if (ignored.empty() || !args.IsObject()) return;
  Value list = Value::MakeArray();
  if (const Value* have = args.Find("ignoredResources"); have != nullptr && have->IsArray()) {
    list = *have;
  }
  for (const std::string& name : ignored) list.Push(Str(name));
  Value out = Value::MakeObject();
  bool placed = false;
  for (const auto& [key, v] : args.AsObject()) {
    if (key == "ignoredResources") continue;
    if (!placed && (key == "ignoredResourceGroups" || key == "scoringStrategy")) {
      out.Set("ignoredResources", list);
      placed = true;
    }
    out.Set(key, v);
  }
  if (!placed) out.Set("ignoredResources", std::move(list));
  args = std::move(out);
}

Value EncodeProfile(const Profile& p, const std::vector<std::string>& ignored_by_extenders) {
  Value prof = Value::MakeObject();
  prof.Set("schedulerName", Str(p.scheduler_name));
  if (p.percentage_of_nodes_to_score) {
    prof.Set("percentageOfNodesToScore", Value::Int(*p.percentage_of_nodes_to_score));
  }
  Value plugins = Value::MakeObject();
  std::set<std::string> enabled;  // upstream's pluginsNames: every point, sorted
  auto add = [&](std::string_view name, const PluginSet& set) {
    plugins.Set(std::string(name), EncodeSet(set));
    for (const PluginRef& r : set.enabled) enabled.insert(r.name);
  };
  for (const auto& ep : kExtensionPoints) add(ep.name, p.plugins.*ep.set);
  add(kMultiPoint.name, p.plugins.*kMultiPoint.set);
  for (const auto& ep : kPodGroupExtensionPoints) add(ep.point.name, p.plugins.*ep.point.set);
  prof.Set("plugins", std::move(plugins));

  Value configs = Value::MakeArray();
  std::set<std::string> given;
  for (const PluginConfig& pc : p.plugin_config) {
    given.insert(pc.name);
    Value e = Value::MakeObject();
    e.Set("name", Str(pc.name));
    Value args = pc.args.IsNull() ? DefaultArgs(pc.name) : DefaultGivenArgs(pc.name, pc.args);
    if (pc.name == "NodeResourcesFit") AddIgnoredResources(args, ignored_by_extenders);
    if (!args.IsNull()) e.Set("args", std::move(args));
    configs.Push(std::move(e));
  }
  for (const std::string& name : enabled) {
    if (given.count(name) > 0) continue;
    Value args = DefaultArgs(name);
    if (args.IsNull()) continue;
    if (name == "NodeResourcesFit") AddIgnoredResources(args, ignored_by_extenders);
    Value e = Value::MakeObject();
    e.Set("name", Str(name));
    e.Set("args", std::move(args));
    configs.Push(std::move(e));
  }
  prof.Set("pluginConfig", std::move(configs));
  return prof;
}

Value EncodeExtender(const Extender& e) {
  Value out = Value::MakeObject();
  out.Set("urlPrefix", Str(e.url_prefix));
  if (!e.filter_verb.empty()) out.Set("filterVerb", Str(e.filter_verb));
  if (!e.preempt_verb.empty()) out.Set("preemptVerb", Str(e.preempt_verb));
  if (!e.prioritize_verb.empty()) out.Set("prioritizeVerb", Str(e.prioritize_verb));
  if (e.weight != 0) out.Set("weight", Value::Int(e.weight));
  if (!e.bind_verb.empty()) out.Set("bindVerb", Str(e.bind_verb));
  if (e.enable_https) out.Set("enableHTTPS", Value::Bool(true));
  if (e.tls_config) {
    const TLSConfig& t = *e.tls_config;
    Value tls = Value::MakeObject();
    tls.Set("insecure", Value::Bool(t.insecure));
    const std::pair<const char*, const std::string*> fields[] = {
        {"serverName", &t.server_name}, {"certFile", &t.cert_file}, {"keyFile", &t.key_file},
        {"caFile", &t.ca_file},         {"certData", &t.cert_data}, {"keyData", &t.key_data},
        {"caData", &t.ca_data}};
    for (const auto& [key, v] : fields) {
      if (!v->empty()) tls.Set(key, Str(*v));
    }
    out.Set("tlsConfig", std::move(tls));
  }
  out.Set("httpTimeout", Str(FormatGoDuration(e.http_timeout)));
  // berth's own field: written only when set, so that a default document stays upstream's.
  if (e.max_response_bytes != kDefaultExtenderMaxResponseBytes) {
    out.Set("maxResponseBytes", Value::Int(e.max_response_bytes));
  }
  if (e.node_cache_capable) out.Set("nodeCacheCapable", Value::Bool(true));
  if (!e.managed_resources.empty()) {
    Value list = Value::MakeArray();
    for (const ManagedResource& m : e.managed_resources) {
      Value r = Value::MakeObject();
      r.Set("name", Str(m.name));
      if (m.ignored_by_scheduler) r.Set("ignoredByScheduler", Value::Bool(true));
      list.Push(std::move(r));
    }
    out.Set("managedResources", std::move(list));
  }
  if (e.ignorable) out.Set("ignorable", Value::Bool(true));
  return out;
}

}  // namespace

Value EncodeConfig(const SchedulerConfiguration& cfg) {
  Value doc = Value::MakeObject();
  doc.Set("kind", Str("KubeSchedulerConfiguration"));
  doc.Set("apiVersion", Str(std::string(kApiVersion)));
  doc.Set("parallelism", Value::Int(cfg.parallelism));
  const LeaderElection& le = cfg.leader_election;
  Value lev = Value::MakeObject();
  lev.Set("leaderElect", Value::Bool(le.leader_elect));
  lev.Set("leaseDuration", Str(FormatGoDuration(le.lease_duration)));
  lev.Set("renewDeadline", Str(FormatGoDuration(le.renew_deadline)));
  lev.Set("retryPeriod", Str(FormatGoDuration(le.retry_period)));
  lev.Set("resourceLock", Str(le.resource_lock));
  lev.Set("resourceName", Str(le.resource_name));
  lev.Set("resourceNamespace", Str(le.resource_namespace));
  doc.Set("leaderElection", std::move(lev));
  const ClientConnection& cc = cfg.client_connection;
  Value ccv = Value::MakeObject();
  ccv.Set("kubeconfig", Str(cc.kubeconfig));
  ccv.Set("acceptContentTypes", Str(cc.accept_content_types));
  ccv.Set("contentType", Str(cc.content_type));
  ccv.Set("qps", Float32(cc.qps));
  ccv.Set("burst", Value::Int(cc.burst));
  doc.Set("clientConnection", std::move(ccv));
  doc.Set("enableProfiling", Value::Bool(cfg.enable_profiling));
  doc.Set("enableContentionProfiling", Value::Bool(cfg.enable_contention_profiling));
  doc.Set("percentageOfNodesToScore", Value::Int(cfg.percentage_of_nodes_to_score));
  doc.Set("podInitialBackoffSeconds", Value::Int(cfg.pod_initial_backoff_seconds));
  doc.Set("podMaxBackoffSeconds", Value::Int(cfg.pod_max_backoff_seconds));
  std::vector<std::string> ignored;
  for (const Extender& e : cfg.extenders) {
    for (const ManagedResource& m : e.managed_resources) {
      if (m.ignored_by_scheduler) ignored.push_back(m.name);
    }
  }
  Value profiles = Value::MakeArray();
  for (const Profile& p : cfg.profiles) profiles.Push(EncodeProfile(p, ignored));
  doc.Set("profiles", std::move(profiles));
  if (!cfg.extenders.empty()) {
    Value list = Value::MakeArray();
    for (const Extender& e : cfg.extenders) list.Push(EncodeExtender(e));
    doc.Set("extenders", std::move(list));
  }
  if (cfg.delay_cache_until_active) doc.Set("delayCacheUntilActive", Value::Bool(true));
  return doc;
}

std::string RenderConfigz(const SchedulerConfiguration& cfg) {
  Value root = Value::MakeObject();
  root.Set("componentconfig", EncodeConfig(cfg));
  return api::json::ToJson(root);
}

}  // namespace berth::config
