#include "plugins/dynamic_resources/structured/search.h"

#include <algorithm>
#include <climits>

#include "api/store.h"

namespace berth::plugins::dynamic_resources::structured {
namespace {

Error Invalid(std::string message) { return Error{std::move(message), ErrorCode::kInvalid}; }

// "namespace/name", as upstream's klog.KObj prints a claim.
std::string ClaimKey(const api::ResourceClaim& claim) {
  return api::Store<api::ResourceClaim>::KeyOf(claim);
}

// Upstream's lookupAttribute: the attribute by its fully qualified name, or, when the domain is
// the device's driver, by its bare id.
const api::DeviceAttribute* LookupAttribute(const api::Device& device, const DeviceId& id,
                                            const std::string& name) {
  if (auto it = device.attributes.find(name); it != device.attributes.end()) return &it->second;
  const size_t slash = name.find('/');
  if (slash == std::string::npos || name.compare(0, slash, id.driver) != 0) return nullptr;
  if (auto it = device.attributes.find(name.substr(slash + 1)); it != device.attributes.end()) {
    return &it->second;
  }
  return nullptr;
}

// Same type and value. Only the scalar kinds compare; a list-typed attribute (alpha, off) never
// matches.
enum class Compare { kEqual, kDifferent, kUnknownType };
Compare CompareAttributes(const api::DeviceAttribute& a, const api::DeviceAttribute& b) {
  if (a.string_value)
    return b.string_value == a.string_value ? Compare::kEqual : Compare::kDifferent;
  if (a.int_value) return b.int_value == a.int_value ? Compare::kEqual : Compare::kDifferent;
  if (a.bool_value) return b.bool_value == a.bool_value ? Compare::kEqual : Compare::kDifferent;
  if (a.version_value) {
    return b.version_value == a.version_value ? Compare::kEqual : Compare::kDifferent;
  }
  return Compare::kUnknownType;
}

// resourceclaim.ToleratesTaint.
bool Tolerates(const api::DeviceToleration& t, const api::DeviceTaint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.operator_.empty() || t.operator_ == "Equal") return t.value == taint.value;
  return t.operator_ == "Exists";
}

bool TaintPreventsAllocation(const api::Device& device, const RequestView& request) {
  for (const auto& taint : device.taints) {
    if (taint.effect != api::kDeviceTaintEffectNoSchedule &&
        taint.effect != api::kDeviceTaintEffectNoExecute) {
      continue;
    }
    const bool tolerated = std::any_of(request.tolerations->begin(), request.tolerations->end(),
                                       [&](const auto& t) { return Tolerates(t, taint); });
    if (!tolerated) return true;
  }
  return false;
}

}  // namespace

RequestView RequestView::Exact(const api::DeviceRequest& request) {
  static const std::string kEmpty;
  static const std::vector<api::DeviceSelector> kNoSelectors;
  static const std::vector<api::DeviceToleration> kNoTolerations;
  RequestView v;
  v.name = &request.name;
  if (!request.exactly) {
    // Neither exactly nor firstAvailable: a request kind this version does not know.
    v.device_class_name = &kEmpty;
    v.selectors = &kNoSelectors;
    v.allocation_mode = &kEmpty;
    v.tolerations = &kNoTolerations;
    return v;
  }
  const auto& e = *request.exactly;
  v.device_class_name = &e.device_class_name;
  v.selectors = &e.selectors;
  v.allocation_mode = &e.allocation_mode;
  v.count = e.count;
  v.admin_access = e.admin_access.value_or(false);
  v.has_admin_access = e.admin_access.has_value();
  v.tolerations = &e.tolerations;
  v.capacity = e.capacity ? &*e.capacity : nullptr;
  v.has_derived_attributes = !e.derived_attributes.empty();
  return v;
}

RequestView RequestView::Sub(const api::DeviceSubRequest& sub) {
  RequestView v;
  v.name = &sub.name;
  v.device_class_name = &sub.device_class_name;
  v.selectors = &sub.selectors;
  v.allocation_mode = &sub.allocation_mode;
  v.count = sub.count;
  v.tolerations = &sub.tolerations;
  v.capacity = sub.capacity ? &*sub.capacity : nullptr;
  v.has_derived_attributes = !sub.derived_attributes.empty();
  return v;
}

