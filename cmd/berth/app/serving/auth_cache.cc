#include "cmd/berth/app/serving/auth_cache.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstdint>
#include <memory>
#include <stdexcept>

namespace berth::serving {
namespace {

std::string OpenSslError() {
  const unsigned long e = ERR_get_error();
  if (e == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

struct MacDeleter {
  void operator()(EVP_MAC* m) const { EVP_MAC_free(m); }
  void operator()(EVP_MAC_CTX* c) const { EVP_MAC_CTX_free(c); }
};

// The HMAC-SHA256 of what upstream's keyFunc writes: the token's length (4 bytes, big-endian),
// the token, the number of audiences (0).
Result<std::string> Hmac(const std::string& secret, std::string_view token) {
  static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (mac == nullptr) return Error{"HMAC: " + OpenSslError(), ErrorCode::kInternal};
  std::unique_ptr<EVP_MAC_CTX, MacDeleter> ctx(EVP_MAC_CTX_new(mac));
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_end(),
  };
  const auto* key = reinterpret_cast<const unsigned char*>(secret.data());
  if (!ctx || EVP_MAC_init(ctx.get(), key, secret.size(), params) != 1) {
    return Error{"HMAC-SHA256: " + OpenSslError(), ErrorCode::kInternal};
  }
  auto length = [](uint32_t n) {
    return std::string{static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                       static_cast<char>(n >> 8), static_cast<char>(n)};
  };
  const std::string token_length = length(static_cast<uint32_t>(token.size()));
  const std::string audiences = length(0);  // no audiences, as berth's TokenReviews ask none
  unsigned char out[EVP_MAX_MD_SIZE];
  size_t out_len = 0;
  if (EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(token_length.data()),
                     token_length.size()) != 1 ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(token.data()),
                     token.size()) != 1 ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(audiences.data()),
                     audiences.size()) != 1 ||
      EVP_MAC_final(ctx.get(), out, &out_len, sizeof(out)) != 1) {
    return Error{"HMAC-SHA256: " + OpenSslError(), ErrorCode::kInternal};
  }
  return std::string(reinterpret_cast<const char*>(out), out_len);
}

}  // namespace

Result<TokenCacheKey> TokenCacheKey::Create() {
  TokenCacheKey k;
  k.secret_.resize(kKeyBytes);
  if (RAND_bytes(reinterpret_cast<unsigned char*>(k.secret_.data()),
                 static_cast<int>(k.secret_.size())) != 1) {
    return Error{"token cache key: RAND_bytes: " + OpenSslError(), ErrorCode::kInternal};
  }
  // Fail now rather than on the first token.
  auto probe = Hmac(k.secret_, "");
  if (!probe.ok()) return Error{"token cache key: " + probe.error(), ErrorCode::kInternal};
  return k;
}

std::string TokenCacheKey::Of(std::string_view token) const {
  auto h = Hmac(secret_, token);
  // Create checked that HMAC works; a failure now is an impossible state (out of memory).
  if (!h.ok()) throw std::runtime_error(h.error());
  return std::move(*h);
}

}  // namespace berth::serving
