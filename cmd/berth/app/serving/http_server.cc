#include "cmd/berth/app/serving/http_server.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include "base/fault_counters.h"
#include "base/log.h"

namespace berth::run {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr auto kIdleTimeout = std::chrono::seconds(60);
constexpr size_t kMaxRequestBody = 16 * 1024;
// Request line plus headers (Beast's default is 8 KiB; Go's 1 MiB).
constexpr uint32_t kMaxHeaderBytes = 64 * 1024;
// After an error answer, unread request bytes are read and dropped for up to this long (and this
// much) before closing, so that the client sees the answer rather than a reset.
constexpr auto kLingerTimeout = std::chrono::seconds(1);
constexpr size_t kMaxLingerBytes = 1 << 20;

// ---- Addresses ----

Result<tcp::endpoint> ParseListenAddress(const std::string& address) {
  auto invalid = [&](const std::string& why) {
    return Error{"invalid address \"" + address + "\": " + why};
  };
  std::string host, port;
  if (!address.empty() && address[0] == '[') {
    size_t close = address.find(']');
    if (close == std::string::npos || close + 1 >= address.size() || address[close + 1] != ':') {
      return invalid("want [host]:port");
    }
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    size_t colon = address.rfind(':');
    if (colon == std::string::npos) return invalid("want host:port");
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
    if (host.find(':') != std::string::npos) return invalid("IPv6 hosts go in brackets");
  }
  int port_num = -1;
  if (!port.empty() && port.size() <= 5 &&
      port.find_first_not_of("0123456789") == std::string::npos) {
    port_num = std::stoi(port);
  }
  if (port_num < 0 || port_num > 65535) return invalid("port must be 0..65535");
  if (host.empty()) return tcp::endpoint(net::ip::address_v4::any(), port_num);
  boost::system::error_code ec;
  auto ip = net::ip::make_address(host, ec);
  if (!ec) return tcp::endpoint(ip, port_num);
  net::io_context ioc;
  tcp::resolver resolver(ioc);
  auto results = resolver.resolve(host, port, ec);
  if (ec || results.empty()) return invalid(ec ? ec.message() : "no addresses");
  return results.begin()->endpoint();
}

// ---- TLS ----

std::string OpenSslError() {
  unsigned long code = ERR_get_error();  // NOLINT(runtime/int): OpenSSL's type
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof(buf));
  return buf;
}

template <typename T, void (*Free)(T*)>
struct OsslDeleter {
  void operator()(T* p) const { Free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, OsslDeleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, OsslDeleter<X509, X509_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, OsslDeleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using BioPtr = std::unique_ptr<BIO, OsslDeleter<BIO, BIO_free_all>>;
using BnPtr = std::unique_ptr<BIGNUM, OsslDeleter<BIGNUM, BN_free>>;

struct SelfSigned {
  PkeyPtr key;
  X509Ptr cert;
};

Result<SelfSigned> GenerateSelfSigned() {
  auto fail = [](const char* step) {
    return Error{std::string("self-signed certificate: ") + step + ": " + OpenSslError()};
  };
  SelfSigned out;
  PkeyCtxPtr kctx(EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nullptr));
  EVP_PKEY* raw_key = nullptr;
  if (!kctx || EVP_PKEY_keygen_init(kctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_ec_paramgen_curve_nid(kctx.get(), NID_X9_62_prime256v1) <= 0 ||
      EVP_PKEY_keygen(kctx.get(), &raw_key) <= 0) {
    return fail("generate P-256 key");
  }
  out.key.reset(raw_key);

  out.cert.reset(X509_new());
  X509* x = out.cert.get();
  if (!x || X509_set_version(x, 2) != 1) return fail("new X509");  // 2 = v3
  BnPtr serial(BN_new());
  if (!serial || BN_rand(serial.get(), 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(x))) {
    return fail("serial number");
  }
  // Back-dated an hour for clock skew, like client-go's GenerateSelfSignedCertKey.
  if (!X509_gmtime_adj(X509_getm_notBefore(x), -3600) ||
      !X509_gmtime_adj(X509_getm_notAfter(x), 365L * 24 * 3600)) {
    return fail("validity");
  }
  X509_NAME* name = X509_get_subject_name(x);
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>("berth-scheduler"), -1, -1,
                                 0) != 1 ||
      X509_set_issuer_name(x, name) != 1 || X509_set_pubkey(x, out.key.get()) != 1) {
    return fail("subject");
  }
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, x, x, nullptr, nullptr, 0);
  const std::pair<int, const char*> extensions[] = {
      {NID_basic_constraints, "critical,CA:FALSE"},
      {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
      {NID_ext_key_usage, "serverAuth"},
      {NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1"},
  };
  for (const auto& [nid, value] : extensions) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
    if (!ext) return fail("extension");
    int ok = X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    if (ok != 1) return fail("extension");
  }
  if (X509_sign(x, out.key.get(), EVP_sha256()) <= 0) return fail("sign");
  return out;
}