bool Constraint::AppliesTo(const std::string& request, const std::string& sub) const {
  if (requests_.empty()) return true;
  if (requests_.contains(request)) return true;
  return !sub.empty() && requests_.contains(request + "/" + sub);
}

bool Constraint::Add(const std::string& request, const std::string& sub, const api::Device& device,
                     const DeviceId& id) {
  if (!AppliesTo(request, sub)) return true;
  const api::DeviceAttribute* attribute = LookupAttribute(device, id, attribute_);
  if (attribute == nullptr) return false;
  if (distinct_) {
    for (const auto* other : picked_) {
      const Compare c = CompareAttributes(*attribute, *other);
      // Upstream compares each picked value against the new one's type only.
      if (c == Compare::kEqual || c == Compare::kUnknownType) return false;
    }
  } else if (!picked_.empty()) {
    if (CompareAttributes(*attribute, *picked_.front()) != Compare::kEqual) return false;
  }
  picked_.push_back(attribute);
  return true;
}

void Constraint::Remove(const std::string& request, const std::string& sub) {
  if (!AppliesTo(request, sub)) return;
  picked_.pop_back();
}

Result<RequestData> Search::ValidateRequest(const RequestView& request,
                                            const std::optional<RequestView>& parent,
                                            RequestKey key) {
  const std::string claim = ClaimKey(*claims_[key.claim]);
  const std::string& name = *request.name;
  RequestData data;
  data.request = request;
  data.parent = parent;
  if (request.has_derived_attributes) {
    return Invalid("claim " + claim + ", request " + name +
                   ": cannot handle request with derived attributes, the feature is disabled");
  }
  for (size_t i = 0; i < request.selectors->size(); ++i) {
    if (!(*request.selectors)[i].cel_expression) {
      return Invalid("claim " + claim + ", request " + name + ", selector #" + std::to_string(i) +
                     ": CEL expression empty (unsupported selector type?)");
    }
  }
  if (!a_.features_.admin_access && request.has_admin_access) {
    return Invalid("claim " + claim + ", request " + name +
                   ": admin access is requested, but the feature is disabled");
  }
  if (request.device_class_name->empty()) {
    return Invalid("claim " + claim + ", request " + name +
                   ": missing device class name (unsupported request type?)");
  }
  data.device_class = a_.classes_(*request.device_class_name);
  if (data.device_class == nullptr) {
    return Invalid("claim " + claim + ", request " + name + ": could not retrieve device class " +
                   *request.device_class_name + ": deviceclass.resource.k8s.io \"" +
                   *request.device_class_name + "\" not found");
  }
  if (*request.allocation_mode == api::kDeviceAllocationModeExactCount) {
    if (request.count > INT_MAX) {
      return Invalid("claim " + claim + ", request " + name + ": exact count " +
                     std::to_string(request.count) + " is too large");
    }
    data.num_devices = static_cast<int>(request.count);
    return data;
  }
  if (*request.allocation_mode != api::kDeviceAllocationModeAll) {
    return Invalid("claim " + claim + ", request " + name + ": unsupported count mode " +
                   *request.allocation_mode);
  }
  for (const Pool& pool : pools_) {
    if (pool.incomplete) {
      return Invalid("claim " + claim + ", request " + name +
                     ": asks for all devices, but resource pool " + pool.id.String() +
                     " is currently being updated");
    }
    if (pool.invalid) {
      return Invalid("claim " + claim + ", request " + name +
                     ": asks for all devices, but resource pool " + pool.id.String() +
                     " is currently invalid");
    }
    for (const auto* slice : pool.slices_targeting_node) {
      for (size_t d = 0; d < slice->spec.devices.size(); ++d) {
        BERTH_ASSIGN_OR_RETURN(bool selectable, IsSelectable(key, data, *slice, d));
        if (!selectable) continue;
        const api::Device& device = slice->spec.devices[d];
        if (a_.features_.consumable_capacity) {
          // Only what the device has at all: a device whose capacity is taken by other shares
          // stays in the list, and then "all" cannot be allocated.
          auto fits = FitsCapacity(nullptr, request.capacity, device.capacity, nullptr,
                                   a_.features_.fractional_capacity_range);
          if (!fits.ok()) {
            return Invalid("claim " + claim + ", request " + name +
                           ": checking capacity for device " + device.name + ": " + fits.error());
          }
          if (!*fits) continue;
        }
        data.all_devices.push_back(
            Candidate{DeviceId{slice->spec.driver, slice->spec.pool.name, device.name}, &device,
                      slice, &pool});
      }
    }
  }
  data.num_devices = static_cast<int>(data.all_devices.size());
  return data;
}

