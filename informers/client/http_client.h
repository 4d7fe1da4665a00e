#pragma once
// HttpClient: berth's one HTTP(S) client, for the API server (BeastClient adds auth, the rate
// limiter and retries on top) and for scheduler extenders (cmd/berth/app/extender). It knows a
// target ("https://host:port"), TLS (trust, client certificate, server name), a pool of kept-alive
// connections, and deadlines; it never retries on its own except for one case: a pooled
// connection the server closed while idle fails before any response byte, and the request is
// then sent once more on a fresh connection (when the caller says the request may be replayed).
//
// Boost.Beast and OpenSSL stay behind client-internal headers; nothing outside informers/client
// names them.
//
// Thread-safe: RoundTrip and OpenStream may be called from any number of threads; an HttpStream
// is used by one thread at a time.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/result.h"
#include "informers/client/config.h"
#include "informers/client/kube_client.h"

namespace berth::client {

namespace internal {
class Connection;
class TlsContext;
}  // namespace internal

using Deadline = std::chrono::steady_clock::time_point;

// Where an HttpClient connects: "https://host:port" split up. The port defaults to 443 (https)
// or 80 (http).
struct HttpTarget {
  bool tls = true;
  std::string host;         // without IPv6 brackets
  std::string port;         // decimal
  std::string host_header;  // as sent in Host: "host:port", IPv6 in brackets
};
// Error (kInvalid): `invalid server URL "x": <why>`.
Result<HttpTarget> ParseTarget(const std::string& server);

// Why an exchange failed.
struct HttpError {
  std::string message;  // "connect 127.0.0.1:6443: Connection refused"
  // False when trying again cannot help (TLS verification failed, bad response syntax).
  bool retryable = true;
  // The caller's stop flag ended the call (message "stopped").
  bool stopped = false;
  // The response body was larger than the request's max_body_bytes (not retryable; the
  // connection was closed without reading the rest).
  bool body_too_large = false;
};
template <typename T>
using HttpResult = std::variant<T, HttpError>;

// One request on the wire: headers are sent as given (plus Host and Content-Length).
struct HttpRequest {
  std::string method = "GET";
  std::string target;  // path and query
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The largest response body RoundTrip reads; 0 = the client's HttpClientOptions value.
  uint64_t max_body_bytes = 0;
};

// The default bound on a response body: generous, for a page of a big list (a page of 500
// objects of up to 1.5 MiB each, etcd's object limit, fits), yet a bound.
inline constexpr uint64_t kDefaultMaxBodyBytes = uint64_t{1} << 30;

struct HttpClientOptions {
  int max_idle_connections = 16;
  // Pooled connections idle longer than this are closed rather than reused.
  std::chrono::milliseconds idle_timeout{60000};
  // RoundTrip's bound on a response body unless the request sets its own.
  uint64_t max_body_bytes = kDefaultMaxBodyBytes;
};

// A response being streamed on its own connection (OpenStream).
class HttpStream {
 public:
  ~HttpStream();
  int status() const { return status_; }
  // Calls on_data with body bytes as they arrive (chunked encoding removed) until the message
  // ends or the server closes the connection (true), on_data returns false or *stop is set
  // (false), or an error / the deadline.
  HttpResult<bool> ReadBody(const std::function<bool(std::string_view)>& on_data, Deadline deadline,
                            const std::atomic<bool>* stop);

 private:
  friend class HttpClient;
  HttpStream(std::unique_ptr<internal::Connection> conn, int status);
  std::unique_ptr<internal::Connection> conn_;
  int status_;
};

class HttpClient {
 public:
  // For https targets the TLS settings come from tls.ca_pem (system roots when empty),
  // client_cert_pem / client_key_pem, tls_server_name (the name verified and sent as SNI; the
  // host when empty) and insecure_skip_tls_verify. Error: the TLS field at fault
  // (`certificate-authority: no PEM certificate found`).
  static Result<std::unique_ptr<HttpClient>> Create(HttpTarget target, const ClientConfig& tls,
                                                    HttpClientOptions options = {});
  ~HttpClient();

  // Sends `req` on a pooled (or new) connection and reads the whole response, by `deadline`.
  // A reusable connection goes back to the pool. `replayable`: see the header comment. A body
  // over the bound (req.max_body_bytes, else the options') is an HttpError with body_too_large
  // (`read response from host:port: body larger than N bytes`), found from Content-Length before
  // any body byte is read or as soon as a chunked/unsized body passes it; the connection is
  // closed, the rest never read.
  HttpResult<Response> RoundTrip(const HttpRequest& req, Deadline deadline, bool replayable);

  // Opens a dedicated connection, sends `req` and reads the response head by `deadline`; *stop
  // ends the call with an HttpError whose `stopped` is set.
  HttpResult<std::unique_ptr<HttpStream>> OpenStream(const HttpRequest& req, Deadline deadline,
                                                     const std::atomic<bool>* stop);

  // The host part of the target (for messages).
  const std::string& host() const;
  uint64_t connections_opened() const { return connections_opened_.load(); }
  uint64_t requests_sent() const { return requests_sent_.load(); }

 private:
  struct Idle {
    std::unique_ptr<internal::Connection> conn;
    std::chrono::steady_clock::time_point since;
  };
  HttpClient(HttpTarget target, std::shared_ptr<internal::TlsContext> tls, std::string verify_name,
             HttpClientOptions options);
  std::unique_ptr<internal::Connection> TakeIdle();
  void GiveBack(std::unique_ptr<internal::Connection> conn);
  std::unique_ptr<internal::Connection> NewConnection();

  const HttpTarget target_;
  const std::shared_ptr<internal::TlsContext> tls_;
  const std::string verify_name_;
  const HttpClientOptions options_;
  std::atomic<uint64_t> connections_opened_{0};
  std::atomic<uint64_t> requests_sent_{0};
  std::mutex pool_mu_;  // guards idle_
  std::vector<Idle> idle_;
};

}  // namespace berth::client
