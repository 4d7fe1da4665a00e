// DynamicResources: Reserve, Unreserve, PreBind and PostFilter (see dynamic_resources.h) — the
// steps that record or write allocations.

#include <algorithm>
#include <chrono>

#include "base/strings.h"
#include "plugins/dynamic_resources/plugin_impl.h"
#include "plugins/dynamic_resources/pod_claims.h"

namespace berth::plugins::dynamic_resources {

using framework::Status;

namespace {

bool HasFinalizer(const api::ResourceClaim& claim) {
  return std::find(claim.finalizers.begin(), claim.finalizers.end(),
                   api::kResourceClaimFinalizer) != claim.finalizers.end();
}

bool HasBindingConditions(const api::AllocationResult& allocation) {
  return std::any_of(allocation.devices.results.begin(), allocation.devices.results.end(),
                     [](const auto& r) { return !r.binding_conditions.empty(); });
}

// client-go's retry.DefaultRetry: 5 attempts, 10ms apart.
constexpr int kConflictAttempts = 5;
constexpr auto kConflictBackoff = std::chrono::milliseconds(10);

}  // namespace

Status DynamicResources::Reserve(framework::CycleState& state, const framework::PodInfo&,
                                 const std::string& node) const {
  CycleData* data = ReadCycleData(state);
  if (data == nullptr) return Status::Error("not found");
  if (data->claims.empty()) return {};
  size_t unallocated = 0;
  bool user_claims_to_allocate = false;
  for (size_t i = 0; i < data->claims.size(); ++i) {
    if (data->claims[i]->status.allocation) continue;
    ++unallocated;
    if (i < data->num_user_claims) user_claims_to_allocate = true;
  }
  if (unallocated == 0 || !data->allocator) return {};
  CycleData::NodeAllocation allocations;
  {
    std::lock_guard lock(data->mu);
    auto it = data->node_allocations.find(node);
    if (it != data->node_allocations.end()) allocations = it->second;
  }
  if (allocations.results.empty()) {
    // Only the extended claim, and the node serves its resources by device plugin.
    if (!user_claims_to_allocate) return {};
    return Status::Error("claim allocation not found for node");
  }
  if (allocations.results.size() != unallocated) {
    return Status::Error("internal error, have " + std::to_string(allocations.results.size()) +
                         " allocations, " + std::to_string(unallocated) +
                         " claims to allocate, want " + std::to_string(unallocated) + " claims");
  }
  size_t next = 0;
  for (size_t i = 0; i < data->claims.size(); ++i) {
    const api::ResourceClaim* claim = data->claims[i].get();
    if (claim->status.allocation) continue;
    // The extended claim: the node's variant (with its requests) is what gets allocated.
    if (i == data->num_user_claims && allocations.extended_claim) {
      claim = allocations.extended_claim.get();
    }
    const api::AllocationResult& allocation = allocations.results[next++];
    data->infos[i].allocation = allocation;
    auto allocated = std::make_shared<api::ResourceClaim>(*claim);
    if (!HasFinalizer(*allocated)) allocated->finalizers.push_back(api::kResourceClaimFinalizer);
    allocated->status.allocation = allocation;
    tracker_.SignalPendingAllocation(claim->metadata.uid, std::move(allocated));
  }
  return {};
}

void DynamicResources::Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                                 const std::string&) const {
  CycleData* data = ReadCycleData(state);
  if (data == nullptr || data->claims.empty()) return;
  for (size_t i = 0; i < data->num_user_claims; ++i) {
    const ClaimPtr& claim = data->claims[i];
    if (tracker_.RemovePendingAllocation(claim->metadata.uid, false)) {
      tracker_.Restore(claim->metadata.namespace_, claim->metadata.name);
    }
    // A reservation PreBind added for this pod is taken back; failures are only logged by the
    // writer (upstream does the same): the claim controller cleans up after deleted pods.
    if (claim->status.allocation && IsReservedForPod(pod.Pod(), *claim)) {
      // Off the scheduling thread, like every API write.
      handle_->RunAsync([writer = &handle_->api_writer(), claim, uid = pod.Uid()] {
        (void)writer->RemoveResourceClaimReservation(*claim, uid);
      });
    }
  }
  UnreserveExtendedResourceClaim(*data);
}

