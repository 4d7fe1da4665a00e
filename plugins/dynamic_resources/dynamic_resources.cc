// DynamicResources: PreEnqueue, PreFilter, Filter and Score (see dynamic_resources.h).

#include "plugins/dynamic_resources/dynamic_resources.h"

#include <algorithm>

#include "api/selector.h"
#include "config/duration.h"
#include "plugins/dynamic_resources/plugin_impl.h"
#include "plugins/dynamic_resources/pod_claims.h"
#include "scheduler/framework/args.h"

namespace berth::plugins::dynamic_resources {

using framework::Status;

const framework::StateKey& StateKey() {
  static const framework::StateKey key(kName);
  return key;
}

CycleData* ReadCycleData(const framework::CycleState& state) {
  const auto* s = state.Read<CycleStateData>(StateKey());
  return s == nullptr ? nullptr : s->data.get();
}

Ok DynamicResources::ForEachPodClaim(const api::Pod& pod,
                                     const std::function<void(ClaimPtr)>& fn) const {
  for (const auto& pc : pod.spec.resource_claims) {
    bool must_check_owner = false;
    BERTH_ASSIGN_OR_RETURN(std::optional<std::string> name, ClaimName(pod, pc, &must_check_owner));
    if (!name) continue;  // the claim controller decided this pod needs no claim here
    ClaimPtr claim = tracker_.Get(pod.metadata.namespace_, *name);
    if (!claim) {
      return Error{"could not find ResourceClaim \"" + pod.metadata.namespace_ + "/" + *name + "\"",
                   ErrorCode::kNotFound};
    }
    if (claim->metadata.deletion_timestamp) {
      return Error{"resourceclaim \"" + claim->metadata.name + "\" is being deleted",
                   ErrorCode::kInvalid};
    }
    if (must_check_owner) BERTH_RETURN_IF_ERROR(IsForPod(pod, *claim));
    if (fn) fn(std::move(claim));
  }
  return {};
}

namespace {

bool RuleSelects(const api::DeviceTaintRule& rule, const api::ResourceSlice& slice,
                 const api::Device& device) {
  if (!rule.spec.device_selector) return false;
  const auto& sel = *rule.spec.device_selector;
  return (!sel.driver || *sel.driver == slice.spec.driver) &&
         (!sel.pool || *sel.pool == slice.spec.pool.name) &&
         (!sel.device || *sel.device == device.name);
}

// Upstream's ListWithDeviceTaintRules: the slices with each DeviceTaintRule's taint added to the
// devices it selects (copies only of the slices a rule touches).
std::vector<std::shared_ptr<const api::ResourceSlice>> WithDeviceTaintRules(
    std::vector<std::shared_ptr<const api::ResourceSlice>> slices,
    const std::vector<std::shared_ptr<const api::DeviceTaintRule>>& rules) {
  if (rules.empty()) return slices;
  for (auto& slice : slices) {
    std::shared_ptr<api::ResourceSlice> patched;
    for (size_t d = 0; d < slice->spec.devices.size(); ++d) {
      for (const auto& rule : rules) {
        if (!RuleSelects(*rule, *slice, slice->spec.devices[d])) continue;
        if (!patched) patched = std::make_shared<api::ResourceSlice>(*slice);
        patched->spec.devices[d].taints.push_back(rule->spec.taint);
      }
    }
    if (patched) slice = std::move(patched);
  }
  return slices;
}

}  // namespace

Status DynamicResources::PreEnqueue(const framework::PodInfo& pod) const {
  Ok ok = ForEachPodClaim(pod.Pod(), nullptr);
  if (!ok.ok()) return Status::Unresolvable(ok.error());
  return {};
}

Status DynamicResources::PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                   const std::vector<const framework::NodeInfo*>&,
                                   framework::PreFilterResult*) const {
  // Upstream writes its state before looking at the claims: PostFilter then finds it even when
  // PreFilter rejects the pod.
  auto data = std::make_shared<CycleData>();
  {
    auto s = std::make_unique<CycleStateData>();
    s->data = data;
    state.Write(StateKey(), std::move(s));
  }
  const api::Pod& p = pod.Pod();
  std::vector<ClaimPtr> claims;
  Ok ok = ForEachPodClaim(p, [&](ClaimPtr c) { claims.push_back(std::move(c)); });
  if (!ok.ok()) return Status::Unresolvable(ok.error());
  data->num_user_claims = claims.size();
  ClaimPtr extended = PreFilterExtendedResources(p, *data);
  if (extended) {
    data->initial_extended_uid = extended->metadata.uid;
    claims.push_back(extended);
  }
  if (claims.empty()) return Status::Skip();

  const auto& objects = handle_->objects();
  auto class_exists = [&](const std::string& name, const std::string& request) -> Status {
    if (name.empty()) return Status::Error("request " + request + ": unsupported request type");
    if (!objects.device_classes.Get(name)) {
      return Status::Unresolvable("request " + request + ": device class " + name +
                                  " does not exist");
    }
    return {};
  };
  size_t to_allocate = 0;
  data->infos.resize(claims.size());
  for (size_t i = 0; i < claims.size(); ++i) {
    const api::ResourceClaim& claim = *claims[i];
    if (claim.status.allocation) {
      data->infos[i].available_on_nodes = claim.status.allocation->node_selector;
      continue;
    }
    ++to_allocate;
    if (tracker_.PendingAllocation(claim.metadata.uid)) {
      return Status::Unresolvable("resource claim " + Ref(claim) +
                                  " is in the process of being allocated");
    }
    // The extended resource claim is checked in Filter (its template has no requests yet).
    if (i == data->num_user_claims) continue;
    for (const auto& request : claim.spec.devices.requests) {
      if (request.exactly) {
        Status s = class_exists(request.exactly->device_class_name, request.name);
        if (!s.IsSuccess()) return s;
      } else if (!request.first_available.empty()) {
        for (const auto& sub : request.first_available) {
          Status s = class_exists(sub.device_class_name, request.name + "/" + sub.name);
          if (!s.IsSuccess()) return s;
        }
      } else {
        return Status::Unresolvable("resource claim " + Ref(claim) + ", request " + request.name +
                                    ": unknown request type");
      }
    }
  }
  if (to_allocate > 0) {
    data->slices =
        WithDeviceTaintRules(objects.resource_slices.List(), objects.device_taint_rules.List());
    selectors_.Retain(data->slices);
    std::vector<const api::ResourceSlice*> slices;
    slices.reserve(data->slices.size());
    for (const auto& s : data->slices) slices.push_back(s.get());
    for (const auto& c : objects.device_classes.List()) data->classes[c->metadata.name] = c;
    CycleData* raw = data.get();
    data->allocator = std::make_unique<structured::Allocator>(
        structured::Features{}, tracker_.AllocatedDevices(),
        [raw](const std::string& name) -> const api::DeviceClass* {
          auto it = raw->classes.find(name);
          return it == raw->classes.end() ? nullptr : it->second.get();
        },
        std::move(slices), &selectors_);
  }
  data->claims = std::move(claims);
  return {};
}

