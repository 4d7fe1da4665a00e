#pragma once
// Leveled, structured logging to stderr in kube-scheduler's formats (k8s.io/klog/v2 and
// k8s.io/component-base/logs), so that a log pipeline built for kube-scheduler parses berth's.
//
//   BERTH_INFO_S(2, "Attempting to schedule pod", "pod", log::KObj(key));   // V(2) only
//   BERTH_ERROR_S(err, "Error scheduling pod", "pod", log::KObj(key));     // err="..." first
//   BERTH_WARN_S("Lease lost", "lease", name);
//   BERTH_LOG(0) << "free text " << n;   // stream style: the text becomes the quoted message
//   BERTH_WARN() << ...;  BERTH_ERROR() << ...;
//
// Text format (the default; klog's header, then the message as Go's %q, then key=value pairs in
// the order given):
//   I1126 07:00:00.123456   12345 daemon.cc:49] "Successfully bound pod to node" pod="ns/p"
//       node="n1" profile="berth-scheduler" took="3.1ms"     (one line, wrapped here)
// Severity I/W/E, MMDD, local time with microseconds, the thread id right-aligned in 7 columns
// (klog writes the process id there and means to write the thread id; in berth's main thread
// the two are equal), the source file's base name and line. Strings (and KObj) are
// quoted as Go's strconv.Quote; numbers and bools are bare. Unlike klog, a string holding a
// newline is still quoted on one line (klog writes a multi-line `key=<` block): one record is
// always one line.
//
// JSON format (--logging-format=json; component-base/logs/json's zap encoder): one object per
// line, keys in this order: "ts" (Unix time in milliseconds, a float, as upstream's
// epochMillisTimeEncoder), "caller" ("file.cc:123"), "msg", "v" (info and warning lines only;
// the verbosity), "err" (error lines with an error), then the pairs. KObj renders as
// {"name":..,"namespace":..} as klog.KObj does under zap.
//
// Verbosity: a V(n) line is written when n <= -v, or when the file matches a --vmodule pattern
// with a level >= n (klog's rule: `pattern=N` globs with * and ? matched against the file's
// base name without extension; a pattern with a '/' is matched against the path without
// extension, or any tail of it after a '/', so "scheduler/binder/*" works whatever the build's
// __FILE__ prefix is).
// Everything is thread-safe: each record is formatted into one string and written with one
// fwrite, so threads never interleave within a line.
//
// Why a formatter of our own and not spdlog: the wire format is klog's and zap's, not spdlog's
// patterns (the %q quoting, the bare/quoted value rules, KObj's two renderings, vmodule's
// matching), and the whole thing is a few hundred lines; spdlog would add a dependency
// without removing any of them. Header-only so that every library can log without a link edge.

#include <fnmatch.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/strings.h"

