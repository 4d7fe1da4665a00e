// DynamicResources: DRA-backed extended resources (DRAExtendedResource, GA in v1.37).
//
// A pod asking for an extended resource that a DeviceClass serves (spec.extendedResourceName or
// the implicit deviceclass.resource.kubernetes.io/<class>), on a node that does not advertise it,
// gets devices of that class through one generated claim:
//   PreFilter  finds the claim a previous cycle created for the pod (annotation
//              resource.kubernetes.io/extended-resource-claim=true, the pod as controller), or
//              starts from an in-memory template without requests (kExtendedClaimInMemName).
//   Filter     a claim left from a previous cycle (it has requests) fails every node, so that
//              PostFilter deletes it and the next attempt starts anew; otherwise the node's
//              variant of the claim gets one request per container and resource left to DRA
//              there (CreateRequestsAndMappings) and is allocated with the pod's other claims.
//   Reserve    the node's variant is in flight under the template's uid.
//   PreBind    creates the claim (generateName "<pod>-extended-resources-"), writes its
//              allocation and reservation like any claim, and records it in the pod's
//              status.extendedResourceClaimStatus.
//   Unreserve / PostFilter delete a claim PreBind created.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>

#include "plugins/common/dra_extended_resources.h"
#include "plugins/dynamic_resources/plugin_impl.h"
#include "plugins/dynamic_resources/pod_claims.h"
#include "scheduler/framework/pod_requests.h"

