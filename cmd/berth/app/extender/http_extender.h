#pragma once
// HttpExtender: framework::Extender over HTTP(S), as kube-scheduler's HTTPExtender
// (pkg/scheduler/extender.go). Each call POSTs JSON (cmd/berth/app/extender/wire.h) to
// `<urlPrefix without trailing slash>/<verb>` and waits at most httpTimeout (default 5 s) for the
// whole exchange, over the one HTTP client (informers/client/http_client.h). Connections are
// kept alive and reused; a reused connection the extender had closed is replaced transparently.
// Nothing else is retried.
//
// TLS: the URL's scheme decides (https:// uses TLS). tlsConfig gives the CA (caFile / caData),
// a client certificate (certFile+keyFile / certData+keyData), serverName (the name verified and
// sent as SNI) and insecure; as upstream, enableHTTPS without a CA skips verification.
//
// Errors (all name the extender URL; they become the FailedScheduling message of a pod whose
// filter fails, unless the extender is ignorable):
//   `failed filter with extender at URL http://h/f/filter, code 500: <first 200 bytes of body>`
//   `extender at URL http://h/f/filter: timed out after 5s (httpTimeout)`
//   `extender at URL http://h/f/filter: connect 127.0.0.1:9: Connection refused`
//   `extender at URL http://h/f/filter: malformed ExtenderFilterResult: invalid JSON at ...`
//   `extender at URL http://h/f/filter: answer larger than 16777216 bytes (maxResponseBytes)`
//   (berth's own maxResponseBytes, default 16 MiB: the body is not read past it, and the
//   connection is closed)
//   `extender at URL http://h/f/filter: Error: <the extender's Error text>`
//   (the two transport failures above, timeout and connection, carry ErrorCode::kUnavailable)
//   `extender "http://h/f" claims a filtered node "x" which is not found in the input node list`
//   `extender at URL http://h/f/prioritize: scored node "x" which it was not asked about`
//
// Thread-safe (the connection pool is locked); calls block the calling thread.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/types.h"
#include "scheduler/framework/extender.h"

namespace berth::client {
class HttpClient;
}  // namespace berth::client

namespace berth::extenders {

class HttpExtender final : public framework::Extender {
 public:
  // Errors name the config field: `urlPrefix: invalid server URL "x": ...`,
  // `tlsConfig.caFile: cannot read "/x": No such file or directory`.
  static Result<std::unique_ptr<HttpExtender>> Create(const config::Extender& cfg);
  ~HttpExtender() override;

  const std::string& Name() const override { return cfg_.url_prefix; }
  bool IsIgnorable() const override { return cfg_.ignorable; }
  bool IsFilter() const override { return !cfg_.filter_verb.empty(); }
  bool IsPrioritizer() const override { return !cfg_.prioritize_verb.empty(); }
  bool IsBinder() const override { return !cfg_.bind_verb.empty(); }
  bool IsInterested(const api::Pod& pod) const override;
  int64_t Weight() const override { return cfg_.weight; }

  Result<framework::ExtenderFilterOutcome> Filter(
      const api::Pod& pod, const std::vector<const framework::NodeInfo*>& nodes) override;
  Result<std::vector<int64_t>> Prioritize(
      const api::Pod& pod, const std::vector<const framework::NodeInfo*>& nodes) override;
  Ok Bind(const api::Pod& pod, const std::string& node) override;

 private:
  explicit HttpExtender(const config::Extender& cfg);
  // POSTs body to <prefix>/<verb>; the 200 response's body, or an error naming the URL.
  Result<std::string> Send(const std::string& verb, const std::string& body);
  std::string Url(const std::string& verb) const;

  config::Extender cfg_;  // httpTimeout defaulted
  std::set<std::string, std::less<>> managed_;
  std::string base_path_;  // the URL prefix's path, without a trailing slash
  std::unique_ptr<client::HttpClient> http_;
};

// Builds the configured extenders in upstream's call order (ignorable ones last) and, as
// upstream's buildExtenders does, adds every managedResource with ignoredByScheduler to each
// profile's NodeResourcesFit `ignoredResources` (berth adds to a list the user set; upstream
// replaces it). Errors name `extenders[i].<field>`.
Result<std::vector<std::unique_ptr<framework::Extender>>> BuildExtenders(
    config::SchedulerConfiguration* cfg);

}  // namespace berth::extenders