Result<ClaimPtr> DynamicResources::BindClaim(CycleData& data, size_t index, const api::Pod& pod,
                                             const std::string& node) const {
  ClaimPtr current = data.claims[index];
  const std::optional<api::AllocationResult>& allocation = data.infos[index].allocation;
  const bool extended = index == data.num_user_claims;
  // The node serves the pod's extended resources by device plugin: no claim needed.
  if (extended && !allocation && current->spec.devices.requests.empty()) return current;
  CycleData::NodeAllocation node_allocation;
  if (extended) {
    std::lock_guard lock(data.mu);
    auto it = data.node_allocations.find(node);
    if (it != data.node_allocations.end()) node_allocation = it->second;
  }
  if (extended && current->metadata.name == kExtendedClaimInMemName) {
    // Create the claim now (upstream's createExtendedResourceClaimInAPI), without allocation,
    // name and uid: the API server picks the name from generateName.
    if (!node_allocation.extended_claim) {
      return Error{"extended resource claim not found for node " + node, ErrorCode::kInternal};
    }
    api::ResourceClaim to_create = *node_allocation.extended_claim;
    to_create.status.allocation.reset();
    to_create.metadata.name.clear();
    to_create.metadata.uid.clear();
    auto created = handle_->api_writer().CreateResourceClaim(to_create);
    if (!created.ok()) {
      return created.status().Wrap("create claim for extended resources " +
                                   to_create.metadata.namespace_ + "/");
    }
    current = std::make_shared<const api::ResourceClaim>(std::move(*created));
    // Unreserve deletes it from now on.
    data.claims[index] = current;
  }
  const std::string ref = Ref(*current);
  api::ResourceClaimConsumerReference binding;
  binding.resource = "pods";
  binding.name = pod.metadata.name;
  binding.uid = pod.metadata.uid;
  auto& writer = handle_->api_writer();
  api::ResourceClaim claim = *current;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) {
      handle_->clock().Sleep(std::chrono::duration_cast<framework::Duration>(kConflictBackoff));
      auto fresh = writer.GetResourceClaim(claim.metadata.namespace_, claim.metadata.name);
      if (!fresh.ok()) return fresh.status().Wrap("get updated claim " + ref + " after conflict");
      claim = std::move(*fresh);
    }
    if (claim.metadata.deletion_timestamp) {
      return Error{"claim " + ref + " got deleted in the meantime", ErrorCode::kConflict};
    }
    if (allocation) {
      if (claim.status.allocation) {
        return Error{"claim " + ref + " got allocated elsewhere in the meantime",
                     ErrorCode::kConflict};
      }
      if (!HasFinalizer(claim)) {
        claim.finalizers.push_back(api::kResourceClaimFinalizer);
        auto updated = writer.SetResourceClaimFinalizers(claim);
        if (!updated.ok()) {
          if (updated.code() == ErrorCode::kConflict && attempt + 1 < kConflictAttempts) continue;
          return updated.status().Wrap("add finalizer to claim " + ref);
        }
        claim = std::move(*updated);
      }
      claim.status.allocation = allocation;
    }
    claim.status.reserved_for.push_back(binding);
    if (!claim.status.allocation) {
      return Error{"claim " + ref + " got deallocated elsewhere in the meantime",
                   ErrorCode::kConflict};
    }
    if (!claim.status.allocation->allocation_timestamp) {
      const auto now = handle_->clock().Now();
      // metav1.Time keeps whole seconds.
      claim.status.allocation->allocation_timestamp = api::Time{
          std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count() *
          1000000};
    }
    auto written = writer.UpdateResourceClaimStatus(claim);
    if (written.ok()) {
      auto stored = std::make_shared<const api::ResourceClaim>(std::move(*written));
      if (extended) {
        // A claim created just now: upstream waits (polling each second, up to 120 s) for the
        // informer to have it before assuming the written version.
        WaitForInformer(*stored);
        BERTH_RETURN_IF_ERROR(PatchPodExtendedStatus(pod, *stored, node_allocation.mappings));
      }
      tracker_.Assume(stored);
      return ClaimPtr(stored);
    }
    if (written.code() == ErrorCode::kConflict && attempt + 1 < kConflictAttempts) continue;
    return written.status().Wrap(allocation ? "add allocation and reservation to claim " + ref
                                            : "add reservation to claim " + ref);
  }
}