Result<Allocator::Outcome> Search::Run() {
  std::vector<const api::ResourceSlice*> for_node;
  if (auto it = a_.slices_on_node_.find(node_.metadata.name); it != a_.slices_on_node_.end()) {
    for_node = it->second;
  }
  for_node.insert(for_node.end(), a_.slices_shared_.begin(), a_.slices_shared_.end());
  pools_ = GatherPools(for_node, node_, a_.features_, a_.all_slices_);

  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    const api::ResourceClaim& claim = *claims_[ci];
    const std::string ref = ClaimKey(claim);
    int min_devices_per_claim = 0;
    const auto& requests = claim.spec.devices.requests;
    for (size_t ri = 0; ri < requests.size(); ++ri) {
      const api::DeviceRequest& request = requests[ri];
      RequestKey key{static_cast<int>(ci), static_cast<int>(ri), 0};
      const bool has_subs = !request.first_available.empty();
      if (!a_.features_.prioritized_list && has_subs) {
        return Invalid("claim " + ref + ", request " + request.name +
                       ": has subrequests, but the DRAPrioritizedList feature is disabled");
      }
      if (!a_.features_.consumable_capacity) {
        if (request.exactly && request.exactly->capacity) {
          return Invalid("claim " + ref + ", request " + request.name +
                         ": has capacity requests, but the DRAConsumableCapacity feature is "
                         "disabled");
        }
        for (const auto& sub : request.first_available) {
          if (sub.capacity) {
            return Invalid("claim " + ref + ", subrequest " + sub.name +
                           ": has capacity requests, but the DRAConsumableCapacity feature is "
                           "disabled");
          }
        }
      }
      int min_devices = 0;
      if (has_subs) {
        min_devices = INT_MAX;
        const RequestView parent = RequestView::Exact(request);
        for (size_t si = 0; si < request.first_available.size(); ++si) {
          key.sub = static_cast<int>(si);
          BERTH_ASSIGN_OR_RETURN(
              RequestData data,
              ValidateRequest(RequestView::Sub(request.first_available[si]), parent, key));
          min_devices = std::min(min_devices, data.num_devices);
          requests_[key] = std::move(data);
        }
      } else {
        BERTH_ASSIGN_OR_RETURN(RequestData data,
                               ValidateRequest(RequestView::Exact(request), std::nullopt, key));
        min_devices = data.num_devices;
        requests_[key] = std::move(data);
      }
      if (min_devices > kAllocationResultsMaxSize - min_devices_per_claim) {
        return Invalid("claim " + ref + ", request " + request.name + ": adding " +
                       std::to_string(min_devices) + " devices exceeds the claim limit of " +
                       std::to_string(kAllocationResultsMaxSize) + ", with " +
                       std::to_string(min_devices_per_claim) + " already accounted for");
      }
      min_devices_per_claim += min_devices;
    }
    result_[ci].reserve(static_cast<size_t>(min_devices_per_claim));
    const auto& constraints = claim.spec.devices.constraints;
    for (size_t i = 0; i < constraints.size(); ++i) {
      const auto& c = constraints[i];
      if (c.match_attribute) {
        constraints_[ci].emplace_back(c.requests, *c.match_attribute, false);
      } else if (c.distinct_attribute) {
        constraints_[ci].emplace_back(c.requests, *c.distinct_attribute, true);
      } else {
        return Invalid("claim " + ref + ", constraint #" + std::to_string(i) +
                       ": empty constraint (unsupported constraint type?)");
      }
    }
  }

  auto step = AllocateOne(DeviceIndices{}, false, Location{});
  {
    std::lock_guard lock(a_.mu_);
    a_.allocate_one_invocations_ += invocations_;
  }
  if (!step.ok()) return step.status();
  Allocator::Outcome outcome;
  if (*step != Step::kDone) {
    for (const Pool& pool : pools_) {
      if (pool.invalid) {
        outcome.failed_on_node = "invalid resource pools were encountered";
        break;
      }
    }
    return outcome;
  }
  outcome.allocated = true;
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    BERTH_ASSIGN_OR_RETURN(api::AllocationResult r, BuildResult(ci));
    outcome.results.push_back(std::move(r));
  }
  return outcome;
}

