#include "cmd/berth/app/serving/delegated_auth.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "api/json/parse.h"
#include "api/value.h"
#include "base/log.h"
#include "cmd/berth/app/serving/auth_cache.h"
#include "cmd/berth/app/serving/client_cert.h"

namespace berth::serving {
namespace {

using Clock = std::chrono::steady_clock;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// HTML-escapes &, < and >, as upstream's responsewriters sanitizer does for Forbidden messages.
std::string Sanitize(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

// %XX-decoding of request-header extra keys, as upstream's url.PathUnescape (a malformed escape
// leaves the key as it is).
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else if (s[i] == '%') {
      return s;
    } else {
      out += s[i];
    }
  }
  return out;
}

// What a cached answer holds beyond its struct (its strings' characters), for the byte budgets.
size_t StringsBytes(const UserInfo& u) {
  size_t n = u.name.size() + u.uid.size();
  for (const auto& g : u.groups) n += sizeof(std::string) + g.size();
  for (const auto& [k, values] : u.extra) {
    n += 64 + k.size();  // the map node
    for (const auto& v : values) n += sizeof(std::string) + v.size();
  }
  return n;
}

// A SubjectAccessReview's answer.
struct AccessDecision {
  bool allowed = false;
  bool denied = false;
  std::string reason;
};

// Same limit as upstream's webhook authorizer (maxControlledAttrCacheSize): a request whose
// requester-controlled attributes (verb and path) are this large is not cached, as it may be a
// DoS attempt.
constexpr size_t kMaxControlledAttrCacheSize = 10000;

// Fixed worker threads running queued tasks; queued tasks are dropped at destruction.
class WorkerPool {
 public:
  WorkerPool(int workers, size_t max_queue) : max_queue_(max_queue) {
    for (int i = 0; i < std::max(1, workers); ++i) {
      threads_.emplace_back([this] { Work(); });
    }
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      queue_.clear();
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // False when the queue is full.
  bool Submit(std::function<void()> task) {
    {
      std::lock_guard lock(mu_);
      if (queue_.size() >= max_queue_) return false;
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
    return true;
  }

 private:
  void Work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  const size_t max_queue_;
  std::mutex mu_;  // guards stop_ and queue_
  std::condition_variable cv_;
  bool stop_ = false;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
};

// The answer of a review's POST, or why there is none.
Result<api::Value> PostReview(client::KubeClient& client, const std::string& path,
                              const api::Value& body, std::chrono::milliseconds timeout,
                              const std::string& what) {
  client::Request req;
  req.method = "POST";
  req.path = path;
  req.body = api::json::ToJson(body);
  req.timeout = timeout;
  auto resp = client.Do(req);
  if (!resp.ok()) return Error{what + ": " + resp.error(), ErrorCode::kUnavailable};
  if (resp->status != 200 && resp->status != 201) {
    return Error{what + ": HTTP " + std::to_string(resp->status) + ": " + resp->body.substr(0, 300),
                 ErrorCode::kUnavailable};
  }
  auto parsed = api::json::ParseJson(resp->body);
  if (!parsed.ok()) return Error{what + ": " + parsed.error()};
  return std::move(*parsed);
}

const std::string* StringAt(const api::Value* v, const char* key) {
  const api::Value* f = v ? v->Find(key) : nullptr;
  return f && f->IsString() ? &f->AsString() : nullptr;
}

std::vector<std::string> StringsAt(const api::Value* v, const char* key) {
  std::vector<std::string> out;
  const api::Value* f = v ? v->Find(key) : nullptr;
  if (!f || !f->IsArray()) return out;
  for (const auto& s : f->AsArray()) {
    if (s.IsString()) out.push_back(s.AsString());
  }
  return out;
}

api::Value StringArray(const std::vector<std::string>& items) {
  api::Value a = api::Value::MakeArray();
  for (const auto& s : items) a.Push(api::Value::String(s));
  return a;
}

// A decision in the making: set when made, nullopt when it needs an API call.
template <typename T>
using Maybe = std::optional<T>;

}  // namespace

HttpReply UnauthorizedReply() {
  return HttpReply{
      401,
      "application/json",
      "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
      "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n",
      {}};
}

HttpReply ForbiddenReply(const std::string& user, const std::string& verb, const std::string& path,
                         const std::string& reason) {
  // Same message as upstream's responsewriters.forbiddenMessage for a non-resource request.
  std::string message =
      Sanitize("User " + api::json::ToJson(api::Value::String(user)) + " cannot " + verb +
               " path " + api::json::ToJson(api::Value::String(path)));
  if (!reason.empty()) message += ": " + reason;
  api::Value status = api::Value::MakeObject();
  status.Set("kind", api::Value::String("Status"));
  status.Set("apiVersion", api::Value::String("v1"));
  status.Set("metadata", api::Value::MakeObject());
  status.Set("status", api::Value::String("Failure"));
  status.Set("message", api::Value::String("forbidden: " + message));
  status.Set("reason", api::Value::String("Forbidden"));
  status.Set("details", api::Value::MakeObject());
  status.Set("code", api::Value::Int(403));
  return HttpReply{403, "application/json", api::json::ToJson(status) + "\n", {}};
}

HttpReply InternalErrorReply(const std::string& target, const std::string& why) {
  // Go's http.Error body for upstream's responsewriters.InternalError.
  return HttpReply{500,
                   "text/plain; charset=utf-8",
                   Sanitize("Internal Server Error: " +
                            api::json::ToJson(api::Value::String(target)) + ": " + why) +
                       "\n",
                   {}};
}

struct DelegatedAuth::Impl {
  DelegatedAuthConfig config;
  std::unique_ptr<CertVerifier> client_ca;
  std::unique_ptr<CertVerifier> request_header_ca;
  std::vector<std::string> allow_paths;                      // exact, without the leading "/"
  std::vector<std::string> allow_prefixes;                   // from "x*", without the leading "/"
  TokenCacheKey token_key;                                   // set by Create
  std::unique_ptr<ExpiringLruCache<Authentication>> tokens;  // by TokenCacheKey::Of(token)
  std::unique_ptr<ExpiringLruCache<AccessDecision>> access;  // by the SAR spec's JSON
  std::atomic<uint64_t> token_reviews{0};
  std::atomic<uint64_t> access_reviews{0};
  // Last: joined (in its destructor) before the members its tasks use are destroyed.
  std::unique_ptr<WorkerPool> pool;

