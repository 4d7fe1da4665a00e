#include "informers/client/http_connection.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <limits>

namespace berth::client::internal {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using boost::system::error_code;

// How long one io_context slice runs before the deadline and stop flag are checked again.
constexpr std::chrono::milliseconds kSlice{100};
// Not boost::none: Beast 1.74 compares Content-Length against an empty optional as "over".
constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();

class TlsContext {
 public:
  TlsContext() : ctx(ssl::context::tls_client) {}
  ssl::context ctx;
  bool verify = true;
};

Result<ServerAddress> ParseServer(const std::string& server) {
  auto fail = [&](const std::string& why) {
    return Error{"invalid server URL \"" + server + "\": " + why};
  };
  ServerAddress a;
  std::string rest;
  if (server.rfind("https://", 0) == 0) {
    rest = server.substr(8);
  } else if (server.rfind("http://", 0) == 0) {
    a.tls = false;
    rest = server.substr(7);
  } else {
    return fail("want https://host[:port]");
  }
  rest = rest.substr(0, rest.find('/'));  // a path prefix is not supported; ignore it
  if (rest.empty()) return fail("no host");
  std::string port;
  if (rest[0] == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos) return fail("unterminated IPv6 address");
    a.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return fail("junk after IPv6 address");
      port = rest.substr(close + 2);
    }
  } else {
    size_t colon = rest.rfind(':');
    if (colon != std::string::npos) {
      a.host = rest.substr(0, colon);
      port = rest.substr(colon + 1);
    } else {
      a.host = rest;
    }
  }
  if (a.host.empty()) return fail("no host");
  if (port.empty()) port = a.tls ? "443" : "80";
  if (!std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); }) ||
      port.size() > 5 || std::stoi(port) > 65535 || std::stoi(port) == 0) {
    return fail("bad port \"" + port + "\"");
  }
  a.port = port;
  bool v6 = a.host.find(':') != std::string::npos;
  a.host_header = (v6 ? "[" + a.host + "]" : a.host) + ":" + a.port;
  return a;
}

Result<std::shared_ptr<TlsContext>> MakeTlsContext(const ClientConfig& cfg) {
  auto tls = std::make_shared<TlsContext>();
  SSL_CTX_set_min_proto_version(tls->ctx.native_handle(), TLS1_2_VERSION);
  // An idle connection (a pooled one between requests, a watch between events) frees its
  // ~34 KB of record buffers; OpenSSL allocates them again when it next reads or writes.
  SSL_CTX_set_mode(tls->ctx.native_handle(), SSL_MODE_RELEASE_BUFFERS);
  error_code ec;
  if (cfg.insecure_skip_tls_verify) {
    tls->verify = false;
    tls->ctx.set_verify_mode(ssl::verify_none);
  } else {
    tls->ctx.set_verify_mode(ssl::verify_peer);
    if (!cfg.ca_pem.empty()) {
      tls->ctx.add_certificate_authority(asio::buffer(cfg.ca_pem), ec);
      if (ec)
        return Error{"certificate-authority: no usable PEM certificate (" + ec.message() + ")"};
    } else {
      tls->ctx.set_default_verify_paths(ec);
      if (ec) return Error{"system CA certificates: " + ec.message()};
    }
  }
  if (!cfg.client_cert_pem.empty()) {
    tls->ctx.use_certificate_chain(asio::buffer(cfg.client_cert_pem), ec);
    if (ec) return Error{"client-certificate: " + ec.message()};
    tls->ctx.use_private_key(asio::buffer(cfg.client_key_pem), ssl::context::pem, ec);
    if (ec) return Error{"client-key: " + ec.message()};
    if (SSL_CTX_check_private_key(tls->ctx.native_handle()) != 1) {
      return Error{"client-key: does not match client-certificate"};
    }
  }
  return tls;
}

struct Connection::Impl {
  Impl(ServerAddress a, std::shared_ptr<TlsContext> t, std::string v)
      : addr(std::move(a)), tls_ctx(std::move(t)), verify_name(std::move(v)) {
    if (addr.tls) {
      tls.emplace(ioc, tls_ctx->ctx);
    } else {
      plain.emplace(ioc);
    }
  }

  tcp::socket& Socket() { return tls ? tls->next_layer() : *plain; }

  // Calls f with the stream to do I/O on (TLS or plain TCP).
  template <typename F>
  void With(F&& f) {
    if (tls) {
      f(*tls);
    } else {
      f(*plain);
    }
  }

  enum class Wait { kDone, kTimedOut, kStopped };