Status DynamicResources::PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                                 const std::string& node) const {
  CycleData* data = ReadCycleData(state);
  if (data == nullptr) return Status::Error("not found");
  if (data->claims.empty()) return {};
  std::vector<std::string> written_allocations;
  for (size_t i = 0; i < data->claims.size(); ++i) {
    if (IsReservedForPod(pod.Pod(), *data->claims[i])) continue;
    // In flight under the uid it had in Reserve (the extended claim's template uid).
    const std::string in_flight_uid = data->claims[i]->metadata.uid;
    auto claim = BindClaim(*data, i, pod.Pod(), node);
    if (!claim.ok()) return Status::Error(claim.error());
    if (data->infos[i].allocation) written_allocations.push_back(in_flight_uid);
    data->claims[i] = std::move(*claim);
  }
  // Written: the informer will show the allocation; it is no longer in flight.
  for (const auto& uid : written_allocations) tracker_.RemovePendingAllocation(uid, true);
  return WaitForBindingConditions(*data, pod.Pod(), node);
}

Result<bool> DynamicResources::ClaimReadyForBinding(const api::ResourceClaim& claim) {
  if (!claim.status.allocation) return false;
  for (const auto& result : claim.status.allocation->devices.results) {
    if (result.binding_conditions.empty()) continue;
    const api::AllocatedDeviceStatus* status = nullptr;
    for (const auto& d : claim.status.devices) {
      if (d.driver == result.driver && d.pool == result.pool && d.device == result.device) {
        status = &d;
        break;
      }
    }
    if (status == nullptr) return false;
    auto find = [&](const std::string& type) -> const api::DeviceCondition* {
      for (const auto& c : status->conditions) {
        if (c.type == type) return &c;
      }
      return nullptr;
    };
    for (const auto& type : result.binding_failure_conditions) {
      const api::DeviceCondition* c = find(type);
      if (c != nullptr && c->status == "True") {
        return Error{"device binding failed: claim=" + claim.metadata.name +
                     ", reason=" + c->reason + ", message=" + Quote(c->message)};
      }
    }
    for (const auto& type : result.binding_conditions) {
      const api::DeviceCondition* c = find(type);
      if (c == nullptr || c->status != "True") return false;
    }
  }
  return true;
}

bool DynamicResources::ClaimBindingTimedOut(const api::ResourceClaim& claim) const {
  if (!claim.status.allocation || !claim.status.allocation->allocation_timestamp) return false;
  if (!HasBindingConditions(*claim.status.allocation)) return false;
  const framework::TimePoint allocated{
      framework::Duration(claim.status.allocation->allocation_timestamp->unix_micros)};
  return allocated + args_.binding_timeout < handle_->clock().Now();
}