Result<std::string> CertificatePem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
    return Error{"self-signed certificate: PEM: " + OpenSslError()};
  }
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);  // NOLINT(runtime/int)
  return std::string(data, static_cast<size_t>(len));
}

// Asks clients for a certificate issued by one of `ca_pem`'s CAs, without requiring one and
// without verifying it here (as Go's tls.RequestClientCert): the authenticator verifies it.
Result<bool> RequestClientCertificates(ssl::context& ctx, const std::string& ca_pem) {
  BioPtr bio(BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size())));
  STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
  if (!bio || !names) return Error{"client CA: " + OpenSslError()};
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_NAME* name = X509_NAME_dup(X509_get_subject_name(cert));
    X509_free(cert);
    if (name) sk_X509_NAME_push(names, name);
  }
  ERR_clear_error();  // the end of the bundle reads as an error
  if (sk_X509_NAME_num(names) == 0) {
    sk_X509_NAME_pop_free(names, X509_NAME_free);
    return Error{"client CA: no PEM certificate in the bundle"};
  }
  SSL_CTX_set_client_CA_list(ctx.native_handle(), names);  // takes ownership
  SSL_CTX_set_verify(ctx.native_handle(), SSL_VERIFY_PEER, [](int, X509_STORE_CTX*) { return 1; });
  static const unsigned char kSessionContext[] = "berth";
  SSL_CTX_set_session_id_context(ctx.native_handle(), kSessionContext, sizeof(kSessionContext));
  return true;
}

// The client's certificate chain as DER, leaf first; empty without one.
std::vector<std::string> PeerCertificates(SSL* ssl) {
  std::vector<std::string> out;
  // On a server, the peer chain excludes the leaf.
  STACK_OF(X509)* chain = SSL_get_peer_cert_chain(ssl);
  X509Ptr leaf(SSL_get1_peer_certificate(ssl));
  auto add = [&out](X509* cert) {
    int len = i2d_X509(cert, nullptr);
    if (len <= 0) return;
    std::string der(static_cast<size_t>(len), '\0');
    auto* p = reinterpret_cast<unsigned char*>(der.data());
    if (i2d_X509(cert, &p) == len) out.push_back(std::move(der));
  };
  if (!leaf) return out;
  add(leaf.get());
  for (int i = 0; chain && i < sk_X509_num(chain); ++i) {
    X509* c = sk_X509_value(chain, i);
    if (X509_cmp(c, leaf.get()) != 0) add(c);
  }
  return out;
}

// Writes the pair as <dir>/kube-scheduler.crt and .key (the key mode 0600), as upstream's
// MaybeDefaultWithSelfSignedCerts does with --cert-dir.
Result<bool> SaveSelfSigned(const SelfSigned& pair, const std::string& dir) {
  auto cert = CertificatePem(pair.cert.get());
  if (!cert.ok()) return Error{cert.error()};
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), pair.key.get(), nullptr, nullptr, 0, nullptr,
                                       nullptr) != 1) {
    return Error{"self-signed certificate: key PEM: " + OpenSslError()};
  }
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);  // NOLINT(runtime/int)
  const std::string key(data, static_cast<size_t>(len));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"--cert-dir " + dir + ": " + ec.message()};
  const std::string base = dir + "/" + std::string(kSelfSignedPairName);
  std::ofstream(base + ".crt") << *cert;
  {
    std::ofstream out(base + ".key");
    out << key;
  }
  std::filesystem::permissions(
      base + ".key", std::filesystem::perms::owner_read | std::filesystem::perms::owner_write, ec);
  if (!std::ifstream(base + ".crt") || !std::ifstream(base + ".key")) {
    return Error{"--cert-dir " + dir + ": cannot write " + base + ".crt/.key"};
  }
  return true;
}

