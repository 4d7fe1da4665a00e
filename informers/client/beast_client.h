#pragma once
// BeastClient: the KubeClient that talks to a real API server over HTTPS (Boost.Beast + OpenSSL),
// or plain HTTP for http:// servers.
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
//  - Stream: one dedicated connection per call; req.timeout (or the default) bounds connecting
//    and the response head only, the body is read until the server closes it, on_line says stop
//    or *stop is set (noticed within ~100 ms, even when the server sends nothing).
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
#include "informers/client/kube_client.h"
#include "informers/client/rate_limiter.h"

namespace berth::client {

namespace internal {
class Connection;
class TlsContext;
struct ServerAddress;
}  // namespace internal

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
  struct Idle {
    std::unique_ptr<internal::Connection> conn;
    std::chrono::steady_clock::time_point since;
  };
  struct Attempt;

  std::string Describe(const Request& req) const;
  // Headers common to Do and Stream; Error when the token file cannot be read.
  Result<std::vector<std::pair<std::string, std::string>>> Headers(const Request& req);
  std::unique_ptr<internal::Connection> NewConnection();
  // One attempt of Do: a pooled (or new) connection, send, read. Sets *response or *error.
  void TryOnce(const Request& req, std::chrono::milliseconds timeout, Attempt* out);
  std::chrono::milliseconds Backoff(int retry) const;

  const ClientConfig cfg_;
  const ClientOptions opts_;
  std::string init_error_;
  std::unique_ptr<internal::ServerAddress> addr_;
  std::shared_ptr<internal::TlsContext> tls_;
  std::string verify_name_;
  TokenBucket limiter_;
  TokenSource tokens_;
  std::atomic<uint64_t> connections_opened_{0};
  std::atomic<uint64_t> attempts_{0};
  std::atomic<uint64_t> retries_{0};
  // Guarded by pool_mu_:
  std::mutex pool_mu_;
  std::vector<Idle> idle_;
};

// The production constructor (see BeastClient).
std::unique_ptr<KubeClient> NewBeastClient(ClientConfig cfg, float qps, int burst,
                                           ClientOptions opts = {});

}  // namespace berth::client
