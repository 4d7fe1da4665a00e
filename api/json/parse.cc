#include "api/json/parse.h"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/duplicate_keys.h"
#include "api/json/number.h"
#include "base/strings.h"

namespace berth::api::json {
namespace {

constexpr size_t kMaxDepth = 512;
constexpr const char* kDepthMessage = "nesting deeper than 512 levels";
// YAML aliases are expanded into copies; this bounds "billion laughs" documents.
constexpr size_t kMaxAliasExpandedNodes = size_t{1} << 22;
// ... and in bytes (strings, keys and a node's own size): a small file aliasing a long string
// many times is refused before it costs memory, not after.
constexpr size_t kMaxAliasExpandedBytes = size_t{32} << 20;
constexpr size_t kNodeBytes = sizeof(Value);

// Objects are built by appending members (linear); duplicate keys are looked for once, when the
// object is complete (api/duplicate_keys.h).

// ---------------------------------------------------------------------------------------------
// JSON: a RapidJSON SAX handler that builds a Value with an explicit stack, so neither the
// reader (iterative mode) nor this builder recurses.

class JsonBuilder {
 public:
  bool Null() { return Add(Value()); }
  bool Bool(bool b) { return Add(Value::Bool(b)); }
  bool Int(int i) { return Add(Value::Int(i)); }
  bool Uint(unsigned u) { return Add(Value::Int(u)); }
  bool Int64(int64_t i) { return Add(Value::Int(i)); }
  bool Uint64(uint64_t u) {
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Add(Value::Double(static_cast<double>(u)));
    }
    return Add(Value::Int(static_cast<int64_t>(u)));
  }
  bool Double(double d) { return Add(Value::Double(d)); }
  // Numbers arrive as text (kParseNumbersAsStringsFlag) and are converted by ConvertNumber
  // (number.h: RapidJSON 1.1.0's own conversion is wrong for some inputs); `str` is
  // NUL-terminated (the reader copies it, no in-situ parsing).
  bool RawNumber(const char* str, rapidjson::SizeType n, bool) {
    const internal::Number num = internal::ConvertNumber(std::string_view(str, n));
    switch (num.kind) {
      case internal::Number::Kind::kInt:
        return Add(Value::Int(num.i));
      case internal::Number::Kind::kDouble:
        return Add(Value::Double(num.d));
      case internal::Number::Kind::kTooBig:
        break;
    }
    number_too_big_ = true;
    return false;
  }
  bool String(const char* s, rapidjson::SizeType n, bool) { return Add(Value::String({s, n})); }
  bool StartObject() { return Open(Value::MakeObject()); }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    keys_.back().assign(s, n);
    return true;
  }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool StartArray() { return Open(Value::MakeArray()); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

  bool too_deep() const { return too_deep_; }
  bool number_too_big() const { return number_too_big_; }
  Value TakeRoot() { return std::move(root_); }

 private:
  bool Open(Value v) {
    if (stack_.size() >= kMaxDepth) {
      too_deep_ = true;
      return false;
    }
    stack_.push_back(std::move(v));
    keys_.emplace_back();
    return true;
  }
  bool Close() {
    Value v = std::move(stack_.back());
    stack_.pop_back();
    keys_.pop_back();
    if (v.IsObject() && FirstDuplicateKey(v.AsObject()) != kNoDuplicateKey) {
      FoldDuplicateKeys(&v.MutableObject());
    }
    return Add(std::move(v));
  }
  bool Add(Value v) {
    if (stack_.empty()) {
      root_ = std::move(v);
    } else if (stack_.back().IsArray()) {
      stack_.back().Push(std::move(v));
    } else {
      // Duplicate keys: the last one wins, as in encoding/json (folded in Close).
      stack_.back().MutableObject().emplace_back(std::move(keys_.back()), std::move(v));
    }
    return true;
  }

  std::vector<Value> stack_;
  std::vector<std::string> keys_;
  Value root_;
  bool too_deep_ = false;
  bool number_too_big_ = false;
};

// ---------------------------------------------------------------------------------------------
// YAML: a yaml-cpp event handler that builds Values directly (no YAML::Node tree), typing plain
// scalars by the YAML 1.2 core schema.

// Thrown from the event handler; yaml-cpp lets exceptions from handlers propagate.
class BuildError : public YAML::ParserException {
 public:
  BuildError(const YAML::Mark& mark, const std::string& msg) : YAML::ParserException(mark, msg) {}
};

bool IsNullPlain(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

bool ParseBoolPlain(const std::string& s, bool* out) {
  if (s == "true" || s == "True" || s == "TRUE") {
    *out = true;
    return true;
  }
  if (s == "false" || s == "False" || s == "FALSE") {
    *out = false;
    return true;
  }
  return false;
}

bool AllDigits(std::string_view s, int base) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = base == 8    ? (c >= '0' && c <= '7')
              : base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                           : (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// Core schema integer: [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+. A decimal integer outside int64
// becomes a Double (as in JSON); hex/octal outside uint64 is not an integer.
bool ParseIntPlain(const std::string& s, Value* out) {
  std::string_view v = s;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'o')) {
    int base = v[1] == 'x' ? 16 : 8;
    std::string_view digits = v.substr(2);
    if (!AllDigits(digits, base)) return false;
    uint64_t u = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), u, base);
    if (ec != std::errc() || p != digits.data() + digits.size()) return false;
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      *out = Value::Double(static_cast<double>(u));
    } else {
      *out = Value::Int(static_cast<int64_t>(u));
    }
    return true;
  }
  bool neg = false;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    neg = v[0] == '-';
    v.remove_prefix(1);
  }
  if (!AllDigits(v, 10)) return false;
  std::string text = (neg ? "-" : "") + std::string(v);
  int64_t i = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (ec == std::errc() && p == text.data() + text.size()) {
    *out = Value::Int(i);
  } else {
    *out = Value::Double(std::strtod(text.c_str(), nullptr));
  }
  return true;
}

