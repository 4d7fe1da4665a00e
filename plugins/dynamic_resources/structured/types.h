#pragma once
// Shared vocabulary of the structured allocator (upstream's k8s.io/dynamic-resource-allocation/
// structured): device and pool identities, what is already allocated in the cluster, the DRA
// features the allocator honours, and the seams through which it reads DeviceClasses and
// evaluates CEL selectors. Plain values; safe to share between threads once built.

#include <compare>
#include <functional>
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

// Devices that allocated claims (or claims in flight in this scheduler) already hold.
struct AllocatedState {
  std::set<DeviceId> allocated_devices;
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
};

// The maximum number of devices in one claim's allocation (resourceapi.AllocationResultsMaxSize).
inline constexpr int kAllocationResultsMaxSize = 32;

// Looks up a DeviceClass by name; null when there is none. Must be safe to call from several
// threads at once.
using DeviceClassLookup = std::function<const api::DeviceClass*(const std::string& name)>;

// Evaluates one CEL device selector against one device. Implementations compile each distinct
// expression once and must be safe to call from several threads at once.
class SelectorEvaluator {
 public:
  struct Outcome {
    bool matches = false;
    std::optional<std::string> compile_error;  // the expression does not compile
    std::optional<std::string> runtime_error;  // it compiled but failed on this device
  };
  virtual ~SelectorEvaluator() = default;
  virtual Outcome Evaluate(const std::string& expression, const std::string& driver,
                           const api::Device& device) const = 0;
};

}  // namespace berth::plugins::dynamic_resources::structured
