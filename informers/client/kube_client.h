#pragma once
// KubeClient: the seam between berth and the API server. The Beast implementation
// (beast_client.h) speaks HTTPS with TLS verification, bearer tokens or client certificates,
// a client-side token bucket (clientConnection.qps/burst) and retries; tests may substitute
// an in-memory fake for unit tests (integration tests use the real kube-apiserver).
//
// Thread-safe: any thread may call Do/Stream concurrently; connections are pooled and reused.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

namespace berth::client {

struct Request {
  std::string method = "GET";
  // Path and query, e.g. "/api/v1/pods?limit=500&continue=...".
  std::string path;
  std::string body;
  std::string content_type = "application/json";
  // Extra headers.
  std::map<std::string, std::string> headers;
  // Whether Do may retry this request on 429 / 5xx / connection errors. Non-idempotent writes
  // that the server may have applied (POST binding) still retry: the API server's
  // preconditions (uid, resourceVersion) make a replay fail with 409 instead of doubling it.
  bool retry = true;
  // Per-request timeout (0 = the client's default).
  std::chrono::milliseconds timeout{0};
};

struct Response {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
};

class KubeClient {
 public:
  virtual ~KubeClient() = default;

  // Sends one request, waiting for the rate limiter first. Retries (with exponential backoff
  // and Retry-After honoured) on 429, 5xx and connection errors while req.retry, up to the
  // client's limit. Returns the final Response (any HTTP status), or an Error when no response
  // could be had: `GET https://host/path: connection refused (after 5 attempts)`.
  virtual Result<Response> Do(const Request& req) = 0;

  // Streams a watch (GET with watch=true): calls on_line for every newline-delimited JSON
  // object until the server closes the stream (returns the HTTP status, 200), on_line returns
  // false or *stop becomes true (returns 200), or the server answers with a non-200 status
  // (returns that status and fills *error_body). Connection failures are Errors; Stream does not
  // retry — the reflector decides.
  virtual Result<int> Stream(const Request& req,
                             const std::function<bool(std::string_view line)>& on_line,
                             const std::atomic<bool>* stop, std::string* error_body) = 0;

  // "https://host:port", for messages.
  virtual std::string Server() const = 0;
};

}  // namespace berth::client
