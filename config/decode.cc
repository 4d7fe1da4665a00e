// Strict decoding of KubeSchedulerConfiguration v1 from a Value tree: unknown or duplicate fields
// and wrong types are errors, as with upstream's strict (UniversalDecoder) decoding. Nulls mean
// "absent", as Go's JSON decoder treats them for pointer and slice fields.

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "config/duration.h"
#include "config/internal.h"

namespace berth::config::internal {
namespace {

using api::Value;
using Handler = std::function<Ok(const Value&, const std::string&)>;

struct Field {
  std::string_view name;
  Handler handle;
};

std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

Error TypeError(const std::string& path, std::string_view want, const Value& got) {
  return Error{path + ": expected " + std::string(want) + ", got " + std::string(got.TypeName())};
}

// Decodes the members of object `v` through `fields`; any other member is an error.
Ok DecodeFields(const Value& v, const std::string& path, const std::vector<Field>& fields) {
  if (!v.IsObject()) return TypeError(path.empty() ? "<root>" : path, "object", v);
  std::vector<std::string_view> seen;
  for (const auto& [key, value] : v.AsObject()) {
    const std::string child = Child(path, key);
    for (std::string_view s : seen) {
      if (s == key) return Error{"strict decoding error: duplicate field \"" + child + "\""};
    }
    seen.push_back(key);
    const Field* field = nullptr;
    for (const Field& f : fields) {
      if (f.name == key) field = &f;
    }
    if (field == nullptr) return Error{"strict decoding error: unknown field \"" + child + "\""};
    if (value.IsNull()) continue;
    Ok r = field->handle(value, child);
    if (!r) return r;
  }
  return Ok();
}

Handler Ignore() {
  return [](const Value&, const std::string&) { return Ok(); };
}

Handler String(std::string* out) {
  return [out](const Value& v, const std::string& path) -> Ok {
    if (!v.IsString()) return TypeError(path, "string", v);
    *out = v.AsString();
    return Ok();
  };
}

Handler Bool(bool* out, bool* set = nullptr) {
  return [out, set](const Value& v, const std::string& path) -> Ok {
    if (!v.IsBool()) return TypeError(path, "boolean", v);
    *out = v.AsBool();
    if (set != nullptr) *set = true;
    return Ok();
  };
}

Handler Int64(int64_t* out) {
  return [out](const Value& v, const std::string& path) -> Ok {
    if (!v.IsInt()) return TypeError(path, "integer", v);
    *out = v.AsInt();
    return Ok();
  };
}

Ok ReadInt32(const Value& v, const std::string& path, int32_t* out) {
  if (!v.IsInt()) return TypeError(path, "integer", v);
  if (v.AsInt() < std::numeric_limits<int32_t>::min() ||
      v.AsInt() > std::numeric_limits<int32_t>::max()) {
    return Error{path + ": value " + std::to_string(v.AsInt()) + " out of range for int32"};
  }
  *out = static_cast<int32_t>(v.AsInt());
  return Ok();
}

Handler Int32(int32_t* out) {
  return [out](const Value& v, const std::string& path) { return ReadInt32(v, path, out); };
}

Handler OptionalInt32(std::optional<int32_t>* out) {
  return [out](const Value& v, const std::string& path) -> Ok {
    int32_t i = 0;
    Ok r = ReadInt32(v, path, &i);
    if (r) *out = i;
    return r;
  };
}

Handler Float(float* out) {
  return [out](const Value& v, const std::string& path) -> Ok {
    if (!v.IsNumber()) return TypeError(path, "number", v);
    *out = static_cast<float>(v.AsDouble());
    return Ok();
  };
}

// metav1.Duration: a Go duration string.
Handler Duration(std::chrono::milliseconds* out) {
  return [out](const Value& v, const std::string& path) -> Ok {
    if (!v.IsString()) {
      return Error{path + ": expected a duration string such as \"15s\", got " +
                   std::string(v.TypeName())};
    }
    auto d = ParseGoDuration(v.AsString());
    if (!d) return Error{path + ": " + d.error()};
    *out = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    return Ok();
  };
}

// []byte fields: standard base64 (padding optional, line breaks ignored), as encoding/json.
Handler Bytes(std::string* out) {
  return [out](const Value& v, const std::string& path) -> Ok {
    if (!v.IsString()) return TypeError(path, "base64 string", v);
    std::string decoded;
    uint32_t acc = 0;
    int bits = 0;
    bool padding = false;
    for (char c : v.AsString()) {
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
        return Error{path + ": illegal base64 data"};
      }
      if (padding) return Error{path + ": illegal base64 data"};
      acc = (acc << 6) | static_cast<uint32_t>(d);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        decoded.push_back(static_cast<char>((acc >> bits) & 0xFF));
      }
    }
    if (bits >= 6) return Error{path + ": illegal base64 data"};
    *out = std::move(decoded);
    return Ok();
  };
}

