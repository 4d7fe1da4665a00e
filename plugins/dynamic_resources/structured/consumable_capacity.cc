#include "plugins/dynamic_resources/structured/consumable_capacity.h"

#include <climits>
#include <cstdio>

namespace berth::plugins::dynamic_resources::structured {
namespace {

constexpr const char* kNotRepresentable =
    "capacity request cannot be represented in the device's range arithmetic";

Error CapacityError(const std::string& name, const std::string& what) {
  return Error{"capacity \"" + name + "\": " + what, ErrorCode::kInvalid};
}

// Upstream's useMilli: with DRAFractionalCapacityRange, ranges are computed in milli-units
// (berth's quantities always are; a step below one milli-unit cannot be told from 1m here).
bool UseMilli(const api::CapacityRequestPolicyRange& range, bool fractional_range) {
  if (!fractional_range) return false;
  return !range.step || range.step->milli >= 1;
}

// Upstream's roundUpRange; `range.min` is set.
Result<api::Quantity> RoundUpRange(const api::Quantity& requested,
                                   const api::CapacityRequestPolicyRange& range,
                                   bool fractional_range) {
  const api::Quantity& min = *range.min;
  if (requested.milli < min.milli) return min;
  if (!range.step) return requested;
  if (UseMilli(range, fractional_range)) {
    const int64_t step = range.step->milli;
    const int64_t added = requested.milli - min.milli;
    int64_t n = added / step;
    if (added % step != 0) ++n;
    if (n > (INT64_MAX - min.milli) / step) {
      return Error{std::string(kNotRepresentable) + ": rounding request " + requested.ToString() +
                       " up to the next step passes the milli-value range",
                   ErrorCode::kInvalid};
    }
    return api::Quantity::FromMilli(min.milli + step * n);
  }
  // Whole units, each value rounded up to one first (upstream's Value()).
  const int64_t step = range.step->Value();
  if (step <= 0) return requested;  // refused by API validation; upstream would divide by zero
  const int64_t lowest = min.Value();
  const int64_t added = requested.Value() - lowest;
  int64_t n = added / step;
  if (added % step != 0) ++n;
  if (lowest >= 0 && n > (INT64_MAX - lowest) / step) {
    return Error{std::string(kNotRepresentable) + ": rounding request " + requested.ToString() +
                     " up to the next step passes MaxInt64",
                 ErrorCode::kInvalid};
  }
  return api::Quantity::FromValue(lowest + step * n);
}

// Upstream's calculateConsumedCapacity: what a request (nullopt: none for this capacity)
// consumes of one capacity.
Result<api::Quantity> Consumed(const std::optional<api::Quantity>& requested,
                               const api::DeviceCapacity& capacity, bool fractional_range) {
  const auto& policy = capacity.request_policy;
  if (!requested) {
    if (policy && policy->default_value) return *policy->default_value;
    return capacity.value;
  }
  if (!policy) return *requested;
  if (policy->valid_range && policy->valid_range->min) {
    return RoundUpRange(*requested, *policy->valid_range, fractional_range);
  }
  for (const auto& valid : policy->valid_values) {
    if (requested->milli <= valid.milli) return valid;
  }
  return *requested;
}

bool ViolatesRange(const api::Quantity& value, const api::CapacityRequestPolicyRange& range,
                   bool fractional_range) {
  if (range.max && value.milli > range.max->milli) return true;
  if (!range.step) return false;
  const api::Quantity min = range.min.value_or(api::Quantity{});
  int64_t v = 0, step = 0, lowest = 0;
  if (UseMilli(range, fractional_range)) {
    v = value.milli;
    step = range.step->milli;
    lowest = min.milli;
  } else {
    v = value.Value();
    step = range.step->Value();
    lowest = min.Value();
  }
  if (step == 0) return false;  // refused by API validation
  return (v - lowest) % step != 0;
}

// Upstream's violatesPolicy.
bool ViolatesPolicy(const api::Quantity& value,
                    const std::optional<api::CapacityRequestPolicy>& policy,
                    bool fractional_range) {
  if (!policy) return false;
  if (policy->default_value && value == *policy->default_value) return false;
  if (policy->valid_range) return ViolatesRange(value, *policy->valid_range, fractional_range);
  if (!policy->valid_values.empty()) {
    for (const auto& valid : policy->valid_values) {
      if (valid.milli == value.milli) return false;
    }
    return true;
  }
  return false;
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? INT64_MAX : INT64_MIN;
  return sum;
}

std::optional<api::Quantity> RequestedAmount(const api::CapacityRequirements* request,
                                             const std::string& name) {
  if (request == nullptr) return std::nullopt;
  auto it = request->requests.find(name);
  if (it == request->requests.end()) return std::nullopt;
  return it->second;
}

}  // namespace

void AddCapacity(ConsumedCapacity& to, const ConsumedCapacity& add) {
  for (const auto& [name, q] : add) {
    auto [it, inserted] = to.emplace(name, q);
    if (!inserted) it->second.milli = SaturatingAdd(it->second.milli, q.milli);
  }
}

bool AllocatedState::HasShare(const DeviceId& id) const {
  auto it = allocated_shared_device_ids.lower_bound(SharedDeviceId{id, ""});
  return it != allocated_shared_device_ids.end() && it->device == id;
}

Result<bool> FitsCapacity(const ConsumedCapacity* allocated,
                          const api::CapacityRequirements* request,
                          const std::map<std::string, api::DeviceCapacity>& capacity,
                          const ConsumedCapacity* allocating, bool fractional_range) {
  if (request != nullptr) {
    for (const auto& [name, amount] : request->requests) {
      if (!capacity.contains(name)) return false;
    }
  }
  // Every amount is resolved before any "does not fit", so that an unrepresentable request is
  // an error whichever capacity comes first. (Upstream walks a Go map here, in random order; by
  // name is one of its orders.) The amounts are computed again in the second pass rather than
  // kept: this runs for every candidate device, and recomputing costs less than a map.
  for (const auto& [name, cap] : capacity) {
    auto amount = Consumed(RequestedAmount(request, name), cap, fractional_range);
    if (!amount.ok()) return CapacityError(name, amount.error());
    if (amount->milli < 0) return CapacityError(name, "capacity value is negative");
  }
  for (const auto& [name, cap] : capacity) {
    const api::Quantity amount = *Consumed(RequestedAmount(request, name), cap, fractional_range);
    if (ViolatesPolicy(amount, cap.request_policy, fractional_range)) return false;
    int64_t total = amount.milli;
    if (allocated != nullptr) {
      if (auto it = allocated->find(name); it != allocated->end()) {
        total = SaturatingAdd(it->second.milli, total);
      }
    }
    if (allocating != nullptr) {
      if (auto it = allocating->find(name); it != allocating->end()) {
        total = SaturatingAdd(total, it->second.milli);
      }
    }
    if (total > cap.value.milli) return false;
  }
  return true;
}

Result<ConsumedCapacity> ConsumedCapacityOf(
    const api::CapacityRequirements* request,
    const std::map<std::string, api::DeviceCapacity>& capacity, bool fractional_range) {
  ConsumedCapacity out;
  for (const auto& [name, cap] : capacity) {
    auto amount = Consumed(RequestedAmount(request, name), cap, fractional_range);
    if (!amount.ok()) return CapacityError(name, amount.error());
    out.emplace(name, *amount);
  }
  return out;
}

void CapacityCollection::Insert(const DeviceId& id, const ConsumedCapacity& consumed) {
  auto [it, inserted] = entries_.emplace(id, consumed);
  if (!inserted) AddCapacity(it->second, consumed);
}

void CapacityCollection::Remove(const DeviceId& id, const ConsumedCapacity& consumed) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  for (const auto& [name, q] : consumed) {
    if (auto e = it->second.find(name); e != it->second.end()) e->second.milli -= q.milli;
  }
  for (const auto& [name, q] : it->second) {
    if (q.milli != 0) return;
  }
  entries_.erase(it);
}

const ConsumedCapacity* CapacityCollection::Find(const DeviceId& id) const {
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : &it->second;
}

std::string ShareIdFor(const std::string& seed) {
  // Two FNV-1a hashes with different offsets make 128 bits; version 4 and the RFC 4122 variant
  // are stamped on so the text is a well-formed UUID.
  auto fnv = [&](uint64_t h) {
    for (unsigned char c : seed) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
    return h;
  };
  uint64_t hi = fnv(0xcbf29ce484222325ULL);
  uint64_t lo = fnv(0x84222325cbf29ce4ULL ^ hi);
  hi = (hi & ~0xf000ULL) | 0x4000ULL;
  lo = (lo & ~(0xcULL << 60)) | (0x8ULL << 60);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

}  // namespace berth::plugins::dynamic_resources::structured
