#pragma once
// HttpServer: berth's health, readiness, metrics and configz endpoints, as upstream kube-scheduler
// serves them on its secure port 10259 (cmd/kube-scheduler/app/server.go), on Boost.Beast.
//
//   GET /healthz, /livez  200 "ok" while the process runs (and `liveness`, when given, returns no
//                         reasons); else 500 with one reason per line
//   GET /readyz           200 "ok" when `readiness` returns no reasons; else 500 with one reason
//                         per line, e.g. "informers not synced: Pod, Node"
//   GET /metrics          200, Prometheus text format from `metrics` (404 when not given)
//   GET /configz          200, JSON from `configz` (404 when not given)
// Anything else is 404; other methods than GET/HEAD on these paths are 405 with an Allow header.
// A query string is ignored.
//
// Hostile or broken clients: a request the parser refuses is answered, and the connection then
// closed, as Go's net/http does: 400 for bad syntax (bad or duplicate Content-Length, bad chunked
// encoding, ...), 413 for a body over max_request_body, 431 for a request line plus headers over
// 64 KiB. At most max_connections connections are open at once (TLS and plain together); more
// are accepted and closed at once (refused, never queued). Accept errors (EMFILE, ENFILE,
// ENOBUFS, ...) are logged and retried after a back-off of 5 ms, doubling up to 1 s, reset by the
// next accepted connection, so that running out of file descriptors does not spin a core.
//
// HTTPS always (TLS 1.2+), with the PEM certificate chain and key given, or else a self-signed
// certificate generated at start (EC P-256, CN "berth-scheduler", SAN localhost, 127.0.0.1, ::1,
// valid for one year); plain HTTP on a second address as an option (e.g. for a metrics scraper
// inside a trusted network).
//
// Authentication and authorization: when HttpHandlers::authorize is set, every request on the
// HTTPS listener (any path, before routing, as upstream's handler chain) is first handed to it,
// and answered with its reply when it refuses; the plain listener is never checked. With
// client_ca_pem set, the TLS handshake asks for (but does not require) a client certificate,
// naming those CAs; the certificate is passed on unverified, for `authorize` to verify.
//
// Threads: the server runs its own I/O thread; handler callbacks run on it (never on the
// scheduling thread), one request at a time, so they must be thread-safe against the rest of the
// process and should be quick. An exception from a callback becomes a 500 and a log line.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace berth::run {

// The file name (before .crt/.key) of the pair kept in HttpServerOptions::cert_dir.
inline constexpr std::string_view kSelfSignedPairName = "kube-scheduler";

struct HttpServerOptions {
  // "host:port", "[v6]:port" or ":port" (all interfaces). Port 0 picks a free port (see
  // secure_port()). Host may be an IP literal or a name resolved once at start.
  std::string secure_address = "0.0.0.0:10259";
  // PEM files; both or neither. Neither: a self-signed certificate is generated.
  std::string cert_file, key_file;
  // With no cert_file: where the generated pair is written, as <dir>/kube-scheduler.crt and
  // .key (kube-scheduler's --cert-dir; the caller loads an existing pair as cert_file/key_file).
  // Empty = the pair stays in memory.
  std::string cert_dir;
  // Lowest TLS version accepted (OpenSSL's TLS1_2_VERSION or TLS1_3_VERSION), and the TLS 1.2
  // cipher list in OpenSSL syntax (empty = OpenSSL's defaults). TLS 1.3 suites are not
  // configurable, as in Go.
  int tls_min_version = 0x0303;
  std::string cipher_list;
  // Plain-HTTP address, same syntax; empty = no plain listener.
  std::string plain_address;
  // Empty secure_address = no HTTPS listener (then plain_address must be set).
  // Largest request body accepted; bigger requests are answered 413 and the connection closed.
  size_t max_request_body = 16 * 1024;
  // Most connections open at once; more are closed as soon as they are accepted. 0 = no cap.
  size_t max_connections = 1024;
  // PEM bundle of the CAs whose client certificates are asked for; empty = none asked for.
  std::string client_ca_pem;
};