Status DynamicResources::Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                                const framework::NodeInfo& node_info) const {
  CycleData* data = ReadCycleData(state);
  if (data == nullptr) return Status::Error("not found");
  if (data->claims.empty()) return {};
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");

  ClaimPtr node_extended_claim;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
  Status ext =
      FilterExtendedResources(*data, pod.Pod(), node_info, &node_extended_claim, &mappings);
  if (!ext.IsSuccess()) return ext;
  // Only extended resources, all advertised by the node (device plugin): nothing to do here.
  if (!node_extended_claim && data->num_user_claims == 0) return {};

  std::vector<size_t> unavailable;
  for (size_t i = 0; i < data->claims.size(); ++i) {
    const auto& selector = data->infos[i].available_on_nodes;
    if (selector && !api::Matches(*selector, node->metadata.labels, node->metadata.name)) {
      unavailable.push_back(i);
      continue;
    }
    // An allocated claim whose binding conditions failed or timed out: PostFilter may
    // deallocate it so that other devices get a chance.
    const api::ResourceClaim& claim = *data->claims[i];
    if (claim.status.allocation) {
      auto ready = ClaimReadyForBinding(claim);
      if (!ready.ok() || (!*ready && ClaimBindingTimedOut(claim))) unavailable.push_back(i);
    }
  }
  std::vector<api::AllocationResult> allocations;
  if (data->allocator) {
    std::vector<const api::ResourceClaim*> to_allocate;
    std::vector<api::AllocationResult> pending;
    for (size_t i = 0; i < data->claims.size(); ++i) {
      if (data->claims[i]->status.allocation) continue;
      if (data->infos[i].allocation) {
        pending.push_back(*data->infos[i].allocation);
        continue;
      }
      // The extended claim as this node needs it.
      if (i == data->num_user_claims && node_extended_claim) {
        to_allocate.push_back(node_extended_claim.get());
        continue;
      }
      to_allocate.push_back(data->claims[i].get());
    }
    // The search, CEL selectors included, stops at the node's filter deadline and at shutdown.
    structured::Interruption stop;
    if (args_.filter_timeout.count() > 0) {
      stop.deadline = std::chrono::steady_clock::now() + args_.filter_timeout;
    }
    stop.stopping = [handle = handle_] { return handle->Stopping(); };
    auto outcome = data->allocator->Allocate(*node, to_allocate, stop);
    if (!outcome.ok()) return Status::Error(outcome.error());
    // Potentially transient: an error, so the pod retries with backoff (as upstream).
    if (outcome->timed_out) {
      return Status::Error("node " + node->metadata.name +
                           ": timed out trying to allocate devices");
    }
    if (outcome->stopped) {
      return Status::Unschedulable("asked by caller to stop allocating devices: context canceled");
    }
    if (outcome->failed_on_node) return Status::Unresolvable(*outcome->failed_on_node);
    if (!outcome->allocated || outcome->results.size() != to_allocate.size()) {
      return Status::Unresolvable("cannot allocate all claims");
    }
    allocations = std::move(outcome->results);
    for (auto& p : pending) allocations.push_back(std::move(p));
  }
  std::lock_guard lock(data->mu);
  if (!unavailable.empty()) {
    data->unavailable.insert(unavailable.begin(), unavailable.end());
    return Status::Unresolvable("resourceclaim not available on the node");
  }
  if (data->allocator) {
    auto& entry = data->node_allocations[node->metadata.name];
    entry.results = std::move(allocations);
    entry.extended_claim = std::move(node_extended_claim);
    entry.mappings = std::move(mappings);
  }
  return {};
}

