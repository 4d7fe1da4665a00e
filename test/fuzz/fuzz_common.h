#pragma once
// Shared by the libFuzzer targets of test/fuzz/.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace berth::fuzz {

inline std::string_view AsView(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace berth::fuzz
