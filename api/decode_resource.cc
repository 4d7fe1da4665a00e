// resource.k8s.io/v1 decoding: DeviceClass, ResourceSlice, DeviceTaintRule, ResourceClaim,
// ResourceClaimTemplate.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/decode.h"
#include "api/decode_internal.h"

namespace berth::api {
namespace {

// A string the API server requires: absent or empty is `<path>: <key> is required`.
Ok RequiredString(const Reader& in, std::string_view key, std::string* out) {
  BERTH_RETURN_IF_ERROR(in.String(key, out));
  if (out->empty()) return RequiredError(in.PathOf(key));
  return Ok();
}

Ok OptQuantity(const Reader& in, std::string_view key, std::optional<Quantity>* out) {
  const Value* v = in.Get(key);
  if (v == nullptr) return Ok();
  BERTH_ASSIGN_OR_RETURN(Quantity q, DecodeQuantity(*v, in.PathOf(key)));
  *out = q;
  return Ok();
}

Ok RequiredQuantity(const Reader& in, std::string_view key, Quantity* out) {
  const Value* v = in.Get(key);
  if (v == nullptr) return RequiredError(in.PathOf(key));
  BERTH_ASSIGN_OR_RETURN(*out, DecodeQuantity(*v, in.PathOf(key)));
  return Ok();
}

// A map of objects keyed by name (attributes, capacity, counters): each value is read by
// `decode(const Reader&, T*) -> Ok`. Paths read `<path>.<name>`.
template <typename T, typename F>
Ok ObjectMap(const Reader& in, std::string_view key, std::map<std::string, T>* out, F decode) {
  const Value* v = in.Get(key);
  if (v == nullptr) return Ok();
  const std::string path = in.PathOf(key);
  if (!v->IsObject()) return TypeError(path, "object", *v);
  out->clear();
  for (const auto& [name, item] : v->AsObject()) {
    std::string item_path = JoinPath(path, name);
    if (name.empty()) return PathError(item_path, "name must not be empty");
    if (!item.IsObject()) return TypeError(item_path, "object", item);
    BERTH_ASSIGN_OR_RETURN(Reader reader, Reader::Of(&item, std::move(item_path), in.mode()));
    T decoded{};
    BERTH_RETURN_IF_ERROR(decode(reader, &decoded));
    BERTH_RETURN_IF_ERROR(reader.Done());
    (*out)[name] = std::move(decoded);
  }
  return Ok();
}

// An optional array of scalars read by `item(const Value&, const std::string& path) -> Result<T>`.
template <typename T, typename F>
Ok OptScalars(const Reader& in, std::string_view key, std::string_view what,
              std::optional<std::vector<T>>* out, F item) {
  const Value* v = in.Get(key);
  if (v == nullptr) return Ok();
  const std::string path = in.PathOf(key);
  if (!v->IsArray()) return TypeError(path, what, *v);
  std::vector<T> values;
  for (size_t i = 0; i < v->AsArray().size(); ++i) {
    BERTH_ASSIGN_OR_RETURN(T x, item(v->AsArray()[i], IndexPath(path, i)));
    values.push_back(std::move(x));
  }
  *out = std::move(values);
  return Ok();
}

Ok DecodeOptNodeSelector(const Reader& in, std::string_view key, std::optional<NodeSelector>* out) {
  return in.Object(key, [out](const Reader& r) -> Ok {
    NodeSelector selector;
    BERTH_RETURN_IF_ERROR(internal::DecodeNodeSelectorInto(r, &selector));
    *out = std::move(selector);
    return Ok();
  });
}

// A map of {value: <quantity>} (counters).
Ok CounterMap(const Reader& in, std::string_view key, std::map<std::string, Quantity>* out) {
  return ObjectMap(in, key, out, [](const Reader& r, Quantity* q) -> Ok {
    return RequiredQuantity(r, "value", q);
  });
}

// ---- shared pieces ----

Ok DecodeDeviceSelector(const Reader& in, DeviceSelector* out) {
  return in.Object("cel", [out](const Reader& cel) -> Ok {
    std::string expression;
    BERTH_RETURN_IF_ERROR(RequiredString(cel, "expression", &expression));
    out->cel_expression = std::move(expression);
    return Ok();
  });
}

Ok DecodeOpaque(const Reader& in, std::optional<OpaqueDeviceConfiguration>* out) {
  return in.Object("opaque", [out](const Reader& r) -> Ok {
    OpaqueDeviceConfiguration opaque;
    BERTH_RETURN_IF_ERROR(RequiredString(r, "driver", &opaque.driver));
    if (const Value* p = r.Get("parameters")) opaque.parameters = *p;
    *out = std::move(opaque);
    return Ok();
  });
}

Ok DecodeClassConfig(const Reader& in, DeviceClassConfiguration* out) {
  return DecodeOpaque(in, &out->opaque);
}

Ok DecodeClaimConfig(const Reader& in, DeviceClaimConfiguration* out) {
  BERTH_RETURN_IF_ERROR(in.Strings("requests", &out->requests));
  return DecodeOpaque(in, &out->opaque);
}

Ok DecodeAllocationConfig(const Reader& in, DeviceAllocationConfiguration* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "source", &out->source));
  BERTH_RETURN_IF_ERROR(in.Strings("requests", &out->requests));
  return DecodeOpaque(in, &out->opaque);
}