namespace {

// Upstream's computeScore: per claim, each used subrequest of a firstAvailable list scores
// (8 - its position); allocated claims count with their allocation.
Result<int64_t> ComputeScore(const CycleData& data,
                             const std::vector<api::AllocationResult>& node_allocations) {
  constexpr int64_t kFirstAvailableMax = 8;  // resourceapi.FirstAvailableDeviceRequestMaxSize
  int64_t score = 0;
  size_t next = 0;
  for (const auto& claim : data.claims) {
    const api::AllocationResult* allocation = nullptr;
    if (claim->status.allocation) {
      allocation = &*claim->status.allocation;
    } else {
      if (next >= node_allocations.size()) {
        return Error{"number of allocations " + std::to_string(node_allocations.size()) +
                         " is smaller than number of claims needing allocation",
                     ErrorCode::kInternal};
      }
      allocation = &node_allocations[next++];
    }
    std::set<std::string> used;
    for (const auto& r : allocation->devices.results) {
      if (std::count(r.request.begin(), r.request.end(), '/') == 1) used.insert(r.request);
    }
    for (const auto& req : claim->spec.devices.requests) {
      if (req.exactly) continue;
      for (size_t i = 0; i < req.first_available.size(); ++i) {
        if (used.contains(req.name + "/" + req.first_available[i].name)) {
          score += kFirstAvailableMax - static_cast<int64_t>(i);
        }
      }
    }
  }
  return score;
}

bool UsesPrioritizedList(const CycleData& data) {
  return std::any_of(data.claims.begin(), data.claims.end(), [](const ClaimPtr& c) {
    return std::any_of(c->spec.devices.requests.begin(), c->spec.devices.requests.end(),
                       [](const auto& r) { return !r.first_available.empty(); });
  });
}

}  // namespace