namespace berth::log {

enum class Format { kText, kJson };

// A Kubernetes object reference: "ns/name" in text, {"name","namespace"} in JSON.
struct ObjectRef {
  std::string ns, name;
};
inline ObjectRef KRef(std::string ns, std::string name) { return {std::move(ns), std::move(name)}; }
// From a "ns/name" (or "name") key.
inline ObjectRef KObj(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {"", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

// One value of a key/value pair.
struct Value {
  enum class Kind { kString, kInt, kUint, kDouble, kBool, kObject } kind = Kind::kString;
  std::string s;     // kString; kObject: namespace
  std::string name;  // kObject
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  bool b = false;
};

struct Field {
  std::string key;
  Value value;
};

// One log record, before formatting.
struct Record {
  char severity = 'I';  // I, W, E
  int v = 0;
  std::chrono::system_clock::time_point time;
  long thread_id = 0;
  std::string_view file;  // as __FILE__; only the base name is printed
  int line = 0;
  std::string msg;
  bool has_err = false;
  std::string err;
  std::vector<Field> fields;
};

namespace internal {

inline Value ToValue(std::string_view s) {
  Value v;
  v.s = std::string(s);
  return v;
}
inline Value ToValue(const char* s) { return ToValue(std::string_view(s == nullptr ? "" : s)); }
inline Value ToValue(const std::string& s) { return ToValue(std::string_view(s)); }
inline Value ToValue(const ObjectRef& r) {
  Value v;
  v.kind = Value::Kind::kObject;
  v.s = r.ns;
  v.name = r.name;
  return v;
}
inline Value ToValue(bool b) {
  Value v;
  v.kind = Value::Kind::kBool;
  v.b = b;
  return v;
}
template <typename T>
requires std::is_arithmetic_v<T> Value ToValue(T x) {
  Value v;
  if constexpr (std::is_floating_point_v<T>) {
    v.kind = Value::Kind::kDouble;
    v.d = static_cast<double>(x);
  } else if constexpr (std::is_signed_v<T>) {
    v.kind = Value::Kind::kInt;
    v.i = static_cast<int64_t>(x);
  } else {
    v.kind = Value::Kind::kUint;
    v.u = static_cast<uint64_t>(x);
  }
  return v;
}
template <typename D, typename P>
Value ToValue(std::chrono::duration<D, P> d) {
  // Seconds, as a float (zap's StringDurationEncoder would print "1.5s"; seconds stay numeric).
  return ToValue(std::chrono::duration<double>(d).count());
}

inline void AddFields(std::vector<Field>*) {}
template <typename K, typename V, typename... Rest>
void AddFields(std::vector<Field>* out, const K& key, const V& value, const Rest&... rest) {
  out->push_back({std::string(key), ToValue(value)});
  AddFields(out, rest...);
}

inline std::string_view BaseName(std::string_view file) {
  const size_t slash = file.rfind('/');
  return slash == std::string_view::npos ? file : file.substr(slash + 1);
}

inline std::string FormatDouble(double d) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", d);
  // Shortest form that reads back the same.
  for (int prec = 1; prec <= 17; ++prec) {
    char shorter[32];
    std::snprintf(shorter, sizeof(shorter), "%.*g", prec, d);
    if (std::strtod(shorter, nullptr) == d) return shorter;
  }
  return buf;
}

// A JSON string literal: '"', '\\' and control characters escaped, invalid UTF-8 as \ufffd.
inline void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = strings_internal::Utf8Length(s, i);
    if (n > 1) {
      out->append(s.substr(i, n));
      i += n;
      continue;
    }
    ++i;
    if (c >= 0x80) {
      out->append("\\ufffd");
    } else if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '\r') {
      out->append("\\r");
    } else if (c == '\t') {
      out->append("\\t");
    } else if (c < 0x20 || c == 0x7f) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

inline void AppendTextValue(const Value& v, std::string* out) {
  switch (v.kind) {
    case Value::Kind::kString:
      out->append(Quote(v.s));
      return;
    case Value::Kind::kObject:
      out->append(Quote(v.s.empty() ? v.name : v.s + "/" + v.name));
      return;
    case Value::Kind::kInt:
      out->append(std::to_string(v.i));
      return;
    case Value::Kind::kUint:
      out->append(std::to_string(v.u));
      return;
    case Value::Kind::kDouble:
      out->append(FormatDouble(v.d));
      return;
    case Value::Kind::kBool:
      out->append(v.b ? "true" : "false");
      return;
  }
}

inline void AppendJsonValue(const Value& v, std::string* out) {
  switch (v.kind) {
    case Value::Kind::kString:
      AppendJsonString(v.s, out);
      return;
    case Value::Kind::kObject:
      out->append("{\"name\":");
      AppendJsonString(v.name, out);
      out->append(",\"namespace\":");
      AppendJsonString(v.s, out);
      out->push_back('}');
      return;
    case Value::Kind::kDouble:
      // JSON has no NaN or infinities; zap writes them as strings.
      if (v.d != v.d || v.d - v.d != 0) {
        AppendJsonString(FormatDouble(v.d), out);
        return;
      }
      [[fallthrough]];
    default:
      AppendTextValue(v, out);
      return;
  }
}

}  // namespace internal

// The record as one klog text line, with the trailing newline.
inline std::string FormatText(const Record& r) {
  const std::time_t t = std::chrono::system_clock::to_time_t(r.time);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(r.time.time_since_epoch()) % 1000000;
  std::tm tm{};
  localtime_r(&t, &tm);
  char head[64];
  std::snprintf(head, sizeof(head), "%c%02d%02d %02d:%02d:%02d.%06d %7ld ", r.severity,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(micros.count()), r.thread_id);
  std::string out = head;
  out.append(internal::BaseName(r.file));
  out.push_back(':');
  out.append(std::to_string(r.line));
  out.append("] ");
  out.append(Quote(r.msg));
  if (r.has_err) {
    out.append(" err=");
    out.append(Quote(r.err));
  }
  for (const Field& f : r.fields) {
    out.push_back(' ');
    out.append(f.key);
    out.push_back('=');
    internal::AppendTextValue(f.value, &out);
  }
  out.push_back('\n');
  return out;
}

// The record as one component-base JSON line, with the trailing newline.
inline std::string FormatJson(const Record& r) {
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(r.time.time_since_epoch()).count();
  char ts[40];
  std::snprintf(ts, sizeof(ts), "%.6f", static_cast<double>(nanos) / 1e6);
  std::string out = "{\"ts\":";
  out.append(ts);
  out.append(",\"caller\":");
  internal::AppendJsonString(std::string(internal::BaseName(r.file)) + ":" + std::to_string(r.line),
                             &out);
  out.append(",\"msg\":");
  internal::AppendJsonString(r.msg, &out);
  if (r.severity != 'E') {
    out.append(",\"v\":");
    out.append(std::to_string(r.v));
  }
  if (r.has_err) {
    out.append(",\"err\":");
    internal::AppendJsonString(r.err, &out);
  }
  for (const Field& f : r.fields) {
    out.push_back(',');
    internal::AppendJsonString(f.key, &out);
    out.push_back(':');
    internal::AppendJsonValue(f.value, &out);
  }
  out.append("}\n");
  return out;
}

// --- process-wide settings -----------------------------------------------------------------

inline std::atomic<int>& Verbosity() {
  static std::atomic<int> v{0};
  return v;
}

inline std::atomic<Format>& OutputFormat() {
  static std::atomic<Format> f{Format::kText};
  return f;
}

namespace internal {
struct VmoduleState {
  std::atomic<bool> set{false};
  std::mutex mu;
  std::vector<std::pair<std::string, int>> patterns;  // guarded by mu
};
inline VmoduleState& Vmodule() {
  static VmoduleState s;
  return s;
}
// Where records go instead of stderr when set; tests set it before any thread logs.
inline std::function<void(const std::string&)>& Sink() {
  static std::function<void(const std::string&)> sink;
  return sink;
}
}  // namespace internal

// Parses klog's --vmodule ("pattern=N,pattern=N"; empty clears it) and installs it. Returns an
// error text (nothing installed) for an entry that is not pattern=N with N a non-negative
// integer.
inline std::string SetVmodule(std::string_view spec) {
  std::vector<std::pair<std::string, int>> patterns;
  size_t start = 0;
  while (start <= spec.size() && !spec.empty()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    const std::string_view entry = spec.substr(start, comma - start);
    start = comma + 1;
    if (entry.empty()) {
      if (comma == spec.size()) break;
      continue;
    }
    const size_t eq = entry.find('=');
    const std::string_view level = eq == std::string_view::npos ? "" : entry.substr(eq + 1);
    if (eq == 0 || eq == std::string_view::npos || level.empty() || level.size() > 9 ||
        level.find_first_not_of("0123456789") != std::string_view::npos) {
      return "syntax error: expect comma-separated list of filename=N, not \"" +
             std::string(entry) + "\"";
    }
    patterns.emplace_back(std::string(entry.substr(0, eq)), std::stoi(std::string(level)));
    if (comma == spec.size()) break;
  }
  auto& s = internal::Vmodule();
  std::lock_guard<std::mutex> lock(s.mu);
  s.set = !patterns.empty();
  s.patterns = std::move(patterns);
  return "";
}

// The --vmodule level of `file` (a __FILE__ path), or -1 when no pattern matches.
inline int VmoduleLevel(std::string_view file) {
  auto& s = internal::Vmodule();
  if (!s.set.load(std::memory_order_relaxed)) return -1;
  std::string base(internal::BaseName(file));
  if (const size_t dot = base.rfind('.'); dot != std::string::npos) base.resize(dot);
  std::string path(file);
  if (const size_t dot = path.rfind('.'); dot != std::string::npos && dot > path.rfind('/'))
    path.resize(dot);
  std::lock_guard<std::mutex> lock(s.mu);
  for (const auto& [pattern, level] : s.patterns) {
    if (pattern.find('/') == std::string::npos) {
      if (fnmatch(pattern.c_str(), base.c_str(), 0) == 0) return level;
      continue;
    }
    // The whole path, or any tail of it after a '/' (__FILE__ may be absolute or relative).
    for (size_t from = 0; from != std::string::npos;
         from = path.find('/', from) == std::string::npos ? std::string::npos
                                                          : path.find('/', from) + 1) {
      if (fnmatch(pattern.c_str(), path.c_str() + from, 0) == 0) return level;
    }
  }
  return -1;
}

// Whether a V(level) line from `file` is written.
inline bool Enabled(int level, std::string_view file) {
  if (level <= Verbosity().load(std::memory_order_relaxed)) return true;
  return VmoduleLevel(file) >= level;
}

// Formats and writes one record (filling in time and thread id).
inline void Emit(Record& r) {
  r.time = std::chrono::system_clock::now();
  r.thread_id = static_cast<long>(syscall(SYS_gettid));
  const std::string line = OutputFormat().load() == Format::kJson ? FormatJson(r) : FormatText(r);
  if (auto& sink = internal::Sink(); sink) {
    sink(line);
    return;
  }
  std::fwrite(line.data(), 1, line.size(), stderr);
}

template <typename... KV>
void EmitS(char severity, int v, const char* file, int line, const bool has_err, std::string err,
           std::string_view msg, const KV&... kv) {
  static_assert(sizeof...(KV) % 2 == 0, "key/value pairs come in pairs");
  Record r;
  r.severity = severity;
  r.v = v;
  r.file = file;
  r.line = line;
  r.msg = std::string(msg);
  r.has_err = has_err;
  r.err = std::move(err);
  internal::AddFields(&r.fields, kv...);
  Emit(r);
}

// A stream-style record: what is streamed in becomes the message.
class Line {
 public:
  Line(char severity, int v, const char* file, int line) {
    r_.severity = severity;
    r_.v = v;
    r_.file = file;
    r_.line = line;
  }
  ~Line() {
    r_.msg = out_.str();
    Emit(r_);
  }
  template <typename T>
  Line& operator<<(const T& v) {
    out_ << v;
    return *this;
  }