Ok DecodeToleration(const Reader& in, DeviceToleration* out) {
  BERTH_RETURN_IF_ERROR(in.String("key", &out->key));
  BERTH_RETURN_IF_ERROR(in.String("operator", &out->operator_));
  if (out->operator_.empty()) out->operator_ = "Equal";  // the API server's default
  BERTH_RETURN_IF_ERROR(in.String("value", &out->value));
  BERTH_RETURN_IF_ERROR(in.String("effect", &out->effect));
  return in.OptInt64("tolerationSeconds", &out->toleration_seconds);
}

Ok DecodeOptCapacityRequirements(const Reader& in, std::optional<CapacityRequirements>* out) {
  return in.Object("capacity", [out](const Reader& r) -> Ok {
    CapacityRequirements capacity;
    BERTH_RETURN_IF_ERROR(r.Resources("requests", &capacity.requests));
    *out = std::move(capacity);
    return Ok();
  });
}

Ok DecodeDerivedAttribute(const Reader& in, DeviceDerivedAttribute* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "name", &out->name));
  return RequiredString(in, "expression", &out->expression);
}

// allocationMode and count with the API server's defaults: ExactCount, and count 1 in that mode.
Ok DecodeAllocationMode(const Reader& in, std::string* mode, int64_t* count) {
  BERTH_RETURN_IF_ERROR(in.String("allocationMode", mode));
  if (mode->empty()) *mode = kDeviceAllocationModeExactCount;
  std::optional<int64_t> given;
  BERTH_RETURN_IF_ERROR(in.OptInt64("count", &given));
  if (given.has_value() && *given < 0) {
    return PathError(in.PathOf("count"), "must be greater than zero");
  }
  // 0 is Go's "not specified" (omitempty): defaulted like an absent count.
  *count = given.value_or(0);
  if (*count == 0 && *mode == kDeviceAllocationModeExactCount) *count = 1;
  return Ok();
}

// ---- DeviceClass ----