// Configures `ctx` and returns the serving certificate's PEM.
Result<std::string> SetUpTls(ssl::context& ctx, const HttpServerOptions& opts) {
  ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                  ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                  ssl::context::single_dh_use);
  if (!opts.client_ca_pem.empty()) {
    auto ok = RequestClientCertificates(ctx, opts.client_ca_pem);
    if (!ok.ok()) return Error{ok.error()};
  }
  if (opts.cert_file.empty() != opts.key_file.empty()) {
    return Error{"cert_file and key_file must be given together"};
  }
  if (SSL_CTX_set_min_proto_version(ctx.native_handle(), opts.tls_min_version) != 1) {
    return Error{"TLS minimum version: " + OpenSslError()};
  }
  if (!opts.cipher_list.empty() &&
      SSL_CTX_set_cipher_list(ctx.native_handle(), opts.cipher_list.c_str()) != 1) {
    return Error{"TLS cipher suites \"" + opts.cipher_list + "\": " + OpenSslError()};
  }
  if (!opts.cert_file.empty()) {
    boost::system::error_code ec;
    ctx.use_certificate_chain_file(opts.cert_file, ec);
    if (ec) return Error{"TLS certificate " + opts.cert_file + ": " + ec.message()};
    ctx.use_private_key_file(opts.key_file, ssl::context::pem, ec);
    if (ec) return Error{"TLS key " + opts.key_file + ": " + ec.message()};
    if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
      return Error{"TLS key " + opts.key_file + ": does not match the certificate"};
    }
    std::ifstream in(opts.cert_file);
    std::stringstream pem;
    pem << in.rdbuf();
    return pem.str();
  }
  auto generated = GenerateSelfSigned();
  if (!generated.ok()) return Error{generated.error()};
  if (!opts.cert_dir.empty()) {
    if (auto saved = SaveSelfSigned(*generated, opts.cert_dir); !saved.ok()) {
      return Error{saved.error()};
    }
  }
  if (SSL_CTX_use_certificate(ctx.native_handle(), generated->cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(ctx.native_handle(), generated->key.get()) != 1) {
    return Error{"self-signed certificate: install: " + OpenSslError()};
  }
  return CertificatePem(generated->cert.get());
}

// ---- Routing ----

struct Reply {
  http::status status = http::status::ok;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

Reply Checks(const std::function<std::vector<std::string>()>& check, std::string_view name) {
  std::vector<std::string> reasons;
  if (check) reasons = check();
  if (reasons.empty()) return Reply{http::status::ok, "text/plain; charset=utf-8", "ok", {}};
  Reply r{http::status::internal_server_error, "text/plain; charset=utf-8", "", {}};
  for (const auto& reason : reasons) r.body += reason + "\n";
  r.body += std::string(name) + " check failed\n";
  return r;
}

Reply Route(http::verb method, std::string_view target, const HttpHandlers& h,
            const std::string& body) {
  if (h.routes) {
    std::string_view route_path = target.substr(0, target.find('?'));
    try {
      auto sv = http::to_string(method);
      if (auto r = h.routes(std::string_view(sv.data(), sv.size()), route_path, body)) {
        return Reply{static_cast<http::status>(r->status), std::move(r->content_type),
                     std::move(r->body), std::move(r->headers)};
      }
    } catch (const std::exception& e) {
      BERTH_ERROR() << "http " << route_path << ": " << e.what();
      CountFault(Fault::kRecoveredException, "http_handler");
      return Reply{http::status::internal_server_error,
                   "text/plain; charset=utf-8",
                   std::string("internal error: ") + e.what() + "\n",
                   {}};
    }
  }
  std::string_view path = target.substr(0, target.find('?'));
  const bool known = path == "/healthz" || path == "/livez" || path == "/readyz" ||
                     (path == "/metrics" && h.metrics) || (path == "/configz" && h.configz);
  if (!known) {
    return Reply{http::status::not_found, "text/plain; charset=utf-8", "404 page not found\n", {}};
  }
  if (method != http::verb::get && method != http::verb::head) {
    return Reply{http::status::method_not_allowed,
                 "text/plain; charset=utf-8",
                 "method not allowed\n",
                 {{"Allow", "GET, HEAD"}}};
  }
  try {
    if (path == "/healthz") return Checks(h.liveness, "healthz");
    if (path == "/livez") return Checks(h.liveness, "livez");
    if (path == "/readyz") return Checks(h.readiness, "readyz");
    if (path == "/metrics" && h.metrics) {
      return Reply{http::status::ok, "text/plain; version=0.0.4; charset=utf-8", h.metrics(), {}};
    }
    if (path == "/configz" && h.configz) {
      return Reply{http::status::ok, "application/json", h.configz(), {}};
    }
  } catch (const std::exception& e) {
    BERTH_ERROR() << "http " << path << ": " << e.what();
    CountFault(Fault::kRecoveredException, "http_handler");
    return Reply{http::status::internal_server_error,
                 "text/plain; charset=utf-8",
                 std::string("internal error: ") + e.what() + "\n",
                 {}};
  }
  return Reply{http::status::not_found, "text/plain; charset=utf-8", "404 page not found\n", {}};
}

// ---- Connections ----

class SessionBase {
 public:
  virtual ~SessionBase() = default;
  // Closes the socket: pending operations complete with an error and are not re-armed.
  virtual void Close() = 0;
};

// Open connections, so that Stop can close them. Touched only on the I/O thread (and after it
// has been joined, when the io_context destroys the sessions it still holds).
using LiveSessions = std::unordered_set<SessionBase*>;

// Where an authorize callback, on any thread, hands its answer back to the I/O thread; `ioc`
// becomes null when the server stops, and later answers are dropped.
struct PostTarget {
  std::mutex mu;
  net::io_context* ioc = nullptr;  // guarded by mu
};

// One connection: plain (beast::tcp_stream) or TLS (beast::ssl_stream<beast::tcp_stream>).
// Keeps itself alive through the shared_ptr captured by each pending operation.
template <typename Stream>
class Session : public SessionBase, public std::enable_shared_from_this<Session<Stream>> {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  Session(tcp::socket socket, ssl::context* tls, const HttpHandlers* handlers, LiveSessions* live,
          std::shared_ptr<PostTarget> post, size_t max_body = kMaxRequestBody)
      : stream_(MakeStream(std::move(socket), tls)),
        handlers_(handlers),
        live_(live),
        post_(std::move(post)),
        max_body_(max_body) {
    live_->insert(this);
  }
  ~Session() override { live_->erase(this); }

