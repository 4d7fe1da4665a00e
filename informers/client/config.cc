#include "informers/client/config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "api/json/parse.h"
#include "api/reader.h"
#include "api/value.h"
#include "base/read_file.h"

namespace berth::client {
namespace {

using api::Value;

std::string Trim(std::string s) {
  const char* ws = " \t\r\n";
  s.erase(s.find_last_not_of(ws) + 1);
  s.erase(0, s.find_first_not_of(ws));
  return s;
}

// Resolves a path from a kubeconfig relative to the kubeconfig's directory, as clientcmd does.
std::string Resolve(const std::filesystem::path& base_dir, const std::string& p) {
  std::filesystem::path path(p);
  if (path.is_absolute() || base_dir.empty()) return p;
  return (base_dir / path).lexically_normal().string();
}

using api::Reader;

// A kubeconfig boolean: clientcmd also takes the strings "true" and "false".
Ok ReadBool(const Reader& in, std::string_view key, bool* out) {
  const Value* v = in.Get(key);
  if (v == nullptr) return Ok();
  if (v->IsString() && (v->AsString() == "true" || v->AsString() == "false")) {
    *out = v->AsString() == "true";
    return Ok();
  }
  return in.Bool(key, out);
}

// `<key>-data` (base64) wins over `<key>` (a file path), as in clientcmd.
Result<std::string> DataOrFile(const Reader& in, const std::string& key,
                               const std::filesystem::path& base_dir) {
  const std::string data_key = key + "-data";
  std::string data;
  BERTH_RETURN_IF_ERROR(in.String(data_key, &data));
  if (!data.empty()) {
    auto decoded = DecodeBase64(data);
    if (!decoded) return api::PathError(in.PathOf(data_key), "invalid base64");
    return std::move(*decoded);
  }
  std::string file;
  BERTH_RETURN_IF_ERROR(in.String(key, &file));
  if (file.empty()) return std::string();
  auto contents = ReadFileToString(Resolve(base_dir, file));
  if (!contents.ok()) return api::PathError(in.PathOf(key), contents.error());
  return std::move(*contents);
}

// The entry named `name` of a named list (clusters / users / contexts): a reader of its `item`
// member (`<list>[i].<item>`), not present() when the entry has none; nullopt when no entry has
// that name.
Result<std::optional<Reader>> FindNamed(const Reader& root, const char* list, const char* item,
                                        const std::string& name) {
  BERTH_ASSIGN_OR_RETURN(const Value* items, root.Array(list));
  if (items == nullptr) return std::optional<Reader>();
  const auto& arr = items->AsArray();
  for (size_t i = 0; i < arr.size(); ++i) {
    const Value* n = arr[i].Find("name");
    if (n == nullptr || !n->IsString() || n->AsString() != name) continue;
    BERTH_ASSIGN_OR_RETURN(Reader entry,
                           Reader::Of(&arr[i], api::IndexPath(list, i), api::kLenient));
    BERTH_ASSIGN_OR_RETURN(Reader member, entry.Child(item));
    return std::optional<Reader>(std::move(member));
  }
  return std::optional<Reader>();
}

// The kubeconfig document -> a client config. Errors name the field path (the caller adds the
// file); kubeconfig fields berth does not read are ignored, as clientcmd ignores unknown ones,
// except those that change who berth is or how it connects (impersonation, proxy-url, exec,
// auth-provider, basic auth): refused, naming the field.
Result<ClientConfig> ReadKubeconfig(const Value& doc, const std::filesystem::path& base_dir,
                                    const std::string& context) {
  BERTH_ASSIGN_OR_RETURN(Reader root, Reader::Of(&doc, "", api::kLenient));

  // Context.
  std::string ctx_name = context;
  if (ctx_name.empty()) {
    BERTH_RETURN_IF_ERROR(root.String("current-context", &ctx_name));
    if (ctx_name.empty()) return Error{"no current-context set and no context given"};
  }
  BERTH_ASSIGN_OR_RETURN(std::optional<Reader> ctx,
                         FindNamed(root, "contexts", "context", ctx_name));
  if (!ctx) return Error{"context \"" + ctx_name + "\" not found", ErrorCode::kNotFound};
  if (!ctx->present()) return api::RequiredError(ctx->path());
  std::string cluster_name, user_name, ns;
  BERTH_RETURN_IF_ERROR(ctx->String("cluster", &cluster_name));
  BERTH_RETURN_IF_ERROR(ctx->String("user", &user_name));
  BERTH_RETURN_IF_ERROR(ctx->String("namespace", &ns));
  if (cluster_name.empty()) return api::RequiredError(ctx->PathOf("cluster"));

  ClientConfig cfg;
  cfg.default_namespace = ns.empty() ? "default" : ns;

  // Cluster.
  BERTH_ASSIGN_OR_RETURN(std::optional<Reader> cluster,
                         FindNamed(root, "clusters", "cluster", cluster_name));
  if (!cluster) {
    return Error{"cluster \"" + cluster_name + "\" (of context \"" + ctx_name + "\") not found",
                 ErrorCode::kNotFound};
  }
  if (!cluster->present()) return api::RequiredError(cluster->path());
  BERTH_RETURN_IF_ERROR(cluster->String("server", &cfg.server));
  if (cfg.server.empty()) return api::RequiredError(cluster->PathOf("server"));
  if (cfg.server.find("://") == std::string::npos) cfg.server = "https://" + cfg.server;
  while (!cfg.server.empty() && cfg.server.back() == '/') cfg.server.pop_back();
  BERTH_ASSIGN_OR_RETURN(cfg.ca_pem, DataOrFile(*cluster, "certificate-authority", base_dir));
  BERTH_RETURN_IF_ERROR(
      ReadBool(*cluster, "insecure-skip-tls-verify", &cfg.insecure_skip_tls_verify));
  // Same rule as clientcmd's validation.
  if (cfg.insecure_skip_tls_verify && !cfg.ca_pem.empty()) {
    return api::PathError(cluster->path(),
                          "specifying a root certificates file with the insecure flag is not "
                          "allowed");
  }
  BERTH_RETURN_IF_ERROR(cluster->String("tls-server-name", &cfg.tls_server_name));
  // Not silently ignored: berth would bypass the proxy the operator configured.
  if (cluster->Get("proxy-url") != nullptr) {
    return api::PathError(cluster->PathOf("proxy-url"),
                          "proxies are not supported; berth connects to the server directly");
  }

  // User (optional: a context without one sends no credentials).
  if (user_name.empty()) return cfg;
  BERTH_ASSIGN_OR_RETURN(std::optional<Reader> user, FindNamed(root, "users", "user", user_name));
  if (!user) {
    return Error{"user \"" + user_name + "\" (of context \"" + ctx_name + "\") not found",
                 ErrorCode::kNotFound};
  }
  if (!user->present()) return cfg;
  if (user->Get("exec") != nullptr) {
    return api::PathError(user->PathOf("exec"),
                          "exec credential plugins are not supported; use token, tokenFile or a "
                          "client certificate");
  }
  if (user->Get("auth-provider") != nullptr) {
    return api::PathError(user->PathOf("auth-provider"),
                          "auth-provider plugins are not supported; use token, tokenFile or a "
                          "client certificate");
  }
  // Not silently ignored: berth would act as the user itself, not the one it should impersonate.
  for (const char* field : {"as", "as-uid", "as-groups", "as-user-extra"}) {
    if (user->Get(field) != nullptr) {
      return api::PathError(user->PathOf(field), "impersonation is not supported");
    }
  }
  if (user->Get("username") != nullptr || user->Get("password") != nullptr) {
    return api::PathError(user->PathOf("username"), "basic authentication is not supported");
  }
  std::string token, token_file;
  BERTH_RETURN_IF_ERROR(user->String("token", &token));
  BERTH_RETURN_IF_ERROR(user->String("tokenFile", &token_file));
  cfg.token = Trim(token);
  if (!token_file.empty()) cfg.token_file = Resolve(base_dir, token_file);
  BERTH_ASSIGN_OR_RETURN(cfg.client_cert_pem, DataOrFile(*user, "client-certificate", base_dir));
  BERTH_ASSIGN_OR_RETURN(cfg.client_key_pem, DataOrFile(*user, "client-key", base_dir));
  if (cfg.client_cert_pem.empty() != cfg.client_key_pem.empty()) {
    return api::PathError(user->path(), cfg.client_cert_pem.empty()
                                            ? "client-key given without client-certificate"
                                            : "client-certificate given without client-key");
  }
  return cfg;
}

}  // namespace

Result<std::string> ReadFileToString(const std::string& path) {
  auto text = ReadFile(path, kMaxConfigFileBytes);
  if (!text.ok()) return Error{"cannot read \"" + path + "\": " + text.error(), text.code()};
  return text;
}

std::optional<std::string> DecodeBase64(std::string_view in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(in.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  bool padding = false;
  for (char c : in) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    int v = val(c);
    if (v < 0 || padding) return std::nullopt;  // bad character, or data after padding
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // 6 leftover bits cannot come from whole bytes.
  if (bits >= 6) return std::nullopt;
  return out;
}

Result<ClientConfig> LoadKubeconfig(const std::string& path, const std::string& context) {
  auto text = ReadFileToString(path);
  if (!text.ok()) return text.status().Wrap(path);
  auto docs = api::json::ParseYamlDocuments(*text);
  if (!docs.ok()) return docs.status().Wrap(path);
  if (docs->empty() || !(*docs)[0].IsObject()) {
    return Error{path + ": not a kubeconfig (no mapping)"};
  }
  auto cfg = ReadKubeconfig((*docs)[0], std::filesystem::path(path).parent_path(), context);
  if (!cfg.ok()) return cfg.status().Wrap(path);
  return cfg;
}

Result<ClientConfig> InClusterConfig(const std::string& service_account_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return Error{
        "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set "
        "(not running in a pod?)"};
  }
  ClientConfig cfg;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6 literal
  cfg.server = "https://" + h + ":" + port;
  std::filesystem::path dir(service_account_dir);
  cfg.token_file = (dir / "token").string();
  auto token = ReadFileToString(cfg.token_file);
  if (!token.ok()) return token.status().Wrap("in-cluster config");
  cfg.token = Trim(*token);
  auto ca = ReadFileToString((dir / "ca.crt").string());
  if (!ca.ok()) return ca.status().Wrap("in-cluster config");
  cfg.ca_pem = std::move(*ca);
  auto ns = ReadFileToString((dir / "namespace").string());
  if (ns.ok() && !Trim(*ns).empty()) cfg.default_namespace = Trim(*ns);
  return cfg;
}

TokenSource::TokenSource(std::string token, std::string token_file)
    : static_token_(std::move(token)), token_file_(std::move(token_file)) {}

Result<std::string> TokenSource::Token() {
  if (token_file_.empty()) return static_token_;
  std::lock_guard<std::mutex> lock(mu_);
  std::error_code ec;
  auto mtime = std::filesystem::last_write_time(token_file_, ec);
  if (!ec && (!file_token_ || *mtime_ != mtime)) {
    auto contents = ReadFileToString(token_file_);
    if (contents.ok()) {
      file_token_ = Trim(*contents);
      mtime_ = mtime;
    }
  }
  if (file_token_) return *file_token_;
  if (!static_token_.empty()) return static_token_;
  auto contents = ReadFileToString(token_file_);  // for the error message
  if (!contents.ok()) return contents.status().Wrap("token file");
  return Error{"token file \"" + token_file_ + "\": unreadable"};
}

}  // namespace berth::client