  Clock::time_point Now() const { return config.now ? config.now() : Clock::now(); }

  // ---- Authentication ----

  static std::vector<std::string> HeaderValues(const RequestCredentials& req,
                                               const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const auto& name : names) {
      const std::string lower = Lower(name);
      for (const auto& [h, v] : req.headers) {
        if (h == lower && !v.empty()) out.push_back(v);
      }
    }
    return out;
  }

  // Front proxy: nullopt when it does not apply; an Authentication (ok or failed) when it does.
  std::optional<Authentication> FromRequestHeader(const RequestCredentials& req) {
    if (!request_header_ca || req.peer_certificates.empty()) return std::nullopt;
    const RequestHeaderConfig& rh = *config.request_header;
    auto id = request_header_ca->Verify(req.peer_certificates);
    if (!id.ok()) return Authentication{false, {}, "request header: " + id.error()};
    if (!rh.allowed_names.empty() && std::find(rh.allowed_names.begin(), rh.allowed_names.end(),
                                               id->common_name) == rh.allowed_names.end()) {
      return Authentication{false,
                            {},
                            "request header: x509: subject with cn=" + id->common_name +
                                " is not in the allowed list"};
    }
    // The first non-empty username header, as upstream's headerValue.
    std::string name;
    for (const auto& h : rh.username_headers) {
      auto values = HeaderValues(req, {h});
      if (!values.empty()) {
        name = values.front();
        break;
      }
    }
    if (name.empty()) return std::nullopt;
    Authentication a;
    a.ok = true;
    a.user.name = name;
    for (const auto& h : rh.uid_headers) {
      auto values = HeaderValues(req, {h});
      if (!values.empty()) {
        a.user.uid = values.front();
        break;
      }
    }
    a.user.groups = HeaderValues(req, rh.group_headers);
    for (const auto& prefix : rh.extra_header_prefixes) {
      const std::string lower = Lower(prefix);
      for (const auto& [h, v] : req.headers) {
        if (h.size() <= lower.size() || h.compare(0, lower.size(), lower) != 0) continue;
        a.user.extra[Lower(Unescape(h.substr(lower.size())))].push_back(v);
      }
    }
    return a;
  }

  std::optional<Authentication> FromClientCert(const RequestCredentials& req) {
    if (!client_ca || req.peer_certificates.empty()) return std::nullopt;
    auto id = client_ca->Verify(req.peer_certificates);
    if (!id.ok()) return Authentication{false, {}, "client certificate: " + id.error()};
    Authentication a;
    a.ok = true;
    a.user.name = id->common_name;
    a.user.groups = id->organizations;
    return a;
  }

