#pragma once
// Consumable capacity (DRAConsumableCapacity): how much of a device's capacities a request
// consumes, and whether that still fits next to what other allocations consume. Upstream's
// consumable_capacity.go of the incubating allocator.
//
// A request names amounts per capacity (capacity.requests); a capacity the request leaves out
// consumes the capacity's requestPolicy default, or all of it without one. A requested amount is
// rounded up to what the policy allows (validRange: at least min, then to the next step from
// min; validValues: the first value not below it) and must then obey the policy (not above
// max, on a step, one of the valid values; the default always passes).
//
// Quantities are berth's milli-unit integers: upstream's arbitrary precision only differs for
// amounts beyond int64 milli-units or below one milli-unit, which berth's decoder refuses or
// rounds.
//
// Pure functions; safe from any thread.

#include <map>
#include <optional>
#include <string>

#include "api/types_resource.h"
#include "base/result.h"
#include "plugins/dynamic_resources/structured/types.h"

namespace berth::plugins::dynamic_resources::structured {

// Upstream's CmpRequestOverCapacity: whether `request` (null: no capacity requests) fits a
// device with `capacity`, given what allocated shares (`allocated`) and shares picked earlier
// in this search (`allocating`) consume; either may be null.
//   Ok(true)   fits.
//   Ok(false)  does not fit this device (a capacity it lacks, a policy violation, too little
//              left): try another.
//   Error      a requested amount cannot be represented, or a consumed amount is negative:
//              `capacity "<name>": ...`; upstream aborts the allocation.
Result<bool> FitsCapacity(const ConsumedCapacity* allocated,
                          const api::CapacityRequirements* request,
                          const std::map<std::string, api::DeviceCapacity>& capacity,
                          const ConsumedCapacity* allocating, bool fractional_range);

// Upstream's GetConsumedCapacityFromRequest: what one share consumes of every capacity of the
// device.
Result<ConsumedCapacity> ConsumedCapacityOf(
    const api::CapacityRequirements* request,
    const std::map<std::string, api::DeviceCapacity>& capacity, bool fractional_range);

// Per device, what the shares picked so far consume (upstream's ConsumedCapacityCollection).
class CapacityCollection {
 public:
  // Adds one share's consumption (an empty one still marks the device as shared).
  void Insert(const DeviceId& id, const ConsumedCapacity& consumed);
  // Subtracts one share's consumption; the device's entry goes when nothing is left.
  void Remove(const DeviceId& id, const ConsumedCapacity& consumed);
  // The device's entry, or null.
  const ConsumedCapacity* Find(const DeviceId& id) const;
  bool Contains(const DeviceId& id) const { return entries_.contains(id); }
  // Puts back an empty entry (rollback of a share whose device was already shared).
  void MarkShared(const DeviceId& id) { entries_[id]; }

 private:
  std::map<DeviceId, ConsumedCapacity> entries_;
};

// A UUID-formatted shareID derived from `seed` (deterministic: the same seed gives the same
// ID). Upstream uses a random UUID.
std::string ShareIdFor(const std::string& seed);

}  // namespace berth::plugins::dynamic_resources::structured
