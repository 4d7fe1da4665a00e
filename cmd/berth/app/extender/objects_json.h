#pragma once
// Typed Pod / Node -> the v1 JSON an extender expects in ExtenderArgs (apiVersion, kind,
// metadata, spec, status). Only the fields berth keeps (api/types.h) are written, with
// the API's field names; empty optional fields are left out, as the API server's JSON does.
// Pure functions; thread-safe.

#include "api/types.h"
#include "api/value.h"

namespace berth::extenders {

api::Value PodToValue(const api::Pod& pod);
api::Value NodeToValue(const api::Node& node);

}  // namespace berth::extenders
