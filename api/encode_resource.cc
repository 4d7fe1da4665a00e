#include "api/encode_resource.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/decode.h"

namespace berth::api {
namespace {

Value Str(const std::string& s) { return Value::String(s); }

// metav1.Time's JSON form: RFC 3339, whole seconds, UTC.
Value TimeValue(Time t) {
  int64_t micros = t.unix_micros % 1000000;
  if (micros < 0) micros += 1000000;
  std::string text = FormatTime(Time{t.unix_micros - micros});  // "...:05.000000Z"
  const size_t dot = text.find('.');
  if (dot != std::string::npos) text = text.substr(0, dot) + "Z";
  return Str(text);
}

void SetIfNotEmpty(Value& obj, const char* key, const std::string& s) {
  if (!s.empty()) obj.Set(key, Str(s));
}

void SetStrings(Value& obj, const char* key, const std::vector<std::string>& list) {
  if (list.empty()) return;
  Value arr = Value::MakeArray();
  for (const auto& s : list) arr.Push(Str(s));
  obj.Set(key, std::move(arr));
}

void SetQuantities(Value& obj, const char* key, const std::map<std::string, Quantity>& m) {
  if (m.empty()) return;
  Value out = Value::MakeObject();
  for (const auto& [name, q] : m) out.Set(name, Str(q.ToString()));
  obj.Set(key, std::move(out));
}

Value Requirements(const std::vector<NodeSelectorRequirement>& reqs) {
  static constexpr const char* kOps[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
  Value arr = Value::MakeArray();
  for (const auto& r : reqs) {
    Value req = Value::MakeObject();
    req.Set("key", Str(r.key));
    req.Set("operator", Str(kOps[static_cast<int>(r.op)]));
    SetStrings(req, "values", r.values);
    arr.Push(std::move(req));
  }
  return arr;
}

Value Toleration(const DeviceToleration& t) {
  Value out = Value::MakeObject();
  SetIfNotEmpty(out, "key", t.key);
  SetIfNotEmpty(out, "operator", t.operator_);
  SetIfNotEmpty(out, "value", t.value);
  SetIfNotEmpty(out, "effect", t.effect);
  if (t.toleration_seconds) out.Set("tolerationSeconds", Value::Int(*t.toleration_seconds));
  return out;
}

Value Result(const DeviceRequestAllocationResult& r) {
  Value out = Value::MakeObject();
  out.Set("request", Str(r.request));
  out.Set("driver", Str(r.driver));
  out.Set("pool", Str(r.pool));
  out.Set("device", Str(r.device));
  if (r.admin_access) out.Set("adminAccess", Value::Bool(*r.admin_access));
  if (!r.tolerations.empty()) {
    Value arr = Value::MakeArray();
    for (const auto& t : r.tolerations) arr.Push(Toleration(t));
    out.Set("tolerations", std::move(arr));
  }
  SetStrings(out, "bindingConditions", r.binding_conditions);
  SetStrings(out, "bindingFailureConditions", r.binding_failure_conditions);
  if (r.share_id) out.Set("shareID", Str(*r.share_id));
  SetQuantities(out, "consumedCapacity", r.consumed_capacity);
  SetStrings(out, "skipNodeOperations", r.skip_node_operations);
  return out;
}

Value Config(const DeviceAllocationConfiguration& c) {
  Value out = Value::MakeObject();
  out.Set("source", Str(c.source));
  SetStrings(out, "requests", c.requests);
  if (c.opaque) {
    Value opaque = Value::MakeObject();
    opaque.Set("driver", Str(c.opaque->driver));
    opaque.Set("parameters", c.opaque->parameters);
    out.Set("opaque", std::move(opaque));
  }
  return out;
}

Value Consumer(const ResourceClaimConsumerReference& c) {
  Value out = Value::MakeObject();
  SetIfNotEmpty(out, "apiGroup", c.api_group);
  out.Set("resource", Str(c.resource));
  out.Set("name", Str(c.name));
  out.Set("uid", Str(c.uid));
  return out;
}

Value DeviceStatus(const AllocatedDeviceStatus& d) {
  if (!d.raw.IsNull()) return d.raw;
  Value out = Value::MakeObject();
  out.Set("driver", Str(d.driver));
  out.Set("pool", Str(d.pool));
  out.Set("device", Str(d.device));
  if (d.share_id) out.Set("shareID", Str(*d.share_id));
  if (!d.conditions.empty()) {
    Value arr = Value::MakeArray();
    for (const auto& c : d.conditions) {
      Value cond = Value::MakeObject();
      cond.Set("type", Str(c.type));
      cond.Set("status", Str(c.status));
      if (c.observed_generation != 0) {
        cond.Set("observedGeneration", Value::Int(c.observed_generation));
      }
      if (c.last_transition_time)
        cond.Set("lastTransitionTime", TimeValue(*c.last_transition_time));
      cond.Set("reason", Str(c.reason));
      cond.Set("message", Str(c.message));
      arr.Push(std::move(cond));
    }
    out.Set("conditions", std::move(arr));
  }
  return out;
}

}  // namespace

Value EncodeNodeSelector(const NodeSelector& selector) {
  Value terms = Value::MakeArray();
  for (const auto& term : selector.terms) {
    Value t = Value::MakeObject();
    if (!term.match_expressions.empty()) {
      t.Set("matchExpressions", Requirements(term.match_expressions));
    }
    if (!term.match_fields.empty()) t.Set("matchFields", Requirements(term.match_fields));
    terms.Push(std::move(t));
  }
  Value out = Value::MakeObject();
  out.Set("nodeSelectorTerms", std::move(terms));
  return out;
}

Value EncodeAllocationResult(const AllocationResult& allocation) {
  Value devices = Value::MakeObject();
  if (!allocation.devices.results.empty()) {
    Value arr = Value::MakeArray();
    for (const auto& r : allocation.devices.results) arr.Push(Result(r));
    devices.Set("results", std::move(arr));
  }
  if (!allocation.devices.config.empty()) {
    Value arr = Value::MakeArray();
    for (const auto& c : allocation.devices.config) arr.Push(Config(c));
    devices.Set("config", std::move(arr));
  }
  Value out = Value::MakeObject();
  out.Set("devices", std::move(devices));
  if (allocation.node_selector) {
    out.Set("nodeSelector", EncodeNodeSelector(*allocation.node_selector));
  }
  if (allocation.allocation_timestamp) {
    out.Set("allocationTimestamp", TimeValue(*allocation.allocation_timestamp));
  }
  return out;
}

Value EncodeResourceClaimStatus(const ResourceClaimStatus& status) {
  Value out = Value::MakeObject();
  if (status.allocation) out.Set("allocation", EncodeAllocationResult(*status.allocation));
  if (!status.reserved_for.empty()) {
    Value arr = Value::MakeArray();
    for (const auto& c : status.reserved_for) arr.Push(Consumer(c));
    out.Set("reservedFor", std::move(arr));
  }
  if (!status.devices.empty()) {
    Value arr = Value::MakeArray();
    for (const auto& d : status.devices) arr.Push(DeviceStatus(d));
    out.Set("devices", std::move(arr));
  }
  return out;
}

Value EncodeResourceClaimStatusUpdate(const ResourceClaim& claim) {
  Value meta = Value::MakeObject();
  meta.Set("name", Str(claim.metadata.name));
  meta.Set("namespace", Str(claim.metadata.namespace_));
  SetIfNotEmpty(meta, "uid", claim.metadata.uid);
  SetIfNotEmpty(meta, "resourceVersion", claim.metadata.resource_version);
  Value out = Value::MakeObject();
  out.Set("apiVersion", Str("resource.k8s.io/v1"));
  out.Set("kind", Str("ResourceClaim"));
  out.Set("metadata", std::move(meta));
  out.Set("status", EncodeResourceClaimStatus(claim.status));
  return out;
}

}  // namespace berth::api

namespace berth::api {

Value EncodeResourceClaimForCreate(const ResourceClaim& claim) {
  Value meta = Value::MakeObject();
  SetIfNotEmpty(meta, "name", claim.metadata.name);
  SetIfNotEmpty(meta, "generateName", claim.metadata.generate_name);
  meta.Set("namespace", Str(claim.metadata.namespace_));
  auto set_map = [&](const char* key, const Labels& m) {
    if (m.empty()) return;
    Value obj = Value::MakeObject();
    for (const auto& [k, v] : m) obj.Set(k, Str(v));
    meta.Set(key, std::move(obj));
  };
  set_map("labels", claim.metadata.labels);
  set_map("annotations", claim.metadata.annotations);
  if (!claim.metadata.owner_references.empty()) {
    Value refs = Value::MakeArray();
    for (const auto& r : claim.metadata.owner_references) {
      Value ref = Value::MakeObject();
      ref.Set("apiVersion", Str(r.api_version));
      ref.Set("kind", Str(r.kind));
      ref.Set("name", Str(r.name));
      ref.Set("uid", Str(r.uid));
      if (r.controller) ref.Set("controller", Value::Bool(true));
      refs.Push(std::move(ref));
    }
    meta.Set("ownerReferences", std::move(refs));
  }
  SetStrings(meta, "finalizers", claim.finalizers);
  Value requests = Value::MakeArray();
  for (const auto& r : claim.spec.devices.requests) {
    Value req = Value::MakeObject();
    req.Set("name", Str(r.name));
    if (r.exactly) {
      Value exactly = Value::MakeObject();
      exactly.Set("deviceClassName", Str(r.exactly->device_class_name));
      exactly.Set("allocationMode", Str(r.exactly->allocation_mode));
      if (r.exactly->allocation_mode == kDeviceAllocationModeExactCount) {
        exactly.Set("count", Value::Int(r.exactly->count));
      }
      req.Set("exactly", std::move(exactly));
    }
    requests.Push(std::move(req));
  }
  Value devices = Value::MakeObject();
  if (!claim.spec.devices.requests.empty()) devices.Set("requests", std::move(requests));
  Value spec = Value::MakeObject();
  spec.Set("devices", std::move(devices));
  Value out = Value::MakeObject();
  out.Set("apiVersion", Str("resource.k8s.io/v1"));
  out.Set("kind", Str("ResourceClaim"));
  out.Set("metadata", std::move(meta));
  out.Set("spec", std::move(spec));
  return out;
}

}  // namespace berth::api
