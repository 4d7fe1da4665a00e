#include "cmd/berth/app/extender/evaluator.h"

#include <map>
#include <set>

#include "api/decode.h"
#include "base/strings.h"

namespace berth::extender_server {

using framework::Code;
using framework::Status;

namespace {

bool Assigned(const api::Pod& pod) { return !pod.spec.node_name.empty(); }
bool Terminal(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

// The pod of the args, decoded; the error text is what goes into the result's Error.
Result<framework::PodInfoPtr> PodOf(const extenders::ExtenderArgs& args) {
  if (!args.pod) return Error{"ExtenderArgs has no Pod"};
  auto pod = api::DecodePod(*args.pod);
  if (!pod.ok()) return Error{"Pod: " + pod.error()};
  return framework::MakePodInfo(std::make_shared<const api::Pod>(std::move(*pod)));
}

void Reject(extenders::FilterAnswer* a, const std::string& node, const Status& s) {
  if (s.code() == Code::kUnschedulableAndUnresolvable) {
    a->failed_and_unresolvable[node] = s.Message();
  } else {
    a->failed[node] = s.Message();
  }
}

}  // namespace

// The extender never binds nor preempts: every write is refused.
class Evaluator::NoWrites final : public framework::ApiWriter {
 public:
  Status Bind(const api::Pod&, const std::string&) override {
    return Status::Error("berth extender does not bind pods");
  }
};

Evaluator::Evaluator(int parallelism)
    : writer_(std::make_unique<NoWrites>()), parallelizer_(parallelism) {}

Evaluator::~Evaluator() = default;

Result<std::unique_ptr<Evaluator>> Evaluator::Create(const config::SchedulerConfiguration& cfg,
                                                     const std::string& profile,
                                                     const framework::Registry& registry,
                                                     const api::ClusterObjects* objects,
                                                     const framework::Clock* clock) {
  int index = -1;
  std::string known;
  for (size_t i = 0; i < cfg.profiles.size(); ++i) {
    known += (known.empty() ? "" : ", ") + cfg.profiles[i].scheduler_name;
    if (index < 0 && (profile.empty() || cfg.profiles[i].scheduler_name == profile)) {
      index = static_cast<int>(i);
    }
  }
  if (index < 0) {
    if (cfg.profiles.empty()) return Error{"no profiles configured"};
    return Error{"--profile: no profile \"" + profile + "\" in the config; profiles: " + known};
  }
  std::unique_ptr<Evaluator> e(new Evaluator(cfg.parallelism));
  runtime::Deps deps;
  deps.snapshot = &e->snapshot_;
  deps.objects = objects;
  deps.clock = clock;
  deps.parallelizer = &e->parallelizer_;
  deps.api_writer = e->writer_.get();
  auto fwk = runtime::Framework::Create(cfg.profiles[static_cast<size_t>(index)], index,
                                        cfg.percentage_of_nodes_to_score, registry, deps);
  if (!fwk.ok()) return Error{fwk.error()};
  e->fwk_ = std::move(*fwk);
  return e;
}

void Evaluator::AddNode(std::shared_ptr<const api::Node> node) { cache_.AddNode(std::move(node)); }

void Evaluator::UpdateNode(const api::Node&, std::shared_ptr<const api::Node> node) {
  cache_.UpdateNode(std::move(node));
}

void Evaluator::DeleteNode(const api::Node& node) { cache_.RemoveNode(node.metadata.name); }

void Evaluator::AddPod(std::shared_ptr<const api::Pod> pod) {
  if (!Assigned(*pod) || Terminal(*pod)) return;
  cache_.AddPod(framework::MakePodInfo(std::move(pod)));
}

void Evaluator::UpdatePod(const api::Pod& old_pod, std::shared_ptr<const api::Pod> pod) {
  if (!Assigned(*pod)) return;
  if (!Assigned(old_pod)) {
    if (!Terminal(*pod)) cache_.AddPod(framework::MakePodInfo(std::move(pod)));
    return;
  }
  if (Terminal(*pod)) {
    cache_.RemovePod(old_pod);
    return;
  }
  cache_.UpdatePod(old_pod, framework::MakePodInfo(std::move(pod)));
}

void Evaluator::DeletePod(const api::Pod& pod) {
  if (Assigned(pod)) cache_.RemovePod(pod);
}

extenders::FilterAnswer Evaluator::Filter(const extenders::ExtenderArgs& args) {
  extenders::FilterAnswer answer;
  auto pod = PodOf(args);
  if (!pod.ok()) {
    answer.error = pod.error();
    return answer;
  }
  std::lock_guard lock(mu_);
  cache_.UpdateSnapshot(snapshot_);
  std::vector<std::pair<size_t, const framework::NodeInfo*>> nodes;  // index into the args
  for (size_t i = 0; i < args.node_names.size(); ++i) {
    const std::string& name = args.node_names[i];
    const framework::NodeInfo* ni = snapshot_.Get(name);
    if (ni == nullptr || ni->node() == nullptr) {
      answer.failed[name] = "node \"" + name + "\" is not in berth's cache";
      continue;
    }
    nodes.emplace_back(i, ni);
  }

  framework::CycleState state;
  framework::PreFilterResult pre;
  std::vector<std::string> narrowed_by;
  Status s = fwk_->RunPreFilterPlugins(state, **pod, &pre, &narrowed_by);
  if (s.code() == Code::kError) {
    answer.error = s.Message();
    return answer;
  }
  std::vector<size_t> passed;
  if (s.IsRejected()) {
    for (const auto& [i, ni] : nodes) Reject(&answer, ni->name(), s);
  } else {
    const Status narrowed(Code::kUnschedulableAndUnresolvable,
                          "node(s) didn't satisfy plugin(s) " + GoList(narrowed_by));
    for (const auto& [i, ni] : nodes) {
      if (!pre.AllNodes() && !pre.node_names->count(ni->name())) {
        Reject(&answer, ni->name(), narrowed);
        continue;
      }
      Status f = fwk_->RunFilterPlugins(state, **pod, *ni);
      if (f.IsSuccess()) {
        passed.push_back(i);
      } else if (f.code() == Code::kError) {
        answer = extenders::FilterAnswer();
        answer.error = f.Message();
        return answer;
      } else {
        Reject(&answer, ni->name(), f);
      }
    }
  }
  for (size_t i : passed) answer.passed.push_back(args.node_names[i]);
  if (args.node_items) {
    answer.passed_items.emplace();
    for (size_t i : passed) answer.passed_items->push_back((*args.node_items)[i]);
  }
  return answer;
}

Result<std::vector<extenders::HostPriority>> Evaluator::Prioritize(
    const extenders::ExtenderArgs& args) {
  auto pod = PodOf(args);
  if (!pod.ok()) return Error{pod.error()};
  std::lock_guard lock(mu_);
  cache_.UpdateSnapshot(snapshot_);
  std::vector<extenders::HostPriority> out;
  std::map<std::string, size_t> index;  // node -> position in `out`
  std::vector<const framework::NodeInfo*> nodes;
  for (const auto& name : args.node_names) {
    index[name] = out.size();
    out.push_back({name, 0});
    const framework::NodeInfo* ni = snapshot_.Get(name);
    if (ni != nullptr && ni->node() != nullptr) nodes.push_back(ni);
  }
  if (nodes.empty() || !fwk_->HasScorePlugins()) return out;
  // PreFilter first, as in a scheduling cycle: some plugins' PreScore reads what it computed. A
  // rejection does not matter here (the scheduler asks only about nodes that passed).
  framework::CycleState state;
  framework::PreFilterResult pre;
  std::vector<std::string> narrowed_by;
  Status s = fwk_->RunPreFilterPlugins(state, **pod, &pre, &narrowed_by);
  if (s.code() == Code::kError) return Error{s.Message()};
  s = fwk_->RunPreScorePlugins(state, **pod, nodes);
  if (!s.IsSuccess()) return Error{s.Message()};
  runtime::ScoreTable table;
  s = fwk_->RunScorePlugins(state, **pod, nodes, &table);
  if (!s.IsSuccess()) return Error{s.Message()};
  int64_t weights = 0;
  for (auto plugin : table.plugins) weights += fwk_->ScoreWeight(std::string(plugin));
  if (weights <= 0) return out;
  const int64_t full = framework::kMaxNodeScore * weights;
  for (size_t i = 0; i < nodes.size(); ++i) {
    out[index[nodes[i]->name()]].score = (table.totals[i] * 10 + full / 2) / full;
  }
  return out;
}

}  // namespace berth::extender_server