Ok DecodeDeviceClassInto(const Reader& root, DeviceClass* out) {
  BERTH_ASSIGN_OR_RETURN(Reader meta, root.Child("metadata"));
  BERTH_RETURN_IF_ERROR(internal::DecodeObjectMeta(meta, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(spec.List("selectors", &out->spec.selectors, DecodeDeviceSelector));
  BERTH_RETURN_IF_ERROR(spec.List("config", &out->spec.config, DecodeClassConfig));
  return spec.OptString("extendedResourceName", &out->spec.extended_resource_name);
}

// ---- ResourceSlice ----

Ok DecodeAttribute(const Reader& in, DeviceAttribute* out) {
  BERTH_RETURN_IF_ERROR(in.OptInt64("int", &out->int_value));
  BERTH_RETURN_IF_ERROR(in.OptBool("bool", &out->bool_value));
  BERTH_RETURN_IF_ERROR(in.OptString("string", &out->string_value));
  BERTH_RETURN_IF_ERROR(in.OptString("version", &out->version_value));
  const ReadMode mode = in.mode();
  DeviceAttributeLists lists;
  BERTH_RETURN_IF_ERROR(OptScalars(
      in, "ints", "array of integers", &lists.int_values,
      [mode](const Value& v, const std::string& path) { return ToInt64(v, path, mode); }));
  BERTH_RETURN_IF_ERROR(OptScalars(in, "bools", "array of booleans", &lists.bool_values,
                                   [](const Value& v, const std::string& path) -> Result<bool> {
                                     if (!v.IsBool()) return TypeError(path, "boolean", v);
                                     return v.AsBool();
                                   }));
  BERTH_RETURN_IF_ERROR(in.OptStrings("strings", &lists.string_values));
  BERTH_RETURN_IF_ERROR(in.OptStrings("versions", &lists.version_values));
  if (lists.int_values || lists.bool_values || lists.string_values || lists.version_values) {
    out->lists = std::make_shared<const DeviceAttributeLists>(std::move(lists));
  }
  return {};
}

Ok DecodeRequestPolicy(const Reader& in, CapacityRequestPolicy* out) {
  BERTH_RETURN_IF_ERROR(OptQuantity(in, "default", &out->default_value));
  const Value* valid = in.Get("validValues");
  if (valid != nullptr) {
    const std::string path = in.PathOf("validValues");
    if (!valid->IsArray()) return TypeError(path, "array of quantities", *valid);
    for (size_t i = 0; i < valid->AsArray().size(); ++i) {
      BERTH_ASSIGN_OR_RETURN(Quantity q, DecodeQuantity(valid->AsArray()[i], IndexPath(path, i)));
      out->valid_values.push_back(q);
    }
  }
  return in.Object("validRange", [out](const Reader& r) -> Ok {
    CapacityRequestPolicyRange range;
    BERTH_RETURN_IF_ERROR(OptQuantity(r, "min", &range.min));
    BERTH_RETURN_IF_ERROR(OptQuantity(r, "max", &range.max));
    BERTH_RETURN_IF_ERROR(OptQuantity(r, "step", &range.step));
    out->valid_range = std::move(range);
    return Ok();
  });
}

Ok DecodeCapacity(const Reader& in, DeviceCapacity* out) {
  BERTH_RETURN_IF_ERROR(RequiredQuantity(in, "value", &out->value));
  return in.Object("requestPolicy", [out](const Reader& r) -> Ok {
    CapacityRequestPolicy policy;
    BERTH_RETURN_IF_ERROR(DecodeRequestPolicy(r, &policy));
    out->request_policy = std::move(policy);
    return Ok();
  });
}

Ok DecodeCounterConsumption(const Reader& in, DeviceCounterConsumption* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "counterSet", &out->counter_set));
  BERTH_RETURN_IF_ERROR(CounterMap(in, "counters", &out->counters));
  return in.Strings("compatibilityGroups", &out->compatibility_groups);
}

Ok DecodeDeviceTaint(const Reader& in, DeviceTaint* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "key", &out->key));
  BERTH_RETURN_IF_ERROR(in.String("value", &out->value));
  BERTH_RETURN_IF_ERROR(RequiredString(in, "effect", &out->effect));
  return in.Timestamp("timeAdded", &out->time_added);
}

Ok DecodeNodeAllocatableResource(const Reader& in, NodeAllocatableResource* out) {
  BERTH_RETURN_IF_ERROR(in.Object("mapping", [out](const Reader& r) -> Ok {
    NodeAllocatableMapping mapping;
    BERTH_RETURN_IF_ERROR(r.OptString("capacityKey", &mapping.capacity_key));
    BERTH_RETURN_IF_ERROR(OptQuantity(r, "capacityMultiplier", &mapping.capacity_multiplier));
    BERTH_RETURN_IF_ERROR(OptQuantity(r, "deviceMultiplier", &mapping.device_multiplier));
    out->mapping = std::move(mapping);
    return Ok();
  }));
  return in.Object("overhead", [out](const Reader& r) -> Ok {
    NodeAllocatableOverhead overhead;
    BERTH_RETURN_IF_ERROR(OptQuantity(r, "perPod", &overhead.per_pod));
    BERTH_RETURN_IF_ERROR(OptQuantity(r, "perContainer", &overhead.per_container));
    out->overhead = std::move(overhead);
    return Ok();
  });
}