// Core schema float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? | [-+]?\.inf | \.nan.
bool ParseFloatPlain(const std::string& s, double* out) {
  std::string_view v = s;
  bool neg = false;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    neg = v[0] == '-';
    v.remove_prefix(1);
  }
  if (v == ".inf" || v == ".Inf" || v == ".INF") {
    *out = neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return true;
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  size_t i = 0;
  size_t int_digits = 0, frac_digits = 0;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++int_digits;
  if (i < v.size() && v[i] == '.') {
    ++i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '-' || v[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  if (i != v.size()) return false;
  *out = std::strtod(s.c_str(), nullptr);  // strtod accepts the whole core-schema form
  return true;
}

Value ResolvePlain(const std::string& s) {
  if (IsNullPlain(s)) return Value();
  bool b = false;
  if (ParseBoolPlain(s, &b)) return Value::Bool(b);
  Value i;
  if (ParseIntPlain(s, &i)) return i;
  double d = 0;
  if (ParseFloatPlain(s, &d)) return Value::Double(d);
  return Value::String(s);
}

constexpr std::string_view kYamlTagPrefix = "tag:yaml.org,2002:";

Value ResolveScalar(const YAML::Mark& mark, const std::string& tag, const std::string& s) {
  if (tag == "!") return Value::String(s);  // quoted, or the non-specific tag "!"
  if (tag.rfind(kYamlTagPrefix, 0) == 0) {
    std::string_view kind = std::string_view(tag).substr(kYamlTagPrefix.size());
    if (kind == "str") return Value::String(s);
    if (kind == "null") {
      if (!IsNullPlain(s)) throw BuildError(mark, "invalid !!null value \"" + s + "\"");
      return Value();
    }
    if (kind == "bool") {
      bool b = false;
      if (!ParseBoolPlain(s, &b)) throw BuildError(mark, "invalid !!bool value \"" + s + "\"");
      return Value::Bool(b);
    }
    if (kind == "int") {
      Value i;
      if (!ParseIntPlain(s, &i)) throw BuildError(mark, "invalid !!int value \"" + s + "\"");
      return i;
    }
    if (kind == "float") {
      Value i;
      if (ParseIntPlain(s, &i)) return Value::Double(i.AsDouble());
      double d = 0;
      if (!ParseFloatPlain(s, &d)) throw BuildError(mark, "invalid !!float value \"" + s + "\"");
      return Value::Double(d);
    }
  }
  // "?" (plain) and application tags we do not know: resolve like a plain scalar.
  return ResolvePlain(s);
}

size_t CountNodes(const Value& v) {
  // Bounded recursion: depth is at most kMaxDepth by construction.
  size_t n = 1;
  if (v.IsArray()) {
    for (const auto& e : v.AsArray()) n += CountNodes(e);
  } else if (v.IsObject()) {
    for (const auto& [k, e] : v.AsObject()) n += CountNodes(e);
  }
  return n;
}

class YamlBuilder : public YAML::EventHandler {
 public:
  std::vector<Value> TakeDocuments() { return std::move(docs_); }

  void OnDocumentStart(const YAML::Mark& mark) override {
    // yaml-cpp 0.7 can report the same empty document forever on a stray token such as a leading
    // ',' (jbeder/yaml-cpp#1040, fixed upstream by #1319): two documents never start at the same
    // position, so treat that as the error it is.
    if (mark.pos == last_document_pos_) throw BuildError(mark, "unexpected token");
    last_document_pos_ = mark.pos;
    stack_.clear();
    anchors_.clear();
    root_ = Value();
    has_root_ = false;
  }
  void OnDocumentEnd() override {
    if (has_root_ && !root_.IsNull()) docs_.push_back(std::move(root_));
    root_ = Value();
    has_root_ = false;
  }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (ExpectingKey()) {
      SetKey(mark, "null");
      return;
    }
    Add(mark, Value(), anchor, 1, 0, kNodeBytes);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw BuildError(mark, "unknown anchor");
    const Anchored& a = it->second;
    if (ExpectingKey()) {
      if (!a.value.IsString()) throw BuildError(mark, "mapping keys must be scalars");
      SetKey(mark, a.value.AsString());
      return;
    }
    if (stack_.size() + a.depth > kMaxDepth) throw BuildError(mark, kDepthMessage);
    expanded_ += a.nodes;
    expanded_bytes_ += a.bytes;
    if (expanded_ > kMaxAliasExpandedNodes || expanded_bytes_ > kMaxAliasExpandedBytes) {
      throw BuildError(mark, "document too large after alias expansion");
    }
    Add(mark, a.value, 0, a.nodes, a.depth, a.bytes);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (ExpectingKey()) {
      SetKey(mark, value);
      if (anchor != 0) {
        anchors_[anchor] = Anchored{Value::String(value), 1, 0, kNodeBytes + value.size()};
      }
      return;
    }
    Add(mark, ResolveScalar(mark, tag, value), anchor, 1, 0, kNodeBytes + value.size());
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, Value::MakeArray(), anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, Value::MakeObject(), anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Frame {
    Value value;
    YAML::Mark mark;
    YAML::anchor_t anchor = 0;
    std::string key;
    bool has_key = false;
    bool is_key = false;                // this container is being used as a mapping key
    size_t nodes = 1;                   // nodes in this subtree so far
    size_t height = 1;                  // nesting height of this subtree so far
    size_t bytes = kNodeBytes;          // memory of this subtree so far (nodes, strings, keys)
    YAML::Mark key_mark;                // where `key` was read
    std::vector<YAML::Mark> key_marks;  // a mapping's: where each member's key was read
  };
  struct Anchored {
    Value value;
    size_t nodes = 1;
    size_t depth = 0;  // container nesting inside the value
    size_t bytes = kNodeBytes;
  };

  void SetKey(const YAML::Mark& mark, const std::string& key) {
    Frame& top = stack_.back();
    top.key = key;
    top.has_key = true;
    top.key_mark = mark;
  }

  // Where the value being built sits: "profiles[0].pluginConfig[1]" (empty at the root).
  std::string PathOfOpenValue() const {
    std::string path;
    for (const Frame& f : stack_) {
      if (f.value.IsArray()) {
        path += "[" + std::to_string(f.value.AsArray().size()) + "]";
      } else {
        if (!path.empty()) path += ".";
        path += f.key;
      }
    }
    return path;
  }

  bool ExpectingKey() const {
    return !stack_.empty() && stack_.back().value.IsObject() && !stack_.back().has_key;
  }

  void Open(const YAML::Mark& mark, Value v, YAML::anchor_t anchor) {
    // A container used as a mapping key is reported when it closes, so that a truncated
    // document (which yaml-cpp may present as a complex key) gets yaml-cpp's own error.
    bool is_key = ExpectingKey();
    if (stack_.size() >= kMaxDepth) throw BuildError(mark, kDepthMessage);
    stack_.push_back(Frame{std::move(v), mark, anchor, {}, false, is_key, 1, 1});
  }

  void Close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.is_key) throw BuildError(f.mark, "mapping keys must be scalars");
    if (f.value.IsObject()) {
      // Duplicate keys are an error, as in upstream's strict decoding of configs and objects.
      size_t dup = FirstDuplicateKey(f.value.AsObject());
      if (dup != kNoDuplicateKey) {
        const std::string& key = f.value.AsObject()[dup].first;
        std::string path = PathOfOpenValue();
        path += path.empty() ? key : "." + key;
        throw BuildError(f.key_marks[dup], path + ": key \"" + key + "\" already set in map");
      }
    }
    Add(f.mark, std::move(f.value), f.anchor, f.nodes, f.height, f.bytes);
  }

  // `height` is the container nesting inside v (0 for scalars); `bytes` its memory.
  void Add(const YAML::Mark& mark, Value v, YAML::anchor_t anchor, size_t nodes, size_t height,
           size_t bytes) {
    if (anchor != 0) anchors_[anchor] = Anchored{v, nodes, height, bytes};
    if (stack_.empty()) {
      root_ = std::move(v);
      has_root_ = true;
      return;
    }
    Frame& top = stack_.back();
    top.nodes += nodes;
    top.height = std::max(top.height, height + 1);
    top.bytes += bytes;
    if (top.value.IsArray()) {
      top.value.Push(std::move(v));
    } else {
      top.bytes += top.key.size();
      top.value.MutableObject().emplace_back(std::move(top.key), std::move(v));
      top.key_marks.push_back(top.key_mark);
      top.key.clear();
      top.has_key = false;
    }
    (void)mark;
  }

  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Anchored> anchors_;
  std::vector<Value> docs_;
  Value root_;
  bool has_root_ = false;
  size_t expanded_ = 0;
  size_t expanded_bytes_ = 0;
  int last_document_pos_ = -1;
};

