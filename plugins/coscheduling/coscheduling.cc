#include "plugins/coscheduling/coscheduling.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "plugins/coscheduling/group_cache.h"
#include "plugins/coscheduling/pod_group.h"
#include "scheduler/framework/args.h"
#include "scheduler/framework/plugin.h"

namespace berth::plugins::coscheduling {
namespace {

using framework::Code;
using framework::Status;

// Prune the group cache of deleted PodGroups after this many failures.
constexpr uint64_t kPruneEvery = 1024;

// Written by PreFilter when it rejects the pod for a group-level reason (backoff, too few
// siblings, resource gap): PreFilter's message already says why, so PostFilter adds none.
const framework::StateKey& RejectedKey() {
  static const framework::StateKey key("PreFilterCoscheduling");
  return key;
}
struct RejectedByPreFilter final : framework::StateData {
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<RejectedByPreFilter>();
  }
};

Status Reject(framework::CycleState& state, std::string msg) {
  state.Write(RejectedKey(), std::make_unique<RejectedByPreFilter>());
  return Status::Unresolvable(std::move(msg));
}

class Coscheduling final : public framework::QueueSortPlugin,
                           public framework::PreFilterPlugin,
                           public framework::PostFilterPlugin,
                           public framework::PermitPlugin,
                           public framework::ReservePlugin,
                           public framework::EnqueueExtensions {
 public:
  Coscheduling(Args args, framework::Handle* handle) : args_(args), handle_(handle) {}

  std::string_view Name() const override { return kName; }

  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override {
    const int32_t pa = a.Pod().Priority();
    const int32_t pb = b.Pod().Priority();
    if (pa != pb) return pa > pb;
    // Siblings share one group time: reading it twice could see a failure recorded in between
    // (Unreserve on a binding worker) and order a pair both ways.
    const std::string_view ga = GroupLabel(a.Pod());
    const bool same_group = !ga.empty() && ga == GroupLabel(b.Pod()) &&
                            a.Pod().metadata.namespace_ == b.Pod().metadata.namespace_;
    if (!same_group) {
      const framework::TimePoint ta = SortTime(a);
      const framework::TimePoint tb = SortTime(b);
      if (ta != tb) return ta < tb;
    }
    return a.pod_info->key < b.pod_info->key;
  }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                   const std::vector<const framework::NodeInfo*>& nodes,
                   framework::PreFilterResult* result) const override {
    const std::string_view name = GroupLabel(pod.Pod());
    if (name.empty()) return Status();
    auto pg = handle_->objects().pod_groups.Get(pod.Namespace(), std::string(name));
    if (pg == nullptr) return Status();
    const std::string key = GroupKey(pod.Pod());
    const framework::TimePoint now = handle_->clock().Now();
    if (cache_.IsBackedOff(key, now)) return Reject(state, "podGroup " + key + " failed recently");
    const int siblings = CountSiblings(handle_->objects().pods, pod.Namespace(), name);
    if (siblings < pg->spec.min_member) {
      return Reject(state, "pre-filter pod " + pod.Name() +
                               " cannot find enough sibling pods, current pods number: " +
                               std::to_string(siblings) +
                               ", minMember of group: " + std::to_string(pg->spec.min_member));
    }
    if (pg->spec.min_resources.empty() || cache_.IsPermitted(key, now)) return Status();
    std::string gap =
        ResourceGap(nodes, pg->spec.min_resources, pg->spec.min_member, pod.Namespace(), name);
    if (!gap.empty()) return Reject(state, std::move(gap));
    cache_.Permit(key, now + std::chrono::seconds(args_.permit_waiting_time_seconds));
    return Status();
  }

  Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                    const framework::NodeToStatus& filtered_node_status,
                    framework::PostFilterResult* result) const override {
    const std::string_view name = GroupLabel(pod.Pod());
    // Berth leaves pods outside any gang without a message (upstream adds "can not find pod
    // group" to every unschedulable pod's event).
    if (name.empty()) return Status(Code::kUnschedulable, std::string());
    auto pg = handle_->objects().pod_groups.Get(pod.Namespace(), std::string(name));
    if (pg == nullptr) return Status::Unschedulable("can not find pod group");

    int64_t assigned = 0;
    for (const auto& uid : AssignedUids(*handle_, pod.Namespace(), name)) {
      if (uid != pod.Uid()) ++assigned;
    }
    const int64_t min_member = pg->spec.min_member;
    // Enough members hold a node already: the group does not need this pod.
    if (assigned >= min_member) return Status(Code::kUnschedulable, std::string());
    // A small gap (at most podGroupRejectPercentage of minMember) may still close with the next
    // siblings: keep the waiting ones. Integer form of upstream's float comparison.
    if ((min_member - assigned) * 100 <= args_.pod_group_reject_percentage * min_member) {
      return Status(Code::kUnschedulable, std::string());
    }
    // If this member cannot be placed, its siblings are unlikely to be: release them all.
    const std::string key = GroupKey(pod.Pod());
    const int released = RejectWaitingSiblings(pod, name, "optimistic rejection in PostFilter");
    const framework::TimePoint now = handle_->clock().Now();
    if (released > 0) cache_.MarkReleased(key, now);
    MaybeBackoff(key, *pg, pod.Namespace(), name, now);
    cache_.ClearPermitted(key);
    MarkFailed(key, now);
    if (state.Read<RejectedByPreFilter>(RejectedKey()) != nullptr) {
      return Status(Code::kUnschedulable, std::string());
    }
    return Status::Unschedulable("PodGroup " + key + " gets rejected due to Pod " + pod.Name() +
                                 " is unschedulable even after PostFilter");
  }

  Status Permit(framework::CycleState& state, const framework::PodInfo& pod,
                const std::string& node, framework::Duration* timeout) const override {
    const std::string_view name = GroupLabel(pod.Pod());
    if (name.empty()) return Status();
    auto pg = handle_->objects().pod_groups.Get(pod.Namespace(), std::string(name));
    if (pg == nullptr) return Status::Unschedulable("PodGroup not found");

    std::vector<std::string> uids = AssignedUids(*handle_, pod.Namespace(), name);
    const bool first = uids.empty() || (uids.size() == 1 && uids[0] == pod.Uid());
    if (std::find(uids.begin(), uids.end(), pod.Uid()) == uids.end()) uids.push_back(pod.Uid());
    const std::string key = GroupKey(pod.Pod());
    if (static_cast<int64_t>(uids.size()) >= pg->spec.min_member) {
      handle_->IterateOverWaitingPods([&](framework::WaitingPod& wp) {
        if (InGroup(wp.pod_info().Pod(), pod.Namespace(), name)) wp.Allow(kName);
      });
      cache_.ClearFailed(key);
      return Status();
    }
    *timeout = WaitTime(*pg, args_.permit_waiting_time_seconds);
    if (first) {
      const framework::TimePoint now = handle_->clock().Now();
      auto released = cache_.LastReleased(key);
      if (!released || now - *released >= kSiblingActivationQuietPeriod) {
        for (auto& k : SiblingKeys(handle_->objects().pods, pod.Namespace(), name, pod.Uid())) {
          state.pods_to_activate.insert(std::move(k));
        }
      }
    }
    return Status::Wait();
  }

  Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& node) const override {
    return Status();
  }

  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& node) const override {
    const std::string_view name = GroupLabel(pod.Pod());
    if (name.empty()) return;
    auto pg = handle_->objects().pod_groups.Get(pod.Namespace(), std::string(name));
    if (pg == nullptr) return;
    const std::string key = GroupKey(pod.Pod());
    RejectWaitingSiblings(pod, name, "rejection in Unreserve");
    const framework::TimePoint now = handle_->clock().Now();
    cache_.MarkReleased(key, now);  // this pod held a node (it was assumed)
    MaybeBackoff(key, *pg, pod.Namespace(), name, now);
    cache_.ClearPermitted(key);
    MarkFailed(key, now);
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    // A new sibling may complete the group; a PodGroup change may lower minMember or its needs.
    return {
        {framework::ClusterEvent{framework::EventResource::kPod, framework::action::kAdd, "PodAdd"},
         nullptr},
        {framework::ClusterEvent{framework::EventResource::kPodGroup,
                                 framework::action::kAdd | framework::action::kUpdate,
                                 "podgroups.v1alpha1.scheduling.x-k8s.io/Add|Update"},
         nullptr},
    };
  }

 private:
  // QueueSort's time: the group's last failure or creation; a pod without a group (or whose
  // group object is missing) its first attempt, else the time it was queued.
  framework::TimePoint SortTime(const framework::QueuedPodInfo& q) const {
    const api::Pod& pod = q.Pod();
    const std::string_view name = GroupLabel(pod);
    if (!name.empty()) {
      auto pg = handle_->objects().pod_groups.Get(pod.metadata.namespace_, std::string(name));
      if (pg != nullptr) {
        if (auto failed = cache_.LastFailed(GroupKey(pod))) return *failed;
        // A group without a creationTimestamp sorts as upstream's zero time: first.
        return pg->metadata.creation_timestamp ? framework::TimePoint(framework::Duration(
                                                     pg->metadata.creation_timestamp->unix_micros))
                                               : framework::TimePoint();
      }
    }
    return q.initial_attempt_timestamp.value_or(q.timestamp);
  }

  // Rejects the group's waiting pods other than `pod`; returns how many were still unresolved.
  int RejectWaitingSiblings(const framework::PodInfo& pod, std::string_view name,
                            const std::string& msg) const {
    int rejected = 0;
    handle_->IterateOverWaitingPods([&](framework::WaitingPod& wp) {
      if (wp.pod_info().Uid() == pod.Uid()) return;
      if (!InGroup(wp.pod_info().Pod(), pod.Namespace(), name)) return;
      if (!wp.TryResult()) ++rejected;
      wp.Reject(kName, msg);
    });
    return rejected;
  }

  // Upstream backs a group off only when it has all its members (otherwise PreFilter already
  // rejects it for too few siblings).
  void MaybeBackoff(const std::string& key, const api::PodGroup& pg, const std::string& ns,
                    std::string_view name, framework::TimePoint now) const {
    if (args_.pod_group_backoff_seconds <= 0) return;
    if (CountSiblings(handle_->objects().pods, ns, name) < pg.spec.min_member) return;
    cache_.Backoff(key, now + std::chrono::seconds(args_.pod_group_backoff_seconds), now);
  }

  void MarkFailed(const std::string& key, framework::TimePoint now) const {
    cache_.MarkFailed(key, now);
    if (failures_.fetch_add(1, std::memory_order_relaxed) % kPruneEvery == kPruneEvery - 1) {
      const auto& groups = handle_->objects().pod_groups;
      cache_.Prune([&](const std::string& k) { return groups.Get(k) != nullptr; });
    }
  }

  const Args args_;
  framework::Handle* const handle_;
  // Group-level caches; thread-safe on their own (see group_cache.h).
  mutable GroupCache cache_;
  mutable std::atomic<uint64_t> failures_{0};
};

}  // namespace

