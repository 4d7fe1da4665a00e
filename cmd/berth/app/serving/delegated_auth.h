#pragma once
// DelegatedAuth: the authentication and authorization of the secure port, as kube-scheduler's
// (k8s.io/apiserver's DelegatingAuthenticationOptions / DelegatingAuthorizationOptions and the
// WithAuthentication / WithAuthorization filters), for HttpHandlers::authorize.
//
// Authentication, in upstream's order; the first that succeeds names the user:
//   1. request header (front proxy): a client certificate that verifies against
//      request_header->ca_pem (and whose CN is in allowed_names, when given) lets the first
//      non-empty username header name the user, with groups and extras from their headers;
//   2. client certificate verified against client_ca_pem: user = CN, groups = O;
//   3. `Authorization: Bearer <token>`: a TokenReview (authentication.k8s.io/v1) through
//      authn_client, cached for token_ttl (authenticated or not; errors are not cached) under
//      the HMAC-SHA256 of the token with a per-process random key, as upstream's cached token
//      authenticator: the token itself is kept nowhere once its request is answered.
// A method that fails (a certificate that does not verify, a token the review refuses or that
// cannot be reviewed) makes the request 401 when no other succeeds; a request without any
// credentials is user "system:anonymous", group "system:unauthenticated". Authenticated users get
// group "system:authenticated".
//
// Authorization of the non-resource request (verb = the lower-cased method, path without the
// query), in upstream's order: a member of always_allow_groups is allowed; a path in
// always_allow_paths ("/healthz", or "/debug/*" for a prefix) is allowed; else a
// SubjectAccessReview (authorization.k8s.io/v1) through authz_client decides, cached for
// allow_ttl when allowed and deny_ttl otherwise (not cached when verb and path together reach
// 10,000 bytes, as upstream's webhook authorizer). Without authz_client, no SAR: forbidden.
//
// Both caches hold at most their byte budget (token_cache_bytes, access_cache_bytes: keys,
// user names, groups, extras, reasons and a per-entry overhead); past it the least recently
// used answers are dropped, so made-up tokens or paths cost a bounded amount of memory and at
// worst more reviews. A TTL of 0 disables that cache, as upstream's.
//
// Answers, as upstream's:
//   401 application/json  {"kind":"Status",...,"message":"Unauthorized","reason":"Unauthorized",
//                          "code":401}
//   403 application/json  {"kind":"Status",...,"message":"forbidden: User \"u\" cannot get path
//                          \"/metrics\"","reason":"Forbidden","details":{},"code":403}
//   500 text/plain        `Internal Server Error: "/metrics": <why>` when the SAR could not be
//                          made (the API server is down): closed, never open.
//
// Threads: Authorize may be called from any thread. Decisions that need no API call (cached,
// anonymous, always-allowed, certificates) are made at once on the calling thread; the others
// run on `workers` threads of DelegatedAuth's own, at most `max_queue` waiting (more are answered
// 429 at once). The destructor drops the queued requests (their `done` is never called) and joins
// the workers, waiting for reviews in flight (each bounded by the clients' timeouts).

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "cmd/berth/app/serving/http_server.h"
#include "informers/client/kube_client.h"

namespace berth::serving {

using run::AuthorizeDone;
using run::HttpReply;
using run::RequestCredentials;

inline constexpr const char kAnonymousUser[] = "system:anonymous";
inline constexpr const char kUnauthenticatedGroup[] = "system:unauthenticated";
inline constexpr const char kAuthenticatedGroup[] = "system:authenticated";

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

// Front-proxy authentication (upstream's RequestHeaderConfig). Header names are matched
// case-insensitively.
struct RequestHeaderConfig {
  std::string ca_pem;
  std::vector<std::string> allowed_names;  // empty = any CN
  std::vector<std::string> username_headers = {"X-Remote-User"};
  std::vector<std::string> uid_headers;
  std::vector<std::string> group_headers = {"X-Remote-Group"};
  std::vector<std::string> extra_header_prefixes = {"X-Remote-Extra-"};
};

struct DelegatedAuthConfig {
  // TokenReviews; null = bearer tokens are ignored (upstream without an authentication client).
  // Not owned; must outlive the DelegatedAuth.
  client::KubeClient* authn_client = nullptr;
  // SubjectAccessReviews; null = only the always-allow rules allow. Not owned.
  client::KubeClient* authz_client = nullptr;
  // PEM bundle for client-certificate authentication; empty = none.
  std::string client_ca_pem;
  std::optional<RequestHeaderConfig> request_header;
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
  std::vector<std::string> always_allow_groups = {"system:masters"};
  // Upstream's delegating defaults (CacheTTL, AllowCacheTTL, DenyCacheTTL).
  std::chrono::milliseconds token_ttl{10000};
  std::chrono::milliseconds allow_ttl{10000};
  std::chrono::milliseconds deny_ttl{10000};
  // The caches' byte budgets (see above). 8 MiB holds some 20,000 refused tokens (about 400
  // bytes each) or SubjectAccessReview answers of short paths; more than a scheduler's few
  // legitimate clients (scrapers, `berth explain`) use within a TTL.
  size_t token_cache_bytes = 8 << 20;
  size_t access_cache_bytes = 8 << 20;
  // Per review request (upstream's TokenRequestTimeout / ClientTimeout).
  std::chrono::milliseconds review_timeout{10000};
  int workers = 4;
  size_t max_queue = 256;
  // The clock for cache expiry (tests); unset = steady_clock.
  std::function<std::chrono::steady_clock::time_point()> now;
};

// The outcome of authentication: a user, or a failure (401).
struct Authentication {
  bool ok = false;
  UserInfo user;
  std::string error;  // why, when !ok (logged, not sent)
};

class DelegatedAuth {
 public:
  // Errors: `client CA: <why>` / `request-header CA: <why>` for a bundle without a usable
  // certificate, `always-allow path "a*b": only a trailing * is allowed`; kInternal
  // `token cache key: <why>` when OpenSSL cannot draw the random key or compute an HMAC.
  static Result<std::unique_ptr<DelegatedAuth>> Create(DelegatedAuthConfig config);
  ~DelegatedAuth();
  DelegatedAuth(const DelegatedAuth&) = delete;
  DelegatedAuth& operator=(const DelegatedAuth&) = delete;

  // For HttpHandlers::authorize: calls `done` with nullopt (allowed) or the refusal, at once or
  // from a worker thread.
  void Authorize(RequestCredentials request, AuthorizeDone done);

  // The whole decision, blocking on the API calls it needs (any thread).
  std::optional<HttpReply> Decide(const RequestCredentials& request);

  // The steps, exposed for tests. Blocking.
  Authentication Authenticate(const RequestCredentials& request);

  // Reviews made so far (cache misses), for tests and metrics.
  uint64_t token_reviews() const;
  uint64_t access_reviews() const;

  // What the token and access caches hold now (bytes as counted against their budgets,
  // entries), for tests and metrics.
  struct CacheUsage {
    size_t bytes = 0;
    size_t entries = 0;
  };
  CacheUsage token_cache() const;
  CacheUsage access_cache() const;

 private:
  struct Impl;
  explicit DelegatedAuth(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Upstream's answers (see the top of this file).
HttpReply UnauthorizedReply();
HttpReply ForbiddenReply(const std::string& user, const std::string& verb, const std::string& path,
                         const std::string& reason);
HttpReply InternalErrorReply(const std::string& target, const std::string& why);

}  // namespace berth::serving
