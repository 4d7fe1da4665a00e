#include "cmd/berth/app/serving/debug_flags.h"

#include "base/log.h"

namespace berth::run {

namespace {

HttpReply PlainText(int status, const std::string& text) {
  HttpReply r;
  r.status = status;
  r.content_type = "text/plain";
  r.body = text + "\n";
  r.headers.push_back({"X-Content-Type-Options", "nosniff"});
  return r;
}

}  // namespace

std::optional<HttpReply> DebugFlagsRoute(std::string_view method, std::string_view path,
                                         const std::string& body) {
  if (path == "/debug/flags/v") {
    if (method != "PUT") return PlainText(406, "unsupported http method");
    // strconv.ParseUint(val, 10, 32): digits only, at most 2^32-1.
    const bool digits = !body.empty() && body.size() <= 10 &&
                        body.find_first_not_of("0123456789") == std::string::npos;
    const unsigned long long level = digits ? std::stoull(body) : 0;
    if (!digits || level > 0xffffffffULL) {
      return PlainText(400, "strconv.ParseUint: parsing " + Quote(body) + ": invalid syntax");
    }
    if (level > 0x7fffffffULL) {
      return PlainText(400, "failed set klog.logging.verbosity " + body + ": value out of range");
    }
    const int old = log::Verbosity().exchange(static_cast<int>(level));
    BERTH_INFO_S(0, "Verbosity changed", "from", old, "to", static_cast<int>(level), "via",
                 "/debug/flags/v");
    return PlainText(200, "successfully set klog.logging.verbosity to " + body);
  }
  if (path == "/debug/flags" || path.rfind("/debug/flags/", 0) == 0) {
    HttpReply r;
    r.content_type = "text/html; charset=utf-8";
    r.body =
        "<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n<body>\n/debug/flags/<br>\n<br>\n"
        "flags:<br>\n<table>\n<tr>v<br>\n</table>\n<br>\nfull flags configurable<br>\n"
        "</body>\n</html>\n";
    return r;
  }
  return std::nullopt;
}

}  // namespace berth::run
