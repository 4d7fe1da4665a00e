#include "api/json/number.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace berth::api::json::internal {

Number ConvertNumber(std::string_view text) {
  Number out;
  if (text.find_first_of(".eE") == std::string_view::npos) {
    int64_t i = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
    if (ec == std::errc() && end == text.data() + text.size()) {
      out.i = i;
      return out;
    }
  }
  const double d = std::strtod(text.data(), nullptr);  // "C" locale: berth never calls setlocale
  out.kind = std::isinf(d) ? Number::Kind::kTooBig : Number::Kind::kDouble;
  out.d = d;
  return out;
}

}  // namespace berth::api::json::internal
