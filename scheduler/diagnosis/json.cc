#include "scheduler/diagnosis/json.h"

#include <utility>

#include "api/decode.h"

namespace berth::diagnosis {
namespace {

using api::Value;

void Add(Value& o, std::string key, Value v) {
  o.MutableObject().emplace_back(std::move(key), std::move(v));
}

void AddString(Value& o, std::string key, const std::string& s) {
  if (!s.empty()) Add(o, std::move(key), Value::String(s));
}

Result<std::string> StringAt(const Value& o, std::string_view key, const std::string& path) {
  const Value* v = o.Find(key);
  if (v == nullptr || v->IsNull()) return std::string();
  if (!v->IsString()) {
    return Error{path + std::string(key) + ": expected string, got " + std::string(v->TypeName())};
  }
  return v->AsString();
}

Result<const Value::Array*> ArrayAt(const Value& o, std::string_view key, const std::string& path) {
  static const Value::Array kEmpty;
  const Value* v = o.Find(key);
  if (v == nullptr || v->IsNull()) return &kEmpty;
  if (!v->IsArray()) {
    return Error{path + std::string(key) + ": expected array, got " + std::string(v->TypeName())};
  }
  return &v->AsArray();
}

int64_t IntAt(const Value& o, std::string_view key) {
  const Value* v = o.Find(key);
  return v != nullptr && v->IsInt() ? v->AsInt() : 0;
}

}  // namespace

Value ToValue(const Record& r) {
  Value o = Value::MakeObject();
  Add(o, "pod", Value::String(r.pod));
  AddString(o, "uid", r.uid);
  AddString(o, "profile", r.profile);
  if (r.attempted_unix_micros != 0) {
    Add(o, "attempted", Value::String(api::FormatTime(api::Time{r.attempted_unix_micros})));
  }
  Add(o, "status", Value::String(r.status));
  AddString(o, "message", r.message);
  AddString(o, "node", r.node);
  if (!r.pre_filter.empty()) {
    Value pf = Value::MakeObject();
    AddString(pf, "plugin", r.pre_filter_plugin);
    Add(pf, "reason", Value::String(r.pre_filter));
    Add(o, "preFilter", std::move(pf));
  }
  Value filter = Value::MakeObject();
  filter.MutableObject().reserve(r.filter.size());
  for (const auto& ns : r.filter) Add(filter, ns.node, Value::String(ns.reasons));
  Add(o, "filter", std::move(filter));
  Value nearest = Value::MakeArray();
  for (const NearMiss& n : r.nearest) {
    Value e = Value::MakeObject();
    Add(e, "node", Value::String(n.node));
    AddString(e, "preemption", n.preemption);
    Value failed = Value::MakeArray();
    for (const Failure& f : n.failed) {
      Value fo = Value::MakeObject();
      Add(fo, "plugin", Value::String(f.plugin));
      Add(fo, "reason", Value::String(f.reason));
      AddString(fo, "need", f.need);
      failed.Push(std::move(fo));
    }
    Add(e, "failed", std::move(failed));
    nearest.Push(std::move(e));
  }
  Add(o, "nearest", std::move(nearest));
  if (r.preemption) {
    Value p = Value::MakeObject();
    AddString(p, "message", r.preemption->message);
    AddString(p, "node", r.preemption->node);
    if (!r.preemption->victims.empty()) {
      Value victims = Value::MakeArray();
      for (const Victim& v : r.preemption->victims) {
        Value vo = Value::MakeObject();
        Add(vo, "pod", Value::String(v.pod));
        Add(vo, "priority", Value::Int(v.priority));
        victims.Push(std::move(vo));
      }
      Add(p, "victims", std::move(victims));
    }
    Add(o, "preemption", std::move(p));
  }
  AddString(o, "nominatedNode", r.nominated_node);
  if (r.evaluated_nodes > 0) Add(o, "evaluatedNodes", Value::Int(r.evaluated_nodes));
  if (r.feasible_nodes > 0) Add(o, "feasibleNodes", Value::Int(r.feasible_nodes));
  return o;
}

#define BERTH_ASSIGN_STRING(dst, obj, key, path) \
  do {                                           \
    auto got_ = StringAt(obj, key, path);        \
    if (!got_.ok()) return Error{got_.error()};  \
    dst = std::move(*got_);                      \
  } while (0)

Result<Record> FromValue(const Value& v) {
  if (!v.IsObject()) return Error{"diagnosis: expected object, got " + std::string(v.TypeName())};
  Record r;
  BERTH_ASSIGN_STRING(r.pod, v, "pod", "");
  if (r.pod.empty()) return Error{"diagnosis: pod is required"};
  BERTH_ASSIGN_STRING(r.uid, v, "uid", "");
  BERTH_ASSIGN_STRING(r.profile, v, "profile", "");
  std::string attempted;
  BERTH_ASSIGN_STRING(attempted, v, "attempted", "");
  if (!attempted.empty()) {
    auto t = api::ParseTime(attempted);
    if (!t.ok()) return Error{"attempted: " + t.error()};
    r.attempted_unix_micros = t->unix_micros;
  }
  BERTH_ASSIGN_STRING(r.status, v, "status", "");
  BERTH_ASSIGN_STRING(r.message, v, "message", "");
  BERTH_ASSIGN_STRING(r.node, v, "node", "");
  if (const Value* pf = v.Find("preFilter"); pf != nullptr && pf->IsObject()) {
    BERTH_ASSIGN_STRING(r.pre_filter_plugin, *pf, "plugin", "preFilter.");
    BERTH_ASSIGN_STRING(r.pre_filter, *pf, "reason", "preFilter.");
  }
  if (const Value* f = v.Find("filter"); f != nullptr && !f->IsNull()) {
    if (!f->IsObject()) return Error{"filter: expected object, got " + std::string(f->TypeName())};
    for (const auto& [node, reasons] : f->AsObject()) {
      if (!reasons.IsString()) return Error{"filter." + node + ": expected string"};
      r.filter.push_back({node, "", reasons.AsString()});
    }
  }
  auto nearest = ArrayAt(v, "nearest", "");
  if (!nearest.ok()) return Error{nearest.error()};
  for (size_t i = 0; i < (*nearest)->size(); ++i) {
    const Value& n = (**nearest)[i];
    const std::string path = "nearest[" + std::to_string(i) + "].";
    NearMiss m;
    BERTH_ASSIGN_STRING(m.node, n, "node", path);
    BERTH_ASSIGN_STRING(m.preemption, n, "preemption", path);
    auto failed = ArrayAt(n, "failed", path);
    if (!failed.ok()) return Error{failed.error()};
    for (size_t k = 0; k < (*failed)->size(); ++k) {
      const Value& fo = (**failed)[k];
      const std::string fpath = path + "failed[" + std::to_string(k) + "].";
      Failure f;
      BERTH_ASSIGN_STRING(f.plugin, fo, "plugin", fpath);
      BERTH_ASSIGN_STRING(f.reason, fo, "reason", fpath);
      BERTH_ASSIGN_STRING(f.need, fo, "need", fpath);
      m.failed.push_back(std::move(f));
    }
    r.nearest.push_back(std::move(m));
  }
  if (const Value* p = v.Find("preemption"); p != nullptr && p->IsObject()) {
    Preemption pre;
    BERTH_ASSIGN_STRING(pre.message, *p, "message", "preemption.");
    BERTH_ASSIGN_STRING(pre.node, *p, "node", "preemption.");
    auto victims = ArrayAt(*p, "victims", "preemption.");
    if (!victims.ok()) return Error{victims.error()};
    for (const Value& vo : **victims) {
      Victim vic;
      BERTH_ASSIGN_STRING(vic.pod, vo, "pod", "preemption.victims[].");
      vic.priority = static_cast<int32_t>(IntAt(vo, "priority"));
      pre.victims.push_back(std::move(vic));
    }
    r.preemption = std::move(pre);
  }
  BERTH_ASSIGN_STRING(r.nominated_node, v, "nominatedNode", "");
  r.evaluated_nodes = static_cast<int>(IntAt(v, "evaluatedNodes"));
  r.feasible_nodes = static_cast<int>(IntAt(v, "feasibleNodes"));
  return r;
}

#undef BERTH_ASSIGN_STRING

}  // namespace berth::diagnosis