  // Runs the io_context until `done`; on deadline or stop, closes the socket, drains the aborted
  // handlers (so nothing refers to this frame afterwards) and says why.
  Wait Run(const bool& done, Deadline deadline, const std::atomic<bool>* stop) {
    while (!done) {
      auto now = std::chrono::steady_clock::now();
      bool stopped = stop != nullptr && stop->load(std::memory_order_relaxed);
      if (stopped || now >= deadline) {
        Abort();
        while (!done) {
          ioc.restart();
          ioc.run_one();
        }
        return stopped ? Wait::kStopped : Wait::kTimedOut;
      }
      ioc.restart();
      ioc.run_for(std::min<std::chrono::steady_clock::duration>(deadline - now, kSlice));
    }
    return Wait::kDone;
  }

  void Abort() {
    error_code ignored;
    resolver.cancel();
    Socket().cancel(ignored);
    Socket().close(ignored);
  }

  std::string Where() const { return addr.host_header; }

  ServerAddress addr;
  std::shared_ptr<TlsContext> tls_ctx;
  std::string verify_name;
  asio::io_context ioc{1};
  tcp::resolver resolver{ioc};
  std::optional<ssl::stream<tcp::socket>> tls;
  std::optional<tcp::socket> plain;
  boost::beast::flat_buffer buffer;
  std::optional<http::response_parser<http::buffer_body>> stream_parser;
};

// The io_context (an epoll descriptor and an eventfd), the socket and the TLS stream are built
// by Connect, which turns a failure (EMFILE when descriptors run out, an SSL_new failure) into an
// IoError rather than an exception escaping the caller's thread.
struct Connection::Pending {
  ServerAddress addr;
  std::shared_ptr<TlsContext> tls;
  std::string verify_name;
};

Connection::Connection(ServerAddress addr, std::shared_ptr<TlsContext> tls, std::string verify_name)
    : pending_(std::make_unique<Pending>(
          Pending{std::move(addr), std::move(tls), std::move(verify_name)})) {}

Connection::~Connection() { Close(); }

void Connection::Close() {
  if (!impl_) return;
  error_code ignored;
  impl_->Socket().close(ignored);
  reusable_ = false;
}

namespace {

IoError Failure(const std::string& what, const std::string& where, const error_code& ec) {
  return IoError{what + " " + where + ": " + ec.message()};
}

IoError Stopped() { return IoError{"stopped", false, false, true}; }

bool IsCleanClose(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message ||
         ec == asio::error::eof || ec == ssl::error::stream_truncated;
}

}  // namespace

std::optional<IoError> Connection::Connect(Deadline deadline, const std::atomic<bool>* stop) {
  if (!impl_) {
    if (!pending_) return IoError{"connect: connection already closed"};
    const std::string where = pending_->addr.host_header;
    try {
      impl_ = std::make_unique<Impl>(pending_->addr, pending_->tls, pending_->verify_name);
    } catch (const std::exception& e) {
      // Out of descriptors (EMFILE/ENFILE) or memory: retryable, once some are freed.
      return IoError{"connect " + where + ": " + e.what()};
    }
    pending_.reset();
  }
  try {
    return ConnectImpl(deadline, stop);
  } catch (const std::exception& e) {
    // Asio reports most failures through error codes; the rest (e.g. a descriptor it needs
    // internally) come as exceptions.
    Close();
    return IoError{"connect " + impl_->Where() + ": " + e.what()};
  }
}