// The pause after an accept error that followed `previous` (0 after a success): 5 ms, doubling,
// at most 1 s, as Go's net/http Server.Serve.
std::chrono::milliseconds NextAcceptBackoff(std::chrono::milliseconds previous);

// The answer of an extra route (HttpHandlers::routes).
struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // Extra response headers, e.g. {"Allow", "POST"} with a 405.
  std::vector<std::pair<std::string, std::string>> headers;
};

// What HttpHandlers::authorize sees of a request on the HTTPS listener.
struct RequestCredentials {
  std::string method;  // "GET"
  std::string target;  // path and query, as sent: "/metrics?x=1"
  std::string path;    // without the query: "/metrics"
  // Every header, names lower-cased, in the order sent (repeated headers repeat).
  std::vector<std::pair<std::string, std::string>> headers;
  // The client's certificate chain as sent (DER, leaf first), unverified; empty = none.
  std::vector<std::string> peer_certificates;
};

// Called once with nullopt to let the request through, or with the reply that refuses it. May be
// called from any thread, at once or later.
using AuthorizeDone = std::function<void(std::optional<HttpReply>)>;

struct HttpHandlers {
  // Reasons the process is not live (e.g. "leader election: lease not renewed for 40s"); empty or
  // unset = live. Used by /healthz and /livez.
  std::function<std::vector<std::string>()> liveness;
  // Reasons the process is not ready (e.g. "informers not synced: Pod, Node", "leader election:
  // lease not healthy"); empty = ready. Unset = always ready.
  std::function<std::vector<std::string>()> readiness;
  // The /metrics body, e.g. [&m] { return m.Serialize(); }.
  std::function<std::string()> metrics;
  // The /configz body: the effective configuration as JSON.
  std::function<std::string()> configz;
  // Extra routes, asked first for every request (any method): nullopt = not handled here, e.g.
  // `berth extender`'s POST /filter. `path` excludes the query string.
  std::function<std::optional<HttpReply>(std::string_view method, std::string_view path,
                                         const std::string& body)>
      routes;
  // Authentication and authorization of HTTPS requests (see the top of this file); unset = every
  // request is let through. Called on the I/O thread; it must not block (do slow work elsewhere
  // and call `done` from there). `done` must be called exactly once; a request waiting for it
  // holds its connection, and is dropped when the server stops.
  std::function<void(RequestCredentials request, AuthorizeDone done)> authorize;
};

class HttpServer {
 public:
  // Binds both listeners, loads or generates the certificate, and starts the I/O thread.
  // Errors (nothing is left running):
  //   `invalid address "x": <why>`            an address does not parse or resolve
  //   `listen on <address>: <why>`            bind/listen failed (e.g. Address already in use)
  //   `cert_file and key_file must be given together`
  //   `TLS certificate <file>: <why>` / `TLS key <file>: <why>`   the PEM files do not load
  //   `self-signed certificate: <why>`        OpenSSL failed to generate one
  //   `--cert-dir <dir>: <why>`                the generated pair could not be written
  //   `TLS cipher suites "x": <why>`           OpenSSL refused the cipher list
  static Result<std::unique_ptr<HttpServer>> Start(HttpServerOptions options,
                                                   HttpHandlers handlers);

  // Stops accepting, drops open connections and joins the I/O thread; returns within
  // milliseconds even with idle keep-alive clients. Idempotent; the destructor calls it.
  // Must not be called from a handler callback.
  void Stop();
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound ports (the real ones when the address asked for port 0); plain_port() is 0 when
  // there is no plain listener.
  int secure_port() const;
  int plain_port() const;
  // The serving certificate (generated or loaded), PEM-encoded.
  const std::string& certificate_pem() const;
  // Connections closed at once because max_connections were open.
  uint64_t refused_connections() const;

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth::run