// A list whose elements are decoded by `elem(value, path, &element)`.
template <typename T>
Handler List(std::vector<T>* out, std::function<Ok(const Value&, const std::string&, T*)> elem) {
  return [out, elem = std::move(elem)](const Value& v, const std::string& path) -> Ok {
    if (!v.IsArray()) return TypeError(path, "array", v);
    out->clear();
    for (size_t i = 0; i < v.AsArray().size(); ++i) {
      T element;
      Ok r = elem(v.AsArray()[i], Index(path, i), &element);
      if (!r) return r;
      out->push_back(std::move(element));
    }
    return Ok();
  };
}

Ok DecodePluginRef(const Value& v, const std::string& path, PluginRef* out) {
  return DecodeFields(v, path, {{"name", String(&out->name)}, {"weight", Int32(&out->weight)}});
}

// `disabled` entries are Plugin objects upstream too; only the name matters.
Ok DecodeDisabled(const Value& v, const std::string& path, std::string* out) {
  int32_t ignored_weight = 0;
  return DecodeFields(v, path, {{"name", String(out)}, {"weight", Int32(&ignored_weight)}});
}

Handler PluginSetField(PluginSet* out) {
  return [out](const Value& v, const std::string& path) {
    return DecodeFields(v, path,
                        {{"enabled", List<PluginRef>(&out->enabled, DecodePluginRef)},
                         {"disabled", List<std::string>(&out->disabled, DecodeDisabled)}});
  };
}

Ok DecodePlugins(const Value& v, const std::string& path, Plugins* out) {
  std::vector<Field> fields;
  for (const ExtensionPoint& ep : kExtensionPoints) {
    fields.push_back({ep.name, PluginSetField(&(out->*ep.set))});
  }
  fields.push_back({kMultiPoint.name, PluginSetField(&(out->*kMultiPoint.set))});
  return DecodeFields(v, path, fields);
}

Ok DecodePluginConfig(const Value& v, const std::string& path, PluginConfig* out) {
  out->path = Child(path, "args");
  return DecodeFields(
      v, path,
      {{"name", String(&out->name)}, {"args", [out](const Value& args, const std::string&) {
                                        out->args = args;
                                        return Ok();
                                      }}});
}

Ok DecodeProfile(const Value& v, const std::string& path, Profile* out, bool* name_set) {
  return DecodeFields(
      v, path,
      {{"schedulerName",
        [out, name_set](const Value& name, const std::string& p) {
          *name_set = true;
          return String(&out->scheduler_name)(name, p);
        }},
       {"percentageOfNodesToScore", OptionalInt32(&out->percentage_of_nodes_to_score)},
       {"plugins",
        [out](const Value& plugins, const std::string& p) {
          return DecodePlugins(plugins, p, &out->plugins);
        }},
       {"pluginConfig", List<PluginConfig>(&out->plugin_config, DecodePluginConfig)}});
}

Ok DecodeTLSConfig(const Value& v, const std::string& path, TLSConfig* out) {
  return DecodeFields(v, path,
                      {{"insecure", Bool(&out->insecure)},
                       {"serverName", String(&out->server_name)},
                       {"certFile", String(&out->cert_file)},
                       {"keyFile", String(&out->key_file)},
                       {"caFile", String(&out->ca_file)},
                       {"certData", Bytes(&out->cert_data)},
                       {"keyData", Bytes(&out->key_data)},
                       {"caData", Bytes(&out->ca_data)}});
}