std::optional<IoError> Connection::ConnectImpl(Deadline deadline, const std::atomic<bool>* stop) {
  Impl& c = *impl_;
  bool done = false;
  error_code ec;
  tcp::resolver::results_type endpoints;
  Impl::Wait wait = Impl::Wait::kDone;
  // An IP address needs no resolving. Asio resolves names on a thread of the io_context's own,
  // started on the first async_resolve and kept (idle, with its stack and malloc arena) for
  // the connection's life: one per pooled or watch connection.
  error_code host_not_ip;
  const asio::ip::address ip = asio::ip::make_address(c.addr.host, host_not_ip);
  if (!host_not_ip) {
    const auto port = static_cast<uint16_t>(std::stoi(c.addr.port));  // checked by ParseServer
    endpoints =
        tcp::resolver::results_type::create(tcp::endpoint(ip, port), c.addr.host, c.addr.port);
  } else {
    c.resolver.async_resolve(c.addr.host, c.addr.port,
                             [&](const error_code& e, tcp::resolver::results_type r) {
                               ec = e;
                               endpoints = std::move(r);
                               done = true;
                             });
    wait = c.Run(done, deadline, stop);
    if (wait == Impl::Wait::kStopped) return Stopped();
    if (wait == Impl::Wait::kTimedOut) return IoError{"resolve " + c.addr.host + ": timed out"};
    if (ec) return Failure("resolve", c.addr.host, ec);
  }

  done = false;
  asio::async_connect(c.Socket(), endpoints, [&](const error_code& e, const tcp::endpoint&) {
    ec = e;
    done = true;
  });
  wait = c.Run(done, deadline, stop);
  if (wait == Impl::Wait::kStopped) return Stopped();
  if (wait == Impl::Wait::kTimedOut) return IoError{"connect " + c.Where() + ": timed out"};
  if (ec) return Failure("connect", c.Where(), ec);
  error_code ignored;
  c.Socket().set_option(tcp::no_delay(true), ignored);
  c.Socket().set_option(asio::socket_base::keep_alive(true), ignored);
  if (!c.tls) return std::nullopt;

  SSL* ssl_handle = c.tls->native_handle();
  error_code not_ip;
  asio::ip::make_address(c.verify_name, not_ip);
  if (c.tls_ctx->verify && !c.verify_name.empty()) {
    // OpenSSL checks the name (or IP SAN) during the handshake.
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_handle);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (!not_ip) {
      X509_VERIFY_PARAM_set1_ip_asc(param, c.verify_name.c_str());
    } else {
      X509_VERIFY_PARAM_set1_host(param, c.verify_name.c_str(), c.verify_name.size());
    }
  }
  if (not_ip && !c.verify_name.empty()) {  // SNI carries names only, never IP addresses
    SSL_set_tlsext_host_name(ssl_handle, c.verify_name.c_str());
  }
  done = false;
  c.tls->async_handshake(ssl::stream_base::client, [&](const error_code& e) {
    ec = e;
    done = true;
  });
  wait = c.Run(done, deadline, stop);
  if (wait == Impl::Wait::kStopped) return Stopped();
  if (wait == Impl::Wait::kTimedOut)
    return IoError{"TLS handshake with " + c.Where() + ": timed out"};
  if (ec) {
    IoError err = Failure("TLS handshake with", c.Where(), ec);
    long verify = SSL_get_verify_result(ssl_handle);
    if (verify != X509_V_OK) {
      err.message = "TLS handshake with " + c.Where() +
                    ": certificate verify failed: " + X509_verify_cert_error_string(verify);
      if (!c.verify_name.empty()) err.message += " (verifying \"" + c.verify_name + "\")";
    }
    // A protocol-level failure repeats on every attempt; a reset during the handshake may not.
    err.retryable = ec.category() != asio::error::get_ssl_category();
    return err;
  }
  return std::nullopt;
}

std::optional<IoError> Connection::Send(const WireRequest& req, Deadline deadline,
                                        const std::atomic<bool>* stop) {
  if (!impl_) return IoError{"send: not connected", true, true};
  Impl& c = *impl_;
  reusable_ = false;
  http::request<http::string_body> r;
  http::verb verb = http::string_to_verb(req.method);
  if (verb == http::verb::unknown) {
    r.method_string(req.method);
  } else {
    r.method(verb);
  }
  r.target(req.target);
  r.version(11);
  r.set(http::field::host, c.addr.host_header);
  for (const auto& [name, value] : req.headers) r.set(name, value);
  r.body() = req.body;
  r.prepare_payload();
  bool done = false;
  error_code ec;
  c.With([&](auto& stream) {
    http::async_write(stream, r, [&](const error_code& e, size_t) {
      ec = e;
      done = true;
    });
  });
  auto wait = c.Run(done, deadline, stop);
  if (wait == Impl::Wait::kStopped) return Stopped();
  if (wait == Impl::Wait::kTimedOut) {
    return IoError{"send to " + c.Where() + ": timed out", true, true};
  }
  if (ec) {
    IoError err = Failure("send to", c.Where(), ec);
    err.nothing_received = true;
    return err;
  }
  return std::nullopt;
}