  // The bearer token, or "" when there is none (upstream's bearertoken authenticator).
  static std::string BearerToken(const RequestCredentials& req) {
    for (const auto& [h, v] : req.headers) {
      if (h != "authorization") continue;
      size_t b = v.find_first_not_of(" \t");
      size_t e = v.find_last_not_of(" \t");
      if (b == std::string::npos) return "";
      std::string auth = v.substr(b, e - b + 1);
      size_t sp = auth.find(' ');
      if (sp == std::string::npos || Lower(auth.substr(0, sp)) != "bearer") return "";
      std::string rest = auth.substr(sp + 1);
      return rest.substr(0, rest.find(' '));
    }
    return "";
  }

  // Caches the answer under `key` (TokenCacheKey::Of(token)), for token_ttl whether the token
  // authenticated or not (upstream's delegating CacheTTL for both); errors are not cached.
  void CacheToken(std::string key, const Authentication& a) {
    if (config.token_ttl <= std::chrono::milliseconds::zero()) return;  // upstream: 0 = no cache
    const Clock::time_point now = Now();
    tokens->Put(std::move(key), a, StringsBytes(a.user) + a.error.size(), now + config.token_ttl,
                now);
  }

  Authentication ReviewToken(const std::string& token, std::string key) {
    token_reviews.fetch_add(1, std::memory_order_relaxed);
    api::Value spec = api::Value::MakeObject();
    spec.Set("token", api::Value::String(token));
    api::Value body = api::Value::MakeObject();
    body.Set("apiVersion", api::Value::String("authentication.k8s.io/v1"));
    body.Set("kind", api::Value::String("TokenReview"));
    body.Set("spec", std::move(spec));
    auto answer = PostReview(*config.authn_client, "/apis/authentication.k8s.io/v1/tokenreviews",
                             body, config.review_timeout, "TokenReview");
    if (!answer.ok()) return Authentication{false, {}, answer.error()};
    const api::Value* status = answer->Find("status");
    const api::Value* authenticated = status ? status->Find("authenticated") : nullptr;
    if (!authenticated || !authenticated->IsBool() || !authenticated->AsBool()) {
      const std::string* why = StringAt(status, "error");
      Authentication a{false, {}, "invalid bearer token"};
      if (why && !why->empty()) a.error += ": " + *why;
      CacheToken(std::move(key), a);
      return a;
    }
    const api::Value* user = status->Find("user");
    Authentication a;
    a.ok = true;
    if (const std::string* n = StringAt(user, "username")) a.user.name = *n;
    if (const std::string* u = StringAt(user, "uid")) a.user.uid = *u;
    a.user.groups = StringsAt(user, "groups");
    if (const api::Value* extra = user ? user->Find("extra") : nullptr;
        extra && extra->IsObject()) {
      for (const auto& [k, _] : extra->AsObject()) a.user.extra[k] = StringsAt(extra, k.c_str());
    }
    CacheToken(std::move(key), a);
    return a;
  }

  // Upstream's union: the first success wins; failures are kept for the 401 when none succeeds;
  // nothing at all is anonymous.
  Maybe<Authentication> Authenticate(const RequestCredentials& req, bool network) {
    std::vector<std::string> errors;
    auto finish = [](Authentication a) {
      // group.AuthenticatedGroupAdder
      if (std::find(a.user.groups.begin(), a.user.groups.end(), kAuthenticatedGroup) ==
              a.user.groups.end() &&
          a.user.name != kAnonymousUser) {
        a.user.groups.push_back(kAuthenticatedGroup);
      }
      return a;
    };
    for (auto step : {&Impl::FromRequestHeader, &Impl::FromClientCert}) {
      if (auto a = (this->*step)(req)) {
        if (a->ok) return finish(std::move(*a));
        errors.push_back(a->error);
      }
    }
    if (config.authn_client != nullptr) {
      if (std::string token = BearerToken(req); !token.empty()) {
        std::string key = token_key.Of(token);
        auto a = tokens->Get(key, Now());
        if (!a) {
          if (!network) return std::nullopt;
          a = ReviewToken(token, std::move(key));
        }
        if (a->ok) return finish(std::move(*a));
        errors.push_back(a->error);
      }
    }
    if (!errors.empty()) {
      Authentication failed;
      for (const auto& e : errors) failed.error += (failed.error.empty() ? "" : "; ") + e;
      return failed;
    }
    Authentication anonymous;
    anonymous.ok = true;
    anonymous.user.name = kAnonymousUser;
    anonymous.user.groups = {kUnauthenticatedGroup};
    return anonymous;
  }

  // ---- Authorization ----

