#pragma once
// How `berth explain` prints an answer: -o text (diagnosis::RenderText with a source line) or
// -o json (the diagnosis JSON of scheduler/diagnosis/json.h, indented).

#include <string>

#include "api/value.h"

namespace berth::explain {

// JSON indented by two spaces per level, one member or element a line; empty objects and arrays
// stay `{}` / `[]`. Scalars are written as api::json::ToJson writes them.
std::string PrettyJson(const api::Value& v);

}  // namespace berth::explain
