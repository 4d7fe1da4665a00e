#pragma once
// What the scheduler knows about ResourceClaims beyond its informer (upstream's claimTracker and
// the claims' assume cache):
//  - in-flight allocations: a claim allocated in Reserve whose allocation is not written yet
//    (PreBind runs later, on a binding worker). Their devices count as taken, so the next pod
//    never gets them; a claim shared by several pods in flight counts its sharers.
//  - assumed claims: the object PreBind wrote, kept until the informer delivers that version or
//    a newer one, so the next cycle does not see the claim as unallocated.
// Thread-safe: the scheduling thread and binding workers call it concurrently.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "api/store.h"
#include "api/types_resource.h"
#include "plugins/dynamic_resources/structured/types.h"

namespace berth::plugins::dynamic_resources {

class ClaimTracker {
 public:
  using ClaimPtr = std::shared_ptr<const api::ResourceClaim>;
  // `store` (the informer's claims) must outlive the tracker.
  explicit ClaimTracker(const api::Store<api::ResourceClaim>* store) : store_(store) {}

  // The newest known version of a claim: the assumed one while the informer lags behind it.
  ClaimPtr Get(const std::string& ns, const std::string& name) const;

  // Devices held by allocated claims (results with adminAccess do not hold a device) and by
  // in-flight allocations: whole devices, the shares of devices that allow multiple allocations
  // (results with a shareID) and the capacity those shares consume.
  structured::AllocatedState AllocatedDevices() const;

  // The in-flight allocation of the claim, if any.
  std::optional<api::AllocationResult> PendingAllocation(const std::string& uid) const;
  // Records `allocated` (the claim with status.allocation set) as in flight, or adds a sharer.
  // Nothing is recorded when the known claim is allocated already.
  void SignalPendingAllocation(const std::string& uid, ClaimPtr allocated);
  // Drops one sharer (all of them with `force`); true when the entry is gone.
  bool RemovePendingAllocation(const std::string& uid, bool force);

  // Keeps the version of the claim the API server returned after a write.
  void Assume(ClaimPtr written);
  // Forgets an assumed version (upstream's AssumedClaimRestore).
  void Restore(const std::string& ns, const std::string& name);

 private:
  ClaimPtr GetLocked(const std::string& key) const;

  const api::Store<api::ResourceClaim>* const store_;
  mutable std::mutex mu_;  // guards in_flight_, assumed_
  struct InFlight {
    ClaimPtr claim;
    int sharers = 0;
  };
  std::map<std::string, InFlight> in_flight_;  // by claim uid
  std::map<std::string, ClaimPtr> assumed_;    // by "namespace/name"
};

}  // namespace berth::plugins::dynamic_resources
