#pragma once
// The secure port's authentication and authorization flags of `berth run`, as kube-scheduler's
// (k8s.io/apiserver's DelegatingAuthenticationOptions / DelegatingAuthorizationOptions):
//   --authentication-kubeconfig FILE      TokenReviews and the ConfigMap lookup (default:
//   in-cluster)
//   --authorization-kubeconfig FILE       SubjectAccessReviews (default: in-cluster)
//   --authentication-skip-lookup          do not read
//   kube-system/extension-apiserver-authentication
//   --authentication-tolerate-lookup-failure=BOOL   a failed lookup is a warning (default true)
//   --client-ca-file FILE                 verify client certificates against these CAs
//   --authorization-always-allow-paths P,...   authorized without a review
//                                         (default /healthz,/readyz,/livez; "" = none)
// All the flag handling is here, so that the command line parser can change in one place.

#include <string>
#include <vector>

#include "cmd/berth/app/flags.h"
#include "cmd/berth/app/serving/auth_setup.h"

namespace berth::serving {

// The flags above that take a value, and the boolean ones, for app::ParseFlags.
const std::vector<std::string>& AuthValueFlags();
const std::vector<std::string>& AuthBoolFlags();

// Reads the flags above from `f`. Returns false after printing `berth <command>: <why>` (e.g. an
// always-allow path with a * before its end).
bool ParseAuthOptions(const std::string& command, const app::Flags& f, AuthOptions* out);

}  // namespace berth::serving
