#pragma once
// internal::Connection: one HTTP/1.1 connection (TCP, optionally TLS) to the API server, the
// building block of BeastClient (which pools them for Do and opens one per Stream). Boost.Beast
// and OpenSSL stay behind this header's pimpl so that only http_connection.cc compiles them.
//
// Every blocking call takes a deadline and an optional stop flag: the connection runs its own
// io_context in short slices, and when the deadline passes or *stop becomes true it closes the
// socket and returns, so a call never outlives either by more than ~100 ms.
//
// A Connection is used by one thread at a time; distinct Connections are independent.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/result.h"
#include "informers/client/config.h"
#include "informers/client/http_client.h"
#include "informers/client/kube_client.h"

namespace berth::client::internal {

using client::Deadline;

// "https://host:port" split up (the public HttpTarget).
using ServerAddress = HttpTarget;
// Error: `invalid server URL "x": <why>`.
Result<ServerAddress> ParseServer(const std::string& server);

// Trust and client identity for TLS connections, built once per client and shared (OpenSSL
// contexts are safe to share between threads once built).
class TlsContext;
// Error names the field: `certificate-authority: no PEM certificate found`.
Result<std::shared_ptr<TlsContext>> MakeTlsContext(const ClientConfig& cfg);

// Why an I/O step failed.
struct IoError {
  std::string message;  // "connect 127.0.0.1:6443: Connection refused"
  // False when trying again cannot help (TLS verification failed, bad response syntax).
  bool retryable = true;
  // True when the connection failed before any byte of a response arrived (the request may not
  // have reached the server): how a pooled keep-alive connection the server closed looks.
  bool nothing_received = false;
  // The caller's stop flag ended the call (message "stopped").
  bool stopped = false;
  // The body was over ReadResponse's max_body (never retryable).
  bool body_too_large = false;
};

// One request on the wire.
struct WireRequest {
  std::string method;
  std::string target;  // path and query
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

class Connection {
 public:
  // tls == nullptr for http:// servers. verify_name: the name or IP the server certificate must
  // match (tls_server_name or the host); ignored when the context does not verify.
  Connection(ServerAddress addr, std::shared_ptr<TlsContext> tls, std::string verify_name);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Resolves, connects and (for TLS) handshakes. TLS verification failures are not retryable.
  // *stop yields an IoError with message "stopped". Running out of file descriptors (EMFILE) is a
  // retryable IoError like any connect failure, never an exception. The other calls need a
  // successful Connect first (else a retryable IoError).
  std::optional<IoError> Connect(Deadline deadline, const std::atomic<bool>* stop = nullptr);

  std::optional<IoError> Send(const WireRequest& req, Deadline deadline,
                              const std::atomic<bool>* stop = nullptr);

  // Reads one complete response (Content-Length or chunked body) whose body is at most
  // max_body bytes; a longer one is an IoError with body_too_large, found from Content-Length
  // before the body is read, or as soon as a chunked or unsized body passes the bound (the
  // connection is then not reusable: the caller drops it and the rest is never read).
  std::variant<Response, IoError> ReadResponse(Deadline deadline, uint64_t max_body);
  // Whether the last complete response allows reusing this connection.
  bool reusable() const { return reusable_; }

  // Streaming: ReadHead reads the status line and headers and returns the status; ReadBody then
  // calls on_data with body bytes as they arrive (chunked encoding removed) until the message
  // ends or the server closes the connection (returns true), on_data returns false or *stop is
  // set (returns false), or an error / the deadline (IoError).
  std::variant<int, IoError> ReadHead(Deadline deadline, const std::atomic<bool>* stop);
  std::variant<bool, IoError> ReadBody(const std::function<bool(std::string_view)>& on_data,
                                       Deadline deadline, const std::atomic<bool>* stop);

  void Close();

 private:
  std::optional<IoError> ConnectImpl(Deadline deadline, const std::atomic<bool>* stop);

  struct Impl;
  struct Pending;
  std::unique_ptr<Pending> pending_;  // what Connect needs to build impl_
  std::unique_ptr<Impl> impl_;        // null until Connect

  bool reusable_ = false;
};

}  // namespace berth::client::internal
