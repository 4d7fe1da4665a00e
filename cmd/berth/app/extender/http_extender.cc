#include "cmd/berth/app/extender/http_extender.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "base/log.h"
#include "cmd/berth/app/extender/wire.h"
#include "informers/client/config.h"
#include "informers/client/http_client.h"

namespace berth::extenders {
namespace {

using Clock = std::chrono::steady_clock;

std::string Seconds(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

std::vector<const api::Node*> Nodes(const std::vector<const framework::NodeInfo*>& infos) {
  std::vector<const api::Node*> out;
  out.reserve(infos.size());
  for (const auto* ni : infos) out.push_back(ni->node());
  return out;
}

bool HasManaged(const std::set<std::string, std::less<>>& managed,
                const std::vector<api::Container>& containers) {
  for (const auto& c : containers) {
    for (const auto& [name, q] : c.resources.requests) {
      if (managed.count(name)) return true;
    }
    for (const auto& [name, q] : c.resources.limits) {
      if (managed.count(name)) return true;
    }
  }
  return false;
}

// A file's contents or the inline data (both PEM). `field` names the config field for errors.
Result<std::string> PemFrom(const std::string& file, const std::string& data,
                            const std::string& field) {
  if (!data.empty()) return data;
  if (file.empty()) return std::string();
  auto read = client::ReadFileToString(file);
  if (!read.ok()) return Error{"tlsConfig." + field + ": " + read.error()};
  return std::move(*read);
}

}  // namespace

HttpExtender::HttpExtender(const config::Extender& cfg) : cfg_(cfg) {
  // Upstream's NewHTTPExtender: a zero timeout means DefaultExtenderTimeout.
  if (cfg_.http_timeout.count() == 0) cfg_.http_timeout = std::chrono::seconds(5);
  for (const auto& r : cfg_.managed_resources) managed_.insert(r.name);
}

HttpExtender::~HttpExtender() = default;

Result<std::unique_ptr<HttpExtender>> HttpExtender::Create(const config::Extender& cfg) {
  std::unique_ptr<HttpExtender> e(new HttpExtender(cfg));
  // Split "scheme://host:port/path" into the server and the path prefix.
  const std::string& url = cfg.url_prefix;
  const size_t scheme_end = url.find("://");
  const size_t path_start =
      scheme_end == std::string::npos ? std::string::npos : url.find('/', scheme_end + 3);
  auto target = client::ParseTarget(url.substr(0, path_start));
  if (!target.ok()) return Error{"urlPrefix: " + target.error()};
  if (path_start != std::string::npos) e->base_path_ = url.substr(path_start);
  while (!e->base_path_.empty() && e->base_path_.back() == '/') e->base_path_.pop_back();

  client::ClientConfig tls;
  if (target->tls) {
    if (cfg.tls_config) {
      const config::TLSConfig& t = *cfg.tls_config;
      tls.insecure_skip_tls_verify = t.insecure;
      tls.tls_server_name = t.server_name;
      auto ca = PemFrom(t.ca_file, t.ca_data, "caFile");
      if (!ca.ok()) return Error{ca.error()};
      tls.ca_pem = std::move(*ca);
      auto cert = PemFrom(t.cert_file, t.cert_data, "certFile");
      if (!cert.ok()) return Error{cert.error()};
      tls.client_cert_pem = std::move(*cert);
      auto key = PemFrom(t.key_file, t.key_data, "keyFile");
      if (!key.ok()) return Error{key.error()};
      tls.client_key_pem = std::move(*key);
      if (tls.client_cert_pem.empty() != tls.client_key_pem.empty()) {
        return Error{"tlsConfig: a client certificate needs both a certificate and a key"};
      }
    }
    // Upstream's makeTransport: enableHTTPS without a CA means "do not verify".
    if (cfg.enable_https && tls.ca_pem.empty() && !tls.insecure_skip_tls_verify) {
      tls.insecure_skip_tls_verify = true;
      // As upstream, but not silently: once per extender, when it is built.
      BERTH_LOG(0) << "warning: extender " << cfg.url_prefix
                   << ": enableHTTPS without tlsConfig.caFile/caData: the server's certificate "
                      "will NOT be verified";
    }
  }
  client::HttpClientOptions pool;
  pool.max_idle_connections = 4;
  auto http = client::HttpClient::Create(std::move(*target), tls, pool);
  if (!http.ok()) return Error{"tlsConfig: " + http.error()};
  e->http_ = std::move(*http);
  return e;
}

bool HttpExtender::IsInterested(const api::Pod& pod) const {
  if (managed_.empty()) return true;
  return HasManaged(managed_, pod.spec.containers) ||
         HasManaged(managed_, pod.spec.init_containers);
}

std::string HttpExtender::Url(const std::string& verb) const {
  std::string prefix = cfg_.url_prefix;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return prefix + "/" + verb;
}

Result<std::string> HttpExtender::Send(const std::string& verb, const std::string& body) {
  const std::string url = Url(verb);
  const Clock::time_point deadline = Clock::now() + cfg_.http_timeout;
  client::HttpRequest req;
  req.method = "POST";
  req.target = base_path_ + "/" + verb;
  req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  req.body = body;
  req.max_body_bytes = static_cast<uint64_t>(cfg_.max_response_bytes);
  auto res = http_->RoundTrip(req, deadline, /*replayable=*/true);
  if (auto* err = std::get_if<client::HttpError>(&res)) {
    if (err->body_too_large) {
      // Not kUnavailable: the extender answered, with more than berth reads.
      return Error{"extender at URL " + url + ": answer larger than " +
                   std::to_string(cfg_.max_response_bytes) + " bytes (maxResponseBytes)"};
    }
    std::string why = err->message;
    if (Clock::now() >= deadline) {
      why = "timed out after " + Seconds(cfg_.http_timeout) + " (httpTimeout)";
    }
    return Error{"extender at URL " + url + ": " + why, ErrorCode::kUnavailable};
  }
  client::Response& response = std::get<client::Response>(res);
  if (response.status != 200) {
    std::string snippet = response.body.substr(0, 200);
    while (!snippet.empty() && (snippet.back() == '\n' || snippet.back() == '\r')) {
      snippet.pop_back();
    }
    return Error{"failed " + verb + " with extender at URL " + url + ", code " +
                 std::to_string(response.status) + (snippet.empty() ? "" : ": " + snippet)};
  }
  return std::move(response.body);
}

Result<framework::ExtenderFilterOutcome> HttpExtender::Filter(
    const api::Pod& pod, const std::vector<const framework::NodeInfo*>& nodes) {
  framework::ExtenderFilterOutcome out;
  if (!IsFilter()) {
    out.passed = nodes;
    return out;
  }
  auto body =
      Send(cfg_.filter_verb, EncodeExtenderArgs(pod, Nodes(nodes), cfg_.node_cache_capable));
  if (!body.ok()) return body.status();
  const std::string where = "extender at URL " + Url(cfg_.filter_verb) + ": ";
  auto result = DecodeFilterResult(*body);
  if (!result.ok()) return Error{where + result.error()};
  if (!result->error.empty()) return Error{where + "Error: " + result->error};
  std::map<std::string_view, const framework::NodeInfo*> by_name;
  for (const auto* ni : nodes) by_name[ni->name()] = ni;
  // Upstream reads NodeNames for node-cache-capable extenders and Nodes otherwise (or when
  // NodeNames is null); a passing node that was not asked about is an error either way.
  const std::optional<std::vector<std::string>>& names =
      cfg_.node_cache_capable && result->node_names ? result->node_names : result->nodes;
  if (names) {
    for (const auto& name : *names) {
      auto it = by_name.find(name);
      if (it == by_name.end()) {
        return Error{"extender \"" + cfg_.url_prefix + "\" claims a filtered node \"" + name +
                     "\" which is not found in the input node list"};
      }
      out.passed.push_back(it->second);
    }
  }
  out.failed = std::move(result->failed_nodes);
  out.failed_and_unresolvable = std::move(result->failed_and_unresolvable_nodes);
  return out;
}

Result<std::vector<int64_t>> HttpExtender::Prioritize(
    const api::Pod& pod, const std::vector<const framework::NodeInfo*>& nodes) {
  std::vector<int64_t> scores(nodes.size(), 0);
  if (!IsPrioritizer()) return scores;
  auto body =
      Send(cfg_.prioritize_verb, EncodeExtenderArgs(pod, Nodes(nodes), cfg_.node_cache_capable));
  if (!body.ok()) return body.status();
  const std::string where = "extender at URL " + Url(cfg_.prioritize_verb) + ": ";
  auto list = DecodeHostPriorityList(*body);
  if (!list.ok()) return Error{where + list.error()};
  std::map<std::string_view, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i]->name()] = i;
  for (const auto& hp : *list) {
    auto it = index.find(hp.host);
    if (it == index.end()) {
      return Error{where + "scored node \"" + hp.host + "\" which it was not asked about"};
    }
    if (hp.score < framework::kMinExtenderPriority || hp.score > framework::kMaxExtenderPriority) {
      return Error{where + "score " + std::to_string(hp.score) + " for node \"" + hp.host +
                   "\" is outside 0..10"};
    }
    scores[it->second] = hp.score;
  }
  return scores;
}

