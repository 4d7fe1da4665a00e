#pragma once
// CertVerifier: verifies a TLS client's certificate chain against a CA bundle for client
// authentication, as Go's x509.Certificate.Verify with ExtKeyUsageClientAuth does for upstream's
// x509 and request-header authenticators. Thread-safe once created.

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace berth::serving {

// Who a verified certificate names.
struct CertIdentity {
  std::string common_name;                 // subject CN
  std::vector<std::string> organizations;  // subject O, in order
};

class CertVerifier {
 public:
  // `pem`: one or more PEM certificates. Error (prefixed with `what`): `<what>: no PEM
  // certificate in the bundle`.
  static Result<std::unique_ptr<CertVerifier>> FromPem(const std::string& pem,
                                                       const std::string& what);
  ~CertVerifier();

  // `chain`: DER certificates, leaf first, the rest offered as intermediates. Errors:
  // `x509: <OpenSSL's reason>` (e.g. "x509: unable to get local issuer certificate",
  // "x509: certificate has expired", "x509: unsuitable certificate purpose" for an extended key
  // usage without clientAuth), `x509: no certificate`.
  Result<CertIdentity> Verify(const std::vector<std::string>& chain) const;

 private:
  struct Impl;
  explicit CertVerifier(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth::serving
