#include "api/json/events.h"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <string>

#include "api/json/number.h"

namespace berth::api::json {
namespace {

// ParseJson's limit and text.
constexpr size_t kMaxDepth = 512;
constexpr const char* kDepthMessage = "nesting deeper than 512 levels";

// RapidJSON's handler concept over a JsonHandler: numbers converted as ParseJson does, depth
// bounded as ParseJson does.
class Adapter {
 public:
  explicit Adapter(JsonHandler& h) : h_(h) {}

  bool Null() { return Go(h_.Null()); }
  bool Bool(bool b) { return Go(h_.Bool(b)); }
  // Unused with kParseNumbersAsStringsFlag; present for the concept.
  bool Int(int i) { return Go(h_.Int(i)); }
  bool Uint(unsigned u) { return Go(h_.Int(u)); }
  bool Int64(int64_t i) { return Go(h_.Int(i)); }
  bool Uint64(uint64_t u) { return Go(h_.Double(static_cast<double>(u))); }
  bool Double(double d) { return Go(h_.Double(d)); }
  bool RawNumber(const char* str, rapidjson::SizeType n, bool) {
    const internal::Number num = internal::ConvertNumber(std::string_view(str, n));
    switch (num.kind) {
      case internal::Number::Kind::kInt:
        return Go(h_.Int(num.i));
      case internal::Number::Kind::kDouble:
        return Go(h_.Double(num.d));
      case internal::Number::Kind::kTooBig:
        break;
    }
    number_too_big_ = true;
    return false;
  }
  bool String(const char* s, rapidjson::SizeType n, bool) { return Go(h_.String({s, n})); }
  bool StartObject() { return Open() && Go(h_.StartObject()); }
  bool Key(const char* s, rapidjson::SizeType n, bool) { return Go(h_.Key({s, n})); }
  bool EndObject(rapidjson::SizeType) {
    --depth_;
    return Go(h_.EndObject());
  }
  bool StartArray() { return Open() && Go(h_.StartArray()); }
  bool EndArray(rapidjson::SizeType) {
    --depth_;
    return Go(h_.EndArray());
  }

  bool too_deep() const { return too_deep_; }
  bool number_too_big() const { return number_too_big_; }
  bool stopped() const { return stopped_; }

 private:
  bool Go(bool go_on) {
    if (!go_on) stopped_ = true;
    return go_on;
  }
  bool Open() {
    if (depth_ >= kMaxDepth) {
      too_deep_ = true;
      return false;
    }
    ++depth_;
    return true;
  }

  JsonHandler& h_;
  size_t depth_ = 0;
  bool too_deep_ = false;
  bool number_too_big_ = false;
  bool stopped_ = false;
};

}  // namespace

Ok ReadJsonEvents(std::string_view bytes, JsonHandler& handler) {
  // RapidJSON's memory stream treats NUL as end of input; a raw NUL is never valid JSON.
  if (size_t nul = bytes.find('\0'); nul != std::string_view::npos) {
    return Error{"invalid JSON at offset " + std::to_string(nul) + ": unexpected NUL byte"};
  }
  rapidjson::MemoryStream stream(bytes.data(), bytes.size());
  rapidjson::Reader reader;
  Adapter adapter(handler);
  constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseIterativeFlag |
                              rapidjson::kParseValidateEncodingFlag;
  rapidjson::ParseResult ok = reader.Parse<kFlags>(stream, adapter);
  if (ok) return {};
  if (adapter.stopped()) return Error{"stopped at offset " + std::to_string(ok.Offset())};
  std::string reason = adapter.too_deep() ? kDepthMessage
                       : adapter.number_too_big()
                           ? rapidjson::GetParseError_En(rapidjson::kParseErrorNumberTooBig)
                           : rapidjson::GetParseError_En(ok.Code());
  return Error{"invalid JSON at offset " + std::to_string(ok.Offset()) + ": " + reason};
}

}  // namespace berth::api::json
