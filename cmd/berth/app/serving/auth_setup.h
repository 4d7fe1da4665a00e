#pragma once
// SetUpDelegatedAuth: turns the secure port's authentication and authorization flags into a
// DelegatedAuth, as upstream's DelegatingAuthenticationOptions.ApplyTo and
// DelegatingAuthorizationOptions.ApplyTo do with kube-scheduler's settings
// (RemoteKubeConfigFileOptional and TolerateInClusterLookupFailure both true):
//
//  - The TokenReview client comes from --authentication-kubeconfig, else the in-cluster config;
//    without either, bearer tokens are ignored (a warning). The SubjectAccessReview client
//    likewise from --authorization-kubeconfig; without it only the always-allow rules allow.
//  - Client certificates are verified against --client-ca-file, else (unless
//    --authentication-skip-lookup) the `client-ca-file` key of the ConfigMap
//    kube-system/extension-apiserver-authentication, read with the authentication client.
//  - Front-proxy (request-header) authentication from the same ConfigMap's requestheader-* keys,
//    unless --authentication-skip-lookup. When the ConfigMap cannot be read, a warning and no
//    request-header authentication with --authentication-tolerate-lookup-failure (the default),
//    an error otherwise.
// The ConfigMap is read once, at start (upstream watches it).
//
// Errors: `--authentication-kubeconfig: <why>`, `--authorization-kubeconfig: <why>`,
// `--client-ca-file: <why>`, `configmap kube-system/extension-apiserver-authentication: <why>`,
// and DelegatedAuth::Create's.

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "cmd/berth/app/serving/delegated_auth.h"
#include "informers/client/kube_client.h"

namespace berth::serving {

struct AuthOptions {
  std::string authentication_kubeconfig;
  std::string authorization_kubeconfig;
  bool skip_lookup = false;
  bool tolerate_lookup_failure = true;  // kube-scheduler's default
  std::string client_ca_file;
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
  // For tests: the service-account directory the in-cluster config is read from.
  std::string service_account_dir;
};

// Owns the review clients and the DelegatedAuth using them (destroyed first).
struct AuthSetup {
  std::unique_ptr<client::KubeClient> authn_client;
  std::unique_ptr<client::KubeClient> authz_client;
  std::unique_ptr<DelegatedAuth> auth;
  // The CAs whose client certificates the TLS server asks for (client CA and request-header CA):
  // HttpServerOptions::client_ca_pem.
  std::string client_ca_pem;
};

Result<AuthSetup> SetUpDelegatedAuth(const AuthOptions& options);

}  // namespace berth::serving
