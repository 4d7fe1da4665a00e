#pragma once
// Duplicate keys in an object, found in linear time (the parsers build objects by appending, and
// api::Reader refuses duplicates; neither may cost O(n²) on an object with many keys).

#include <cstddef>

#include "api/value.h"

namespace berth::api {

inline constexpr size_t kNoDuplicateKey = static_cast<size_t>(-1);

// The index of the first member whose key an earlier member already has, or kNoDuplicateKey.
size_t FirstDuplicateKey(const Value::Object& members);

// encoding/json's rule: the last value of a repeated key wins, at the key's first position.
void FoldDuplicateKeys(Value::Object* members);

}  // namespace berth::api
