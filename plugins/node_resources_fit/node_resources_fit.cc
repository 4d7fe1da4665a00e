#include "plugins/node_resources_fit/node_resources_fit.h"

#include <array>
#include <set>
#include <string>
#include <vector>

#include "plugins/common/dra_extended_resources.h"
#include "plugins/node_resources_fit/args.h"
#include "plugins/node_resources_fit/explain.h"
#include "plugins/node_resources_fit/scoring.h"
#include "plugins/node_resources_fit/state.h"
#include "scheduler/framework/explain.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/pod_requests.h"
#include "scheduler/framework/resource.h"

namespace berth::plugins::node_resources_fit {

const framework::StateKey& PreFilterKey() {
  static const framework::StateKey key("PreFilterNodeResourcesFit");
  return key;
}

namespace {

using framework::Code;
using framework::Status;

const framework::StateKey& PreScoreKey() {
  static const framework::StateKey key("PreScoreNodeResourcesFit");
  return key;
}

struct PreScoreState final : framework::StateData {
  std::vector<int64_t> pod_requests;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

// v1helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io that is not a
// quota "requests." name. Only these can be ignored.
bool IsExtendedResourceName(std::string_view name) {
  if (name.find('/') == std::string_view::npos) return false;
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;
  return !name.starts_with("requests.");
}

// The DeviceClasses, for DRA-backed extended resources; null without a framework handle
// (upstream without a DRA manager: nothing is delegated).
using Classes = const api::Store<api::DeviceClass>*;

bool BackedByDRA(Classes classes, const std::string& name) {
  return classes != nullptr && DeviceClassForExtendedResource(*classes, name) != nullptr;
}

// Fit of `req` onto a node with `alloc` and nothing requested (the hints' isFit); resources
// left to DynamicResources there do not count.
bool FitsEmptyNode(const framework::Resource& req, const framework::Resource& alloc,
                   Classes classes) {
  if (alloc.allowed_pod_number < 1) return false;
  if (req.milli_cpu > 0 && req.milli_cpu > alloc.milli_cpu) return false;
  if (req.memory > 0 && req.memory > alloc.memory) return false;
  if (req.ephemeral_storage > 0 && req.ephemeral_storage > alloc.ephemeral_storage) return false;
  for (const auto& [name, q] : req.scalar) {
    if (alloc.Scalar(name) <= 0 && BackedByDRA(classes, name)) continue;
    if (q != 0 && q > alloc.Scalar(name)) return false;
  }
  return true;
}

template <typename T>
const T* As(const framework::EventObject& o) {
  const T* const* p = std::get_if<const T*>(&o);
  return p != nullptr ? *p : nullptr;
}

// Upstream's isSchedulableAfterAssignedPodDelete / isSchedulableAfterTargetPodScaleDown /
// isSchedulableAfterAssignedPodScaleDown (InPlacePodVerticalScaling is GA): requests compared
// with in-place resize and pod-level resources counted (framework::PodRequests).
framework::QueueingHint HintAfterPodEvent(const api::Pod& pod,
                                          const framework::EventObject& old_obj,
                                          const framework::EventObject& new_obj) {
  const api::Pod* original = As<api::Pod>(old_obj);
  const api::Pod* modified = As<api::Pod>(new_obj);
  if (modified == nullptr) {
    if (original == nullptr) return framework::QueueingHint::kQueue;
    // A deleted pod that held nothing frees nothing.
    if (original->spec.node_name.empty() && original->status.nominated_node_name.empty()) {
      return framework::QueueingHint::kQueueSkip;
    }
    return framework::QueueingHint::kQueue;
  }
  if (modified->metadata.uid == pod.metadata.uid) return framework::QueueingHint::kQueue;
  if (modified->spec.node_name.empty() || original == nullptr) {
    return framework::QueueingHint::kQueueSkip;
  }
  const framework::Resource before = framework::PodRequests(*original);
  const framework::Resource after = framework::PodRequests(*modified);
  const framework::Resource wanted = framework::PodRequests(pod);
  if (wanted.milli_cpu > 0 && before.milli_cpu > after.milli_cpu)
    return framework::QueueingHint::kQueue;
  if (wanted.memory > 0 && before.memory > after.memory) return framework::QueueingHint::kQueue;
  if (wanted.ephemeral_storage > 0 && before.ephemeral_storage > after.ephemeral_storage) {
    return framework::QueueingHint::kQueue;
  }
  for (const auto& [name, q] : wanted.scalar) {
    if (q > 0 && before.Scalar(name) > after.Scalar(name)) return framework::QueueingHint::kQueue;
  }
  return framework::QueueingHint::kQueueSkip;
}

// Upstream's isSchedulableAfterNodeChange.
framework::QueueingHint HintAfterNodeChange(Classes classes, const api::Pod& pod,
                                            const framework::EventObject& old_obj,
                                            const framework::EventObject& new_obj) {
  const api::Node* original = As<api::Node>(old_obj);
  const api::Node* modified = As<api::Node>(new_obj);
  if (modified == nullptr) return framework::QueueingHint::kQueue;
  // isFit and haveAnyRequestedResourcesIncreased use computePodResourceRequest (spec only).
  const framework::Resource req = framework::PodSpecRequests(pod);
  const framework::Resource now = framework::Resource::FromList(modified->status.allocatable);
  if (!FitsEmptyNode(req, now, classes)) return framework::QueueingHint::kQueueSkip;
  if (original == nullptr) return framework::QueueingHint::kQueue;
  const framework::Resource before = framework::Resource::FromList(original->status.allocatable);
  if (now.allowed_pod_number > before.allowed_pod_number) return framework::QueueingHint::kQueue;
  if (req.milli_cpu == 0 && req.memory == 0 && req.ephemeral_storage == 0 && req.scalar.empty()) {
    return framework::QueueingHint::kQueueSkip;
  }
  if ((req.milli_cpu > 0 && now.milli_cpu > before.milli_cpu) ||
      (req.memory > 0 && now.memory > before.memory) ||
      (req.ephemeral_storage > 0 && now.ephemeral_storage > before.ephemeral_storage)) {
    return framework::QueueingHint::kQueue;
  }
  for (const auto& [name, q] : req.scalar) {
    if (q == 0) continue;
    if (now.Scalar(name) > before.Scalar(name)) return framework::QueueingHint::kQueue;
    if (now.Scalar(name) <= 0 && BackedByDRA(classes, name)) return framework::QueueingHint::kQueue;
  }
  return framework::QueueingHint::kQueueSkip;
}

// Upstream's isSchedulableAfterDeviceClassEvent: a class added or changed may now serve one of
// the pod's extended resources.
framework::QueueingHint HintAfterDeviceClassEvent(const api::Pod& pod,
                                                  const framework::EventObject& old_obj,
                                                  const framework::EventObject& new_obj) {
  const api::DeviceClass* original = As<api::DeviceClass>(old_obj);
  const api::DeviceClass* modified = As<api::DeviceClass>(new_obj);
  if (modified == nullptr) return framework::QueueingHint::kQueue;
  const framework::Resource req = framework::PodSpecRequests(pod);
  auto requested = [&](const std::string& name) {
    for (const auto& [n, q] : req.scalar) {
      if (n == name) return true;
    }
    return false;
  };
  if (original != nullptr) {
    if (original->spec.extended_resource_name.value_or("") ==
        modified->spec.extended_resource_name.value_or("")) {
      return framework::QueueingHint::kQueueSkip;
    }
  } else if (requested(std::string(kDeviceClassResourcePrefix) + modified->metadata.name)) {
    return framework::QueueingHint::kQueue;
  }
  if (modified->spec.extended_resource_name && requested(*modified->spec.extended_resource_name)) {
    return framework::QueueingHint::kQueue;
  }
  return framework::QueueingHint::kQueueSkip;
}

class Fit final : public framework::PreFilterPlugin,
                  public framework::FilterPlugin,
                  public framework::PreScorePlugin,
                  public framework::ScorePlugin,
                  public framework::EnqueueExtensions,
                  public framework::FilterExplainer {
 public:
  Fit(FitArgs args, Classes classes)
      : classes_(classes),
        ignored_resources_(args.ignored_resources.begin(), args.ignored_resources.end()),
        ignored_groups_(args.ignored_resource_groups.begin(), args.ignored_resource_groups.end()),
        scorer_(args.strategy, args.resources, args.shape) {}

  std::string_view Name() const override { return kName; }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                   const std::vector<const framework::NodeInfo*>&,
                   framework::PreFilterResult*) const override {
    auto s = std::make_unique<PreFilterState>();
    // Upstream's computePodResourceRequest: the spec's requests (pod level included), not the
    // status resources the cache counts for a running pod.
    const framework::Resource r = framework::PodSpecRequests(pod.Pod());
    s->milli_cpu = r.milli_cpu;
    s->memory = r.memory;
    s->ephemeral_storage = r.ephemeral_storage;
    s->requests_nothing =
        r.milli_cpu == 0 && r.memory == 0 && r.ephemeral_storage == 0 && r.scalar.empty();
    for (const auto& [name, q] : r.scalar) {
      if (q == 0 || Ignored(name)) continue;
      s->scalars.push_back({name, q, "Insufficient " + name, BackedByDRA(classes_, name)});
    }
    state.Write(PreFilterKey(), std::move(s));
    return Status();
  }

