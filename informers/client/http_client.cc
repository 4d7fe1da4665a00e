#include "informers/client/http_client.h"

#include "informers/client/http_connection.h"

namespace berth::client {

using internal::Connection;
using internal::IoError;
using Clock = std::chrono::steady_clock;

namespace {

HttpError ToHttpError(IoError e) {
  return HttpError{std::move(e.message), e.retryable, e.stopped, e.body_too_large};
}

internal::WireRequest ToWire(const HttpRequest& req) {
  return internal::WireRequest{req.method, req.target, req.headers, req.body};
}

}  // namespace

HttpStream::HttpStream(std::unique_ptr<internal::Connection> conn, int status)
    : conn_(std::move(conn)), status_(status) {}

HttpStream::~HttpStream() = default;

HttpResult<bool> HttpStream::ReadBody(const std::function<bool(std::string_view)>& on_data,
                                      Deadline deadline, const std::atomic<bool>* stop) {
  auto r = conn_->ReadBody(on_data, deadline, stop);
  if (auto* e = std::get_if<IoError>(&r)) return ToHttpError(std::move(*e));
  return std::get<bool>(r);
}

Result<HttpTarget> ParseTarget(const std::string& server) { return internal::ParseServer(server); }

Result<std::unique_ptr<HttpClient>> HttpClient::Create(HttpTarget target, const ClientConfig& tls,
                                                       HttpClientOptions options) {
  std::shared_ptr<internal::TlsContext> ctx;
  if (target.tls) {
    auto made = internal::MakeTlsContext(tls);
    if (!made.ok()) return made.status();
    ctx = std::move(*made);
  }
  std::string verify_name = tls.tls_server_name.empty() ? target.host : tls.tls_server_name;
  return std::unique_ptr<HttpClient>(
      new HttpClient(std::move(target), std::move(ctx), std::move(verify_name), options));
}

HttpClient::HttpClient(HttpTarget target, std::shared_ptr<internal::TlsContext> tls,
                       std::string verify_name, HttpClientOptions options)
    : target_(std::move(target)),
      tls_(std::move(tls)),
      verify_name_(std::move(verify_name)),
      options_(options) {}

HttpClient::~HttpClient() = default;

const std::string& HttpClient::host() const { return target_.host; }

std::unique_ptr<Connection> HttpClient::NewConnection() {
  return std::make_unique<Connection>(target_, tls_, verify_name_);
}

std::unique_ptr<Connection> HttpClient::TakeIdle() {
  std::lock_guard<std::mutex> lock(pool_mu_);
  const auto now = Clock::now();
  while (!idle_.empty()) {
    Idle idle = std::move(idle_.back());
    idle_.pop_back();
    if (now - idle.since < options_.idle_timeout) return std::move(idle.conn);
  }
  return nullptr;
}

void HttpClient::GiveBack(std::unique_ptr<Connection> conn) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (static_cast<int>(idle_.size()) < options_.max_idle_connections) {
    idle_.push_back(Idle{std::move(conn), Clock::now()});
  }
}

HttpResult<Response> HttpClient::RoundTrip(const HttpRequest& req, Deadline deadline,
                                           bool replayable) {
  const internal::WireRequest wire = ToWire(req);
  // A pooled connection the server closed while idle fails before any response byte: replay on
  // another connection, as Go's transport does, only when the request may be replayed.
  for (;;) {
    std::unique_ptr<Connection> conn = TakeIdle();
    const bool reused = conn != nullptr;
    if (!reused) {
      conn = NewConnection();
      if (auto err = conn->Connect(deadline)) return ToHttpError(std::move(*err));
      connections_opened_.fetch_add(1);
    }
    requests_sent_.fetch_add(1);
    std::optional<IoError> err = conn->Send(wire, deadline);
    if (!err) {
      auto res = conn->ReadResponse(
          deadline, req.max_body_bytes > 0 ? req.max_body_bytes : options_.max_body_bytes);
      if (auto* r = std::get_if<Response>(&res)) {
        if (conn->reusable()) GiveBack(std::move(conn));
        return std::move(*r);
      }
      err = std::move(std::get<IoError>(res));
    }
    if (reused && err->nothing_received && replayable && Clock::now() < deadline) continue;
    return ToHttpError(std::move(*err));
  }
}

HttpResult<std::unique_ptr<HttpStream>> HttpClient::OpenStream(const HttpRequest& req,
                                                               Deadline deadline,
                                                               const std::atomic<bool>* stop) {
  auto conn = NewConnection();
  if (auto err = conn->Connect(deadline, stop)) return ToHttpError(std::move(*err));
  connections_opened_.fetch_add(1);
  requests_sent_.fetch_add(1);
  if (auto err = conn->Send(ToWire(req), deadline, stop)) return ToHttpError(std::move(*err));
  auto head = conn->ReadHead(deadline, stop);
  if (auto* e = std::get_if<IoError>(&head)) return ToHttpError(std::move(*e));
  return std::unique_ptr<HttpStream>(new HttpStream(std::move(conn), std::get<int>(head)));
}

}  // namespace berth::client