Result<Search::Step> Search::AllocateOne(DeviceIndices r, bool allocating_sub, Location start) {
  ++invocations_;
  // The clock is read every 64 steps: a step is far shorter than any useful timeout.
  if ((invocations_ & 63) == 1) {
    if (stop_.stopping && stop_.stopping()) stopped_ = true;
    if (stop_.deadline && std::chrono::steady_clock::now() > *stop_.deadline) timed_out_ = true;
  }
  if (stopped_) {
    return Error{"filter operation aborted: context canceled", ErrorCode::kUnavailable};
  }
  if (timed_out_) {
    return Error{"filter operation aborted: context deadline exceeded", ErrorCode::kUnavailable};
  }
  if (r.claim >= static_cast<int>(claims_.size())) return Step::kDone;
  const api::ResourceClaim& claim = *claims_[r.claim];
  if (r.request >= static_cast<int>(claim.spec.devices.requests.size())) {
    BERTH_ASSIGN_OR_RETURN(Step next, AllocateOne(DeviceIndices{r.claim + 1}, false, Location{}));
    return next == Step::kTooMany ? Step::kFailed : next;
  }
  const RequestKey key{r.claim, r.request, r.sub};
  RequestData& data = requests_.at(key);

  if (!allocating_sub && data.parent) {
    // Try the subrequests in order; the first that lets the rest succeed is kept.
    bool all_too_many = true;
    for (int sub = 0;; ++sub) {
      const RequestKey sub_key{r.claim, r.request, sub};
      if (!requests_.contains(sub_key)) return all_too_many ? Step::kTooMany : Step::kFailed;
      r.sub = sub;
      BERTH_ASSIGN_OR_RETURN(Step s, AllocateOne(r, true, Location{}));
      if (s == Step::kTooMany) continue;
      all_too_many = false;
      if (s == Step::kDone) {
        requests_.at(key).selected_sub = sub;
        return Step::kDone;
      }
    }
  }

  const RequestView& request = data.request;
  const bool all_devices = *request.allocation_mode == api::kDeviceAllocationModeAll;
  if (all_devices && data.all_devices.empty()) return Step::kFailed;
  if (r.device >= data.num_devices) {
    return AllocateOne(DeviceIndices{r.claim, r.request + 1}, false, Location{});
  }
  const int remaining = data.num_devices - r.device;
  const int available =
      kAllocationResultsMaxSize - static_cast<int>(result_[static_cast<size_t>(r.claim)].size());
  if (remaining > available) return Step::kTooMany;

  const DeviceIndices next_device{r.claim, r.request, r.sub, r.device + 1};
  if (all_devices) {
    const Candidate c = data.all_devices[static_cast<size_t>(r.device)];
    Undo undo;
    BERTH_ASSIGN_OR_RETURN(bool ok, AllocateDevice(r, c, true, &undo));
    if (!ok) return Step::kFailed;
    auto done = AllocateOne(next_device, allocating_sub, Location{});
    if (!done.ok() || *done != Step::kDone) {
      Rollback(r, c, data.parent ? *data.parent->name : *request.name,
               data.parent ? *request.name : std::string(), undo);
      if (!done.ok()) return done.status();
      return *done;  // kTooMany travels up like upstream's sentinel error
    }
    return Step::kDone;
  }

  for (size_t pi = start.pool; pi < pools_.size(); ++pi) {
    const Pool& pool = pools_[pi];
    if (pool.incomplete || pool.invalid) continue;
    const size_t slice_start = pi == start.pool ? start.slice : 0;
    for (size_t si = slice_start; si < pool.slices_targeting_node.size(); ++si) {
      const api::ResourceSlice& slice = *pool.slices_targeting_node[si];
      const size_t device_start = (pi == start.pool && si == start.slice) ? start.device : 0;
      for (size_t di = device_start; di < slice.spec.devices.size(); ++di) {
        const api::Device& device = slice.spec.devices[di];
        Candidate c{DeviceId{pool.id.driver, pool.id.pool, device.name}, &device, &slice, &pool};
        if (request.admin_access ? AllocatingForClaim(c.id, r.claim) : DeviceInUse(c.id)) continue;
        BERTH_ASSIGN_OR_RETURN(bool selectable, IsSelectable(key, data, slice, di));
        if (!selectable) continue;
        if (a_.features_.consumable_capacity) {
          auto fits = CapacityFits(request, c);
          if (!fits.ok()) {
            return Invalid("claim " + ClaimKey(claim) + ", request " + *request.name +
                           ": checking capacity for device " + c.id.String() + ": " + fits.error());
          }
          if (!*fits) continue;
        }
        Undo undo;
        BERTH_ASSIGN_OR_RETURN(bool ok, AllocateDevice(r, c, false, &undo));
        if (!ok) continue;
        auto done = AllocateOne(next_device, allocating_sub, Location{pi, si, di + 1});
        if (done.ok() && *done == Step::kDone) return Step::kDone;
        Rollback(r, c, data.parent ? *data.parent->name : *request.name,
                 data.parent ? *request.name : std::string(), undo);
        if (!done.ok()) return done.status();
        // Upstream's sentinel error ends this level's search too.
        if (*done == Step::kTooMany) return Step::kTooMany;
      }
    }
  }
  return Step::kFailed;
}