Ok DecodeDevice(const Reader& in, Device* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "name", &out->name));
  BERTH_RETURN_IF_ERROR(ObjectMap(in, "attributes", &out->attributes, DecodeAttribute));
  BERTH_RETURN_IF_ERROR(ObjectMap(in, "capacity", &out->capacity, DecodeCapacity));
  BERTH_RETURN_IF_ERROR(
      in.List("consumesCounters", &out->consumes_counters, DecodeCounterConsumption));
  BERTH_RETURN_IF_ERROR(in.OptString("nodeName", &out->node_name));
  BERTH_RETURN_IF_ERROR(DecodeOptNodeSelector(in, "nodeSelector", &out->node_selector));
  BERTH_RETURN_IF_ERROR(in.OptBool("allNodes", &out->all_nodes));
  BERTH_RETURN_IF_ERROR(in.List("taints", &out->taints, DecodeDeviceTaint));
  BERTH_RETURN_IF_ERROR(in.OptBool("bindsToNode", &out->binds_to_node));
  BERTH_RETURN_IF_ERROR(in.Strings("bindingConditions", &out->binding_conditions));
  BERTH_RETURN_IF_ERROR(in.Strings("bindingFailureConditions", &out->binding_failure_conditions));
  BERTH_RETURN_IF_ERROR(in.OptBool("allowMultipleAllocations", &out->allow_multiple_allocations));
  return ObjectMap(in, "nodeAllocatableResources", &out->node_allocatable_resources,
                   DecodeNodeAllocatableResource);
}

Ok DecodeCounterSet(const Reader& in, CounterSet* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "name", &out->name));
  return CounterMap(in, "counters", &out->counters);
}

Ok DecodeResourceSliceInto(const Reader& root, ResourceSlice* out) {
  BERTH_ASSIGN_OR_RETURN(Reader meta, root.Child("metadata"));
  BERTH_RETURN_IF_ERROR(internal::DecodeObjectMeta(meta, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  ResourceSliceSpec& s = out->spec;
  BERTH_RETURN_IF_ERROR(RequiredString(spec, "driver", &s.driver));
  BERTH_ASSIGN_OR_RETURN(Reader pool, spec.Child("pool"));
  if (!pool.present()) return RequiredError(spec.PathOf("pool"));
  BERTH_RETURN_IF_ERROR(RequiredString(pool, "name", &s.pool.name));
  BERTH_RETURN_IF_ERROR(pool.Int64("generation", &s.pool.generation));
  BERTH_RETURN_IF_ERROR(pool.Int64("resourceSliceCount", &s.pool.resource_slice_count));
  BERTH_RETURN_IF_ERROR(pool.Done());
  BERTH_RETURN_IF_ERROR(spec.OptString("nodeName", &s.node_name));
  BERTH_RETURN_IF_ERROR(DecodeOptNodeSelector(spec, "nodeSelector", &s.node_selector));
  BERTH_RETURN_IF_ERROR(spec.OptBool("allNodes", &s.all_nodes));
  BERTH_RETURN_IF_ERROR(spec.OptBool("perDeviceNodeSelection", &s.per_device_node_selection));
  BERTH_RETURN_IF_ERROR(spec.List("devices", &s.devices, DecodeDevice));
  BERTH_RETURN_IF_ERROR(spec.List("sharedCounters", &s.shared_counters, DecodeCounterSet));
  BERTH_RETURN_IF_ERROR(spec.OptString("partitionTypeAttribute", &s.partition_type_attribute));
  return spec.Strings("skipNodeOperations", &s.skip_node_operations);
}

// ---- DeviceTaintRule ----

Ok DecodeDeviceTaintRuleInto(const Reader& root, DeviceTaintRule* out) {
  BERTH_ASSIGN_OR_RETURN(Reader meta, root.Child("metadata"));
  BERTH_RETURN_IF_ERROR(internal::DecodeObjectMeta(meta, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(spec.Object("deviceSelector", [out](const Reader& r) -> Ok {
    DeviceTaintSelector selector;
    BERTH_RETURN_IF_ERROR(r.OptString("driver", &selector.driver));
    BERTH_RETURN_IF_ERROR(r.OptString("pool", &selector.pool));
    BERTH_RETURN_IF_ERROR(r.OptString("device", &selector.device));
    out->spec.device_selector = std::move(selector);
    return Ok();
  }));
  BERTH_ASSIGN_OR_RETURN(Reader taint, spec.Child("taint"));
  if (!taint.present()) return RequiredError(spec.PathOf("taint"));
  BERTH_RETURN_IF_ERROR(DecodeDeviceTaint(taint, &out->spec.taint));
  return taint.Done();
}

// ---- ResourceClaim ----

Ok DecodeExactRequest(const Reader& in, ExactDeviceRequest* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "deviceClassName", &out->device_class_name));
  BERTH_RETURN_IF_ERROR(in.List("selectors", &out->selectors, DecodeDeviceSelector));
  BERTH_RETURN_IF_ERROR(DecodeAllocationMode(in, &out->allocation_mode, &out->count));
  BERTH_RETURN_IF_ERROR(in.OptBool("adminAccess", &out->admin_access));
  BERTH_RETURN_IF_ERROR(in.List("tolerations", &out->tolerations, DecodeToleration));
  BERTH_RETURN_IF_ERROR(DecodeOptCapacityRequirements(in, &out->capacity));
  return in.List("derivedAttributes", &out->derived_attributes, DecodeDerivedAttribute);
}

Ok DecodeSubRequest(const Reader& in, DeviceSubRequest* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "name", &out->name));
  BERTH_RETURN_IF_ERROR(RequiredString(in, "deviceClassName", &out->device_class_name));
  BERTH_RETURN_IF_ERROR(in.List("selectors", &out->selectors, DecodeDeviceSelector));
  BERTH_RETURN_IF_ERROR(DecodeAllocationMode(in, &out->allocation_mode, &out->count));
  BERTH_RETURN_IF_ERROR(in.List("tolerations", &out->tolerations, DecodeToleration));
  BERTH_RETURN_IF_ERROR(DecodeOptCapacityRequirements(in, &out->capacity));
  return in.List("derivedAttributes", &out->derived_attributes, DecodeDerivedAttribute);
}