Result<Args> ParseArgs(const framework::PluginContext& ctx) {
  BERTH_ASSIGN_OR_RETURN(api::Reader r, framework::ReadArgs(ctx.args, ctx.args_path));
  Args args;
  BERTH_RETURN_IF_ERROR(r.Int64("permitWaitingTimeSeconds", &args.permit_waiting_time_seconds));
  BERTH_RETURN_IF_ERROR(r.Int64("podGroupBackoffSeconds", &args.pod_group_backoff_seconds));
  BERTH_RETURN_IF_ERROR(r.Int64("podGroupRejectPercentage", &args.pod_group_reject_percentage));
  BERTH_RETURN_IF_ERROR(r.Done());
  // Upstream's ValidateCoschedulingArgs, first error wins.
  auto invalid = [&](const char* field, int64_t v, const char* why) {
    return Error{r.PathOf(field) + ": Invalid value: " + std::to_string(v) + ": " + why};
  };
  if (args.permit_waiting_time_seconds < 0) {
    return invalid("permitWaitingTimeSeconds", args.permit_waiting_time_seconds,
                   "must not be negative");
  }
  if (args.pod_group_backoff_seconds < 0) {
    return invalid("podGroupBackoffSeconds", args.pod_group_backoff_seconds,
                   "must not be negative");
  }
  if (args.pod_group_reject_percentage < 0 || args.pod_group_reject_percentage > 100) {
    return invalid("podGroupRejectPercentage", args.pod_group_reject_percentage,
                   "must be between 0 and 100");
  }
  return args;
}

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_ASSIGN_OR_RETURN(Args args, ParseArgs(ctx));
  if (ctx.handle == nullptr)
    return Error{ctx.args_path + ": Coscheduling needs a framework handle"};
  return std::shared_ptr<framework::Plugin>(std::make_shared<Coscheduling>(args, ctx.handle));
}

}  // namespace berth::plugins::coscheduling
