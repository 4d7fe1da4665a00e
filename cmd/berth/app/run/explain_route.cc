#include "cmd/berth/app/run/explain_route.h"

#include "api/json/parse.h"
#include "scheduler/diagnosis/json.h"

namespace berth::run {
namespace {

constexpr std::string_view kPrefix = "/debug/explain/";

HttpReply NotFound(const std::string& message) {
  api::Value s = api::Value::MakeObject();
  s.Set("kind", api::Value::String("Status"));
  s.Set("apiVersion", api::Value::String("v1"));
  s.Set("status", api::Value::String("Failure"));
  s.Set("message", api::Value::String(message));
  s.Set("reason", api::Value::String("NotFound"));
  s.Set("code", api::Value::Int(404));
  return HttpReply{404, "application/json", api::json::ToJson(s) + "\n", {}};
}

}  // namespace

std::optional<HttpReply> ExplainRoute(std::string_view method, std::string_view path,
                                      const diagnosis::Store& store,
                                      const ExplainRouteState& state) {
  path = path.substr(0, path.find('?'));
  if (!path.starts_with(kPrefix)) return std::nullopt;
  if (method != "GET" && method != "HEAD") {
    return HttpReply{
        405, "text/plain; charset=utf-8", "method not allowed\n", {{"Allow", "GET, HEAD"}}};
  }
  const std::string_view rest = path.substr(kPrefix.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == rest.size() ||
      rest.find('/', slash + 1) != std::string_view::npos) {
    return NotFound("expected /debug/explain/<namespace>/<pod>, got " + std::string(path));
  }
  const std::string key(rest);
  if (!state.leading) {
    return NotFound("this berth is not the leader and has no diagnoses; the leader is " +
                    (state.leader.empty() ? std::string("not known yet") : state.leader));
  }
  auto record = store.Get(key);
  if (!record) {
    return NotFound("berth has no diagnosis of pod " + key +
                    ": it was not attempted yet, was placed, or is gone");
  }
  return HttpReply{
      200, "application/json", api::json::ToJson(diagnosis::ToValue(*record)) + "\n", {}};
}

}  // namespace berth::run
