#pragma once
// ClientConfig: where the API server is and how to authenticate to it, loaded from a kubeconfig
// file (LoadKubeconfig) or from the pod's service-account mount (InClusterConfig). Both mirror
// client-go's clientcmd / rest.InClusterConfig for the fields berth supports; anything else that
// would change how we authenticate (exec plugins, auth-provider, basic auth) is an error rather
// than silently ignored.
//
// TokenSource: the bearer token to send, re-reading token_file when its mtime changes (projected
// service-account tokens rotate). Thread-safe.

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace berth::client {

struct ClientConfig {
  std::string server;  // "https://host:port" (or "http://..." for tests)
  std::string ca_pem;  // PEM bundle of trusted CAs; empty = the system's default roots
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // name to verify the server certificate against (default: host)
  std::string token;
  // Re-read when its mtime changes (projected tokens rotate); takes precedence over `token`
  // once read, as in client-go's BearerTokenFile.
  std::string token_file;
  std::string client_cert_pem, client_key_pem;
  std::string default_namespace = "default";
};

// Loads `path`, picking `context` (or the file's current-context). Relative file paths
// (certificate-authority, client-certificate, client-key, tokenFile) are resolved against the
// kubeconfig's directory; files named by certificate/key fields are read now, tokenFile is read
// per request by TokenSource. Errors name the file and the field:
//   `<path>: context "x" not found`
//   `<path>: users[0].user.client-certificate: cannot read "/x": No such file or directory`
//   `<path>: users[0].user.exec: exec credential plugins are not supported; ...`
// Fields are read by api::Reader (api/reader.h) and a wrong type reads
//   `<path>: users[0].user.token: expected string, got array`; fields berth does not use are
// ignored. Codes: kNotFound for a context, cluster or user the file does not have; kInvalid
// otherwise.
Result<ClientConfig> LoadKubeconfig(const std::string& path, const std::string& context = "");

inline constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

// The in-cluster configuration: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT,
// `<dir>/token` (as token_file, re-read on rotation), `<dir>/ca.crt`, `<dir>/namespace`
// (optional; "default" when absent). Errors when the environment variables are unset (not
// running in a pod) or the token or CA cannot be read.
Result<ClientConfig> InClusterConfig(const std::string& service_account_dir = kServiceAccountDir);

// Decodes standard base64 (whitespace ignored, padding optional). nullopt when malformed.
std::optional<std::string> DecodeBase64(std::string_view in);

// Reads a whole file. Error: `cannot read "<path>": <strerror>`, code kNotFound when the file
// does not exist.
Result<std::string> ReadFileToString(const std::string& path);

// The bearer token for requests: the token file's contents (trimmed) when a token file is set,
// re-read whenever its modification time changes, otherwise the static token. When a re-read
// fails after a successful one, the last good token keeps being used; when no read has ever
// succeeded and there is no static token, Token() returns the read error.
class TokenSource {
 public:
  TokenSource(std::string token, std::string token_file);
  // Empty string = send no Authorization header.
  Result<std::string> Token();

 private:
  const std::string static_token_;
  const std::string token_file_;
  // Guarded by mu_:
  std::mutex mu_;
  std::optional<std::filesystem::file_time_type> mtime_;
  std::optional<std::string> file_token_;
};

}  // namespace berth::client
