#pragma once
// Internal to the allocator: the state of one Allocate call (upstream's unexported `allocator`
// struct) and the depth-first search over devices. Not thread-safe; one per call.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "plugins/dynamic_resources/structured/allocator.h"
#include "plugins/dynamic_resources/structured/consumable_capacity.h"

namespace berth::plugins::dynamic_resources::structured {

// A request or one of its firstAvailable subrequests, read through one interface (upstream's
// requestAccessor).
struct RequestView {
  const std::string* name = nullptr;
  const std::string* device_class_name = nullptr;
  const std::vector<api::DeviceSelector>* selectors = nullptr;
  const std::string* allocation_mode = nullptr;
  int64_t count = 0;
  bool admin_access = false;      // adminAccess: true
  bool has_admin_access = false;  // adminAccess set at all
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  const api::CapacityRequirements* capacity = nullptr;  // capacity, when set
  bool has_derived_attributes = false;

  static RequestView Exact(const api::DeviceRequest& request);
  static RequestView Sub(const api::DeviceSubRequest& sub);
};

struct RequestKey {
  int claim = 0;
  int request = 0;
  int sub = 0;
  auto operator<=>(const RequestKey&) const = default;
};

// Where the search stands: which device of which (sub)request.
struct DeviceIndices {
  int claim = 0;
  int request = 0;
  int sub = 0;
  int device = 0;
};

// Where to continue looking for the next device of the same request.
struct Location {
  size_t pool = 0;
  size_t slice = 0;
  size_t device = 0;
};

struct Candidate {
  DeviceId id;
  const api::Device* device = nullptr;
  const api::ResourceSlice* slice = nullptr;
  const Pool* pool = nullptr;
};

struct RequestData {
  RequestView request;
  std::optional<RequestView> parent;  // set for a subrequest
  const api::DeviceClass* device_class = nullptr;
  int num_devices = 0;
  int selected_sub = 0;                // of the parent entry: the subrequest that succeeded
  std::vector<Candidate> all_devices;  // allocationMode All
  std::string Name() const { return parent ? *parent->name + "/" + *request.name : *request.name; }
};

struct DeviceResult {
  const api::Device* device = nullptr;
  const api::ResourceSlice* slice = nullptr;
  std::string request;         // the request, or the subrequest
  std::string parent_request;  // the request of a subrequest
  DeviceId id;
  bool admin_access = false;
  // A share of a device with allowMultipleAllocations: gets a shareID, and the capacity it
  // consumes when that is not empty.
  bool shared = false;
  ConsumedCapacity consumed_capacity;
  std::string RequestName() const {
    return parent_request.empty() ? request : parent_request + "/" + request;
  }
};

// matchAttribute / distinctAttribute over the devices picked so far for one claim.
class Constraint {
 public:
  Constraint(std::vector<std::string> requests, std::string attribute, bool distinct)
      : requests_(requests.begin(), requests.end()),
        attribute_(std::move(attribute)),
        distinct_(distinct) {}
  bool Add(const std::string& request, const std::string& sub, const api::Device& device,
           const DeviceId& id);
  void Remove(const std::string& request, const std::string& sub);

 private:
  bool AppliesTo(const std::string& request, const std::string& sub) const;
  std::set<std::string> requests_;
  std::string attribute_;
  bool distinct_;
  std::vector<const api::DeviceAttribute*> picked_;  // match: only the first matters
};

class Search {
 public:
  Search(const Allocator& a, const api::Node& node,
         const std::vector<const api::ResourceClaim*>& claims, const Interruption& stop)
      : a_(a),
        node_(node),
        claims_(claims),
        stop_(stop),
        constraints_(claims.size()),
        result_(claims.size()) {}

  Result<Allocator::Outcome> Run();
  // Run's error came from the deadline (upstream's "filter operation aborted").
  bool timed_out() const { return timed_out_; }
  // Run's error came from the scheduler's shutdown.
  bool stopped() const { return stopped_; }

 private:
  Result<RequestData> ValidateRequest(const RequestView& request,
                                      const std::optional<RequestView>& parent, RequestKey key);
  // Upstream's allocateOne: kDone when the rest of the search from `r` succeeded; kTooMany when
  // a claim would exceed kAllocationResultsMaxSize devices (upstream's
  // errAllocationResultMaxSizeExceeded, which the search recovers from).
  enum class Step { kFailed, kDone, kTooMany };
  Result<Step> AllocateOne(DeviceIndices r, bool allocating_sub, Location start);
  Result<bool> IsSelectable(RequestKey key, const RequestData& data,
                            const api::ResourceSlice& slice, size_t device_index);
  Result<bool> SelectorsMatch(RequestKey key, const api::Device& device, const DeviceId& id,
                              const api::DeviceClass* cls,
                              const std::vector<api::DeviceSelector>& selectors);
  // Upstream's allocateDevice: Ok(true) with the device recorded (undo with Rollback), Ok(false)
  // when it cannot be used, an error when `must` and a constraint fails.
  struct Undo {
    bool counters_reserved = false;
    int constraints_added = 0;
    bool device_marked = false;
    bool capacity_inserted = false;
    bool capacity_entry_existed = false;  // the device was shared in this search already
    ConsumedCapacity consumed;            // what the inserted share consumes
    bool result_added = false;
    size_t previous_results = 0;
  };
  Result<bool> AllocateDevice(DeviceIndices r, const Candidate& c, bool must, Undo* undo);
  void Rollback(DeviceIndices r, const Candidate& c, const std::string& base,
                const std::string& sub, const Undo& undo);
  bool DeviceInUse(const DeviceId& id) const;
  bool AllocatingForClaim(const DeviceId& id, int claim) const;
  // Upstream's deviceCapacityInUse: some share of the device is allocated or being allocated.
  bool DeviceCapacityInUse(const DeviceId& id) const;
  // Upstream's allocator.CmpRequestOverCapacity: whether `request` fits what is left of the
  // device's capacities.
  Result<bool> CapacityFits(const RequestView& request, const Candidate& c) const;
  Result<bool> ReserveCounters(const Candidate& c);
  void ReleaseCounters(const Candidate& c);
  Result<api::AllocationResult> BuildResult(size_t claim_index) const;

  const Allocator& a_;
  const api::Node& node_;
  const std::vector<const api::ResourceClaim*>& claims_;
  const Interruption& stop_;
  std::vector<Pool> pools_;
  std::map<RequestKey, RequestData> requests_;
  std::vector<std::vector<Constraint>> constraints_;  // per claim
  std::map<std::tuple<const api::Device*, int, int, int>, bool> matches_cache_;
  std::map<DeviceId, std::set<int>> allocating_;  // device -> claims holding it in this search
  CapacityCollection allocating_capacity_;        // shares picked in this search
  std::map<PoolId, Allocator::CounterSets> consumed_counters_;
  std::vector<std::vector<DeviceResult>> result_;  // per claim
  int64_t invocations_ = 0;
  bool timed_out_ = false;
  bool stopped_ = false;
};

}  // namespace berth::plugins::dynamic_resources::structured