Ok DecodeManagedResource(const Value& v, const std::string& path, ManagedResource* out) {
  return DecodeFields(
      v, path,
      {{"name", String(&out->name)}, {"ignoredByScheduler", Bool(&out->ignored_by_scheduler)}});
}

Ok DecodeExtender(const Value& v, const std::string& path, Extender* out) {
  return DecodeFields(
      v, path,
      {{"urlPrefix", String(&out->url_prefix)},
       {"filterVerb", String(&out->filter_verb)},
       {"preemptVerb", String(&out->preempt_verb)},
       {"prioritizeVerb", String(&out->prioritize_verb)},
       {"bindVerb", String(&out->bind_verb)},
       {"weight", Int64(&out->weight)},
       {"enableHTTPS", Bool(&out->enable_https)},
       {"tlsConfig",
        [out](const Value& tls, const std::string& p) {
          out->tls_config.emplace();
          return DecodeTLSConfig(tls, p, &*out->tls_config);
        }},
       {"httpTimeout", Duration(&out->http_timeout)},
       {"nodeCacheCapable", Bool(&out->node_cache_capable)},
       {"managedResources", List<ManagedResource>(&out->managed_resources, DecodeManagedResource)},
       {"ignorable", Bool(&out->ignorable)}});
}

Handler LeaderElectionField(LeaderElection* out) {
  return [out](const Value& v, const std::string& path) {
    return DecodeFields(v, path,
                        {{"leaderElect", Bool(&out->leader_elect)},
                         {"leaseDuration", Duration(&out->lease_duration)},
                         {"renewDeadline", Duration(&out->renew_deadline)},
                         {"retryPeriod", Duration(&out->retry_period)},
                         {"resourceLock", String(&out->resource_lock)},
                         {"resourceName", String(&out->resource_name)},
                         {"resourceNamespace", String(&out->resource_namespace)}});
  };
}

Handler ClientConnectionField(ClientConnection* out) {
  return [out](const Value& v, const std::string& path) {
    return DecodeFields(v, path,
                        {{"kubeconfig", String(&out->kubeconfig)},
                         {"acceptContentTypes", String(&out->accept_content_types)},
                         {"contentType", String(&out->content_type)},
                         {"qps", Float(&out->qps)},
                         {"burst", Int32(&out->burst)}});
  };
}

}  // namespace

Result<Decoded> Decode(const Value& root) {
  Decoded d;
  SchedulerConfiguration& c = d.config;
  Ok r = DecodeFields(root, "",
                      {{"apiVersion", Ignore()},
                       {"kind", Ignore()},
                       {"parallelism", Int32(&c.parallelism)},
                       {"leaderElection", LeaderElectionField(&c.leader_election)},
                       {"clientConnection", ClientConnectionField(&c.client_connection)},
                       {"enableProfiling", Bool(&c.enable_profiling)},
                       {"enableContentionProfiling",
                        Bool(&c.enable_contention_profiling, &d.contention_profiling_set)},
                       {"percentageOfNodesToScore", Int32(&c.percentage_of_nodes_to_score)},
                       {"podInitialBackoffSeconds", Int64(&c.pod_initial_backoff_seconds)},
                       {"podMaxBackoffSeconds", Int64(&c.pod_max_backoff_seconds)},
                       {"profiles",
                        [&d](const Value& v, const std::string& path) -> Ok {
                          if (!v.IsArray()) return TypeError(path, "array", v);
                          for (size_t i = 0; i < v.AsArray().size(); ++i) {
                            Profile profile;
                            bool name_set = false;
                            Ok pr =
                                DecodeProfile(v.AsArray()[i], Index(path, i), &profile, &name_set);
                            if (!pr) return pr;
                            d.config.profiles.push_back(std::move(profile));
                            d.scheduler_name_set.push_back(name_set);
                          }
                          return Ok();
                        }},
                       {"extenders", List<Extender>(&c.extenders, DecodeExtender)},
                       {"delayCacheUntilActive", Bool(&c.delay_cache_until_active)}});
  if (!r) return Error{r.error()};
  return d;
}

}  // namespace berth::config::internal