  Status Filter(const framework::CycleState& state, const framework::PodInfo&,
                const framework::NodeInfo& node) const override {
    const auto* s = state.Read<PreFilterState>(PreFilterKey());
    if (s == nullptr) {
      return Status::Error(
          "error reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
    }
    const framework::Resource& alloc = node.allocatable();
    const framework::Resource& used = node.requested();
    const bool too_many_pods =
        static_cast<int64_t>(node.pods().size()) + 1 > alloc.allowed_pod_number;
    if (s->requests_nothing && !too_many_pods) return Status();

    const bool cpu = s->milli_cpu > 0 && s->milli_cpu > alloc.milli_cpu - used.milli_cpu;
    const bool mem = s->memory > 0 && s->memory > alloc.memory - used.memory;
    const bool eph = s->ephemeral_storage > 0 &&
                     s->ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage;
    bool scalar_fails = false;
    for (const auto& sr : s->scalars) {
      if (DelegatedToDRA(sr, alloc)) continue;
      if (sr.quantity > alloc.Scalar(sr.name) - used.Scalar(sr.name)) {
        scalar_fails = true;
        break;
      }
    }
    if (!too_many_pods && !cpu && !mem && !eph && !scalar_fails) return Status();
    // cpu, mem and eph are false for a pod that requests nothing (its requests are all 0).
    bool unresolvable = (cpu && s->milli_cpu > alloc.milli_cpu) ||
                        (mem && s->memory > alloc.memory) ||
                        (eph && s->ephemeral_storage > alloc.ephemeral_storage);
    // The usual rejections: one shared Status per combination of the fixed reasons, in upstream's
    // order, so that rejecting a node allocates nothing.
    static const std::array<Status, 32> kCommon = [] {
      std::array<Status, 32> table;
      for (int bits = 1; bits < 32; ++bits) {
        std::vector<std::string> reasons;
        if (bits & 1) reasons.emplace_back(kErrReasonTooManyPods);
        if (bits & 2) reasons.emplace_back(kErrReasonInsufficientCPU);
        if (bits & 4) reasons.emplace_back(kErrReasonInsufficientMemory);
        if (bits & 8) reasons.emplace_back(kErrReasonInsufficientEphemeralStorage);
        const Code code = (bits & 16) ? Code::kUnschedulableAndUnresolvable : Code::kUnschedulable;
        table[static_cast<size_t>(bits)] = Status(code, std::move(reasons)).WithPlugin(kName);
      }
      return table;
    }();
    const int bits = (too_many_pods ? 1 : 0) | (cpu ? 2 : 0) | (mem ? 4 : 0) | (eph ? 8 : 0);
    if (!scalar_fails) return kCommon[static_cast<size_t>(bits | (unresolvable ? 16 : 0))];

    // An extended resource is short too: its reasons follow the fixed ones.
    std::vector<std::string> reasons;
    if (bits != 0) reasons = kCommon[static_cast<size_t>(bits)].reasons();
    for (const auto& sr : s->scalars) {
      if (DelegatedToDRA(sr, alloc)) continue;
      if (sr.quantity > alloc.Scalar(sr.name) - used.Scalar(sr.name)) {
        reasons.push_back(sr.reason);
        unresolvable |= sr.quantity > alloc.Scalar(sr.name);
      }
    }
    return Status(unresolvable ? Code::kUnschedulableAndUnresolvable : Code::kUnschedulable,
                  std::move(reasons));
  }

  // What each insufficient resource lacks (explain.h), from the requests PreFilter recorded.
  void ExplainFilter(const framework::CycleState& state, const framework::PodInfo&,
                     const framework::NodeInfo& node, const Status& rejection,
                     framework::ExplainDetail detail,
                     std::vector<framework::FilterNeed>* out) const override {
    const auto* s = state.Read<PreFilterState>(PreFilterKey());
    if (s != nullptr) ExplainInsufficient(*s, node, rejection, detail, out);
  }

  Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                  const std::vector<const framework::NodeInfo*>&) const override {
    auto s = std::make_unique<PreScoreState>();
    s->pod_requests.reserve(scorer_.size());
    for (size_t i = 0; i < scorer_.size(); ++i)
      s->pod_requests.push_back(scorer_.PodRequest(i, pod));
    state.Write(PreScoreKey(), std::move(s));
    return Status();
  }

  Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
               const framework::NodeInfo& node, int64_t* score) const override {
    *score = 0;
    if (scorer_.size() == 0) return Status::Error("resources not found");
    const auto* s = state.Read<PreScoreState>(PreScoreKey());
    *score = scorer_.Score(node, pod, s != nullptr ? s->pod_requests.data() : nullptr);
    return Status();
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    framework::ClusterEvent pod_ev;
    pod_ev.resource = framework::EventResource::kPod;
    pod_ev.action_type = framework::action::kDelete | framework::action::kUpdatePodScaleDown;
    pod_ev.label = "PodDelete|UpdatePodScaleDown";
    framework::ClusterEvent node_ev;
    node_ev.resource = framework::EventResource::kNode;
    node_ev.action_type = framework::action::kAdd | framework::action::kUpdateNodeAllocatable;
    node_ev.label = "NodeAdd|UpdateNodeAllocatable";
    std::vector<framework::ClusterEventWithHint> events = {
        {pod_ev, HintAfterPodEvent},
        {node_ev, [classes = classes_](const api::Pod& pod, const framework::EventObject& o,
                                       const framework::EventObject& n) {
           return HintAfterNodeChange(classes, pod, o, n);
         }}};
    if (classes_ != nullptr) {
      // DRAExtendedResource: a DeviceClass may start serving an extended resource.
      framework::ClusterEvent class_ev;
      class_ev.resource = framework::EventResource::kDeviceClass;
      class_ev.action_type = framework::action::kAdd | framework::action::kUpdate;
      class_ev.label = "DeviceClassAdd|DeviceClassUpdate";
      events.push_back({class_ev, HintAfterDeviceClassEvent});
    }
    return events;
  }

 private:
  bool Ignored(const std::string& name) const {
    if (!IsExtendedResourceName(name)) return false;
    if (ignored_resources_.count(name)) return true;
    if (ignored_groups_.empty()) return false;
    return ignored_groups_.count(name.substr(0, name.find('/'))) > 0;
  }

  const Classes classes_;
  const std::set<std::string, std::less<>> ignored_resources_;
  const std::set<std::string, std::less<>> ignored_groups_;
  const ResourceScorer scorer_;
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  auto args = ParseFitArgs(ctx.args, ctx.args_path);
  if (!args.ok()) return Error{args.error()};
  Classes classes = ctx.handle != nullptr ? &ctx.handle->objects().device_classes : nullptr;
  return std::shared_ptr<framework::Plugin>(
      std::make_shared<Fit>(std::move(args).value(), classes));
}

}  // namespace berth::plugins::node_resources_fit