namespace berth::plugins::dynamic_resources {

using framework::Status;

namespace {

bool RequestsAnyDRAExtendedName(const api::Pod& pod) {
  auto in = [](const std::vector<api::Container>& cs) {
    for (const auto& c : cs) {
      for (const auto& [name, q] : c.resources.requests) {
        if (IsDRAExtendedResourceName(name)) return true;
      }
    }
    return false;
  };
  if (in(pod.spec.containers) || in(pod.spec.init_containers)) return true;
  for (const auto& [name, q] : pod.spec.overhead) {
    if (IsDRAExtendedResourceName(name)) return true;
  }
  return false;
}

// The extended resource claim of an earlier cycle (upstream's findExtendedResourceClaim).
const api::ResourceClaim* FindExtendedClaim(const api::Pod& pod, const api::ResourceClaim& c) {
  auto it = c.metadata.annotations.find(api::kExtendedResourceClaimAnnotation);
  if (it == c.metadata.annotations.end() || it->second != "true") return nullptr;
  for (const auto& ref : c.metadata.owner_references) {
    if (ref.name == pod.metadata.name && ref.controller && ref.uid == pod.metadata.uid) return &c;
  }
  return nullptr;
}

std::string NextTemplateUid(const api::Pod& pod) {
  static std::atomic<uint64_t> seq{0};
  return "in-memory-extended-resources-" + pod.metadata.uid + "-" + std::to_string(++seq);
}

// resource.Quantity.AsInt64 of a request: whole units only.
std::optional<int64_t> WholeUnits(const api::Quantity& q) {
  if (q.milli % 1000 != 0) return std::nullopt;
  return q.milli / 1000;
}

// upstream's createResourceRequestAndMappings for one container and resource. `reusable`: the
// requests of later long-lived containers an init container can use before asking for its own.
std::optional<api::DeviceRequest> ContainerRequest(
    size_t index, const api::Container& container, const std::string& resource,
    const std::string& class_name, const std::vector<const api::DeviceRequest*>& reusable,
    std::vector<api::ContainerExtendedResourceRequest>* mappings) {
  auto it = container.resources.requests.find(resource);
  if (it == container.resources.requests.end()) return std::nullopt;
  std::optional<int64_t> want = WholeUnits(it->second);
  if (!want || *want == 0) return std::nullopt;
  int64_t sum = 0;
  for (const api::DeviceRequest* r : reusable) {
    if (r == nullptr) continue;
    sum += r->exactly->count;
    mappings->push_back({container.name, resource, r->name});
    if (sum >= *want) return std::nullopt;
  }
  // The index of the resource among the container's requests, by name (the map is sorted).
  size_t ridx = 0;
  for (const auto& [name, q] : container.resources.requests) {
    if (name == resource) break;
    ++ridx;
  }
  api::DeviceRequest req;
  req.name = "container-" + std::to_string(index) + "-request-" + std::to_string(ridx);
  req.exactly.emplace();
  req.exactly->device_class_name = class_name;
  req.exactly->allocation_mode = api::kDeviceAllocationModeExactCount;
  req.exactly->count = *want - sum;
  mappings->push_back({container.name, resource, req.name});
  return req;
}

}  // namespace

// upstream's createRequestsAndMappings: per resource (sorted), one request per long-lived
// container (regular or sidecar) and the largest of the short-lived init containers' requests,
// which init containers share; requests sorted by name.
void CreateRequestsAndMappings(const api::Pod& pod, const std::vector<std::string>& resources,
                               const api::Store<api::DeviceClass>& classes,
                               std::vector<api::DeviceRequest>* requests,
                               std::vector<api::ContainerExtendedResourceRequest>* mappings) {
  std::vector<const api::Container*> containers;
  for (const auto& c : pod.spec.init_containers) containers.push_back(&c);
  for (const auto& c : pod.spec.containers) containers.push_back(&c);
  const size_t num_init = pod.spec.init_containers.size();
  std::vector<size_t> long_lived, short_lived;
  for (size_t i = 0; i < containers.size(); ++i) {
    const bool sidecar = containers[i]->restart_policy == "Always";
    (i < num_init && !sidecar ? short_lived : long_lived).push_back(i);
  }
  for (const auto& resource : resources) {
    auto cls = DeviceClassForExtendedResource(classes, resource);
    if (cls == nullptr) continue;
    std::vector<api::ContainerExtendedResourceRequest> short_maps, long_maps;
    std::vector<std::optional<api::DeviceRequest>> long_reqs(containers.size());
    for (size_t i : long_lived) {
      long_reqs[i] =
          ContainerRequest(i, *containers[i], resource, cls->metadata.name, {}, &long_maps);
    }
    std::optional<api::DeviceRequest> max_short;
    std::set<std::string> short_names;
    for (size_t i : short_lived) {
      std::vector<const api::DeviceRequest*> reusable;
      for (size_t j = i; j < containers.size(); ++j) {
        reusable.push_back(long_reqs[j] ? &*long_reqs[j] : nullptr);
      }
      auto req =
          ContainerRequest(i, *containers[i], resource, cls->metadata.name, reusable, &short_maps);
      if (!req) continue;
      short_names.insert(req->name);
      if (!max_short || max_short->exactly->count < req->exactly->count) max_short = *req;
    }
    if (max_short && short_names.size() > 1) {
      short_names.erase(max_short->name);
      for (auto& m : short_maps) {
        if (short_names.contains(m.request_name)) m.request_name = max_short->name;
      }
    }
    if (max_short) requests->push_back(*max_short);
    for (auto& r : long_reqs) {
      if (r) requests->push_back(std::move(*r));
    }
    mappings->insert(mappings->end(), long_maps.begin(), long_maps.end());
    mappings->insert(mappings->end(), short_maps.begin(), short_maps.end());
  }
  std::stable_sort(requests->begin(), requests->end(),
                   [](const auto& a, const auto& b) { return a.name < b.name; });
}

ClaimPtr DynamicResources::PreFilterExtendedResources(const api::Pod& pod, CycleData& data) const {
  if (!RequestsAnyDRAExtendedName(pod)) return nullptr;
  const auto& classes = handle_->objects().device_classes;
  const framework::Resource requests = framework::PodSpecRequests(pod);
  std::set<std::string> backed;
  for (const auto& [name, q] : requests.scalar) {
    if (IsDRAExtendedResourceName(name) &&
        DeviceClassForExtendedResource(classes, name) != nullptr) {
      backed.insert(name);
    }
  }
  if (!std::any_of(requests.scalar.begin(), requests.scalar.end(),
                   [&](const auto& s) { return s.second != 0 && backed.contains(s.first); })) {
    return nullptr;
  }
  data.pod_scalars = requests.scalar;
  data.dra_backed = std::move(backed);

  std::string found;
  handle_->objects().resource_claims.ForEach([&](const api::ResourceClaim& c) {
    if (found.empty() && c.metadata.namespace_ == pod.metadata.namespace_ &&
        FindExtendedClaim(pod, c) != nullptr) {
      found = c.metadata.name;
    }
  });
  if (!found.empty()) {
    if (ClaimPtr c = tracker_.Get(pod.metadata.namespace_, found)) return c;
  }
  auto claim = std::make_shared<api::ResourceClaim>();
  claim->metadata.namespace_ = pod.metadata.namespace_;
  claim->metadata.name = kExtendedClaimInMemName;
  claim->metadata.uid = NextTemplateUid(pod);
  claim->metadata.generate_name = pod.metadata.name + "-extended-resources-";
  api::OwnerReference owner;
  owner.api_version = "v1";
  owner.kind = "Pod";
  owner.name = pod.metadata.name;
  owner.uid = pod.metadata.uid;
  owner.controller = true;
  claim->metadata.owner_references.push_back(std::move(owner));
  claim->metadata.annotations[api::kExtendedResourceClaimAnnotation] = "true";
  return claim;
}

Status DynamicResources::FilterExtendedResources(
    const CycleData& data, const api::Pod& pod, const framework::NodeInfo& node_info,
    ClaimPtr* node_claim, std::vector<api::ContainerExtendedResourceRequest>* mappings) const {
  const ClaimPtr* ext = data.ExtendedClaim();
  if (ext == nullptr) return {};
  const api::ResourceClaim& claim = **ext;
  // Left from an earlier cycle: PostFilter deletes it, the next attempt starts anew.
  if (!claim.spec.devices.requests.empty()) {
    return Status::Unresolvable("cannot schedule extended resource claim");
  }
  const auto& classes = handle_->objects().device_classes;
  const framework::Resource& alloc = node_info.allocatable();
  std::vector<std::string> by_dra;
  for (const auto& [name, q] : data.pod_scalars) {
    if (q == 0 || !IsDRAExtendedResourceName(name)) continue;
    const bool advertised = std::any_of(alloc.scalar.begin(), alloc.scalar.end(),
                                        [&](const auto& s) { return s.first == name; });
    // Looked up in PreFilter, once per cycle (upstream asks its class cache per node).
    const bool backed = data.dra_backed.contains(name);
    if (backed && alloc.Scalar(name) == 0) {
      by_dra.push_back(name);
    } else if (!advertised) {
      return Status::Unresolvable("cannot fit resource");
    }
  }
  if (data.num_user_claims == 0 && by_dra.empty()) return {};
  if (claim.status.allocation) return {};
  auto variant = std::make_shared<api::ResourceClaim>(claim);
  std::sort(by_dra.begin(), by_dra.end());
  CreateRequestsAndMappings(pod, by_dra, classes, &variant->spec.devices.requests, mappings);
  *node_claim = std::move(variant);
  return {};
}

void DynamicResources::WaitForInformer(const api::ResourceClaim& claim) const {
  constexpr int kAttempts = 121;  // now, then each second for 120 s
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (attempt > 0) {
      handle_->clock().Sleep(
          std::chrono::duration_cast<framework::Duration>(std::chrono::seconds(1)));
    }
    if (handle_->objects().resource_claims.Get(claim.metadata.namespace_, claim.metadata.name)) {
      return;
    }
  }
}

