#pragma once
// BeastClient: the KubeClient that talks to a real API server over HTTPS, or plain HTTP for
// http:// servers: the API server's auth, rate limit and retries over the one HttpClient
// (http_client.h, Boost.Beast + OpenSSL).
//
//  - TLS: the server certificate is verified against ClientConfig::ca_pem (or the system roots
//    when empty) and must name tls_server_name or the server's host (IP SANs work);
//    insecure_skip_tls_verify turns verification off. Client certificates come from PEM.
//  - Auth: `Authorization: Bearer <token>`, token_file re-read when its mtime changes.
//  - Do: rate-limited by a token bucket (qps, burst) per attempt, as client-go does; pooled
//    keep-alive connections (a failed connection is discarded; a pooled connection the server
//    closed while idle is replaced without counting as an attempt); retries on 429, 5xx and
//    connection errors with exponential backoff or the server's Retry-After (seconds, capped).
//    TLS verification failures are not retried.
//  - Deadline: ClientOptions::deadline bounds every Do as a whole (see there).
//  - Stream: one dedicated connection per call; req.timeout (or the default) bounds connecting
//    and the response head only, the body is read until the server closes it, on_line says stop
//    or *stop is set (noticed within ~100 ms, even when the server sends nothing). A line longer
//    than ClientOptions::max_watch_line ends the stream with an Error:
//    `GET https://host/api/v1/pods?watch=...: object to decode was longer than maximum allowed
//    size (16777216 bytes on one watch line)`.
//
// Thread-safe: Do and Stream may be called from any number of threads concurrently.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "informers/client/config.h"
#include "informers/client/http_client.h"
#include "informers/client/kube_client.h"
#include "informers/client/rate_limiter.h"
#include "informers/client/watch_lines.h"

namespace berth::client {

struct ClientOptions {
  int max_retries = 5;                             // up to 1 + max_retries attempts
  std::chrono::milliseconds initial_backoff{100};  // doubled per retry ...
  std::chrono::milliseconds max_backoff{5000};     // ... up to this
  std::chrono::milliseconds max_retry_after{30000};
  std::chrono::milliseconds timeout{30000};  // per attempt, when Request::timeout is 0
  std::string user_agent = "berth/0.1";
  int max_idle_connections = 16;
  // Pooled connections idle longer than this are closed rather than reused.
  std::chrono::milliseconds idle_timeout{60000};
  // Clock for the rate limiter (tests); nullptr = the steady clock.
  std::shared_ptr<LimiterClock> limiter_clock;
  // For one-off commands (`berth simulate --kubeconfig`, `berth explain`): every Do ends by this
  // time, retries included (each attempt's timeout is cut to what is left, and no retry starts
  // after it), so a server that never answers fails the command in bounded time rather than
  // after every attempt's full timeout. Its error ends with `; deadline passed
  // (<deadline_source>)`.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::string deadline_source = "the client's deadline";  // e.g. "--request-timeout 60s"
  // Longest watch event (one line) Stream accepts; a longer one ends the stream with an Error
  // (see watch_lines.h for the default, client-go's 16 MiB).
  size_t max_watch_line = kMaxWatchLine;
};

// Counters for metrics.
struct ClientStats {
  uint64_t connections_opened = 0;  // TCP connections established (pooled and streaming)
  uint64_t attempts = 0;            // requests sent, retries included (Do and Stream)
  uint64_t retries = 0;             // Do attempts after the first
  std::chrono::nanoseconds rate_limit_wait{0};  // total time spent waiting for the limiter
};

class BeastClient final : public KubeClient {
 public:
  // Never fails: a bad server URL, CA or client certificate is reported by InitStatus() and by
  // every Do / Stream as an Error.
  BeastClient(ClientConfig cfg, float qps, int burst, ClientOptions opts = {});
  ~BeastClient() override;

  Result<Response> Do(const Request& req) override;
  Result<int> Stream(const Request& req, const std::function<bool(std::string_view line)>& on_line,
                     const std::atomic<bool>* stop, std::string* error_body) override;
  std::string Server() const override { return cfg_.server; }

  Ok InitStatus() const;
  ClientStats Stats() const;

 private:
  struct Attempt;

  std::string Describe(const Request& req) const;
  // Headers common to Do and Stream; Error when the token file cannot be read.
  Result<std::vector<std::pair<std::string, std::string>>> Headers(const Request& req);
  // One attempt of Do (HttpClient::RoundTrip). Sets *response or *error.
  void TryOnce(const Request& req, std::chrono::milliseconds timeout, Attempt* out);
  std::chrono::milliseconds Backoff(int retry) const;

  const ClientConfig cfg_;
  const ClientOptions opts_;
  std::string init_error_;
  std::unique_ptr<HttpClient> http_;  // null when init_error_ is set
  TokenBucket limiter_;
  TokenSource tokens_;
  std::atomic<uint64_t> retries_{0};
};

// The production constructor (see BeastClient).
std::unique_ptr<KubeClient> NewBeastClient(ClientConfig cfg, float qps, int burst,
                                           ClientOptions opts = {});

}  // namespace berth::client