  bool PathAlwaysAllowed(const std::string& path) const {
    std::string p = path.rfind('/', 0) == 0 ? path.substr(1) : path;
    if (std::find(allow_paths.begin(), allow_paths.end(), p) != allow_paths.end()) return true;
    return std::any_of(allow_prefixes.begin(), allow_prefixes.end(),
                       [&](const std::string& prefix) { return p.rfind(prefix, 0) == 0; });
  }

  static api::Value AccessReviewSpec(const UserInfo& user, const std::string& verb,
                                     const std::string& path) {
    api::Value attrs = api::Value::MakeObject();
    attrs.Set("path", api::Value::String(path));
    attrs.Set("verb", api::Value::String(verb));
    api::Value spec = api::Value::MakeObject();
    spec.Set("nonResourceAttributes", std::move(attrs));
    spec.Set("user", api::Value::String(user.name));
    spec.Set("groups", StringArray(user.groups));
    if (!user.extra.empty()) {
      api::Value extra = api::Value::MakeObject();
      for (const auto& [k, v] : user.extra) extra.Set(k, StringArray(v));
      spec.Set("extra", std::move(extra));
    }
    if (!user.uid.empty()) spec.Set("uid", api::Value::String(user.uid));
    return spec;
  }

  // Caches the answer under `key` for allow_ttl when allowed, deny_ttl otherwise (upstream's
  // AllowCacheTTL / DenyCacheTTL), unless the requester-controlled attributes are too large.
  void CacheAccess(std::string key, const AccessDecision& d, const std::string& verb,
                   const std::string& path) {
    const std::chrono::milliseconds ttl = d.allowed ? config.allow_ttl : config.deny_ttl;
    if (ttl <= std::chrono::milliseconds::zero()) return;
    if (verb.size() + path.size() >= kMaxControlledAttrCacheSize) return;
    const Clock::time_point now = Now();
    access->Put(std::move(key), d, d.reason.size(), now + ttl, now);
  }

  Result<AccessDecision> ReviewAccess(const api::Value& spec, std::string key,
                                      const std::string& verb, const std::string& path) {
    access_reviews.fetch_add(1, std::memory_order_relaxed);
    api::Value body = api::Value::MakeObject();
    body.Set("apiVersion", api::Value::String("authorization.k8s.io/v1"));
    body.Set("kind", api::Value::String("SubjectAccessReview"));
    body.Set("spec", spec);
    auto answer =
        PostReview(*config.authz_client, "/apis/authorization.k8s.io/v1/subjectaccessreviews", body,
                   config.review_timeout, "SubjectAccessReview");
    if (!answer.ok()) return Error{answer.status()};
    const api::Value* status = answer->Find("status");
    AccessDecision d;
    if (const api::Value* a = status ? status->Find("allowed") : nullptr; a && a->IsBool()) {
      d.allowed = a->AsBool();
    }
    if (const api::Value* a = status ? status->Find("denied") : nullptr; a && a->IsBool()) {
      d.denied = a->AsBool();
    }
    if (const std::string* r = StringAt(status, "reason")) d.reason = *r;
    CacheAccess(std::move(key), d, verb, path);
    return d;
  }