std::optional<int64_t> DynamicResources::UniformScore(const framework::CycleState& state,
                                                      const framework::PodInfo&) const {
  const CycleData* data = ReadCycleData(state);
  // Without firstAvailable requests every node scores 0, and normalising zeros keeps zeros.
  if (data == nullptr || !UsesPrioritizedList(*data)) return 0;
  return std::nullopt;
}

Status DynamicResources::Score(const framework::CycleState& state, const framework::PodInfo&,
                               const framework::NodeInfo& node, int64_t* score) const {
  *score = 0;
  CycleData* data = ReadCycleData(state);
  if (data == nullptr) return Status::Error("not found");
  if (data->claims.empty()) return {};
  // Scored under the lock from the node's allocations in place (no copy per node).
  std::lock_guard lock(data->mu);
  auto it = data->node_allocations.find(node.name());
  if (it == data->node_allocations.end()) return {};
  auto s = ComputeScore(*data, it->second.results);
  if (!s.ok()) return Status::Error(s.error());
  *score = *s;
  return {};
}

// Upstream's DefaultNormalizeScore(MaxNodeScore, reverse=false).
Status DynamicResources::NormalizeScore(const framework::CycleState&, const framework::PodInfo&,
                                        framework::NodeScoreList& scores) const {
  int64_t max = 0;
  for (const auto& s : scores) max = std::max(max, s.score);
  if (max == 0) return {};
  for (auto& s : scores) s.score = framework::kMaxNodeScore * s.score / max;
  return {};
}

namespace {

// A metav1.Duration field of DynamicResourcesArgs, kept when absent.
Ok ReadDuration(const api::Reader& r, std::string_view key, std::chrono::nanoseconds* out,
                std::optional<std::string>* text) {
  BERTH_RETURN_IF_ERROR(r.OptString(key, text));
  if (!*text) return Ok();
  auto d = config::ParseGoDuration(**text);
  if (!d.ok()) return Error{r.PathOf(key) + ": " + d.error()};
  *out = *d;
  return Ok();
}

}  // namespace

// DynamicResourcesArgs (upstream's SetDefaults_ and ValidateDynamicResourcesArgs, with
// DRASchedulerFilterTimeout, DRADeviceBindingConditions and DRAResourceClaimDeviceStatus on).
Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_ASSIGN_OR_RETURN(api::Reader r, framework::ReadArgs(ctx.args, ctx.args_path));
  DynamicResources::Args args;
  std::optional<std::string> filter_text, binding_text;
  std::chrono::nanoseconds binding = args.binding_timeout;
  BERTH_RETURN_IF_ERROR(ReadDuration(r, "filterTimeout", &args.filter_timeout, &filter_text));
  BERTH_RETURN_IF_ERROR(ReadDuration(r, "bindingTimeout", &binding, &binding_text));
  BERTH_RETURN_IF_ERROR(r.Done());
  if (args.filter_timeout.count() < 0) {
    return Error{r.PathOf("filterTimeout") + ": Invalid value: \"" + *filter_text +
                 "\": must be zero or positive"};
  }
  if (binding < std::chrono::seconds(1)) {
    return Error{r.PathOf("bindingTimeout") + ": Invalid value: \"" + *binding_text +
                 "\": must be at least 1 second"};
  }
  args.binding_timeout = std::chrono::duration_cast<framework::Duration>(binding);
  if (ctx.handle == nullptr) {
    return Error{"DynamicResources needs a framework handle", ErrorCode::kInternal};
  }
  return std::shared_ptr<framework::Plugin>(std::make_shared<DynamicResources>(ctx.handle, args));
}

}  // namespace berth::plugins::dynamic_resources
