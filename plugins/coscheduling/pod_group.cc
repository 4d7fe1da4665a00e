#include "plugins/coscheduling/pod_group.h"

#include <algorithm>
#include <map>

#include "plugins/coscheduling/coscheduling.h"
#include "scheduler/framework/resource.h"

namespace berth::plugins::coscheduling {

std::string_view GroupLabel(const api::Pod& pod) {
  auto it = pod.metadata.labels.find(api::kPodGroupLabel);
  return it == pod.metadata.labels.end() ? std::string_view() : std::string_view(it->second);
}

std::string GroupKey(const api::Pod& pod) {
  std::string key = pod.metadata.namespace_;
  key += '/';
  key += GroupLabel(pod);
  return key;
}

int CountSiblings(const api::Store<api::Pod>& pods, const std::string& ns, std::string_view name) {
  int n = 0;
  pods.ForEach([&](const api::Pod& p) {
    if (InGroup(p, ns, name)) ++n;
  });
  return n;
}

std::set<std::string> SiblingKeys(const api::Store<api::Pod>& pods, const std::string& ns,
                                  std::string_view name, const std::string& exclude_uid) {
  std::set<std::string> keys;
  pods.ForEach([&](const api::Pod& p) {
    if (InGroup(p, ns, name) && p.metadata.uid != exclude_uid) keys.insert(p.Key());
  });
  return keys;
}

std::vector<std::string> AssignedUids(framework::Handle& handle, const std::string& ns,
                                      std::string_view name) {
  // Groups are small next to the cluster: a vector with linear membership checks is enough.
  std::vector<std::string> uids;
  auto add = [&](const std::string& uid) {
    if (std::find(uids.begin(), uids.end(), uid) == uids.end()) uids.push_back(uid);
  };
  for (const framework::NodeInfo* ni : handle.snapshot().List()) {
    for (const auto& p : ni->pods()) {
      if (InGroup(p->Pod(), ns, name) && !p->Pod().spec.node_name.empty()) add(p->Uid());
    }
  }
  // Waiting pods are assumed, so normally in the snapshot already; counting them as well keeps
  // the answer right for a pod assumed after the snapshot was taken.
  handle.IterateOverWaitingPods([&](framework::WaitingPod& wp) {
    if (!InGroup(wp.pod_info().Pod(), ns, name)) return;
    auto result = wp.TryResult();
    if (result && !result->IsSuccess()) return;  // rejected: about to release its node
    add(wp.pod_info().Uid());
  });
  return uids;
}

namespace {

// Scheduler units: CPU in milli-cores, everything else in whole units (bytes, pods, devices).
int64_t Amount(const std::string& name, const api::Quantity& q) {
  return name == api::kResourceCPU ? q.MilliValue() : q.Value();
}

api::Quantity ToQuantity(const std::string& name, int64_t amount) {
  return name == api::kResourceCPU ? api::Quantity::FromMilli(amount)
                                   : api::Quantity::FromValue(amount);
}

}  // namespace

std::string ResourceGap(const std::vector<const framework::NodeInfo*>& nodes,
                        const api::ResourceList& min_resources, int32_t min_member,
                        const std::string& ns, std::string_view name) {
  std::map<std::string, int64_t> missing;
  for (const auto& [res, q] : min_resources) missing[res] = Amount(res, q);
  missing[api::kResourcePods] = min_member;
  for (auto it = missing.begin(); it != missing.end();) {
    it = it->second <= 0 ? missing.erase(it) : std::next(it);
  }
  for (const framework::NodeInfo* ni : nodes) {
    if (missing.empty()) break;
    if (ni == nullptr || ni->node() == nullptr) continue;
    // What the group already holds on this node is available to it.
    framework::Resource held;
    int64_t held_pods = 0;
    for (const auto& p : ni->pods()) {
      if (!InGroup(p->Pod(), ns, name)) continue;
      held.Add(p->requests);
      ++held_pods;
    }
    const framework::Resource& alloc = ni->allocatable();
    const framework::Resource& req = ni->requested();
    for (auto it = missing.begin(); it != missing.end();) {
      const std::string& res = it->first;
      int64_t free =
          res == api::kResourcePods
              ? alloc.allowed_pod_number - (static_cast<int64_t>(ni->pods().size()) - held_pods)
              : alloc.Get(res) - (req.Get(res) - held.Get(res));
      it->second -= std::max<int64_t>(free, 0);
      it = it->second <= 0 ? missing.erase(it) : std::next(it);
    }
  }
  if (missing.empty()) return "";
  std::string msg = "resource gap: map[";
  bool first = true;
  for (const auto& [res, amount] : missing) {
    if (!first) msg += ' ';
    first = false;
    msg += res + ":" + ToQuantity(res, amount).ToString();
  }
  return msg + "]";
}

framework::Duration WaitTime(const api::PodGroup& pg, int64_t permit_waiting_time_seconds) {
  if (pg.spec.schedule_timeout_seconds && *pg.spec.schedule_timeout_seconds > 0) {
    return std::chrono::seconds(*pg.spec.schedule_timeout_seconds);
  }
  if (permit_waiting_time_seconds > 0) return std::chrono::seconds(permit_waiting_time_seconds);
  return kDefaultWaitTime;
}

}  // namespace berth::plugins::coscheduling
