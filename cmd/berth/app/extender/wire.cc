#include "cmd/berth/app/extender/wire.h"

#include <cctype>

#include "api/json/parse.h"
#include "cmd/berth/app/extender/objects_json.h"

namespace berth::extenders {
namespace {

using api::Value;

Error Want(std::string_view field, std::string_view want, const Value& got) {
  return Error{std::string(field) + ": want " + std::string(want) + ", got " +
               std::string(got.TypeName())};
}

// A JSON array of strings, or null (-> nullopt).
Result<std::optional<std::vector<std::string>>> StringArray(const Value* v,
                                                            std::string_view field) {
  std::optional<std::vector<std::string>> out;
  if (v == nullptr || v->IsNull()) return out;
  if (!v->IsArray()) return Want(field, "an array of node names", *v);
  out.emplace();
  for (const Value& item : v->AsArray()) {
    if (!item.IsString()) return Want(field, "an array of node names", item);
    out->push_back(item.AsString());
  }
  return out;
}

// A NodeList's items (names and objects), or null (-> nullopt).
Result<std::optional<std::vector<Value>>> NodeItems(const Value* v, std::string_view field) {
  std::optional<std::vector<Value>> out;
  if (v == nullptr || v->IsNull()) return out;
  if (!v->IsObject()) return Want(field, "a NodeList object", *v);
  out.emplace();
  const Value* items = FindFold(*v, "items");
  if (items == nullptr || items->IsNull()) return out;
  if (!items->IsArray()) return Want(std::string(field) + ".items", "an array", *items);
  for (const Value& item : items->AsArray()) {
    const Value* meta = item.IsObject() ? item.Find("metadata") : nullptr;
    const Value* name = meta != nullptr && meta->IsObject() ? meta->Find("name") : nullptr;
    if (name == nullptr || !name->IsString() || name->AsString().empty()) {
      return Error{std::string(field) + ".items: a node without metadata.name"};
    }
    out->push_back(item);
  }
  return out;
}

std::string ItemName(const Value& item) { return item.Find("metadata")->Find("name")->AsString(); }

Result<Value> ParseObject(std::string_view body, std::string_view what) {
  auto v = api::json::ParseJson(body);
  if (!v.ok()) return Error{"malformed " + std::string(what) + ": " + v.error()};
  if (!v->IsObject()) return Want(what, "a JSON object", *v);
  return std::move(*v);
}

Value NamesValue(const std::vector<std::string>& names) {
  Value a = Value::MakeArray();
  for (const auto& n : names) a.Push(Value::String(n));
  return a;
}

Value MapValue(const std::map<std::string, std::string>& m) {
  Value o = Value::MakeObject();
  for (const auto& [k, v] : m) o.Set(k, Value::String(v));
  return o;
}

Value NodeList(std::vector<Value> items) {
  Value list = Value::MakeObject();
  list.Set("metadata", Value::MakeObject());
  Value arr = Value::MakeArray();
  for (auto& i : items) arr.Push(std::move(i));
  list.Set("items", std::move(arr));
  return list;
}

}  // namespace

bool EqualFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

const Value* FindFold(const Value& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  if (const Value* exact = object.Find(key)) return exact;
  for (const auto& [k, v] : object.AsObject()) {
    if (EqualFold(k, key)) return &v;
  }
  return nullptr;
}

std::string EncodeExtenderArgs(const api::Pod& pod, const std::vector<const api::Node*>& nodes,
                               bool node_cache_capable) {
  Value args = Value::MakeObject();
  args.Set("Pod", PodToValue(pod));
  if (node_cache_capable) {
    Value names = Value::MakeArray();
    for (const api::Node* n : nodes) names.Push(Value::String(n->metadata.name));
    args.Set("Nodes", Value());
    args.Set("NodeNames", std::move(names));
  } else {
    std::vector<Value> items;
    items.reserve(nodes.size());
    for (const api::Node* n : nodes) items.push_back(NodeToValue(*n));
    args.Set("Nodes", NodeList(std::move(items)));
    args.Set("NodeNames", Value());
  }
  return api::json::ToJson(args);
}

std::string EncodeBindingArgs(const api::Pod& pod, const std::string& node) {
  Value args = Value::MakeObject();
  args.Set("PodName", Value::String(pod.metadata.name));
  args.Set("PodNamespace", Value::String(pod.metadata.namespace_));
  args.Set("PodUID", Value::String(pod.metadata.uid));
  args.Set("Node", Value::String(node));
  return api::json::ToJson(args);
}

Result<ExtenderArgs> DecodeExtenderArgs(std::string_view body) {
  auto v = ParseObject(body, "ExtenderArgs");
  if (!v.ok()) return Error{v.error()};
  ExtenderArgs out;
  if (const Value* pod = FindFold(*v, "Pod"); pod != nullptr && !pod->IsNull()) {
    if (!pod->IsObject()) return Want("Pod", "an object", *pod);
    out.pod = *pod;
  }
  auto names = StringArray(FindFold(*v, "NodeNames"), "NodeNames");
  if (!names.ok()) return Error{names.error()};
  auto items = NodeItems(FindFold(*v, "Nodes"), "Nodes");
  if (!items.ok()) return Error{items.error()};
  if (*names) {
    out.node_names = std::move(**names);
  } else if (*items) {
    for (const Value& item : **items) out.node_names.push_back(ItemName(item));
    out.node_items = std::move(**items);
  }
  return out;
}

std::string EncodeFilterAnswer(const FilterAnswer& a) {
  Value r = Value::MakeObject();
  if (a.passed_items) {
    r.Set("Nodes", NodeList(*a.passed_items));
    r.Set("NodeNames", Value());
  } else {
    r.Set("Nodes", Value());
    r.Set("NodeNames", NamesValue(a.passed));
  }
  r.Set("FailedNodes", MapValue(a.failed));
  r.Set("FailedAndUnresolvableNodes", MapValue(a.failed_and_unresolvable));
  r.Set("Error", Value::String(a.error));
  return api::json::ToJson(r);
}

std::string EncodeHostPriorityList(const std::vector<HostPriority>& list) {
  Value arr = Value::MakeArray();
  for (const auto& hp : list) {
    Value o = Value::MakeObject();
    o.Set("Host", Value::String(hp.host));
    o.Set("Score", Value::Int(hp.score));
    arr.Push(std::move(o));
  }
  return api::json::ToJson(arr);
}

}  // namespace berth::extenders