  void Close() override {
    beast::get_lowest_layer(stream_).close();
    // May destroy this session: last.
    waiting_self_.reset();
  }

  void Run() {
    if constexpr (kTls) {
      beast::get_lowest_layer(stream_).expires_after(kHandshakeTimeout);
      stream_.async_handshake(
          ssl::stream_base::server, [self = this->shared_from_this()](beast::error_code ec) {
            if (ec) return;
            if (self->handlers_->authorize) {
              self->peer_certificates_ = PeerCertificates(self->stream_.native_handle());
            }
            self->Read();
          });
    } else {
      Read();
    }
  }

 private:
  static Stream MakeStream(tcp::socket socket, ssl::context* tls) {
    if constexpr (kTls) {
      return Stream(std::move(socket), *tls);
    } else {
      return Stream(std::move(socket));
    }
  }

  void Read() {
    parser_.emplace();
    parser_->body_limit(max_body_);
    parser_->header_limit(kMaxHeaderBytes);
    beast::get_lowest_layer(stream_).expires_after(kIdleTimeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream) return Shutdown();
    if (ec) {
      if (auto status = RejectStatus(ec)) return Reject(*status, ec);
      return;  // timeout, reset, or the client went away mid-request: drop the connection
    }
    if constexpr (kTls) {
      if (handlers_->authorize) return Authorize();
    }
    Respond(std::nullopt);
  }