std::variant<Response, IoError> Connection::ReadResponse(Deadline deadline, uint64_t max_body) {
  if (!impl_) return IoError{"read response: not connected", true, true};
  Impl& c = *impl_;
  reusable_ = false;
  http::response_parser<http::string_body> p;
  // Beast's default, 8 MB, is too small for lists of a big cluster; the caller's bound applies
  // to chunked and unsized bodies as they grow. A Content-Length over it is checked here, after
  // the head and before the body: Beast 1.74 checks it too, but its eager parse (head and body in
  // one read) loses that error and goes on reading, and string_body would reserve that much.
  p.body_limit(max_body);
  p.header_limit(1 << 20);
  auto too_large = [&] {
    Close();
    IoError err{"read response from " + c.Where() + ": body larger than " +
                std::to_string(max_body) + " bytes"};
    err.retryable = false;
    err.body_too_large = true;
    return err;
  };
  bool done = false;
  error_code ec;
  c.With([&](auto& stream) {
    http::async_read_header(stream, c.buffer, p, [&](const error_code& e, size_t) {
      ec = e;
      done = true;
    });
  });
  auto wait = c.Run(done, deadline, nullptr);
  if (wait == Impl::Wait::kDone && !ec && !p.is_done()) {
    if (p.content_length() && *p.content_length() > max_body) return too_large();
    done = false;
    c.With([&](auto& stream) {
      http::async_read(stream, c.buffer, p, [&](const error_code& e, size_t) {
        ec = e;
        done = true;
      });
    });
    wait = c.Run(done, deadline, nullptr);
  }
  if (wait != Impl::Wait::kDone) {
    return IoError{"read response from " + c.Where() + ": timed out", true, !p.got_some()};
  }
  if (ec == http::error::body_limit) return too_large();
  if (ec) {
    IoError err = Failure("read response from", c.Where(), ec);
    err.nothing_received = !p.got_some();
    // Garbage from the server is a bug there, not a transient failure.
    if (ec.category() == http::make_error_code(http::error::bad_version).category() &&
        !IsCleanClose(ec)) {
      err.retryable = false;
    }
    return err;
  }
  Response res;
  auto& msg = p.get();
  res.status = static_cast<int>(msg.result_int());
  for (const auto& field : msg) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    auto [it, inserted] = res.headers.emplace(name, std::string(field.value()));
    if (!inserted) it->second += ", " + std::string(field.value());
  }
  res.body = std::move(msg.body());
  reusable_ = msg.keep_alive() && p.is_done();
  return res;
}

std::variant<int, IoError> Connection::ReadHead(Deadline deadline, const std::atomic<bool>* stop) {
  if (!impl_) return IoError{"read response: not connected", true, true};
  Impl& c = *impl_;
  reusable_ = false;
  c.stream_parser.emplace();
  c.stream_parser->body_limit(kNoLimit);
  c.stream_parser->header_limit(1 << 20);
  bool done = false;
  error_code ec;
  c.With([&](auto& stream) {
    http::async_read_header(stream, c.buffer, *c.stream_parser, [&](const error_code& e, size_t) {
      ec = e;
      done = true;
    });
  });
  auto wait = c.Run(done, deadline, stop);
  if (wait == Impl::Wait::kStopped) return Stopped();
  if (wait == Impl::Wait::kTimedOut) {
    return IoError{"read response from " + c.Where() + ": timed out"};
  }
  if (ec) return Failure("read response from", c.Where(), ec);
  return static_cast<int>(c.stream_parser->get().result_int());
}

std::variant<bool, IoError> Connection::ReadBody(
    const std::function<bool(std::string_view)>& on_data, Deadline deadline,
    const std::atomic<bool>* stop) {
  if (!impl_ || !impl_->stream_parser) return IoError{"read body: not connected"};
  Impl& c = *impl_;
  auto& p = *c.stream_parser;
  char buf[16384];
  while (!p.is_done()) {
    p.get().body().data = buf;
    p.get().body().size = sizeof(buf);
    bool done = false;
    error_code ec;
    // read_some returns as soon as some data is parsed, so each watch event is seen as it
    // arrives rather than when a buffer fills.
    c.With([&](auto& stream) {
      http::async_read_some(stream, c.buffer, p, [&](const error_code& e, size_t) {
        ec = e;
        done = true;
      });
    });
    auto wait = c.Run(done, deadline, stop);
    size_t n = sizeof(buf) - p.get().body().size;
    if (wait == Impl::Wait::kStopped) return false;
    if (n > 0 && !on_data(std::string_view(buf, n))) {
      Close();
      return false;
    }
    if (wait == Impl::Wait::kTimedOut) {
      return IoError{"read body from " + c.Where() + ": timed out"};
    }
    if (ec == http::error::need_buffer) continue;
    if (IsCleanClose(ec)) return true;
    if (ec) return Failure("read body from", c.Where(), ec);
  }
  return true;
}

}  // namespace berth::client::internal