 private:
  Record r_;
  std::ostringstream out_;
};

}  // namespace berth::log

// A for statement, not if/else, so that `if (x) BERTH_LOG(2) << ...;` has no dangling else.
#define BERTH_LOG(level)                                                             \
  for (bool berth_log_on_ = ::berth::log::Enabled((level), __FILE__); berth_log_on_; \
       berth_log_on_ = false)                                                        \
  ::berth::log::Line('I', (level), __FILE__, __LINE__)
#define BERTH_WARN() ::berth::log::Line('W', 0, __FILE__, __LINE__)
#define BERTH_ERROR() ::berth::log::Line('E', 0, __FILE__, __LINE__)

// Structured: BERTH_INFO_S(level, "msg", "key", value, ...). Values: strings, numbers, bools,
// durations (seconds), log::KObj("ns/name") / log::KRef(ns, name).
#define BERTH_INFO_S(level, msg, ...)                                             \
  do {                                                                            \
    if (::berth::log::Enabled((level), __FILE__))                                 \
      ::berth::log::EmitS('I', (level), __FILE__, __LINE__, false, std::string(), \
                          (msg)__VA_OPT__(, ) __VA_ARGS__);                       \
  } while (0)
#define BERTH_WARN_S(msg, ...)                                          \
  ::berth::log::EmitS('W', 0, __FILE__, __LINE__, false, std::string(), \
                      (msg)__VA_OPT__(, ) __VA_ARGS__)
// `err`: the error text (a string); it comes out as err="..." right after the message.
#define BERTH_ERROR_S(err, msg, ...)                                      \
  ::berth::log::EmitS('E', 0, __FILE__, __LINE__, true, std::string(err), \
                      (msg)__VA_OPT__(, ) __VA_ARGS__)