Result<bool> Search::IsSelectable(RequestKey key, const RequestData& data,
                                  const api::ResourceSlice& slice, size_t device_index) {
  const api::Device& device = slice.spec.devices[device_index];
  if (!a_.features_.device_binding_and_status && !device.binding_conditions.empty()) return false;
  const auto cache_key = std::make_tuple(&device, key.claim, key.request, key.sub);
  if (auto it = matches_cache_.find(cache_key); it != matches_cache_.end()) return it->second;
  const DeviceId id{slice.spec.driver, slice.spec.pool.name, device.name};
  auto remember = [&](bool v) {
    matches_cache_[cache_key] = v;
    return v;
  };
  if (data.device_class != nullptr) {
    BERTH_ASSIGN_OR_RETURN(bool ok, SelectorsMatch(key, device, id, data.device_class,
                                                   data.device_class->spec.selectors));
    if (!ok) return remember(false);
  }
  BERTH_ASSIGN_OR_RETURN(bool ok,
                         SelectorsMatch(key, device, id, nullptr, *data.request.selectors));
  if (!ok) return remember(false);
  if (slice.spec.per_device_node_selection.value_or(false) &&
      !NodeMatches(node_, device.node_name, device.all_nodes.value_or(false),
                   device.node_selector)) {
    return remember(false);
  }
  return remember(true);
}

