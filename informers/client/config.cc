#include "informers/client/config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "api/json/parse.h"
#include "api/value.h"

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

// Reads kubeconfig fields, prefixing every error with the file and the field's path.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  Error Fail(const std::string& field, const std::string& what) const {
    return Error{file_ + ": " + (field.empty() ? "" : field + ": ") + what};
  }

  // Optional string member; Error when present with another type.
  Result<std::string> String(const Value& obj, const std::string& at, const char* key) const {
    const Value* v = obj.Find(key);
    if (v == nullptr || v->IsNull()) return std::string();
    if (!v->IsString()) {
      return Fail(at + "." + key, "must be a string, not " + std::string(v->TypeName()));
    }
    return v->AsString();
  }

  Result<bool> Bool(const Value& obj, const std::string& at, const char* key) const {
    const Value* v = obj.Find(key);
    if (v == nullptr || v->IsNull()) return false;
    if (v->IsBool()) return v->AsBool();
    if (v->IsString() && (v->AsString() == "true" || v->AsString() == "false")) {
      return v->AsString() == "true";
    }
    return Fail(at + "." + key, "must be a boolean, not " + std::string(v->TypeName()));
  }

  // `<key>-data` (base64) wins over `<key>` (a file path), as in clientcmd.
  Result<std::string> DataOrFile(const Value& obj, const std::string& at, const std::string& key,
                                 const std::filesystem::path& base_dir) const {
    std::string data_key = key + "-data";
    auto data = String(obj, at, data_key.c_str());
    if (!data.ok()) return Error{data.error()};
    if (!data->empty()) {
      auto decoded = DecodeBase64(*data);
      if (!decoded) return Fail(at + "." + data_key, "invalid base64");
      return std::move(*decoded);
    }
    auto file = String(obj, at, key.c_str());
    if (!file.ok()) return Error{file.error()};
    if (file->empty()) return std::string();
    auto contents = ReadFileToString(Resolve(base_dir, *file));
    if (!contents.ok()) return Fail(at + "." + key, contents.error());
    return std::move(*contents);
  }

  // Finds `name` in a named list (clusters / users / contexts); returns its index or -1.
  Result<int> FindNamed(const Value& root, const char* list, const std::string& name) const {
    const Value* items = root.Find(list);
    if (items == nullptr || items->IsNull()) return -1;
    if (!items->IsArray()) return Fail(list, "must be a list");
    const auto& arr = items->AsArray();
    for (size_t i = 0; i < arr.size(); ++i) {
      const Value* n = arr[i].Find("name");
      if (n != nullptr && n->IsString() && n->AsString() == name) return static_cast<int>(i);
    }
    return -1;
  }

 private:
  std::string file_;
};

}  // namespace