  // Hands the request to handlers_->authorize; the session waits (no read, no timer) holding
  // itself in waiting_self_ until the answer is posted back, or Close drops it.
  void Authorize() {
    const auto& req = parser_->get();
    RequestCredentials creds;
    auto method = req.method_string();
    creds.method.assign(method.data(), method.size());
    auto target = req.target();
    creds.target.assign(target.data(), target.size());
    creds.path = creds.target.substr(0, creds.target.find('?'));
    for (const auto& field : req) {
      std::string name(field.name_string());
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      creds.headers.emplace_back(std::move(name), std::string(field.value()));
    }
    creds.peer_certificates = peer_certificates_;
    beast::get_lowest_layer(stream_).expires_never();
    waiting_self_ = this->shared_from_this();
    std::weak_ptr<Session> weak = this->shared_from_this();
    AuthorizeDone done = [weak, post = post_](std::optional<HttpReply> refusal) {
      std::lock_guard lock(post->mu);
      if (post->ioc == nullptr) return;
      net::post(*post->ioc, [weak, refusal = std::move(refusal)]() mutable {
        auto self = weak.lock();
        if (!self || !self->waiting_self_) return;  // closed meanwhile
        self->waiting_self_.reset();
        // The answer's write gets a deadline again (none while waiting for authorize).
        beast::get_lowest_layer(self->stream_).expires_after(kIdleTimeout);
        self->Respond(std::move(refusal));
      });
    };
    const std::string path = creds.path;
    try {
      handlers_->authorize(std::move(creds), std::move(done));
    } catch (const std::exception& e) {
      // Answer at once rather than leave the request waiting for an answer that never comes.
      BERTH_ERROR() << "http authorize " << path << ": " << e.what();
      CountFault(Fault::kRecoveredException, "http_handler");
      waiting_self_.reset();
      Respond(HttpReply{
          500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n", {}});
    }
  }

  // Answers the request just read: `refusal` when authorization refused it, else its route.
  void Respond(std::optional<HttpReply> refusal) {
    const auto& req = parser_->get();
    auto target = req.target();
    Reply reply = refusal ? Reply{static_cast<http::status>(refusal->status),
                                  std::move(refusal->content_type), std::move(refusal->body),
                                  std::move(refusal->headers)}
                          : Route(req.method(), std::string_view(target.data(), target.size()),
                                  *handlers_, req.body());
    auto res = std::make_shared<http::response<http::string_body>>(reply.status, req.version());
    res->set(http::field::server, "berth");
    res->set(http::field::content_type, reply.content_type);
    res->set("X-Content-Type-Options", "nosniff");
    for (const auto& [name, value] : reply.headers) res->set(name, value);
    res->keep_alive(req.keep_alive());
    const bool head = req.method() == http::verb::head;
    res->body() = std::move(reply.body);
    res->prepare_payload();
    if (head) res->body().clear();  // keeps the GET Content-Length, as HEAD should
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res](beast::error_code ec, size_t) {
                        if (ec) return;
                        if (res->keep_alive()) return self->Read();
                        self->Shutdown();
                      });
  }

  // The answer to a request the parser refused, or nullopt when there is nobody to answer.
  static std::optional<http::status> RejectStatus(beast::error_code ec) {
    if (ec.category() != http::make_error_code(http::error::bad_version).category()) {
      return std::nullopt;  // I/O error or timeout
    }
    if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
        ec == http::error::need_more || ec == http::error::need_buffer) {
      return std::nullopt;
    }
    if (ec == http::error::body_limit) return http::status::payload_too_large;
    if (ec == http::error::header_limit) return http::status::request_header_fields_too_large;
    return http::status::bad_request;
  }

  // Answers `status` (Connection: close) and ends the connection.
  void Reject(http::status status, beast::error_code ec) {
    std::string why = ec.message();
    if (status == http::status::payload_too_large) {
      why = "request body larger than " + std::to_string(max_body_) + " bytes";
    } else if (status == http::status::request_header_fields_too_large) {
      why = "request line and headers larger than " + std::to_string(kMaxHeaderBytes) + " bytes";
    }
    BERTH_LOG(2) << "http: refusing a request: " << static_cast<int>(status) << " " << why;
    auto res = std::make_shared<http::response<http::string_body>>(status, 11);
    res->set(http::field::server, "berth");
    res->set(http::field::content_type, "text/plain; charset=utf-8");
    res->set("X-Content-Type-Options", "nosniff");
    res->body() = std::to_string(static_cast<int>(status)) + " " +
                  std::string(http::obsolete_reason(status)) + ": " + why + "\n";
    res->keep_alive(false);
    res->prepare_payload();
    beast::get_lowest_layer(stream_).expires_after(kHandshakeTimeout);
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res](beast::error_code ec, size_t) {
                        if (ec) return;
                        self->Linger();
                      });
  }

  // After an error answer: stop sending, then read and drop what the client still sends for a
  // moment, so that closing does not reset the connection before the client has read the answer.
  void Linger() {
    if constexpr (kTls) {
      Shutdown();
    } else {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      beast::get_lowest_layer(stream_).expires_after(kLingerTimeout);
      buffer_.clear();
      lingered_ = 0;
      Drain();
    }
  }
  void Drain() {
    stream_.async_read_some(buffer_.prepare(16 * 1024),
                            [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                              self->lingered_ += n;
                              if (ec || self->lingered_ > kMaxLingerBytes)
                                return;  // the session ends, closing
                              self->Drain();
                            });
  }

  // Orderly end of the connection after the last response.
  void Shutdown() {
    if constexpr (kTls) {
      beast::get_lowest_layer(stream_).expires_after(kHandshakeTimeout);
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) {});
    } else {
      beast::error_code ec;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    }
  }

  Stream stream_;
  const HttpHandlers* handlers_;
  LiveSessions* live_;
  std::shared_ptr<PostTarget> post_;
  size_t max_body_;
  std::vector<std::string> peer_certificates_;  // DER, leaf first (TLS with authorize only)
  // Set while authorize has not answered: the only owner of the session then.
  std::shared_ptr<Session> waiting_self_;
  beast::flat_buffer buffer_;
  size_t lingered_ = 0;
  std::optional<http::request_parser<http::string_body>> parser_;
};