Ok DecodeRequest(const Reader& in, DeviceRequest* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "name", &out->name));
  BERTH_RETURN_IF_ERROR(in.Object("exactly", [out](const Reader& r) -> Ok {
    ExactDeviceRequest exactly;
    BERTH_RETURN_IF_ERROR(DecodeExactRequest(r, &exactly));
    out->exactly = std::move(exactly);
    return Ok();
  }));
  return in.List("firstAvailable", &out->first_available, DecodeSubRequest);
}

Ok DecodeConstraint(const Reader& in, DeviceConstraint* out) {
  BERTH_RETURN_IF_ERROR(in.Strings("requests", &out->requests));
  BERTH_RETURN_IF_ERROR(in.OptString("matchAttribute", &out->match_attribute));
  return in.OptString("distinctAttribute", &out->distinct_attribute);
}

Ok DecodeClaimSpec(const Reader& spec, ResourceClaimSpec* out) {
  return spec.Object("devices", [out](const Reader& devices) -> Ok {
    DeviceClaim& d = out->devices;
    BERTH_RETURN_IF_ERROR(devices.List("requests", &d.requests, DecodeRequest));
    BERTH_RETURN_IF_ERROR(devices.List("constraints", &d.constraints, DecodeConstraint));
    return devices.List("config", &d.config, DecodeClaimConfig);
  });
}

Ok DecodeAllocationResult(const Reader& in, DeviceRequestAllocationResult* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "request", &out->request));
  BERTH_RETURN_IF_ERROR(RequiredString(in, "driver", &out->driver));
  BERTH_RETURN_IF_ERROR(RequiredString(in, "pool", &out->pool));
  BERTH_RETURN_IF_ERROR(RequiredString(in, "device", &out->device));
  BERTH_RETURN_IF_ERROR(in.OptBool("adminAccess", &out->admin_access));
  BERTH_RETURN_IF_ERROR(in.List("tolerations", &out->tolerations, DecodeToleration));
  BERTH_RETURN_IF_ERROR(in.Strings("bindingConditions", &out->binding_conditions));
  BERTH_RETURN_IF_ERROR(in.Strings("bindingFailureConditions", &out->binding_failure_conditions));
  BERTH_RETURN_IF_ERROR(in.OptString("shareID", &out->share_id));
  BERTH_RETURN_IF_ERROR(in.Resources("consumedCapacity", &out->consumed_capacity));
  return in.Strings("skipNodeOperations", &out->skip_node_operations);
}

Ok DecodeAllocation(const Reader& in, AllocationResult* out) {
  BERTH_RETURN_IF_ERROR(in.Object("devices", [out](const Reader& devices) -> Ok {
    BERTH_RETURN_IF_ERROR(devices.List("results", &out->devices.results, DecodeAllocationResult));
    return devices.List("config", &out->devices.config, DecodeAllocationConfig);
  }));
  BERTH_RETURN_IF_ERROR(DecodeOptNodeSelector(in, "nodeSelector", &out->node_selector));
  return in.Timestamp("allocationTimestamp", &out->allocation_timestamp);
}

Ok DecodeConsumer(const Reader& in, ResourceClaimConsumerReference* out) {
  BERTH_RETURN_IF_ERROR(in.String("apiGroup", &out->api_group));
  BERTH_RETURN_IF_ERROR(RequiredString(in, "resource", &out->resource));
  BERTH_RETURN_IF_ERROR(RequiredString(in, "name", &out->name));
  return RequiredString(in, "uid", &out->uid);
}

