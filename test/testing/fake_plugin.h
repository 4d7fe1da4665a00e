#pragma once
// ScriptedPlugin: a plugin for scheduler tests whose behaviour at each extension point is a
// function the test sets (an unset function is Success / score 0). It records every call as
// "<Name>.<Point>" (Filter and Score with ":<node>") in a shared CallLog, so tests can assert
// which plugins ran. Enable it only at the points a test needs: the runtime adds a plugin to the
// points its profile lists. Filter and Score run on parallelizer threads: the log locks.

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scheduler/framework/explain.h"
#include "scheduler/framework/plugin.h"

namespace berth::testing {

class CallLog {
 public:
  void Add(std::string call) {
    std::lock_guard lock(mu_);
    calls_.push_back(std::move(call));
  }
  std::vector<std::string> Calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  // Calls starting with prefix, sorted (parallel points have no order).
  std::vector<std::string> Sorted(const std::string& prefix) const {
    std::vector<std::string> out;
    for (auto& c : Calls()) {
      if (c.compare(0, prefix.size(), prefix) == 0) out.push_back(c);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  size_t Count(const std::string& call) const {
    auto calls = Calls();
    return static_cast<size_t>(std::count(calls.begin(), calls.end(), call));
  }
  void Clear() {
    std::lock_guard lock(mu_);
    calls_.clear();
  }

 private:
  mutable std::mutex mu_;  // guards calls_
  std::vector<std::string> calls_;
};

class ScriptedPlugin : public framework::PreFilterPlugin,
                       public framework::FilterPlugin,
                       public framework::PostFilterPlugin,
                       public framework::ScorePlugin,
                       public framework::ReservePlugin,
                       public framework::PermitPlugin,
                       public framework::PreBindPlugin,
                       public framework::EnqueueExtensions,
                       public framework::FilterExplainer {
 public:
  ScriptedPlugin(std::string name, CallLog* log) : name_(std::move(name)), log_(log) {}

  std::function<framework::Status(const framework::PodInfo&)> pre_filter;
  // When set, PreFilter narrows the nodes to these (PreFilterResult::node_names).
  std::optional<std::set<std::string, std::less<>>> pre_filter_nodes;
  std::function<framework::Status(const framework::PodInfo&, const framework::NodeInfo&)> filter;
  std::function<framework::Status(const framework::NodeToStatus&, framework::PostFilterResult*)>
      post_filter;
  std::function<int64_t(const framework::NodeInfo&)> score;
  std::function<framework::Status(const std::string& node)> reserve;
  std::function<framework::Status(const std::string& node, framework::Duration* timeout)> permit;
  std::function<framework::Status(const std::string& node)> pre_bind;
  std::vector<framework::ClusterEventWithHint> events;
  // What the node would need to pass this plugin's Filter (berth explain); unset explains nothing.
  std::function<void(const framework::NodeInfo&, const framework::Status&,
                     std::vector<framework::FilterNeed>*)>
      explain;

  std::string_view Name() const override { return name_; }
  framework::Status PreFilter(framework::CycleState&, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>&,
                              framework::PreFilterResult* result) const override {
    log_->Add(name_ + ".PreFilter");
    if (pre_filter_nodes) result->node_names = pre_filter_nodes;
    return pre_filter ? pre_filter(pod) : framework::Status();
  }
  framework::Status Filter(const framework::CycleState&, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override {
    log_->Add(name_ + ".Filter:" + node.name());
    return filter ? filter(pod, node) : framework::Status();
  }
  void ExplainFilter(const framework::CycleState&, const framework::PodInfo&,
                     const framework::NodeInfo& node, const framework::Status& rejection,
                     framework::ExplainDetail,
                     std::vector<framework::FilterNeed>* out) const override {
    if (explain) explain(node, rejection, out);
  }
  framework::Status PostFilter(framework::CycleState&, const framework::PodInfo&,
                               const framework::NodeToStatus& statuses,
                               framework::PostFilterResult* result) const override {
    log_->Add(name_ + ".PostFilter");
    return post_filter ? post_filter(statuses, result) : framework::Status::Unschedulable("");
  }
  framework::Status Score(const framework::CycleState&, const framework::PodInfo&,
                          const framework::NodeInfo& node, int64_t* out) const override {
    log_->Add(name_ + ".Score:" + node.name());
    *out = score ? score(node) : 0;
    return {};
  }
  framework::Status Reserve(framework::CycleState&, const framework::PodInfo&,
                            const std::string& node) const override {
    log_->Add(name_ + ".Reserve");
    return reserve ? reserve(node) : framework::Status();
  }
  void Unreserve(framework::CycleState&, const framework::PodInfo&,
                 const std::string&) const override {
    log_->Add(name_ + ".Unreserve");
  }
  framework::Status Permit(framework::CycleState&, const framework::PodInfo&,
                           const std::string& node, framework::Duration* timeout) const override {
    log_->Add(name_ + ".Permit");
    return permit ? permit(node, timeout) : framework::Status();
  }
  framework::Status PreBind(framework::CycleState&, const framework::PodInfo&,
                            const std::string& node) const override {
    log_->Add(name_ + ".PreBind");
    return pre_bind ? pre_bind(node) : framework::Status();
  }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override { return events; }

 private:
  std::string name_;
  CallLog* log_;
};

}  // namespace berth::testing
