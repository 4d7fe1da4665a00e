#include "plugins/service_affinity/service_affinity.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "api/selector.h"
#include "scheduler/framework/args.h"
#include "scheduler/framework/plugin.h"

namespace berth::plugins::service_affinity {
namespace {

using framework::Status;

struct Args {
  std::vector<std::string> affinity_labels;
  std::vector<std::string> anti_affinity_labels_preference;
};

// Upstream's helper.GetPodServices: Services of the pod's namespace whose selector matches the
// pod's labels. berth cannot tell a nil selector from an empty one; both select nothing.
std::vector<std::shared_ptr<const api::Service>> PodServices(const api::ClusterObjects& objects,
                                                             const api::Pod& pod) {
  std::vector<std::shared_ptr<const api::Service>> out;
  for (auto& svc : objects.services.List()) {
    if (svc->metadata.namespace_ != pod.metadata.namespace_ || svc->selector.empty()) continue;
    if (api::MatchesMap(svc->selector, pod.metadata.labels)) out.push_back(std::move(svc));
  }
  return out;
}

const framework::StateKey& PreFilterKey() {
  static const framework::StateKey key("PreFilterServiceAffinity");
  return key;
}
const framework::StateKey& PreScoreKey() {
  static const framework::StateKey key("PreScoreServiceAffinity");
  return key;
}

struct PreFilterState final : framework::StateData {
  bool has_services = false;
  // Pods of the pod's namespace whose labels include all of the pod's labels, in snapshot order.
  std::vector<framework::PodInfoPtr> matching_pods;
  // The affinity labels the pod's nodeSelector fixes.
  api::Labels fixed;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

struct PreScoreState final : framework::StateData {
  api::Labels selector;  // the first Service's selector; empty when none selects the pod
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

bool PodMatches(const framework::PodInfo& pod, const framework::PodInfo& other) {
  return other.Namespace() == pod.Namespace() &&
         api::MatchesMap(pod.Pod().metadata.labels, other.Pod().metadata.labels);
}

// Upstream's NodeInfo.FilterOutPods: a pod that claims this node but is not in its NodeInfo
// (removed while evaluating preemption) does not count.
bool KeptFor(const framework::PodInfo& p, const framework::NodeInfo& node) {
  if (p.Pod().spec.node_name != node.name()) return true;
  for (const auto& q : node.pods()) {
    if (q->Uid() == p.Uid()) return true;
  }
  return false;
}

class ServiceAffinity final : public framework::PreFilterPlugin,
                              public framework::PreFilterExtensions,
                              public framework::FilterPlugin,
                              public framework::PreScorePlugin,
                              public framework::ScorePlugin,
                              public framework::EnqueueExtensions {
 public:
  ServiceAffinity(Args args, framework::Handle* handle) : args_(std::move(args)), handle_(handle) {}

  std::string_view Name() const override { return kName; }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                   const std::vector<const framework::NodeInfo*>& nodes,
                   framework::PreFilterResult*) const override {
    if (args_.affinity_labels.empty()) return Status(framework::Code::kSkip, "");
    auto s = std::make_unique<PreFilterState>();
    s->has_services = !PodServices(handle_->objects(), pod.Pod()).empty();
    for (const auto* node : handle_->snapshot().List()) {
      for (const auto& p : node->pods()) {
        if (PodMatches(pod, *p)) s->matching_pods.push_back(p);
      }
    }
    const api::Labels& node_selector = pod.Pod().spec.node_selector;
    for (const auto& key : args_.affinity_labels) {
      if (auto it = node_selector.find(key); it != node_selector.end()) s->fixed[key] = it->second;
    }
    state.Write(PreFilterKey(), std::move(s));
    return Status();
  }

  const framework::PreFilterExtensions* Extensions() const override { return this; }

  Status AddPod(framework::CycleState& state, const framework::PodInfo& pod_to_schedule,
                const framework::PodInfo& pod_to_add, const framework::NodeInfo&) const override {
    auto* s = state.Read<PreFilterState>(PreFilterKey());
    if (s == nullptr) return Status::Error("reading PreFilterServiceAffinity: not found");
    if (PodMatches(pod_to_schedule, pod_to_add)) {
      s->matching_pods.push_back(std::make_shared<framework::PodInfo>(pod_to_add));
    }
    return Status();
  }

  Status RemovePod(framework::CycleState& state, const framework::PodInfo&,
                   const framework::PodInfo& pod_to_remove,
                   const framework::NodeInfo&) const override {
    auto* s = state.Read<PreFilterState>(PreFilterKey());
    if (s == nullptr) return Status::Error("reading PreFilterServiceAffinity: not found");
    auto& pods = s->matching_pods;
    pods.erase(std::remove_if(pods.begin(), pods.end(),
                              [&](const auto& p) { return p->Uid() == pod_to_remove.Uid(); }),
               pods.end());
    return Status();
  }