Ok DynamicResources::PatchPodExtendedStatus(
    const api::Pod& pod, const api::ResourceClaim& claim,
    const std::vector<api::ContainerExtendedResourceRequest>& mappings) const {
  if (mappings.empty()) {
    return Error{"nil or empty request mappings, no update of pod " + pod.Key() +
                     " ExtendedResourceClaimStatus",
                 ErrorCode::kInternal};
  }
  api::PodExtendedResourceClaimStatus status;
  status.request_mappings = mappings;
  status.resource_claim_name = claim.metadata.name;
  Ok ok = handle_->api_writer().SetPodExtendedResourceClaimStatus(pod, status);
  if (!ok.ok()) return ok.status().Wrap("update pod " + pod.Key() + " ExtendedResourceClaimStatus");
  return {};
}

Ok DynamicResources::DeleteClaim(api::ResourceClaim claim) const {
  auto& writer = handle_->api_writer();
  const std::string ref = Ref(claim);
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) {
      handle_->clock().Sleep(
          std::chrono::duration_cast<framework::Duration>(std::chrono::milliseconds(10)));
      auto fresh = writer.GetResourceClaim(claim.metadata.namespace_, claim.metadata.name);
      if (!fresh.ok()) return fresh.status().Wrap("get resourceclaim " + ref);
      claim = std::move(*fresh);
    }
    auto it =
        std::find(claim.finalizers.begin(), claim.finalizers.end(), api::kResourceClaimFinalizer);
    if (it == claim.finalizers.end()) break;
    claim.finalizers.erase(it);
    auto updated = writer.SetResourceClaimFinalizers(claim);
    if (updated.ok()) break;
    if (updated.code() == ErrorCode::kConflict && attempt + 1 < 5) continue;
    return updated.status().Wrap("update resourceclaim " + ref);
  }
  return writer.DeleteResourceClaim(claim.metadata.namespace_, claim.metadata.name);
}

void DynamicResources::UnreserveExtendedResourceClaim(CycleData& data) const {
  const ClaimPtr* ext = data.ExtendedClaim();
  if (ext == nullptr) return;
  ClaimPtr claim = *ext;
  if (tracker_.RemovePendingAllocation(data.initial_extended_uid, false)) {
    tracker_.Restore(claim->metadata.namespace_, claim->metadata.name);
  }
  if (claim->metadata.name == kExtendedClaimInMemName) return;
  // Created by PreBind already: delete it so that it is not left behind (off the scheduling
  // thread, like every API write; failures are logged by the writer).
  handle_->RunAsync([this, claim] { (void)DeleteClaim(*claim); });
}

}  // namespace berth::plugins::dynamic_resources
