#pragma once
// InstrumentedClient: a KubeClient decorator that reports every request to an observer, with the
// verb and resource labels client-go's rest_client_requests_total uses: verb "GET" / "LIST" (a
// GET of a collection) / "WATCH" (Stream) / the method; resource "pods", "pods/binding",
// "nodes", ...; code the HTTP status (0 when no response came back); seconds the time taken.
//
// The daemon feeds berth_api_requests_total and berth_api_request_duration_seconds from it.
// Thread-safe when the observer is; `next` must outlive the decorator.

#include <functional>
#include <string>

#include "informers/client/kube_client.h"

namespace berth::client {

struct RequestRecord {
  std::string verb;
  std::string resource;
  int code = 0;
  double seconds = 0;
};

class InstrumentedClient final : public KubeClient {
 public:
  using Observer = std::function<void(const RequestRecord&)>;
  InstrumentedClient(KubeClient& next, Observer observe)
      : next_(next), observe_(std::move(observe)) {}

  Result<Response> Do(const Request& req) override;
  Result<int> Stream(const Request& req, const std::function<bool(std::string_view line)>& on_line,
                     const std::atomic<bool>* stop, std::string* error_body) override;
  std::string Server() const override { return next_.Server(); }

  // "/api/v1/namespaces/ns/pods/p/binding" -> "pods/binding"; "/apis/g/v/nodes" -> "nodes";
  // "unknown" when the path names no resource.
  static std::string Resource(const std::string& path);
  // The method, except that a GET of a collection is a "LIST".
  static std::string Verb(const Request& req);

 private:
  KubeClient& next_;
  Observer observe_;
};

}  // namespace berth::client
