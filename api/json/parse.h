#pragma once
// Bytes <-> Value: the only code that touches RapidJSON and yaml-cpp for object data.
// All functions are thread-safe and never throw, except std::bad_alloc when memory runs out; errors
// carry line/column where known.

#include <string>
#include <string_view>
#include <vector>

#include "api/value.h"
#include "base/result.h"

namespace berth::api::json {

// Parses one JSON document. Error: `invalid JSON at offset N: <reason>`.
Result<Value> ParseJson(std::string_view bytes);

// Parses a YAML stream of one or more `---`-separated documents (JSON is YAML). Empty documents
// are dropped. Plain scalars are typed by the YAML 1.2 core schema (null/~, true/false, integers,
// floats); quoted scalars stay strings. Error: `line L, column C: <reason>`. Nesting deeper than
// 512 levels (yaml-cpp itself stops near 500) is an error rather than a stack overflow.
Result<std::vector<Value>> ParseYamlDocuments(std::string_view text);

// Compact JSON serialisation.
std::string ToJson(const Value& v);

}  // namespace berth::api::json