Result<bool> Search::SelectorsMatch(RequestKey key, const api::Device& device, const DeviceId& id,
                                    const api::DeviceClass* cls,
                                    const std::vector<api::DeviceSelector>& selectors) {
  const std::string owner =
      cls != nullptr ? "class " + cls->metadata.name : "claim " + ClaimKey(*claims_[key.claim]);
  for (size_t i = 0; i < selectors.size(); ++i) {
    const auto& expression = selectors[i].cel_expression;
    if (!expression) continue;  // refused by ValidateRequest for requests; a class: no selector
    const SelectorEvaluator::Outcome out =
        a_.selectors_->Evaluate(*expression, id.driver, device, stop_);
    if (out.interrupted) {
      // Upstream's CEL error wraps the context's; the plugin reports the timeout (or the stop),
      // not the selector.
      (*out.interrupted == "context canceled" ? stopped_ : timed_out_) = true;
      return Error{owner + ": selector #" + std::to_string(i) + " on device " + id.String() +
                       ": CEL runtime error: " + *out.interrupted,
                   ErrorCode::kUnavailable};
    }
    if (out.compile_error) {
      return Invalid(owner + ": selector #" + std::to_string(i) +
                     ": CEL compile error: " + *out.compile_error);
    }
    if (out.runtime_error) {
      return Invalid(owner + ": selector #" + std::to_string(i) + " on device " + id.String() +
                     ": CEL runtime error: " + *out.runtime_error);
    }
    if (!out.matches) return false;
  }
  return true;
}

bool Search::DeviceInUse(const DeviceId& id) const {
  if (a_.allocated_.allocated_devices.contains(id)) return true;
  auto it = allocating_.find(id);
  return it != allocating_.end() && !it->second.empty();
}

bool Search::AllocatingForClaim(const DeviceId& id, int claim) const {
  auto it = allocating_.find(id);
  return it != allocating_.end() && it->second.contains(claim);
}

bool Search::DeviceCapacityInUse(const DeviceId& id) const {
  if (a_.allocated_.aggregated_capacity.contains(id)) return true;
  if (a_.allocated_.HasShare(id)) return true;
  return allocating_capacity_.Contains(id);
}

Result<bool> Search::CapacityFits(const RequestView& request, const Candidate& c) const {
  // The common case, without capacities on either side, needs no lookups.
  if (c.device->capacity.empty()) {
    return request.capacity == nullptr || request.capacity->requests.empty();
  }
  const ConsumedCapacity* allocated = nullptr;
  if (auto it = a_.allocated_.aggregated_capacity.find(c.id);
      it != a_.allocated_.aggregated_capacity.end()) {
    allocated = &it->second;
  }
  return FitsCapacity(allocated, request.capacity, c.device->capacity,
                      allocating_capacity_.Find(c.id), a_.features_.fractional_capacity_range);
}

Result<bool> Search::AllocateDevice(DeviceIndices r, const Candidate& c, bool must, Undo* undo) {
  const api::ResourceClaim& claim = *claims_[r.claim];
  const RequestData& data = requests_.at(RequestKey{r.claim, r.request, r.sub});
  const RequestView& request = data.request;
  const bool multiple =
      a_.features_.consumable_capacity && c.device->allow_multiple_allocations.value_or(false);
  if (!multiple && request.admin_access && AllocatingForClaim(c.id, r.claim)) return false;
  if (!request.admin_access && DeviceInUse(c.id)) return false;
  if (!a_.features_.partitionable_devices && !c.device->consumes_counters.empty()) return false;

  const std::string base = data.parent ? *data.parent->name : *request.name;
  const std::string sub = data.parent ? *request.name : std::string();
  auto& results = result_[static_cast<size_t>(r.claim)];
  undo->previous_results = results.size();
  // A device that is shared already had its counters charged by its first share.
  const bool counters_charged = multiple && DeviceCapacityInUse(c.id);
  if (!counters_charged && !c.device->consumes_counters.empty()) {
    BERTH_ASSIGN_OR_RETURN(bool ok, ReserveCounters(c));
    if (!ok) return false;
    undo->counters_reserved = true;
  }
  if (a_.features_.device_taints && TaintPreventsAllocation(*c.device, request)) {
    Rollback(r, c, base, sub, *undo);
    return false;
  }
  for (auto& constraint : constraints_[static_cast<size_t>(r.claim)]) {
    if (!constraint.Add(base, sub, *c.device, c.id)) {
      Rollback(r, c, base, sub, *undo);
      if (must) {
        return Invalid("claim " + ClaimKey(claim) + ", request " + *request.name +
                       ": cannot add device " + c.id.String() +
                       " because a claim constraint would not be satisfied");
      }
      return false;
    }
    ++undo->constraints_added;
  }
  if (!multiple) {
    allocating_[c.id].insert(r.claim);
    undo->device_marked = true;
  }
  DeviceResult result;
  if (a_.features_.consumable_capacity) {
    auto fits = CapacityFits(request, c);
    if (!fits.ok()) {
      Rollback(r, c, base, sub, *undo);
      return Invalid("claim " + ClaimKey(claim) + ", request " + *request.name +
                     ": rechecking capacity for device " + c.id.String() + ": " + fits.error());
    }
    if (!*fits) {
      Rollback(r, c, base, sub, *undo);
      return false;
    }
    if (multiple) {
      auto consumed = ConsumedCapacityOf(request.capacity, c.device->capacity,
                                         a_.features_.fractional_capacity_range);
      if (!consumed.ok()) {
        Rollback(r, c, base, sub, *undo);
        return Invalid("claim " + ClaimKey(claim) + ", request " + *request.name +
                       ": computing consumed capacity for device " + c.id.String() + ": " +
                       consumed.error());
      }
      undo->capacity_entry_existed = allocating_capacity_.Contains(c.id);
      allocating_capacity_.Insert(c.id, *consumed);
      undo->capacity_inserted = true;
      undo->consumed = *consumed;
      result.shared = true;
      result.consumed_capacity = std::move(*consumed);
    }
  }
  result.device = c.device;
  result.slice = c.slice;
  result.request = *request.name;
  result.parent_request = data.parent ? *data.parent->name : std::string();
  result.id = c.id;
  result.admin_access = request.admin_access;
  results.push_back(std::move(result));
  undo->result_added = true;
  return true;
}