  Status Filter(const framework::CycleState& state, const framework::PodInfo&,
                const framework::NodeInfo& node) const override {
    if (args_.affinity_labels.empty()) return Status();
    if (node.node() == nullptr) return Status::Error("node not found");
    const auto* s = state.Read<PreFilterState>(PreFilterKey());
    if (s == nullptr) return Status::Error("reading PreFilterServiceAffinity: not found");
    const api::Labels* wanted = &s->fixed;
    api::Labels completed;
    // Same two steps as upstream: labels the nodeSelector leaves open are taken from the node of
    // the first matching pod, when a Service selects the pod.
    if (s->fixed.size() < args_.affinity_labels.size() && s->has_services) {
      for (const auto& p : s->matching_pods) {
        if (!KeptFor(*p, node)) continue;
        const framework::NodeInfo* other = handle_->snapshot().Get(p->Pod().spec.node_name);
        if (other == nullptr || other->node() == nullptr) {
          return Status::Error("node \"" + p->Pod().spec.node_name + "\" not found");
        }
        completed = s->fixed;
        const api::Labels& labels = other->node()->metadata.labels;
        for (const auto& key : args_.affinity_labels) {
          if (completed.count(key)) continue;
          if (auto it = labels.find(key); it != labels.end()) completed[key] = it->second;
        }
        wanted = &completed;
        break;
      }
    }
    if (api::MatchesMap(*wanted, node.node()->metadata.labels)) return Status();
    return Status::Unschedulable(kErrReasonAffinityNotMatch);
  }

  Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                  const std::vector<const framework::NodeInfo*>&) const override {
    auto s = std::make_unique<PreScoreState>();
    auto services = PodServices(handle_->objects(), pod.Pod());
    if (!services.empty()) s->selector = services[0]->selector;
    state.Write(PreScoreKey(), std::move(s));
    return Status();
  }

  Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
               const framework::NodeInfo& node, int64_t* score) const override {
    *score = 0;
    const auto* s = state.Read<PreScoreState>(PreScoreKey());
    if (s == nullptr) return Status::Error("reading PreScoreServiceAffinity: not found");
    if (s->selector.empty()) return Status();
    *score = framework::CountMatchingPods(node, pod.Namespace(), s->selector);
    return Status();
  }

  bool HasNormalizeScore() const override { return true; }

  // Same arithmetic as upstream's updateNodeScoresForLabel, accumulated over the labels.
  Status NormalizeScore(const framework::CycleState&, const framework::PodInfo&,
                        framework::NodeScoreList& scores) const override {
    std::vector<double> result(scores.size(), 0);
    const auto num_labels = static_cast<double>(args_.anti_affinity_labels_preference.size());
    std::vector<const std::string*> values(scores.size());
    for (const auto& label : args_.anti_affinity_labels_preference) {
      int64_t total = 0;
      std::map<std::string, int64_t> counts;
      for (size_t i = 0; i < scores.size(); ++i) {
        total += scores[i].score;
        values[i] = nullptr;
        const framework::NodeInfo* n = handle_->snapshot().Get(*scores[i].name);
        if (n == nullptr || n->node() == nullptr) {
          return Status::Error("node \"" + *scores[i].name + "\" not found");
        }
        const api::Labels& labels = n->node()->metadata.labels;
        auto it = labels.find(label);
        if (it == labels.end()) continue;
        values[i] = &it->second;
        counts[it->second] += scores[i].score;
      }
      for (size_t i = 0; i < scores.size(); ++i) {
        if (values[i] == nullptr) continue;
        double f = static_cast<double>(framework::kMaxNodeScore);
        if (total > 0) {
          f = f * static_cast<double>(total - counts[*values[i]]) / static_cast<double>(total);
        }
        result[i] += f / num_labels;
      }
    }
    for (size_t i = 0; i < scores.size(); ++i) scores[i].score = static_cast<int64_t>(result[i]);
    return Status();
  }

  // Pods (their node and labels), nodes' labels and Services change this plugin's verdict.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    auto event = [](framework::EventResource r, uint32_t a, const char* label) {
      framework::ClusterEvent ev;
      ev.resource = r;
      ev.action_type = a;
      ev.label = label;
      return framework::ClusterEventWithHint{ev, nullptr};
    };
    return {event(framework::EventResource::kPod, framework::action::kAll, "Pod"),
            event(framework::EventResource::kNode,
                  framework::action::kAdd | framework::action::kUpdateNodeLabel,
                  "NodeAdd|UpdateNodeLabel"),
            event(framework::EventResource::kService, framework::action::kAll, "Service")};
  }

 private:
  const Args args_;
  framework::Handle* handle_;
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_ASSIGN_OR_RETURN(api::Reader r, framework::ReadArgs(ctx.args, ctx.args_path));
  Args args;
  BERTH_RETURN_IF_ERROR(r.Strings("affinityLabels", &args.affinity_labels));
  BERTH_RETURN_IF_ERROR(
      r.Strings("antiAffinityLabelsPreference", &args.anti_affinity_labels_preference));
  BERTH_RETURN_IF_ERROR(r.Done());
  if (ctx.handle == nullptr) return Error{ctx.args_path + ": ServiceAffinity needs a handle"};
  return std::shared_ptr<framework::Plugin>(
      std::make_shared<ServiceAffinity>(std::move(args), ctx.handle));
}

}  // namespace berth::plugins::service_affinity