Status DynamicResources::WaitForBindingConditions(CycleData& data, const api::Pod& pod,
                                                  const std::string& node) const {
  if (std::none_of(data.claims.begin(), data.claims.end(), [](const ClaimPtr& c) {
        return c->status.allocation && HasBindingConditions(*c->status.allocation);
      })) {
    return {};
  }
  handle_->api_writer().RecordPodEvent(pod, "Normal", "BindingConditionsPending", "Scheduling",
                                       "waiting for binding conditions for device on node " + node);
  // Upstream polls every 5 s, first at once, for bindingTimeout, reading the claims from the
  // informer: ready when every binding condition is true, failed when a failure condition is.
  const framework::Clock& clock = handle_->clock();
  const framework::TimePoint deadline = clock.Now() + args_.binding_timeout;
  while (true) {
    bool ready = true;
    for (auto& claim : data.claims) {
      auto latest =
          handle_->objects().resource_claims.Get(claim->metadata.namespace_, claim->metadata.name);
      if (!latest) {
        return Status::Error("resourceclaim.resource.k8s.io \"" + claim->metadata.name +
                             "\" not found");
      }
      claim = latest;
      auto claim_ready = ClaimReadyForBinding(*claim);
      if (!claim_ready.ok()) return Status::Error(claim_ready.error());
      if (!*claim_ready) {
        if (ClaimBindingTimedOut(*claim)) {
          return Status::Error("device binding timeout: claim=" + claim->metadata.name);
        }
        ready = false;
        break;
      }
    }
    if (ready) return {};
    const framework::TimePoint now = clock.Now();
    if (now >= deadline) {
      return Status::Error("device binding timeout: context deadline exceeded");
    }
    if (handle_->Stopping()) {
      return Status::Error("waiting for binding conditions: scheduler is shutting down");
    }
    clock.Sleep(std::min<framework::Duration>(std::chrono::seconds(5), deadline - now));
  }
}

Status DynamicResources::PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                    const framework::NodeToStatus&,
                                    framework::PostFilterResult*) const {
  // Upstream reads its state first; without it (an earlier PreFilter ended the cycle) the read
  // fails with the CycleState's "not found".
  CycleData* data = ReadCycleData(state);
  if (data == nullptr) return Status::Error("not found");
  if (data->claims.empty()) return Status(framework::Code::kUnschedulable, std::string());
  std::set<size_t> unavailable;
  {
    std::lock_guard lock(data->mu);
    unavailable = data->unavailable;
  }
  const ClaimPtr* ext = data->ExtendedClaim();
  const bool ext_created = ext != nullptr && (*ext)->metadata.name != kExtendedClaimInMemName;
  for (size_t index : unavailable) {
    if (index == data->num_user_claims) {
      if (ext_created) break;
      continue;
    }
    const api::ResourceClaim& claim = *data->claims[index];
    const auto& reserved = claim.status.reserved_for;
    if (reserved.empty() || (reserved.size() == 1 && reserved[0].uid == pod.Uid())) {
      auto deallocated = std::make_shared<api::ResourceClaim>(claim);
      deallocated->status.reserved_for.clear();
      deallocated->status.allocation.reset();
      deallocated->status.devices.clear();
      // Upstream writes here, on the scheduling thread; berth hands the write to a binding
      // worker (no HTTP on the scheduling thread). The claim's update event then requeues the
      // pod, as upstream's does; a failed write is logged by the writer and retried by the next
      // attempt.
      handle_->RunAsync([writer = &handle_->api_writer(), deallocated] {
        (void)writer->UpdateResourceClaimStatus(*deallocated);
      });
      return Status(framework::Code::kUnschedulable, "deallocation of ResourceClaim completed");
    }
  }
  if (ext_created) {
    // The extended resource claim of an earlier cycle stands in the way: delete it (upstream
    // does so on the scheduling thread; berth on a binding worker, its deletion event then
    // requeues the pod).
    handle_->RunAsync([this, claim = *ext] { (void)DeleteClaim(*claim); });
    return Status(framework::Code::kUnschedulable, "deletion of ResourceClaim completed");
  }
  return Status(framework::Code::kUnschedulable, std::string());
}

}  // namespace berth::plugins::dynamic_resources
