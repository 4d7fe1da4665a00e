#pragma once
// Reading JSON as a stream of events (RapidJSON's SAX reader underneath), for callers that keep
// only part of a document: memory stays proportional to what the handler keeps, never to the
// document's tree (an api::Value of a 50 MB document costs gigabytes). ParseJson (parse.h) is
// the tree-building reader; both accept the same documents, convert numbers the same way and fail
// with the same texts.
//
// Thread-safe (no shared state); never throws unless the handler does.

#include <cstdint>
#include <string_view>

#include "base/result.h"

namespace berth::api::json {

// What a document is made of, in document order. Each call returns true to go on, false to stop
// the read (ReadJsonEvents then fails with `stopped at offset N`; the handler keeps its reason).
// The string_views are valid only during the call. Duplicate keys are delivered as they come
// (ParseJson folds them: the last value wins).
class JsonHandler {
 public:
  virtual ~JsonHandler() = default;
  virtual bool Null() = 0;
  virtual bool Bool(bool b) = 0;
  virtual bool Int(int64_t i) = 0;    // an integer literal that fits int64 (ParseJson's Int)
  virtual bool Double(double d) = 0;  // any other number (ParseJson's Double)
  virtual bool String(std::string_view s) = 0;
  virtual bool StartObject() = 0;
  virtual bool Key(std::string_view key) = 0;
  virtual bool EndObject() = 0;
  virtual bool StartArray() = 0;
  virtual bool EndArray() = 0;
};

// Reads one JSON document into `handler`. Errors are ParseJson's: `invalid JSON at offset N:
// <reason>` (a raw NUL byte, a syntax error, a number too big for a double, nesting deeper than
// 512 levels); events already delivered stay delivered. A handler's false: `stopped at offset N`.
Ok ReadJsonEvents(std::string_view bytes, JsonHandler& handler);

}  // namespace berth::api::json