Ok DecodeDeviceCondition(const Reader& in, DeviceCondition* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "type", &out->type));
  BERTH_RETURN_IF_ERROR(in.String("status", &out->status));
  BERTH_RETURN_IF_ERROR(in.String("reason", &out->reason));
  BERTH_RETURN_IF_ERROR(in.String("message", &out->message));
  BERTH_RETURN_IF_ERROR(in.Int64("observedGeneration", &out->observed_generation));
  return in.Timestamp("lastTransitionTime", &out->last_transition_time);
}

Ok DecodeDeviceStatus(const Reader& in, AllocatedDeviceStatus* out) {
  BERTH_RETURN_IF_ERROR(RequiredString(in, "driver", &out->driver));
  BERTH_RETURN_IF_ERROR(RequiredString(in, "pool", &out->pool));
  BERTH_RETURN_IF_ERROR(RequiredString(in, "device", &out->device));
  BERTH_RETURN_IF_ERROR(in.OptString("shareID", &out->share_id));
  BERTH_RETURN_IF_ERROR(in.List("conditions", &out->conditions, DecodeDeviceCondition));
  return Ok();
}

Ok DecodeResourceClaimInto(const Reader& root, ResourceClaim* out) {
  BERTH_ASSIGN_OR_RETURN(Reader meta, root.Child("metadata"));
  BERTH_RETURN_IF_ERROR(internal::DecodeObjectMeta(meta, &out->metadata));
  BERTH_RETURN_IF_ERROR(meta.Strings("finalizers", &out->finalizers));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_RETURN_IF_ERROR(DecodeClaimSpec(spec, &out->spec));
  BERTH_ASSIGN_OR_RETURN(Reader status, root.Child("status"));
  BERTH_RETURN_IF_ERROR(status.Object("allocation", [out](const Reader& r) -> Ok {
    AllocationResult allocation;
    BERTH_RETURN_IF_ERROR(DecodeAllocation(r, &allocation));
    out->status.allocation = std::move(allocation);
    return Ok();
  }));
  BERTH_RETURN_IF_ERROR(status.List("reservedFor", &out->status.reserved_for, DecodeConsumer));
  BERTH_RETURN_IF_ERROR(status.List("devices", &out->status.devices, DecodeDeviceStatus));
  // Each device status is also kept whole, to be written back unchanged.
  if (const Value* devices = status.Get("devices"); devices != nullptr) {
    for (size_t i = 0; i < out->status.devices.size(); ++i) {
      out->status.devices[i].raw = devices->AsArray()[i];
    }
  }
  return Ok();
}

// ---- ResourceClaimTemplate ----

Ok DecodeResourceClaimTemplateInto(const Reader& root, ResourceClaimTemplate* out) {
  BERTH_ASSIGN_OR_RETURN(Reader meta, root.Child("metadata"));
  BERTH_RETURN_IF_ERROR(internal::DecodeObjectMeta(meta, &out->metadata));
  BERTH_ASSIGN_OR_RETURN(Reader spec, root.Child("spec"));
  BERTH_ASSIGN_OR_RETURN(Reader claim_meta, spec.Child("metadata"));
  BERTH_RETURN_IF_ERROR(internal::DecodeObjectMeta(claim_meta, &out->spec.metadata));
  BERTH_ASSIGN_OR_RETURN(Reader claim_spec, spec.Child("spec"));
  return DecodeClaimSpec(claim_spec, &out->spec.spec);
}

}  // namespace

Result<DeviceClass> DecodeDeviceClass(const Value& v) {
  return internal::DecodeRoot<DeviceClass>(v, DecodeDeviceClassInto);
}

Result<ResourceSlice> DecodeResourceSlice(const Value& v) {
  return internal::DecodeRoot<ResourceSlice>(v, DecodeResourceSliceInto);
}

Result<DeviceTaintRule> DecodeDeviceTaintRule(const Value& v) {
  return internal::DecodeRoot<DeviceTaintRule>(v, DecodeDeviceTaintRuleInto);
}

Result<ResourceClaim> DecodeResourceClaim(const Value& v) {
  return internal::DecodeRoot<ResourceClaim>(v, DecodeResourceClaimInto);
}

Result<ResourceClaimTemplate> DecodeResourceClaimTemplate(const Value& v) {
  return internal::DecodeRoot<ResourceClaimTemplate>(v, DecodeResourceClaimTemplateInto);
}

}  // namespace berth::api