void Search::Rollback(DeviceIndices r, const Candidate& c, const std::string& base,
                      const std::string& sub, const Undo& undo) {
  auto& results = result_[static_cast<size_t>(r.claim)];
  if (undo.result_added) results.resize(undo.previous_results);
  if (undo.capacity_inserted) {
    allocating_capacity_.Remove(c.id, undo.consumed);
    // Removing the last amounts drops the entry, which also marks the device as shared for
    // the earlier share that still holds it.
    if (undo.capacity_entry_existed && !allocating_capacity_.Contains(c.id)) {
      allocating_capacity_.MarkShared(c.id);
    }
  }
  if (undo.device_marked) allocating_[c.id].erase(r.claim);
  auto& constraints = constraints_[static_cast<size_t>(r.claim)];
  for (int i = undo.constraints_added - 1; i >= 0; --i) {
    constraints[static_cast<size_t>(i)].Remove(base, sub);
  }
  if (undo.counters_reserved) ReleaseCounters(c);
}

// Upstream's checkAvailableCounters: adds the device's consumption to what this search has
// consumed from its pool, and fails (undoing that) when any counter of the pool would go
// below zero.
Result<bool> Search::ReserveCounters(const Candidate& c) {
  const Allocator::CounterSets& available = a_.AvailableCounters(*c.pool);
  auto& consumed = consumed_counters_[c.pool->id];
  for (const auto& consumption : c.device->consumes_counters) {
    auto& set = consumed[consumption.counter_set];
    for (const auto& [name, value] : consumption.counters) set[name] += value.milli;
  }
  for (const auto& [set_name, counters] : available) {
    auto set = consumed.find(set_name);
    for (const auto& [name, left] : counters) {
      int64_t used = 0;
      if (set != consumed.end()) {
        if (auto it = set->second.find(name); it != set->second.end()) used = it->second;
      }
      if (left < used) {
        ReleaseCounters(c);
        return false;
      }
    }
  }
  return true;
}

void Search::ReleaseCounters(const Candidate& c) {
  auto& consumed = consumed_counters_[c.pool->id];
  for (const auto& consumption : c.device->consumes_counters) {
    auto& set = consumed[consumption.counter_set];
    for (const auto& [name, value] : consumption.counters) set[name] -= value.milli;
  }
}

}  // namespace berth::plugins::dynamic_resources::structured
