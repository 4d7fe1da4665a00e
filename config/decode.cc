// Strict decoding of KubeSchedulerConfiguration v1 from a Value tree through api::Reader in
// kStrict mode: unknown or duplicate fields and wrong types are errors, as with upstream's strict
// (UniversalDecoder) decoding. Nulls mean "absent", as Go's JSON decoder treats them for pointer
// and slice fields.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/reader.h"
#include "config/duration.h"
#include "config/internal.h"

namespace berth::config::internal {
namespace {

using api::Reader;
using api::Value;

// metav1.Duration: a Go duration string.
Ok ReadDuration(const Reader& in, std::string_view key, std::chrono::milliseconds* out) {
  const Value* v = in.Get(key);
  if (v == nullptr) return Ok();
  const std::string path = in.PathOf(key);
  if (!v->IsString()) return api::TypeError(path, "a duration string such as \"15s\"", *v);
  auto d = ParseGoDuration(v->AsString());
  if (!d) return api::PathError(path, d.error());
  *out = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
  return Ok();
}

// []byte fields: standard base64 (padding optional, line breaks ignored), as encoding/json.
Ok ReadBytes(const Reader& in, std::string_view key, std::string* out) {
  const Value* v = in.Get(key);
  if (v == nullptr) return Ok();
  const std::string path = in.PathOf(key);
  if (!v->IsString()) return api::TypeError(path, "base64 string", *v);
  const Error illegal = api::PathError(path, "illegal base64 data");
  std::string decoded;
  uint32_t acc = 0;
  int bits = 0;
  bool padding = false;
  for (char c : v->AsString()) {
    int d;
    if (c >= 'A' && c <= 'Z') {
      d = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      d = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      d = c - '0' + 52;
    } else if (c == '+') {
      d = 62;
    } else if (c == '/') {
      d = 63;
    } else if (c == '\n' || c == '\r') {
      continue;
    } else if (c == '=') {
      padding = true;
      continue;
    } else {
      return illegal;
    }
    if (padding) return illegal;
    acc = (acc << 6) | static_cast<uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      decoded.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (bits >= 6) return illegal;
  *out = std::move(decoded);
  return Ok();
}

Ok ReadFloat(const Reader& in, std::string_view key, float* out) {
  std::optional<double> d;
  BERTH_RETURN_IF_ERROR(in.OptDouble(key, &d));
  if (d.has_value()) *out = static_cast<float>(*d);
  return Ok();
}

Ok DecodePluginRef(const Reader& in, PluginRef* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  return in.Int32("weight", &out->weight);
}

// `disabled` entries are Plugin objects upstream too; only the name matters.
Ok DecodeDisabled(const Reader& in, std::string* out) {
  int32_t ignored_weight = 0;
  BERTH_RETURN_IF_ERROR(in.String("name", out));
  return in.Int32("weight", &ignored_weight);
}

Ok DecodePluginSet(const Reader& in, PluginSet* out) {
  BERTH_RETURN_IF_ERROR(in.List("enabled", &out->enabled, DecodePluginRef));
  return in.List("disabled", &out->disabled, DecodeDisabled);
}

Ok DecodePlugins(const Reader& in, Plugins* out) {
  for (const ExtensionPoint& ep : kExtensionPoints) {
    BERTH_RETURN_IF_ERROR(in.Object(
        ep.name, [&](const Reader& set) { return DecodePluginSet(set, &(out->*ep.set)); }));
  }
  for (const PodGroupExtensionPoint& pg : kPodGroupExtensionPoints) {
    BERTH_RETURN_IF_ERROR(in.Object(pg.point.name, [&](const Reader& set) {
      return DecodePluginSet(set, &(out->*pg.point.set));
    }));
  }
  return in.Object(kMultiPoint.name, [&](const Reader& set) {
    return DecodePluginSet(set, &(out->*kMultiPoint.set));
  });
}

Ok DecodePluginConfig(const Reader& in, PluginConfig* out) {
  out->path = in.PathOf("args");
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  if (const Value* args = in.Get("args")) out->args = *args;
  return Ok();
}

struct ProfileEntry {
  Profile profile;
  bool name_set = false;
};

Ok DecodeProfile(const Reader& in, ProfileEntry* out) {
  Profile& p = out->profile;
  out->name_set = in.Get("schedulerName") != nullptr;
  BERTH_RETURN_IF_ERROR(in.String("schedulerName", &p.scheduler_name));
  BERTH_RETURN_IF_ERROR(in.OptInt32("percentageOfNodesToScore", &p.percentage_of_nodes_to_score));
  BERTH_RETURN_IF_ERROR(in.Object(
      "plugins", [&](const Reader& plugins) { return DecodePlugins(plugins, &p.plugins); }));
  return in.List("pluginConfig", &p.plugin_config, DecodePluginConfig);
}

Ok DecodeTLSConfig(const Reader& in, TLSConfig* out) {
  BERTH_RETURN_IF_ERROR(in.Bool("insecure", &out->insecure));
  BERTH_RETURN_IF_ERROR(in.String("serverName", &out->server_name));
  BERTH_RETURN_IF_ERROR(in.String("certFile", &out->cert_file));
  BERTH_RETURN_IF_ERROR(in.String("keyFile", &out->key_file));
  BERTH_RETURN_IF_ERROR(in.String("caFile", &out->ca_file));
  BERTH_RETURN_IF_ERROR(ReadBytes(in, "certData", &out->cert_data));
  BERTH_RETURN_IF_ERROR(ReadBytes(in, "keyData", &out->key_data));
  return ReadBytes(in, "caData", &out->ca_data);
}

Ok DecodeManagedResource(const Reader& in, ManagedResource* out) {
  BERTH_RETURN_IF_ERROR(in.String("name", &out->name));
  return in.Bool("ignoredByScheduler", &out->ignored_by_scheduler);
}

Ok DecodeExtender(const Reader& in, Extender* out) {
  BERTH_RETURN_IF_ERROR(in.String("urlPrefix", &out->url_prefix));
  BERTH_RETURN_IF_ERROR(in.String("filterVerb", &out->filter_verb));
  BERTH_RETURN_IF_ERROR(in.String("preemptVerb", &out->preempt_verb));
  BERTH_RETURN_IF_ERROR(in.String("prioritizeVerb", &out->prioritize_verb));
  BERTH_RETURN_IF_ERROR(in.String("bindVerb", &out->bind_verb));
  BERTH_RETURN_IF_ERROR(in.Int64("weight", &out->weight));
  BERTH_RETURN_IF_ERROR(in.Bool("enableHTTPS", &out->enable_https));
  BERTH_RETURN_IF_ERROR(in.Object("tlsConfig", [&](const Reader& tls) {
    out->tls_config.emplace();
    return DecodeTLSConfig(tls, &*out->tls_config);
  }));
  BERTH_RETURN_IF_ERROR(ReadDuration(in, "httpTimeout", &out->http_timeout));
  BERTH_RETURN_IF_ERROR(in.Bool("nodeCacheCapable", &out->node_cache_capable));
  BERTH_RETURN_IF_ERROR(
      in.List("managedResources", &out->managed_resources, DecodeManagedResource));
  BERTH_RETURN_IF_ERROR(in.Int64("maxResponseBytes", &out->max_response_bytes));
  return in.Bool("ignorable", &out->ignorable);
}

Ok DecodeLeaderElection(const Reader& in, LeaderElection* out) {
  BERTH_RETURN_IF_ERROR(in.Bool("leaderElect", &out->leader_elect));
  BERTH_RETURN_IF_ERROR(ReadDuration(in, "leaseDuration", &out->lease_duration));
  BERTH_RETURN_IF_ERROR(ReadDuration(in, "renewDeadline", &out->renew_deadline));
  BERTH_RETURN_IF_ERROR(ReadDuration(in, "retryPeriod", &out->retry_period));
  BERTH_RETURN_IF_ERROR(in.String("resourceLock", &out->resource_lock));
  BERTH_RETURN_IF_ERROR(in.String("resourceName", &out->resource_name));
  return in.String("resourceNamespace", &out->resource_namespace);
}

Ok DecodeClientConnection(const Reader& in, ClientConnection* out) {
  BERTH_RETURN_IF_ERROR(in.String("kubeconfig", &out->kubeconfig));
  BERTH_RETURN_IF_ERROR(in.String("acceptContentTypes", &out->accept_content_types));
  BERTH_RETURN_IF_ERROR(in.String("contentType", &out->content_type));
  BERTH_RETURN_IF_ERROR(ReadFloat(in, "qps", &out->qps));
  return in.Int32("burst", &out->burst);
}

Ok DecodeRoot(const Reader& in, Decoded* d) {
  SchedulerConfiguration& c = d->config;
  in.Ignore("apiVersion");
  in.Ignore("kind");
  BERTH_RETURN_IF_ERROR(in.Int32("parallelism", &c.parallelism));
  BERTH_RETURN_IF_ERROR(in.Object("leaderElection", [&](const Reader& le) {
    return DecodeLeaderElection(le, &c.leader_election);
  }));
  BERTH_RETURN_IF_ERROR(in.Object("clientConnection", [&](const Reader& cc) {
    return DecodeClientConnection(cc, &c.client_connection);
  }));
  BERTH_RETURN_IF_ERROR(in.Bool("enableProfiling", &c.enable_profiling));
  d->contention_profiling_set = in.Get("enableContentionProfiling") != nullptr;
  BERTH_RETURN_IF_ERROR(in.Bool("enableContentionProfiling", &c.enable_contention_profiling));
  BERTH_RETURN_IF_ERROR(in.Int32("percentageOfNodesToScore", &c.percentage_of_nodes_to_score));
  BERTH_RETURN_IF_ERROR(in.Int64("podInitialBackoffSeconds", &c.pod_initial_backoff_seconds));
  BERTH_RETURN_IF_ERROR(in.Int64("podMaxBackoffSeconds", &c.pod_max_backoff_seconds));
  std::vector<ProfileEntry> profiles;
  BERTH_RETURN_IF_ERROR(in.List("profiles", &profiles, DecodeProfile));
  for (ProfileEntry& p : profiles) {
    c.profiles.push_back(std::move(p.profile));
    d->scheduler_name_set.push_back(p.name_set);
  }
  BERTH_RETURN_IF_ERROR(in.List("extenders", &c.extenders, DecodeExtender));
  return in.Bool("delayCacheUntilActive", &c.delay_cache_until_active);
}

}  // namespace

Result<Decoded> Decode(const Value& root) {
  return api::ReadObject<Decoded>(root, "", api::kStrict, DecodeRoot);
}

}  // namespace berth::config::internal
