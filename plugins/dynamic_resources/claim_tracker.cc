#include "plugins/dynamic_resources/claim_tracker.h"

#include <charconv>

namespace berth::plugins::dynamic_resources {
namespace {

// resourceVersions are opaque but, from one API server, increase as decimal numbers; an
// unparsable one counts as newer (the informer wins).
bool NotOlder(const std::string& informer_version, const std::string& assumed_version) {
  uint64_t a = 0, b = 0;
  auto ra = std::from_chars(informer_version.data(),
                            informer_version.data() + informer_version.size(), a);
  auto rb =
      std::from_chars(assumed_version.data(), assumed_version.data() + assumed_version.size(), b);
  if (ra.ec != std::errc() || rb.ec != std::errc()) return true;
  return a >= b;
}

// Upstream's foreachAllocatedDevice with DRAConsumableCapacity on: a result with a shareID is
// one share of a device that allows multiple allocations (and adds what it consumes to the
// device's total); any other result holds its device whole.
void AddDevices(const api::ResourceClaim& claim, structured::AllocatedState* out) {
  if (!claim.status.allocation) return;
  for (const auto& r : claim.status.allocation->devices.results) {
    if (r.admin_access.value_or(false)) continue;
    structured::DeviceId id{r.driver, r.pool, r.device};
    if (r.share_id) {
      if (!r.consumed_capacity.empty()) {
        // Inserting marks the device even when every amount is zero, as upstream's does.
        structured::AddCapacity(out->aggregated_capacity[id], r.consumed_capacity);
      }
      out->allocated_shared_device_ids.insert(
          structured::SharedDeviceId{std::move(id), *r.share_id});
      continue;
    }
    out->allocated_devices.insert(std::move(id));
  }
}

}  // namespace

ClaimTracker::ClaimPtr ClaimTracker::GetLocked(const std::string& key) const {
  ClaimPtr informer = store_->Get(key);
  auto it = assumed_.find(key);
  // A claim the informer no longer has is gone, whatever was assumed.
  if (it == assumed_.end() || !informer) return informer;
  if ((informer->metadata.uid != it->second->metadata.uid ||
       NotOlder(informer->metadata.resource_version, it->second->metadata.resource_version))) {
    return informer;
  }
  return it->second;
}

ClaimTracker::ClaimPtr ClaimTracker::Get(const std::string& ns, const std::string& name) const {
  std::lock_guard lock(mu_);
  return GetLocked(ns + "/" + name);
}

structured::AllocatedState ClaimTracker::AllocatedDevices() const {
  structured::AllocatedState out;
  std::lock_guard lock(mu_);
  store_->ForEach([&](const api::ResourceClaim& claim) {
    if (assumed_.empty()) {
      AddDevices(claim, &out);
      return;
    }
    ClaimPtr newest = GetLocked(claim.metadata.namespace_ + "/" + claim.metadata.name);
    AddDevices(newest ? *newest : claim, &out);
  });
  for (const auto& [uid, f] : in_flight_) AddDevices(*f.claim, &out);
  return out;
}

std::optional<api::AllocationResult> ClaimTracker::PendingAllocation(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = in_flight_.find(uid);
  if (it == in_flight_.end() || !it->second.claim) return std::nullopt;
  return it->second.claim->status.allocation;
}

void ClaimTracker::SignalPendingAllocation(const std::string& uid, ClaimPtr allocated) {
  std::lock_guard lock(mu_);
  auto it = in_flight_.find(uid);
  if (it != in_flight_.end()) {
    ++it->second.sharers;
    return;
  }
  ClaimPtr known = GetLocked(allocated->metadata.namespace_ + "/" + allocated->metadata.name);
  if (known && known->metadata.uid == uid && known->status.allocation) return;
  in_flight_[uid] = InFlight{std::move(allocated), 1};
}

bool ClaimTracker::RemovePendingAllocation(const std::string& uid, bool force) {
  std::lock_guard lock(mu_);
  auto it = in_flight_.find(uid);
  if (it == in_flight_.end()) return false;
  if (force || it->second.sharers == 1) {
    in_flight_.erase(it);
    return true;
  }
  --it->second.sharers;
  return false;
}

void ClaimTracker::Assume(ClaimPtr written) {
  std::lock_guard lock(mu_);
  // Drop entries the informer has caught up with, so the map stays small.
  for (auto it = assumed_.begin(); it != assumed_.end();) {
    ClaimPtr informer = store_->Get(it->first);
    if (!informer ||
        NotOlder(informer->metadata.resource_version, it->second->metadata.resource_version)) {
      it = assumed_.erase(it);
    } else {
      ++it;
    }
  }
  assumed_[written->metadata.namespace_ + "/" + written->metadata.name] = std::move(written);
}

void ClaimTracker::Restore(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  assumed_.erase(ns + "/" + name);
}

}  // namespace berth::plugins::dynamic_resources