void AppendEscaped(const std::string& s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xf]);
        } else if (c < 0x80) {
          out->push_back(static_cast<char>(c));
        } else if (size_t n = strings_internal::Utf8Length(s, i); n > 0) {
          out->append(s, i, n);
          i += n - 1;
        } else {
          // Not UTF-8: U+FFFD, as encoding/json writes it (JSON text must be UTF-8).
          out->append("\\ufffd");
        }
    }
  }
  out->push_back('"');
}

void AppendJson(const Value& v, std::string* out) {
  char buf[64];
  switch (v.type()) {
    case Value::Type::kNull:
      out->append("null");
      return;
    case Value::Type::kBool:
      out->append(v.AsBool() ? "true" : "false");
      return;
    case Value::Type::kInt: {
      auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v.AsInt());
      out->append(buf, p);
      return;
    }
    case Value::Type::kDouble: {
      double d = v.AsDouble();
      if (!std::isfinite(d)) {
        out->append("null");  // JSON has no Inf/NaN
        return;
      }
      // Shortest text that round-trips; keep a '.' or exponent so it parses back as a Double.
      auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), d);
      std::string_view text(buf, p - buf);
      out->append(text);
      if (text.find_first_of(".eE") == std::string_view::npos) out->append(".0");
      return;
    }
    case Value::Type::kString:
      AppendEscaped(v.AsString(), out);
      return;
    case Value::Type::kArray: {
      out->push_back('[');
      bool first = true;
      for (const auto& e : v.AsArray()) {
        if (!first) out->push_back(',');
        first = false;
        AppendJson(e, out);
      }
      out->push_back(']');
      return;
    }
    case Value::Type::kObject: {
      out->push_back('{');
      bool first = true;
      for (const auto& [k, e] : v.AsObject()) {
        if (!first) out->push_back(',');
        first = false;
        AppendEscaped(k, out);
        out->push_back(':');
        AppendJson(e, out);
      }
      out->push_back('}');
      return;
    }
  }
}