using PlainSession = Session<beast::tcp_stream>;
using TlsSession = Session<beast::ssl_stream<beast::tcp_stream>>;

Result<std::unique_ptr<tcp::acceptor>> Listen(net::io_context& ioc, const std::string& address) {
  auto endpoint = ParseListenAddress(address);
  if (!endpoint.ok()) return Error{endpoint.error()};
  auto acceptor = std::make_unique<tcp::acceptor>(ioc);
  boost::system::error_code ec;
  auto fail = [&] { return Error{"listen on " + address + ": " + ec.message()}; };
  if (acceptor->open(endpoint->protocol(), ec)) return fail();
  if (acceptor->set_option(net::socket_base::reuse_address(true), ec)) return fail();
  if (acceptor->bind(*endpoint, ec)) return fail();
  if (acceptor->listen(net::socket_base::max_listen_connections, ec)) return fail();
  return acceptor;
}

}  // namespace

std::chrono::milliseconds NextAcceptBackoff(std::chrono::milliseconds previous) {
  constexpr std::chrono::milliseconds kFirst{5}, kMax{1000};
  if (previous < kFirst) return kFirst;
  return std::min(previous * 2, kMax);
}

// Member order matters for destruction: the listeners and the io_context (which destroys pending
// sessions) go before the TLS context, the handlers and the session set the sessions point at.
struct HttpServer::Impl {
  // One listening socket and its accept back-off.
  struct Listener {
    std::unique_ptr<tcp::acceptor> acceptor;
    std::unique_ptr<net::steady_timer> retry;
    std::chrono::milliseconds backoff{0};
    bool tls = false;
  };

  HttpHandlers handlers;
  std::shared_ptr<PostTarget> post = std::make_shared<PostTarget>();
  ssl::context tls{ssl::context::tls_server};
  std::string certificate_pem;
  LiveSessions live;
  net::io_context ioc{1};
  Listener secure;
  Listener plain;
  int secure_port = 0;
  int plain_port = 0;
  size_t max_body = kMaxRequestBody;
  size_t max_connections = 0;
  std::atomic<uint64_t> refused{0};
  bool refusing = false;  // the last connection was refused (logs once per episode)
  std::thread thread;
  std::atomic<bool> stopped{false};

  void Accept(Listener& l) {
    l.acceptor->async_accept(ioc, [this, &l](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !l.acceptor->is_open()) return;
      if (ec) {
        // Typically EMFILE/ENFILE: the pending connection stays in the backlog, so re-arming at
        // once would fail again at once. Back off as Go's net/http does.
        l.backoff = NextAcceptBackoff(l.backoff);
        CountFault(Fault::kAcceptError, l.tls ? "https" : "http");
        BERTH_ERROR() << "http: accept error: " << ec.message() << "; retrying in "
                      << l.backoff.count() << "ms";
        l.retry->expires_after(l.backoff);
        l.retry->async_wait([this, &l](beast::error_code wait_ec) {
          if (!wait_ec) Accept(l);
        });
        return;
      }
      l.backoff = std::chrono::milliseconds(0);
      OnAccepted(std::move(socket), l.tls);
      Accept(l);
    });
  }

  void OnAccepted(tcp::socket socket, bool is_tls) {
    if (max_connections > 0 && live.size() >= max_connections) {
      refused.fetch_add(1, std::memory_order_relaxed);
      CountFault(Fault::kConnectionRefused, is_tls ? "https" : "http");
      if (!refusing) {
        BERTH_WARN() << "http: " << live.size()
                     << " connections open (--max-connections); refusing new ones";
        refusing = true;
      }
      beast::error_code ignored;
      socket.close(ignored);
      return;
    }
    refusing = false;
    try {
      if (is_tls) {
        std::make_shared<TlsSession>(std::move(socket), &tls, &handlers, &live, post, max_body)
            ->Run();
      } else {
        std::make_shared<PlainSession>(std::move(socket), nullptr, &handlers, &live, post, max_body)
            ->Run();
      }
    } catch (const std::exception& e) {
      // E.g. SSL_new failing for want of memory or descriptors: drop this connection only.
      BERTH_ERROR() << "http: new connection: " << e.what();
      CountFault(Fault::kRecoveredException, "http_server");
    }
  }
};

