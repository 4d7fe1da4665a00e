#include "scheduler/framework/pod_requests.h"

#include <initializer_list>

#include "base/saturating.h"

namespace berth::framework {
namespace {

using List = api::ResourceList;

void AddList(List& to, const List* from) {
  if (from == nullptr) return;
  for (const auto& [name, q] : *from) to[name].milli = SatAdd(to[name].milli, q.milli);
}

// Raises every resource of `to` to at least its amount in `from` (upstream's maxResourceList).
void MaxList(List& to, const List* from) {
  if (from == nullptr) return;
  for (const auto& [name, q] : *from) {
    auto it = to.find(name);
    if (it == to.end() || q.milli > it->second.milli) to[name] = q;
  }
}

List MaxOf(const List* first, std::initializer_list<const List*> rest) {
  List out = first != nullptr ? *first : List{};
  for (const List* l : rest) MaxList(out, l);
  return out;
}

const List* OptPtr(const std::optional<List>& l) { return l ? &*l : nullptr; }

const api::ContainerStatus* FindStatus(const api::Pod& pod, const std::string& name) {
  for (const auto& cs : pod.status.container_statuses) {
    if (cs.name == name) return &cs;
  }
  for (const auto& cs : pod.status.init_container_statuses) {
    if (cs.name == name) return &cs;
  }
  return nullptr;
}

// Which list a container contributes; nullptr is Go's nil (nothing).
enum class Source { kSpec, kAllocated, kActuated, kSpecLimits };

const List* ContainerList(Source source, const api::Container& c, const api::ContainerStatus* cs,
                          bool infeasible) {
  switch (source) {
    case Source::kSpec:
      return &c.resources.requests;
    case Source::kSpecLimits:
      return &c.resources.limits;
    case Source::kActuated:
      if (cs != nullptr && cs->resources_requests) return &*cs->resources_requests;
      [[fallthrough]];
    case Source::kAllocated:
      if (cs != nullptr && cs->allocated_resources) return &*cs->allocated_resources;
      return infeasible ? nullptr : &c.resources.requests;
  }
  return nullptr;
}

// A copy of `list` with every resource of `defaults` it lacks added (upstream's applyNonMissing).
List ApplyNonMissing(const List* list, const List& defaults) {
  List out = list != nullptr ? *list : List{};
  for (const auto& [name, q] : defaults) {
    if (list == nullptr || !list->contains(name))
      out[name].milli = SatAdd(out[name].milli, q.milli);
  }
  return out;
}

// Upstream's aggregateContainerResourcesByFn (the KEP-753 sidecar formula).
List Aggregate(const api::Pod& pod, const PodRequestsOptions& opts, Source source) {
  const bool infeasible = opts.use_status_resources && IsPodResizeInfeasible(pod);
  // The container's list, or its copy with the defaults in `scratch` (null: nothing).
  auto contribution = [&](const api::Container& c, List* scratch) -> const List* {
    const api::ContainerStatus* cs = opts.use_status_resources ? FindStatus(pod, c.name) : nullptr;
    const List* l = ContainerList(source, c, cs, infeasible);
    if (opts.non_missing_container_requests != nullptr &&
        !opts.non_missing_container_requests->empty()) {
      *scratch = ApplyNonMissing(l, *opts.non_missing_container_requests);
      return scratch;
    }
    return l;
  };
  List result;
  List scratch;
  for (const auto& c : pod.spec.containers) AddList(result, contribution(c, &scratch));
  List restartable;  // sidecars started so far
  List init_max;
  for (const auto& c : pod.spec.init_containers) {
    const List* from = contribution(c, &scratch);
    List l = from != nullptr ? *from : List{};
    if (c.restart_policy == "Always") {
      AddList(result, &l);
      AddList(restartable, &l);
      l = restartable;
    } else {
      AddList(l, &restartable);
    }
    MaxList(init_max, &l);
  }
  MaxList(result, &init_max);
  return result;
}

bool HasContainerStatusResources(const api::Pod& pod) {
  for (const auto* list : {&pod.status.container_statuses, &pod.status.init_container_statuses}) {
    for (const auto& cs : *list) {
      if (cs.allocated_resources || cs.resources_requests) return true;
    }
  }
  return false;
}

// Upstream's AggregateContainerRequests.
List AggregateContainerRequests(const api::Pod& pod, const PodRequestsOptions& opts) {
  if (!opts.use_status_resources) return Aggregate(pod, opts, Source::kSpec);
  const bool infeasible = IsPodResizeInfeasible(pod);
  const auto& st = pod.status;
  const bool pod_level_status = opts.in_place_pod_level_resize && st.allocated_resources &&
                                st.resources && st.resources->requests;
  // Without any status resources (every pod not yet running) the allocated and actuated sums are
  // the spec's, and the max of three equal lists is the spec's: aggregate once.
  if (!infeasible && !pod_level_status && !HasContainerStatusResources(pod)) {
    return Aggregate(pod, opts, Source::kSpec);
  }
  const List spec = Aggregate(pod, opts, Source::kSpec);
  List allocated, actuated;
  if (pod_level_status) {
    // The kubelet's pod-level status already aggregates every container.
    allocated = *st.allocated_resources;
    actuated = *st.resources->requests;
  } else {
    allocated = Aggregate(pod, opts, Source::kAllocated);
    actuated = Aggregate(pod, opts, Source::kActuated);
  }
  if (infeasible) return MaxOf(&actuated, {&allocated});
  return MaxOf(&spec, {&actuated, &allocated});
}

PodRequestsOptions SchedulerDefaults() {
  PodRequestsOptions opts;
  opts.use_status_resources = true;
  opts.in_place_pod_level_resize = true;
  return opts;
}

}  // namespace

bool IsSupportedPodLevelResource(std::string_view name) {
  return name == api::kResourceCPU || name == api::kResourceMemory || IsHugePageResourceName(name);
}

bool IsPodLevelRequestsSet(const api::Pod& pod) {
  for (const auto& [name, q] : pod.spec.resources.requests) {
    if (IsSupportedPodLevelResource(name)) return true;
  }
  return false;
}

bool IsPodResizeInfeasible(const api::Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == "PodResizePending") return c.reason == "Infeasible";
  }
  return false;
}