Ok HttpExtender::Bind(const api::Pod& pod, const std::string& node) {
  if (!IsBinder()) return Error{"extender " + cfg_.url_prefix + " has no bindVerb"};
  auto body = Send(cfg_.bind_verb, EncodeBindingArgs(pod, node));
  if (!body.ok()) return body.status();
  auto err = DecodeBindingResult(*body);
  const std::string where = "extender at URL " + Url(cfg_.bind_verb) + ": ";
  if (!err.ok()) return Error{where + err.error()};
  if (!err->empty()) return Error{where + "Error: " + *err};
  return Ok();
}

Result<std::vector<std::unique_ptr<framework::Extender>>> BuildExtenders(
    config::SchedulerConfiguration* cfg) {
  std::vector<std::unique_ptr<framework::Extender>> regular, ignorable;
  std::vector<std::string> ignored_resources;
  for (size_t i = 0; i < cfg->extenders.size(); ++i) {
    const config::Extender& ec = cfg->extenders[i];
    auto e = HttpExtender::Create(ec);
    if (!e.ok()) return Error{"extenders[" + std::to_string(i) + "]." + e.error()};
    (ec.ignorable ? ignorable : regular).push_back(std::move(*e));
    for (const auto& r : ec.managed_resources) {
      if (r.ignored_by_scheduler) ignored_resources.push_back(r.name);
    }
  }
  for (auto& e : ignorable) regular.push_back(std::move(e));
  if (ignored_resources.empty()) return regular;
  for (config::Profile& profile : cfg->profiles) {
    config::PluginConfig* pc = nullptr;
    for (auto& c : profile.plugin_config) {
      if (c.name == "NodeResourcesFit") pc = &c;
    }
    if (pc == nullptr) {
      profile.plugin_config.push_back(config::PluginConfig{"NodeResourcesFit", api::Value(), ""});
      pc = &profile.plugin_config.back();
    }
    if (!pc->args.IsObject()) pc->args = api::Value::MakeObject();
    api::Value list = api::Value::MakeArray();
    std::set<std::string> seen;
    if (const api::Value* existing = pc->args.Find("ignoredResources");
        existing != nullptr && existing->IsArray()) {
      for (const auto& v : existing->AsArray()) {
        if (v.IsString() && seen.insert(v.AsString()).second) list.Push(v);
      }
    }
    for (const auto& r : ignored_resources) {
      if (seen.insert(r).second) list.Push(api::Value::String(r));
    }
    pc->args.Set("ignoredResources", std::move(list));
  }
  return regular;
}

}  // namespace berth::extenders
