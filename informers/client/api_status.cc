#include "informers/client/api_status.h"

#include "api/json/parse.h"
#include "api/value.h"

namespace berth::client {

std::string StatusMessage(const std::string& body) {
  auto v = api::json::ParseJson(body);
  if (v.ok()) {
    const std::string& msg = api::StringMember(&*v, "message");
    if (!msg.empty()) return msg;
  }
  return body.size() > 200 ? body.substr(0, 200) + "..." : body;
}

}  // namespace berth::client