List PodRequestList(const api::Pod& pod, const PodRequestsOptions& opts) {
  List reqs = AggregateContainerRequests(pod, opts);
  if (!opts.skip_pod_level_resources && IsPodLevelRequestsSet(pod)) {
    const List* spec = &pod.spec.resources.requests;
    List effective;
    if (opts.in_place_pod_level_resize && opts.use_status_resources && pod.status.resources) {
      // upstream's effectivePodLevelResources
      effective =
          MaxOf(IsPodResizeInfeasible(pod) ? nullptr : spec,
                {OptPtr(pod.status.resources->requests), OptPtr(pod.status.allocated_resources)});
      spec = &effective;
    }
    for (const auto& [name, q] : *spec) {
      if (IsSupportedPodLevelResource(name)) reqs[name] = q;
    }
  }
  if (!opts.exclude_overhead) AddList(reqs, &pod.spec.overhead);
  return reqs;
}

List PodLimitList(const api::Pod& pod) {
  PodRequestsOptions opts;
  List limits = Aggregate(pod, opts, Source::kSpecLimits);
  // Pod-level limits (upstream's IsPodLevelResourcesSet: requests or limits name a supported
  // resource) replace the container sum for the supported resources they name.
  bool pod_level = IsPodLevelRequestsSet(pod);
  for (const auto& [name, q] : pod.spec.resources.limits) {
    pod_level = pod_level || IsSupportedPodLevelResource(name);
  }
  if (pod_level) {
    for (const auto& [name, q] : pod.spec.resources.limits) {
      if (IsSupportedPodLevelResource(name)) limits[name] = q;
    }
  }
  // Overhead raises only the limits that are set (a missing limit stays unlimited).
  for (const auto& [name, q] : pod.spec.overhead) {
    auto it = limits.find(name);
    if (it != limits.end() && it->second.milli != 0) {
      it->second.milli = SatAdd(it->second.milli, q.milli);
    }
  }
  return limits;
}

PodResource CalculatePodResource(const api::Pod& pod) {
  PodRequestsOptions opts = SchedulerDefaults();
  const List requests = PodRequestList(pod, opts);
  // Upstream's getNonMissingContainerRequests: with pod-level requests set, a default only for
  // what the (pod-level-replaced) requests still lack.
  List non_missing;
  const bool pod_level = IsPodLevelRequestsSet(pod);
  if (!pod_level || !requests.contains(api::kResourceCPU)) {
    non_missing[api::kResourceCPU] = api::Quantity::FromMilli(kDefaultMilliCPURequest);
  }
  if (!pod_level || !requests.contains(api::kResourceMemory)) {
    non_missing[api::kResourceMemory] = api::Quantity::FromValue(kDefaultMemoryRequest);
  }
  PodResource out;
  out.requests = Resource::FromList(requests);
  const List* non_zero = &requests;
  List with_defaults;
  if (!non_missing.empty()) {
    opts.non_missing_container_requests = &non_missing;
    with_defaults = PodRequestList(pod, opts);
    non_zero = &with_defaults;
  }
  auto cpu = non_zero->find(api::kResourceCPU);
  out.non_zero_cpu = cpu == non_zero->end() ? 0 : cpu->second.MilliValue();
  auto mem = non_zero->find(api::kResourceMemory);
  out.non_zero_memory = mem == non_zero->end() ? 0 : mem->second.Value();
  return out;
}

Resource PodRequests(const api::Pod& pod) {
  return Resource::FromList(PodRequestList(pod, SchedulerDefaults()));
}

bool PodRequestsScaledDown(const api::Pod& old_pod, const api::Pod& new_pod) {
  const List before = PodRequestList(old_pod, SchedulerDefaults());
  const List after = PodRequestList(new_pod, SchedulerDefaults());
  for (const auto& [name, q] : before) {
    auto it = after.find(name);
    if (it == after.end() || q.MilliValue() > it->second.MilliValue()) return true;
  }
  return false;
}

Resource PodSpecRequests(const api::Pod& pod) {
  return Resource::FromList(PodRequestList(pod, PodRequestsOptions{}));
}

List FitScorerRequestList(const api::Pod& pod) {
  static const List* const kDefaults =
      new List{{api::kResourceCPU, api::Quantity::FromMilli(kDefaultMilliCPURequest)},
               {api::kResourceMemory, api::Quantity::FromValue(kDefaultMemoryRequest)}};
  PodRequestsOptions opts;
  opts.skip_pod_level_resources = true;
  opts.non_missing_container_requests = kDefaults;
  return PodRequestList(pod, opts);
}

bool ScorerRequestsDifferFromCache(const api::Pod& pod) {
  if (IsPodLevelRequestsSet(pod) || pod.status.allocated_resources || pod.status.resources) {
    return true;
  }
  auto has_status = [](const std::vector<api::ContainerStatus>& statuses) {
    for (const auto& s : statuses) {
      if (s.allocated_resources || s.resources_requests) return true;
    }
    return false;
  };
  return has_status(pod.status.container_statuses) ||
         has_status(pod.status.init_container_statuses);
}

}  // namespace berth::framework