std::string YamlError(const YAML::Mark& mark, const std::string& msg) {
  if (mark.is_null()) return msg;
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) +
         ": " + msg;
}

}  // namespace

Result<Value> ParseJson(std::string_view bytes) {
  // RapidJSON's memory stream treats NUL as end of input; a raw NUL is never valid JSON.
  if (size_t nul = bytes.find('\0'); nul != std::string_view::npos) {
    return Error{"invalid JSON at offset " + std::to_string(nul) + ": unexpected NUL byte"};
  }
  rapidjson::MemoryStream stream(bytes.data(), bytes.size());
  rapidjson::Reader reader;
  JsonBuilder builder;
  constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseIterativeFlag |
                              rapidjson::kParseValidateEncodingFlag;
  rapidjson::ParseResult ok = reader.Parse<kFlags>(stream, builder);
  if (!ok) {
    std::string reason = builder.too_deep() ? kDepthMessage
                         : builder.number_too_big()
                             ? rapidjson::GetParseError_En(rapidjson::kParseErrorNumberTooBig)
                             : rapidjson::GetParseError_En(ok.Code());
    return Error{"invalid JSON at offset " + std::to_string(ok.Offset()) + ": " + reason};
  }
  return builder.TakeRoot();
}

Result<std::vector<Value>> ParseYamlDocuments(std::string_view text) {
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    YamlBuilder builder;
    while (parser.HandleNextDocument(builder)) {
    }
    return builder.TakeDocuments();
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard (2000 recursive calls) stops at roughly 500 nesting levels.
    return Error{
        YamlError(e.mark, "nesting deeper than the YAML parser's limit (about 500 levels)")};
  } catch (const YAML::Exception& e) {
    return Error{YamlError(e.mark, e.msg)};
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is the command's to report (cmd/berth/main.cc), not a YAML error
  } catch (const std::exception& e) {
    // yaml-cpp may surface stream failures as std exceptions.
    return Error{std::string("YAML: ") + e.what()};
  }
}

std::string ToJson(const Value& v) {
  std::string out;
  AppendJson(v, &out);
  return out;
}

}  // namespace berth::api::json
