#pragma once
// Shared vocabulary of the structured allocator (upstream's k8s.io/dynamic-resource-allocation/
// structured): device and pool identities, what is already allocated in the cluster, the DRA
// features the allocator honours, and the seams through which it reads DeviceClasses and
// evaluates CEL selectors. Plain values; safe to share between threads once built.

#include <chrono>
#include <compare>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "api/types_resource.h"

namespace berth::plugins::dynamic_resources::structured {

// A device of a pool: upstream's DeviceID, printed "<driver>/<pool>/<device>".
struct DeviceId {
  std::string driver;
  std::string pool;
  std::string device;
  auto operator<=>(const DeviceId&) const = default;
  std::string String() const { return driver + "/" + pool + "/" + device; }
};

// A resource pool: upstream's PoolID, printed "<driver>/<pool>".
struct PoolId {
  std::string driver;
  std::string pool;
  auto operator<=>(const PoolId&) const = default;
  std::string String() const { return driver + "/" + pool; }
};

// One share of a device that allows multiple allocations (DRAConsumableCapacity): upstream's
// SharedDeviceID. share_id is the allocation result's shareID ("" when it had none).
struct SharedDeviceId {
  DeviceId device;
  std::string share_id;
  auto operator<=>(const SharedDeviceId&) const = default;
};

// Capacity consumed from one device, by capacity name (upstream's ConsumedCapacity).
using ConsumedCapacity = std::map<std::string, api::Quantity>;

// Adds `add` to `to` name by name (a name `to` lacks starts at `add`'s value).
void AddCapacity(ConsumedCapacity& to, const ConsumedCapacity& add);

// Devices that allocated claims (or claims in flight in this scheduler) already hold: upstream's
// AllocatedState.
struct AllocatedState {
  // Devices held whole (results without shareID, except adminAccess ones, which hold nothing).
  std::set<DeviceId> allocated_devices;
  // Shares of devices with allowMultipleAllocations (results with a shareID).
  std::set<SharedDeviceId> allocated_shared_device_ids;
  // Per device, the sum of the consumedCapacity of its shares.
  std::map<DeviceId, ConsumedCapacity> aggregated_capacity;

  // Some share of the device is allocated (whatever its shareID).
  bool HasShare(const DeviceId& id) const;
  // Upstream's IsDeviceAllocated: held whole, shared, or with capacity consumed.
  bool IsDeviceAllocated(const DeviceId& id) const {
    return allocated_devices.contains(id) || HasShare(id) || aggregated_capacity.contains(id);
  }
};

// The DRA features the allocator follows. The defaults are kube-scheduler v1.37's feature-gate
// defaults that berth implements; the allocator tests switch them like upstream's tests do.
struct Features {
  bool admin_access = true;           // DRAAdminAccess (GA)
  bool prioritized_list = true;       // DRAPrioritizedList (GA)
  bool partitionable_devices = true;  // DRAPartitionableDevices (beta, on)
  bool device_taints = true;          // DRADeviceTaints (GA)
  // DRADeviceBindingConditions (beta, on) and DRAResourceClaimDeviceStatus (GA).
  bool device_binding_and_status = true;
  // DRAConsumableCapacity (beta, on): capacity requests, devices with allowMultipleAllocations.
  bool consumable_capacity = true;
  // DRAFractionalCapacityRange (beta in v1.37 but off unless --min-compatibility-version is
  // 1.37 or later; kube-scheduler's default is the previous minor): rounds capacity requests in
  // milli-units instead of whole units.
  bool fractional_capacity_range = false;
};

// The maximum number of devices in one claim's allocation (resourceapi.AllocationResultsMaxSize).
inline constexpr int kAllocationResultsMaxSize = 32;

// Looks up a DeviceClass by name; null when there is none. Must be safe to call from several
// threads at once.
using DeviceClassLookup = std::function<const api::DeviceClass*(const std::string& name)>;

// When a search (and the selector evaluations in it) must stop early, as upstream's allocator
// does when its context ends: the node's filter deadline (DynamicResourcesArgs.filterTimeout)
// and the scheduler's shutdown (`stopping`, called from the searching thread; cheap and
// thread-safe). Both optional.
struct Interruption {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::function<bool()> stopping;
};

// Evaluates one CEL device selector against one device. Implementations compile each distinct
// expression once and must be safe to call from several threads at once.
class SelectorEvaluator {
 public:
  struct Outcome {
    bool matches = false;
    std::optional<std::string> compile_error;  // the expression does not compile
    std::optional<std::string> runtime_error;  // it compiled but failed on this device
    // The evaluation was cut short by the Interruption: "context deadline exceeded" or
    // "context canceled" (upstream's context.Cause).
    std::optional<std::string> interrupted;
  };
  virtual ~SelectorEvaluator() = default;
  // One evaluation, stopped early (Outcome::interrupted) when `stop` says so.
  virtual Outcome Evaluate(const std::string& expression, const std::string& driver,
                           const api::Device& device, const Interruption& stop) const = 0;
  Outcome Evaluate(const std::string& expression, const std::string& driver,
                   const api::Device& device) const {
    return Evaluate(expression, driver, device, Interruption{});
  }
};

}  // namespace berth::plugins::dynamic_resources::structured