  // nullopt = allowed; a reply = refused; Maybe empty = needs an API call.
  Maybe<std::optional<HttpReply>> Decide(const RequestCredentials& req, bool network) {
    auto authn = Authenticate(req, network);
    if (!authn) return std::nullopt;
    if (!authn->ok) {
      BERTH_LOG(2) << "http: unable to authenticate a request to " << req.path << ": "
                   << authn->error;
      return std::optional<HttpReply>(UnauthorizedReply());
    }
    const UserInfo& user = authn->user;
    for (const auto& g : user.groups) {
      if (std::find(config.always_allow_groups.begin(), config.always_allow_groups.end(), g) !=
          config.always_allow_groups.end()) {
        return std::optional<HttpReply>();
      }
    }
    if (PathAlwaysAllowed(req.path)) return std::optional<HttpReply>();
    const std::string verb = Lower(req.method);
    std::string reason;
    if (config.authz_client != nullptr) {
      api::Value spec = AccessReviewSpec(user, verb, req.path);
      std::string key = api::json::ToJson(spec);
      auto d = access->Get(key, Now());
      if (!d) {
        if (!network) return std::nullopt;
        auto reviewed = ReviewAccess(spec, std::move(key), verb, req.path);
        if (!reviewed.ok()) {
          BERTH_ERROR() << "http: authorizing " << user.name << " to " << verb << " " << req.path
                        << ": " << reviewed.error();
          return std::optional<HttpReply>(InternalErrorReply(req.target, reviewed.error()));
        }
        d = *reviewed;
      }
      if (d->allowed && !d->denied) return std::optional<HttpReply>();
      reason = d->reason;
    }
    BERTH_LOG(4) << "http: forbidden: " << user.name << " " << verb << " " << req.path;
    return std::optional<HttpReply>(ForbiddenReply(user.name, verb, req.path, reason));
  }
};

DelegatedAuth::DelegatedAuth(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DelegatedAuth::~DelegatedAuth() = default;

Result<std::unique_ptr<DelegatedAuth>> DelegatedAuth::Create(DelegatedAuthConfig config) {
  auto impl = std::make_unique<Impl>();
  if (!config.client_ca_pem.empty()) {
    auto v = CertVerifier::FromPem(config.client_ca_pem, "client CA");
    if (!v.ok()) return Error{v.error()};
    impl->client_ca = std::move(*v);
  }
  if (config.request_header && !config.request_header->ca_pem.empty()) {
    auto v = CertVerifier::FromPem(config.request_header->ca_pem, "request-header CA");
    if (!v.ok()) return Error{v.error()};
    impl->request_header_ca = std::move(*v);
  }
  // Same patterns as upstream's path authorizer: a leading "/" is optional, "x*" is a prefix.
  for (std::string p : config.always_allow_paths) {
    if (p.rfind('/', 0) == 0) p = p.substr(1);
    if (!p.empty() && p.substr(0, p.size() - 1).find('*') != std::string::npos) {
      return Error{"always-allow path \"" + p + "\": only a trailing * is allowed"};
    }
    if (!p.empty() && p.back() == '*') {
      impl->allow_prefixes.push_back(p.substr(0, p.size() - 1));
    } else {
      impl->allow_paths.push_back(p);
    }
  }
  auto token_key = TokenCacheKey::Create();
  if (!token_key.ok()) return Error{token_key.status()};
  impl->token_key = std::move(*token_key);
  impl->tokens = std::make_unique<ExpiringLruCache<Authentication>>(config.token_cache_bytes);
  impl->access = std::make_unique<ExpiringLruCache<AccessDecision>>(config.access_cache_bytes);
  impl->config = std::move(config);
  impl->pool = std::make_unique<WorkerPool>(impl->config.workers, impl->config.max_queue);
  return std::unique_ptr<DelegatedAuth>(new DelegatedAuth(std::move(impl)));
}

void DelegatedAuth::Authorize(RequestCredentials request, AuthorizeDone done) {
  std::optional<std::optional<HttpReply>> fast;
  try {
    fast = impl_->Decide(request, /*network=*/false);
  } catch (const std::exception& e) {
    BERTH_ERROR() << "http: authorizing a request to " << request.path << ": " << e.what();
    fast = std::optional<HttpReply>(InternalErrorReply(request.target, e.what()));
  }
  if (fast) return done(std::move(*fast));
  auto shared = std::make_shared<std::pair<RequestCredentials, AuthorizeDone>>(std::move(request),
                                                                               std::move(done));
  Impl* impl = impl_.get();
  bool queued = impl->pool->Submit([impl, shared] {
    std::optional<HttpReply> reply;
    try {
      reply = *impl->Decide(shared->first, /*network=*/true);
    } catch (const std::exception& e) {
      BERTH_ERROR() << "http: authorizing a request to " << shared->first.path << ": " << e.what();
      reply = InternalErrorReply(shared->first.target, e.what());
    }
    shared->second(std::move(reply));
  });
  if (!queued) {
    BERTH_WARN() << "http: too many requests waiting for authentication or authorization";
    shared->second(HttpReply{429,
                             "text/plain; charset=utf-8",
                             "Too many requests, please try again later.\n",
                             {{"Retry-After", "1"}}});
  }
}

std::optional<HttpReply> DelegatedAuth::Decide(const RequestCredentials& request) {
  return *impl_->Decide(request, /*network=*/true);
}

Authentication DelegatedAuth::Authenticate(const RequestCredentials& request) {
  return *impl_->Authenticate(request, /*network=*/true);
}

uint64_t DelegatedAuth::token_reviews() const { return impl_->token_reviews.load(); }
uint64_t DelegatedAuth::access_reviews() const { return impl_->access_reviews.load(); }

DelegatedAuth::CacheUsage DelegatedAuth::token_cache() const {
  return {impl_->tokens->bytes(), impl_->tokens->size()};
}
DelegatedAuth::CacheUsage DelegatedAuth::access_cache() const {
  return {impl_->access->bytes(), impl_->access->size()};
}

}  // namespace berth::serving
