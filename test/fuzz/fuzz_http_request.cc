// The HTTP request parse step of the health/metrics server (cmd/berth/app/serving/
// http_server.cc). The server's parsing is not separable from its sessions (it calls
// http::async_read on a socket), so this target feeds the bytes to the same parser it uses,
// Beast's request_parser<string_body>, with the server's limits (16 KiB body, 64 KiB header), the
// way http::read does (all that arrived, then end of stream).
#include <boost/asio/buffer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http.hpp>

#include "test/fuzz/fuzz_common.h"

namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  http::request_parser<http::string_body> parser;
  parser.body_limit(16 * 1024);
  parser.header_limit(64 * 1024);
  parser.eager(true);
  boost::beast::error_code ec;
  size_t offset = 0;
  while (offset < size && !parser.is_done()) {
    size_t used = parser.put(boost::asio::buffer(data + offset, size - offset), ec);
    if (ec == http::error::need_more) break;
    if (ec) return 0;
    if (used == 0) break;
    offset += used;
  }
  if (!parser.is_done()) {
    parser.put_eof(ec);
    if (ec) return 0;
  }
  if (parser.is_done()) {
    const auto& req = parser.get();
    (void)req.method();
    (void)req.target();
    (void)req.body().size();
  }
  return 0;
}
