#include "cmd/berth/app/serving/client_cert.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

namespace berth::serving {
namespace {

template <typename T, void (*Free)(T*)>
struct OsslDeleter {
  void operator()(T* p) const { Free(p); }
};
using X509Ptr = std::unique_ptr<X509, OsslDeleter<X509, X509_free>>;
using StorePtr = std::unique_ptr<X509_STORE, OsslDeleter<X509_STORE, X509_STORE_free>>;
using StoreCtxPtr =
    std::unique_ptr<X509_STORE_CTX, OsslDeleter<X509_STORE_CTX, X509_STORE_CTX_free>>;
using BioPtr = std::unique_ptr<BIO, OsslDeleter<BIO, BIO_free_all>>;

void FreeX509Stack(STACK_OF(X509) * s) { sk_X509_pop_free(s, X509_free); }
using StackPtr = std::unique_ptr<STACK_OF(X509), OsslDeleter<STACK_OF(X509), FreeX509Stack>>;

X509Ptr FromDer(const std::string& der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  return X509Ptr(d2i_X509(nullptr, &p, static_cast<long>(der.size())));  // NOLINT(runtime/int)
}

std::vector<std::string> NameEntries(X509_NAME* name, int nid) {
  std::vector<std::string> out;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    unsigned char* utf8 = nullptr;
    int len = ASN1_STRING_to_UTF8(&utf8, data);
    if (len < 0) continue;
    out.emplace_back(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
    OPENSSL_free(utf8);
  }
  return out;
}

}  // namespace

struct CertVerifier::Impl {
  StorePtr store;
};

CertVerifier::CertVerifier(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CertVerifier::~CertVerifier() = default;

Result<std::unique_ptr<CertVerifier>> CertVerifier::FromPem(const std::string& pem,
                                                            const std::string& what) {
  auto impl = std::make_unique<Impl>();
  impl->store.reset(X509_STORE_new());
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!impl->store || !bio) return Error{what + ": out of memory"};
  int count = 0;
  while (X509* raw = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509Ptr cert(raw);
    if (X509_STORE_add_cert(impl->store.get(), cert.get()) == 1) ++count;
  }
  ERR_clear_error();  // the end of the bundle reads as an error
  if (count == 0) return Error{what + ": no PEM certificate in the bundle"};
  return std::unique_ptr<CertVerifier>(new CertVerifier(std::move(impl)));
}

Result<CertIdentity> CertVerifier::Verify(const std::vector<std::string>& chain) const {
  if (chain.empty()) return Error{"x509: no certificate"};
  X509Ptr leaf = FromDer(chain[0]);
  if (!leaf) return Error{"x509: the client certificate does not parse"};
  StackPtr intermediates(sk_X509_new_null());
  for (size_t i = 1; i < chain.size(); ++i) {
    if (X509Ptr c = FromDer(chain[i])) sk_X509_push(intermediates.get(), c.release());
  }
  StoreCtxPtr ctx(X509_STORE_CTX_new());
  if (!ctx ||
      X509_STORE_CTX_init(ctx.get(), impl_->store.get(), leaf.get(), intermediates.get()) != 1) {
    ERR_clear_error();
    return Error{"x509: cannot set up verification"};
  }
  // Client authentication: an extended key usage, when present, must allow it.
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
  if (X509_verify_cert(ctx.get()) != 1) {
    std::string why = X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get()));
    ERR_clear_error();
    return Error{"x509: " + why};
  }
  CertIdentity id;
  X509_NAME* subject = X509_get_subject_name(leaf.get());
  auto cn = NameEntries(subject, NID_commonName);
  if (!cn.empty()) id.common_name = cn.front();
  id.organizations = NameEntries(subject, NID_organizationName);
  return id;
}

}  // namespace berth::serving
