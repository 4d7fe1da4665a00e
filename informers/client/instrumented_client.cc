#include "informers/client/instrumented_client.h"

#include <chrono>
#include <vector>

namespace berth::client {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Result<Response> InstrumentedClient::Do(const Request& req) {
  auto start = std::chrono::steady_clock::now();
  auto r = next_.Do(req);
  observe_({Verb(req), Resource(req.path), r.ok() ? r->status : 0, SecondsSince(start)});
  return r;
}

Result<int> InstrumentedClient::Stream(const Request& req,
                                       const std::function<bool(std::string_view line)>& on_line,
                                       const std::atomic<bool>* stop, std::string* error_body) {
  auto start = std::chrono::steady_clock::now();
  auto r = next_.Stream(req, on_line, stop, error_body);
  observe_({"WATCH", Resource(req.path), r.ok() ? *r : 0, SecondsSince(start)});
  return r;
}

std::string InstrumentedClient::Resource(const std::string& path) {
  std::vector<std::string> parts;
  size_t i = 0;
  const std::string p = path.substr(0, path.find('?'));
  while (i < p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    if (j > i) parts.push_back(p.substr(i, j - i));
    i = j + 1;
  }
  size_t k = parts.size() > 0 && parts[0] == "api" ? 2 : 3;  // skip api/v1 or apis/g/v
  if (k < parts.size() && parts[k] == "namespaces" && k + 2 < parts.size()) k += 2;
  if (k >= parts.size()) return "unknown";
  std::string r = parts[k];
  if (k + 2 < parts.size()) r += "/" + parts[k + 2];
  return r;
}

std::string InstrumentedClient::Verb(const Request& req) {
  if (req.method != "GET") return req.method;
  // A GET of a collection is a LIST (client-go's verb label).
  std::string r = Resource(req.path);
  const std::string p = req.path.substr(0, req.path.find('?'));
  return p.size() >= r.size() && p.compare(p.size() - r.size(), r.size(), r) == 0 ? "LIST" : "GET";
}

}  // namespace berth::client
