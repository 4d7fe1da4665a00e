#pragma once
// A tiny in-process extender for tests: run::HttpServer (HTTPS with its self-signed certificate
// and plain HTTP on loopback) whose POST handler is a test-supplied function of (path, body).
// Records the requests it got.

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cmd/berth/app/serving/http_server.h"

namespace berth::testing {

class FakeExtenderServer {
 public:
  using Handler = std::function<run::HttpReply(const std::string& path, const std::string& body)>;

  explicit FakeExtenderServer(Handler handler) : handler_(std::move(handler)) {
    run::HttpServerOptions o;
    o.secure_address = "127.0.0.1:0";
    o.plain_address = "127.0.0.1:0";
    o.max_request_body = 64 << 20;
    run::HttpHandlers h;
    h.routes = [this](std::string_view method, std::string_view path,
                      const std::string& body) -> std::optional<run::HttpReply> {
      if (method != "POST") return std::nullopt;
      Handler handler;
      {
        std::lock_guard lock(mu_);
        requests_.emplace_back(std::string(path), body);
        handler = handler_;
      }
      return handler(std::string(path), body);
    };
    auto s = run::HttpServer::Start(o, h);
    EXPECT_TRUE(s.ok()) << s.error();
    if (s.ok()) server_ = std::move(*s);
  }

  std::string PlainUrl(const std::string& prefix = "/scheduler") const {
    return "http://127.0.0.1:" + std::to_string(server_->plain_port()) + prefix;
  }
  std::string TlsUrl(const std::string& prefix = "/scheduler") const {
    return "https://127.0.0.1:" + std::to_string(server_->secure_port()) + prefix;
  }
  const std::string& CertificatePem() const { return server_->certificate_pem(); }

  void SetHandler(Handler h) {
    std::lock_guard lock(mu_);
    handler_ = std::move(h);
  }
  std::vector<std::pair<std::string, std::string>> Requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  std::mutex mu_;  // guards handler_ and requests_
  Handler handler_;
  std::vector<std::pair<std::string, std::string>> requests_;
  std::unique_ptr<run::HttpServer> server_;
};

inline run::HttpReply Json(std::string body, int status = 200) {
  return run::HttpReply{status, "application/json", std::move(body)};
}

}  // namespace berth::testing