Result<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    return Error{"cannot read \"" + path + "\": " + std::strerror(err != 0 ? err : ENOENT)};
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error{"cannot read \"" + path + "\": I/O error"};
  return ss.str();
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
  if (!text.ok()) return Error{path + ": " + text.error()};
  auto docs = api::json::ParseYamlDocuments(*text);
  if (!docs.ok()) return Error{path + ": " + docs.error()};
  Reader r(path);
  if (docs->empty() || !(*docs)[0].IsObject()) return r.Fail("", "not a kubeconfig (no mapping)");
  const Value& root = (*docs)[0];
  std::filesystem::path base_dir = std::filesystem::path(path).parent_path();

  // Context.
  std::string ctx_name = context;
  if (ctx_name.empty()) {
    auto current = r.String(root, "", "current-context");
    if (!current.ok()) return Error{current.error()};
    ctx_name = *current;
    if (ctx_name.empty()) return r.Fail("", "no current-context set and no context given");
  }
  auto ctx_index = r.FindNamed(root, "contexts", ctx_name);
  if (!ctx_index.ok()) return Error{ctx_index.error()};
  if (*ctx_index < 0) return r.Fail("", "context \"" + ctx_name + "\" not found");
  std::string ctx_at = "contexts[" + std::to_string(*ctx_index) + "].context";
  const Value* ctx = root.Find("contexts")->AsArray()[*ctx_index].Find("context");
  if (ctx == nullptr || !ctx->IsObject()) return r.Fail(ctx_at, "missing");
  auto cluster_name = r.String(*ctx, ctx_at, "cluster");
  auto user_name = r.String(*ctx, ctx_at, "user");
  auto ns = r.String(*ctx, ctx_at, "namespace");
  if (!cluster_name.ok()) return Error{cluster_name.error()};
  if (!user_name.ok()) return Error{user_name.error()};
  if (!ns.ok()) return Error{ns.error()};
  if (cluster_name->empty()) return r.Fail(ctx_at + ".cluster", "missing");

  ClientConfig cfg;
  cfg.default_namespace = ns->empty() ? "default" : *ns;

  // Cluster.
  auto cluster_index = r.FindNamed(root, "clusters", *cluster_name);
  if (!cluster_index.ok()) return Error{cluster_index.error()};
  if (*cluster_index < 0) {
    return r.Fail("",
                  "cluster \"" + *cluster_name + "\" (of context \"" + ctx_name + "\") not found");
  }
  std::string cl_at = "clusters[" + std::to_string(*cluster_index) + "].cluster";
  const Value* cluster = root.Find("clusters")->AsArray()[*cluster_index].Find("cluster");
  if (cluster == nullptr || !cluster->IsObject()) return r.Fail(cl_at, "missing");
  auto server = r.String(*cluster, cl_at, "server");
  if (!server.ok()) return Error{server.error()};
  if (server->empty()) return r.Fail(cl_at + ".server", "missing");
  cfg.server = *server;
  if (cfg.server.find("://") == std::string::npos) cfg.server = "https://" + cfg.server;
  while (!cfg.server.empty() && cfg.server.back() == '/') cfg.server.pop_back();
  auto ca = r.DataOrFile(*cluster, cl_at, "certificate-authority", base_dir);
  if (!ca.ok()) return Error{ca.error()};
  cfg.ca_pem = std::move(*ca);
  auto insecure = r.Bool(*cluster, cl_at, "insecure-skip-tls-verify");
  if (!insecure.ok()) return Error{insecure.error()};
  cfg.insecure_skip_tls_verify = *insecure;
  // Same rule as clientcmd's validation.
  if (cfg.insecure_skip_tls_verify && !cfg.ca_pem.empty()) {
    return r.Fail(cl_at,
                  "specifying a root certificates file with the insecure flag is not allowed");
  }
  auto server_name = r.String(*cluster, cl_at, "tls-server-name");
  if (!server_name.ok()) return Error{server_name.error()};
  cfg.tls_server_name = *server_name;

  // User (optional: a context without one sends no credentials).
  if (user_name->empty()) return cfg;
  auto user_index = r.FindNamed(root, "users", *user_name);
  if (!user_index.ok()) return Error{user_index.error()};
  if (*user_index < 0) {
    return r.Fail("", "user \"" + *user_name + "\" (of context \"" + ctx_name + "\") not found");
  }
  std::string u_at = "users[" + std::to_string(*user_index) + "].user";
  const Value* user = root.Find("users")->AsArray()[*user_index].Find("user");
  if (user == nullptr || user->IsNull()) return cfg;
  if (!user->IsObject()) return r.Fail(u_at, "must be a mapping");
  if (user->Find("exec") != nullptr) {
    return r.Fail(u_at + ".exec",
                  "exec credential plugins are not supported; use token, tokenFile or a client "
                  "certificate");
  }
  if (user->Find("auth-provider") != nullptr) {
    return r.Fail(u_at + ".auth-provider",
                  "auth-provider plugins are not supported; use token, tokenFile or a client "
                  "certificate");
  }
  if (user->Find("username") != nullptr || user->Find("password") != nullptr) {
    return r.Fail(u_at + ".username", "basic authentication is not supported");
  }
  auto token = r.String(*user, u_at, "token");
  auto token_file = r.String(*user, u_at, "tokenFile");
  if (!token.ok()) return Error{token.error()};
  if (!token_file.ok()) return Error{token_file.error()};
  cfg.token = Trim(*token);
  if (!token_file->empty()) cfg.token_file = Resolve(base_dir, *token_file);
  auto cert = r.DataOrFile(*user, u_at, "client-certificate", base_dir);
  if (!cert.ok()) return Error{cert.error()};
  auto key = r.DataOrFile(*user, u_at, "client-key", base_dir);
  if (!key.ok()) return Error{key.error()};
  cfg.client_cert_pem = std::move(*cert);
  cfg.client_key_pem = std::move(*key);
  if (cfg.client_cert_pem.empty() != cfg.client_key_pem.empty()) {
    return r.Fail(u_at, cfg.client_cert_pem.empty()
                            ? "client-key given without client-certificate"
                            : "client-certificate given without client-key");
  }
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
  if (!token.ok()) return Error{"in-cluster config: " + token.error()};
  cfg.token = Trim(*token);
  auto ca = ReadFileToString((dir / "ca.crt").string());
  if (!ca.ok()) return Error{"in-cluster config: " + ca.error()};
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
  if (!contents.ok()) return Error{"token file: " + contents.error()};
  return Error{"token file \"" + token_file_ + "\": unreadable"};
}

}  // namespace berth::client