Result<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options,
                                                      HttpHandlers handlers) {
  auto impl = std::make_unique<Impl>();
  impl->handlers = std::move(handlers);
  impl->max_body = options.max_request_body;
  impl->max_connections = options.max_connections;
  if (options.secure_address.empty() && options.plain_address.empty()) {
    return Error{"no listen address"};
  }
  if (!options.secure_address.empty()) {
    auto pem = SetUpTls(impl->tls, options);
    if (!pem.ok()) return Error{pem.error()};
    impl->certificate_pem = std::move(*pem);
    auto secure = Listen(impl->ioc, options.secure_address);
    if (!secure.ok()) return Error{secure.error()};
    impl->secure.acceptor = std::move(*secure);
    impl->secure.retry = std::make_unique<net::steady_timer>(impl->ioc);
    impl->secure.tls = true;
    impl->secure_port = impl->secure.acceptor->local_endpoint().port();
  }
  if (!options.plain_address.empty()) {
    auto plain = Listen(impl->ioc, options.plain_address);
    if (!plain.ok()) return Error{plain.error()};
    impl->plain.acceptor = std::move(*plain);
    impl->plain.retry = std::make_unique<net::steady_timer>(impl->ioc);
    impl->plain_port = impl->plain.acceptor->local_endpoint().port();
  }

  impl->post->ioc = &impl->ioc;
  if (impl->secure.acceptor) impl->Accept(impl->secure);
  if (impl->plain.acceptor) impl->Accept(impl->plain);
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] {
    pthread_setname_np(pthread_self(), "berth-http");
    for (;;) {
      try {
        raw->ioc.run();
        return;  // stopped
      } catch (const std::exception& e) {
        // A handler threw past Route's guard (allocation failure, ...): log and keep serving.
        BERTH_ERROR() << "http server: " << e.what();
        CountFault(Fault::kRecoveredException, "http_server");
      }
    }
  });
  std::ostringstream where;
  if (raw->secure.acceptor) where << "serving HTTPS on " << raw->secure.acceptor->local_endpoint();
  if (raw->plain.acceptor) {
    where << (raw->secure.acceptor ? " and HTTP on " : "serving HTTP on ")
          << raw->plain.acceptor->local_endpoint();
  }
  BERTH_LOG(0) << where.str();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Stop() {
  if (impl_->stopped.exchange(true)) return;
  // Close the listeners and every connection on the I/O thread (the only one touching them), so
  // the ports and sockets are closed when Stop returns; the sessions' pending handlers are
  // destroyed with the io_context.
  Impl* impl = impl_.get();
  net::post(impl->ioc, [impl] {
    boost::system::error_code ec;
    for (Impl::Listener* l : {&impl->secure, &impl->plain}) {
      if (!l->acceptor) continue;
      l->acceptor->close(ec);
      l->retry->cancel();
    }
    // Close may destroy a session (one waiting for authorize), which leaves `live`.
    std::vector<SessionBase*> sessions(impl->live.begin(), impl->live.end());
    for (SessionBase* s : sessions) {
      if (impl->live.count(s)) s->Close();
    }
    impl->ioc.stop();
  });
  if (impl->thread.joinable()) impl->thread.join();
  std::lock_guard lock(impl->post->mu);
  impl->post->ioc = nullptr;
}

int HttpServer::secure_port() const { return impl_->secure_port; }
int HttpServer::plain_port() const { return impl_->plain_port; }
uint64_t HttpServer::refused_connections() const { return impl_->refused.load(); }
const std::string& HttpServer::certificate_pem() const { return impl_->certificate_pem; }

}  // namespace berth::run
