#include "scheduler/runtime/framework.h"
#include "base/strings.h"

#include <algorithm>
#include <bit>
#include <set>

namespace berth::runtime {

using framework::Code;
using framework::Status;

namespace {

// Whether plugin p implements the interface of extension point `point` (config name).
bool Implements(const framework::Plugin* p, std::string_view point) {
  if (point == "preEnqueue") return dynamic_cast<const framework::PreEnqueuePlugin*>(p);
  if (point == "queueSort") return dynamic_cast<const framework::QueueSortPlugin*>(p);
  if (point == "preFilter") return dynamic_cast<const framework::PreFilterPlugin*>(p);
  if (point == "filter") return dynamic_cast<const framework::FilterPlugin*>(p);
  if (point == "postFilter") return dynamic_cast<const framework::PostFilterPlugin*>(p);
  if (point == "preScore") return dynamic_cast<const framework::PreScorePlugin*>(p);
  if (point == "score") return dynamic_cast<const framework::ScorePlugin*>(p);
  if (point == "reserve") return dynamic_cast<const framework::ReservePlugin*>(p);
  if (point == "permit") return dynamic_cast<const framework::PermitPlugin*>(p);
  if (point == "preBind") return dynamic_cast<const framework::PreBindPlugin*>(p);
  if (point == "bind") return dynamic_cast<const framework::BindPlugin*>(p);
  if (point == "postBind") return dynamic_cast<const framework::PostBindPlugin*>(p);
  return false;
}

std::string InterfaceName(std::string_view point) {
  std::string s(point);
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s + "Plugin";
}


template <typename T>
void Append(std::vector<const T*>& v, const framework::Plugin* p) {
  v.push_back(dynamic_cast<const T*>(p));
}

}  // namespace

Result<std::unique_ptr<Framework>> Framework::Create(const config::Profile& profile,
                                                     int profile_index,
                                                     int32_t global_percentage_of_nodes_to_score,
                                                     const framework::Registry& registry,
                                                     const Deps& deps) {
  std::unique_ptr<Framework> f(new Framework(deps));
  f->scheduler_name_ = profile.scheduler_name;
  f->percentage_ =
      profile.percentage_of_nodes_to_score.value_or(global_percentage_of_nodes_to_score);
  const std::string prefix = "profiles[" + std::to_string(profile_index) + "]";
  const auto& plugins = profile.plugins;

  // 1. Every plugin named anywhere is instantiated once.
  auto instantiate = [&](const std::string& name, const std::string& where) -> Ok {
    if (f->plugins_.count(name)) return {};
    const framework::PluginFactory* factory = registry.Find(name);
    if (factory == nullptr) {
      return Error{where + ": unknown plugin \"" + name +
                   "\"; known plugins: " + Join(registry.Names())};
    }
    framework::PluginContext ctx;
    ctx.handle = f.get();
    ctx.scheduler_name = profile.scheduler_name;
    const config::PluginConfig* pc = profile.FindPluginConfig(name);
    if (pc != nullptr) {
      ctx.args = pc->args.IsNull() ? nullptr : &pc->args;
      ctx.args_path = pc->path;
    } else {
      ctx.args_path = prefix + ".pluginConfig[" + name + "].args";
    }
    auto plugin = (*factory)(ctx);
    if (!plugin.ok()) return Error{plugin.error()};
    f->plugins_[name] = std::move(*plugin);
    return {};
  };
  const std::string mp_path = prefix + ".plugins.multiPoint.enabled";
  for (size_t i = 0; i < plugins.multi_point.enabled.size(); ++i) {
    auto ok =
        instantiate(plugins.multi_point.enabled[i].name, mp_path + "[" + std::to_string(i) + "]");
    if (!ok) return Error{ok.error()};
  }
  for (const auto& ep : config::kExtensionPoints) {
    const auto& set = plugins.*ep.set;
    for (size_t i = 0; i < set.enabled.size(); ++i) {
      auto ok = instantiate(set.enabled[i].name, prefix + ".plugins." + std::string(ep.name) +
                                                     ".enabled[" + std::to_string(i) + "]");
      if (!ok) return Error{ok.error()};
    }
  }
  for (const auto& pc : profile.plugin_config) {
    if (!f->plugins_.count(pc.name) && registry.Find(pc.name) == nullptr) {
      return Error{pc.path + ": unknown plugin \"" + pc.name +
                   "\"; known plugins: " + Join(registry.Names())};
    }
  }

  // 2. Expand per extension point (upstream's expandMultiPointPlugins ordering):
  //    specific plugins that override a multiPoint entry, then multiPoint plugins, then the
  //    remaining specific plugins.
  std::map<std::string, int64_t> weights;
  for (const auto& r : plugins.score.enabled) {
    if (r.weight != 0) weights[r.name] = r.weight;
  }
  for (const auto& r : plugins.multi_point.enabled) {
    if (r.weight != 0 && !weights.count(r.name)) weights[r.name] = r.weight;
  }
  for (const auto& ep : config::kExtensionPoints) {
    const auto& set = plugins.*ep.set;
    std::vector<std::string> specific;
    std::set<std::string> specific_set;
    for (size_t i = 0; i < set.enabled.size(); ++i) {
      const auto& name = set.enabled[i].name;
      if (!Implements(f->plugins_[name].get(), ep.name)) {
        return Error{prefix + ".plugins." + std::string(ep.name) + ".enabled[" + std::to_string(i) +
                     "]: plugin \"" + name + "\" does not extend " + InterfaceName(ep.name)};
      }
      if (!specific_set.insert(name).second) {
        return Error{prefix + ".plugins." + std::string(ep.name) + ".enabled[" + std::to_string(i) +
                     "]: plugin \"" + name + "\" already registered as \"" +
                     InterfaceName(ep.name) + "\""};
      }
      specific.push_back(name);
    }
    std::set<std::string> disabled(set.disabled.begin(), set.disabled.end());
    std::vector<std::string> ordered;
    if (!disabled.count("*")) {
      std::set<std::string> overrides;
      std::vector<std::string> from_multi;
      std::set<std::string> from_multi_set;
      for (const auto& r : plugins.multi_point.enabled) {
        if (!Implements(f->plugins_[r.name].get(), ep.name)) continue;
        if (disabled.count(r.name)) continue;
        if (specific_set.count(r.name)) {
          overrides.insert(r.name);
          continue;
        }
        if (!from_multi_set.insert(r.name).second) {
          return Error{prefix + ".plugins.multiPoint: plugin \"" + r.name +
                       "\" already registered as \"" + InterfaceName(ep.name) + "\""};
        }
        from_multi.push_back(r.name);
      }
      for (const auto& n : specific) {
        if (overrides.count(n)) ordered.push_back(n);
      }
      for (const auto& n : from_multi) ordered.push_back(n);
      for (const auto& n : specific) {
        if (!overrides.count(n)) ordered.push_back(n);
      }
    } else {
      ordered = specific;
    }
    for (const auto& name : ordered) {
      const framework::Plugin* p = f->plugins_[name].get();
      std::string_view point = ep.name;
      if (point == "preEnqueue") Append(f->pre_enqueue_, p);
      if (point == "queueSort") {
        if (f->queue_sort_ != nullptr) {
          return Error{prefix + ".plugins.queueSort: only one queue sort plugin can be enabled"};
        }
        f->queue_sort_ = dynamic_cast<const framework::QueueSortPlugin*>(p);
      }
      if (point == "preFilter") Append(f->pre_filter_, p);
      if (point == "filter") Append(f->filter_, p);
      if (point == "postFilter") Append(f->post_filter_, p);
      if (point == "preScore") Append(f->pre_score_, p);
      if (point == "score") {
        Append(f->score_, p);
        auto w = weights.count(name) ? weights[name] : 1;
        f->score_weights_.push_back(w == 0 ? 1 : w);
      }
      if (point == "reserve") Append(f->reserve_, p);
      if (point == "permit") Append(f->permit_, p);
      if (point == "preBind") Append(f->pre_bind_, p);
      if (point == "bind") Append(f->bind_, p);
      if (point == "postBind") Append(f->post_bind_, p);
    }
  }
  if (f->queue_sort_ == nullptr) {
    return Error{prefix + ".plugins.queueSort: no queue sort plugin is enabled"};
  }
  if (f->bind_.empty()) {
    return Error{prefix + ".plugins.bind: at least one bind plugin is needed"};
  }
  return f;
}

// ---- queue side ----

Status Framework::RunPreEnqueuePlugins(const framework::PodInfo& pod) const {
  for (const auto* p : pre_enqueue_) {
    Status s = p->PreEnqueue(pod);
    if (!s.IsSuccess()) {
      s.WithPlugin(p->Name());
      if (!s.IsRejected()) {
        return Status::Error("running PreEnqueue plugin \"" + std::string(p->Name()) +
                             "\": " + s.Message())
            .WithPlugin(p->Name());
      }
      return s;
    }
  }
  return Status();
}

bool Framework::Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const {
  return queue_sort_->Less(a, b);
}

std::map<std::string, std::vector<framework::ClusterEventWithHint>, std::less<>> Framework::Events()
    const {
  std::map<std::string, std::vector<framework::ClusterEventWithHint>, std::less<>> out;
  for (const auto& [name, p] : plugins_) {
    if (const auto* e = dynamic_cast<const framework::EnqueueExtensions*>(p.get())) {
      out[name] = e->EventsToRegister();
    }
  }
  return out;
}

// ---- scheduling cycle ----

Status Framework::RunPreFilterPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                      framework::PreFilterResult* result,
                                      std::vector<std::string>* plugins_with_nodes) const {
  *result = framework::PreFilterResult();
  state.skip_filter_plugins.clear();
  state.skip_filter_mask = 0;
  Status returned = RunPreFilterLoop(state, pod, result, plugins_with_nodes);
  for (size_t i = 0; i < filter_.size() && i < 64; ++i) {
    if (state.skip_filter_plugins.count(filter_[i]->Name())) {
      state.skip_filter_mask |= 1ull << i;
    } else {
      Evaluated(filter_[i]->Name(), metrics::kFilter);
    }
  }
  return returned;
}

Status Framework::RunPreFilterLoop(framework::CycleState& state, const framework::PodInfo& pod,
                                   framework::PreFilterResult* result,
                                   std::vector<std::string>* plugins_with_nodes) const {
  Status returned;
  const auto& nodes = deps_.snapshot->List();
  for (const auto* p : pre_filter_) {
    framework::PreFilterResult r;
    Status s = Timed(state, p->Name(), metrics::kPreFilter,
                     [&] { return p->PreFilter(state, pod, nodes, &r); });
    if (s.IsSkip()) {
      state.skip_filter_plugins.emplace(p->Name());
      continue;
    }
    Evaluated(p->Name(), metrics::kPreFilter);
    if (!s.IsSuccess()) {
      s.WithPlugin(p->Name());
      if (s.code() == Code::kUnschedulableAndUnresolvable) return s;
      if (s.code() == Code::kUnschedulable) {
        // Keep running: preemption may still need the state of later PreFilter plugins.
        returned = std::move(s);
        continue;
      }
      return Status::Error("running PreFilter plugin \"" + std::string(p->Name()) +
                           "\": " + s.Message())
          .WithPlugin(p->Name());
    }
    if (r.AllNodes()) continue;
    plugins_with_nodes->emplace_back(p->Name());
    if (result->AllNodes()) {
      result->node_names = std::move(r.node_names);
    } else {
      std::set<std::string, std::less<>> both;
      for (const auto& n : *result->node_names) {
        if (r.node_names->count(n)) both.insert(n);
      }
      result->node_names = std::move(both);
    }
    if (result->node_names->empty()) {
      std::string msg = plugins_with_nodes->size() == 1
                            ? "node(s) didn't satisfy plugin " + plugins_with_nodes->front()
                            : "node(s) didn't satisfy plugin(s) " + GoList(*plugins_with_nodes) +
                                  " simultaneously";
      return Status(Code::kUnschedulableAndUnresolvable, msg);
    }
  }
  return returned;
}

Status Framework::RunFilterPlugins(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   const framework::NodeInfo& node) const {
  auto run = [&](const framework::FilterPlugin* p) -> Status {
    Status s = p->Filter(state, pod, node);
    if (s.IsSuccess() || s.IsRejected()) return s;
    return Status::Error("running \"" + std::string(p->Name()) +
                         "\" filter plugin: " + s.Message());
  };
  // Walk only the set bits of the plugins not skipped this cycle: a pod that most Filter plugins
  // skip (no volumes, no affinity, ...) pays nothing per node for them.
  const size_t n = filter_.size();
  uint64_t active = (n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1) & ~state.skip_filter_mask;
  while (active != 0) {
    const int i = std::countr_zero(active);
    active &= active - 1;
    Status s = run(filter_[i]);
    if (!s.IsSuccess()) return std::move(s).WithPlugin(filter_[i]->Name());
  }
  for (size_t i = 64; i < n; ++i) {  // never skipped, as before
    Status s = run(filter_[i]);
    if (!s.IsSuccess()) return std::move(s).WithPlugin(filter_[i]->Name());
  }
  return Status();
}

// Upstream's addGENominatedPods: a copy of the node and state with the nominated pods of priority
// >= the pod's (other than the pod itself) added. False when there were none.
namespace {
bool AddGENominatedPods(const Framework& f, const framework::PodInfo& pod,
                        const framework::CycleState& state, const framework::NodeInfo& node,
                        std::unique_ptr<framework::CycleState>* state_out,
                        std::unique_ptr<framework::NodeInfo>* node_out, Status* error) {
  if (node.node() == nullptr) return false;
  auto nominated = f.NominatedPodsForNode(node.name());
  if (nominated.empty()) return false;
  bool added = false;
  for (const auto& pi : nominated) {
    if (pi->Pod().Priority() < pod.Pod().Priority() || pi->Uid() == pod.Uid()) continue;
    if (!added) {
      *state_out = state.Clone();
      *node_out = std::make_unique<framework::NodeInfo>(node);
      added = true;
    }
    (*node_out)->AddPod(pi);
    Status s = f.RunPreFilterExtensionAddPod(**state_out, pod, *pi, **node_out);
    if (!s.IsSuccess()) {
      *error = std::move(s);
      return false;
    }
  }
  return added;
}
}  // namespace

Status Framework::RunFilterPluginsWithNominatedPods(const framework::CycleState& state,
                                                    const framework::PodInfo& pod,
                                                    const framework::NodeInfo& node) const {
  // Run once with the nominated pods of >= priority added (they must fit too), and if that
  // passes, once more without them (anti-affinity-like filters may pass only with them absent).
  std::unique_ptr<framework::CycleState> state_with;
  std::unique_ptr<framework::NodeInfo> node_with;
  Status error;
  const bool added = AddGENominatedPods(*this, pod, state, node, &state_with, &node_with, &error);
  if (!error.IsSuccess()) return error;
  if (!added) return RunFilterPlugins(state, pod, node);
  Status s = RunFilterPlugins(*state_with, pod, *node_with);
  if (!s.IsSuccess()) return s;
  return RunFilterPlugins(state, pod, node);
}

Status Framework::RunPreFilterExtensionAddPod(framework::CycleState& state,
                                              const framework::PodInfo& pod_to_schedule,
                                              const framework::PodInfo& pod_to_add,
                                              const framework::NodeInfo& node) const {
  for (const auto* p : pre_filter_) {
    const auto* ext = p->Extensions();
    if (ext == nullptr || state.skip_filter_plugins.count(p->Name())) continue;
    Status s = ext->AddPod(state, pod_to_schedule, pod_to_add, node);
    if (!s.IsSuccess()) {
      return Status::Error("running AddPod on PreFilter plugin \"" + std::string(p->Name()) +
                           "\": " + s.Message())
          .WithPlugin(p->Name());
    }
  }
  return Status();
}

Status Framework::RunPreFilterExtensionRemovePod(framework::CycleState& state,
                                                 const framework::PodInfo& pod_to_schedule,
                                                 const framework::PodInfo& pod_to_remove,
                                                 const framework::NodeInfo& node) const {
  for (const auto* p : pre_filter_) {
    const auto* ext = p->Extensions();
    if (ext == nullptr || state.skip_filter_plugins.count(p->Name())) continue;
    Status s = ext->RemovePod(state, pod_to_schedule, pod_to_remove, node);
    if (!s.IsSuccess()) {
      return Status::Error("running RemovePod on PreFilter plugin \"" + std::string(p->Name()) +
                           "\": " + s.Message())
          .WithPlugin(p->Name());
    }
  }
  return Status();
}

std::vector<framework::PodInfoPtr> Framework::NominatedPodsForNode(const std::string& node) const {
  if (deps_.nominator == nullptr || !deps_.nominator->HasNominatedPods()) return {};
  return deps_.nominator->NominatedPodsForNode(node);
}

void Framework::RunAsync(std::function<void()> fn) {
  if (deps_.run_async) {
    deps_.run_async(std::move(fn));
  } else {
    fn();
  }
}

Status Framework::RunPostFilterPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                       const framework::NodeToStatus& statuses,
                                       framework::PostFilterResult* result) const {
  std::vector<std::string> reasons;
  for (const auto* p : post_filter_) {
    framework::PostFilterResult r;
    Status s = p->PostFilter(state, pod, statuses, &r);
    if (s.IsSuccess()) {
      *result = r;
      return s;
    }
    if (s.code() == Code::kUnschedulableAndUnresolvable) return std::move(s).WithPlugin(p->Name());
    if (!s.IsRejected()) {
      return Status::Error(s.Message()).WithPlugin(p->Name());
    }
    for (const auto& r2 : s.reasons()) reasons.push_back(r2);
    if (r.mode == framework::PostFilterResult::Mode::kOverride) *result = r;
  }
  return Status(Code::kUnschedulable, std::move(reasons));
}

Status Framework::RunPreScorePlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                     const std::vector<const framework::NodeInfo*>& nodes) const {
  state.skip_score_plugins.clear();
  for (const auto* p : pre_score_) {
    Status s = Timed(state, p->Name(), metrics::kPreScore,
                     [&] { return p->PreScore(state, pod, nodes); });
    if (s.IsSkip()) {
      state.skip_score_plugins.emplace(p->Name());
      continue;
    }
    Evaluated(p->Name(), metrics::kPreScore);
    if (!s.IsSuccess()) {
      return Status::Error("running PreScore plugin \"" + std::string(p->Name()) +
                           "\": " + s.Message())
          .WithPlugin(p->Name());
    }
  }
  return Status();
}

Status Framework::RunScorePlugins(const framework::CycleState& state, const framework::PodInfo& pod,
                                  const std::vector<const framework::NodeInfo*>& nodes,
                                  ScoreTable* out) const {
  // Plugins that run this cycle, with their weights (at most a few dozen: no allocation once
  // the table's vectors have grown).
  out->plugins.clear();
  std::vector<const framework::ScorePlugin*> active;
  std::vector<int64_t> weights;
  active.reserve(score_.size());
  weights.reserve(score_.size());
  for (size_t i = 0; i < score_.size(); ++i) {
    if (!state.skip_score_plugins.empty() && state.skip_score_plugins.count(score_[i]->Name())) {
      continue;
    }
    active.push_back(score_[i]);
    weights.push_back(score_weights_[i]);
    out->plugins.push_back(score_[i]->Name());
    Evaluated(score_[i]->Name(), metrics::kScore);
  }
  const size_t np = active.size();
  const size_t nn = nodes.size();
  out->num_nodes = nn;
  if (out->per_plugin.size() < np) out->per_plugin.resize(np);
  for (size_t k = 0; k < np; ++k) out->per_plugin[k].resize(nn);
  std::mutex err_mu;
  std::optional<Status> error;
  std::atomic<bool> stop{false};
  deps_.parallelizer->Until(
      static_cast<int>(nn),
      [&](int i) {
        const auto idx = static_cast<size_t>(i);
        const framework::NodeInfo& node = *nodes[idx];
        for (size_t k = 0; k < np; ++k) {
          int64_t score = 0;
          Status s = active[k]->Score(state, pod, node, &score);
          if (!s.IsSuccess()) {
            std::lock_guard lock(err_mu);
            if (!error) {
              error = Status::Error("plugin \"" + std::string(active[k]->Name()) +
                                    "\" failed with: " + s.Message());
            }
            stop = true;
            return;
          }
          out->per_plugin[k][idx] = framework::NodeScore{&node.name(), score};
        }
      },
      &stop);
  if (error) return *error;
  for (size_t k = 0; k < np; ++k) {
    if (!active[k]->HasNormalizeScore()) continue;
    Status s = active[k]->NormalizeScore(state, pod, out->per_plugin[k]);
    if (!s.IsSuccess()) {
      return Status::Error("plugin \"" + std::string(active[k]->Name()) +
                           "\" failed with: " + s.Message());
    }
  }
  out->totals.assign(nn, 0);
  for (size_t k = 0; k < np; ++k) {
    const auto& list = out->per_plugin[k];
    const int64_t w = weights[k];
    for (size_t i = 0; i < nn; ++i) {
      const int64_t score = list[i].score;
      if (score > framework::kMaxNodeScore || score < framework::kMinNodeScore) {
        return Status::Error("plugin \"" + std::string(active[k]->Name()) +
                             "\" returns an invalid score " + std::to_string(score) +
                             ", it should in the range of [0, 100] after normalizing");
      }
      out->totals[i] += score * w;
    }
  }
  return Status();
}

Status Framework::RunReservePluginsReserve(framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const std::string& node) const {
  for (const auto* p : reserve_) {
    Status s =
        Timed(state, p->Name(), metrics::kReserve, [&] { return p->Reserve(state, pod, node); });
    if (!s.IsSuccess()) {
      if (s.IsRejected()) return std::move(s).WithPlugin(p->Name());
      return Status::Error("running Reserve plugin \"" + std::string(p->Name()) +
                           "\": " + s.Message())
          .WithPlugin(p->Name());
    }
  }
  return Status();
}

void Framework::RunReservePluginsUnreserve(framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const std::string& node) const {
  for (auto it = reserve_.rbegin(); it != reserve_.rend(); ++it) {
    (*it)->Unreserve(state, pod, node);
  }
}

Status Framework::RunPermitPlugins(framework::CycleState& state, framework::PodInfoPtr pod,
                                   const std::string& node) {
  std::map<std::string, framework::TimePoint> deadlines;
  const framework::TimePoint now = deps_.clock->Now();
  for (const auto* p : permit_) {
    framework::Duration timeout{0};
    Status s = Timed(state, p->Name(), metrics::kPermit,
                     [&] { return p->Permit(state, *pod, node, &timeout); });
    if (s.IsSuccess()) continue;
    if (s.IsWait()) {
      // Upstream caps every plugin's wait at 15 minutes.
      timeout = std::min(timeout, framework::kMaxPermitTimeout);
      deadlines[std::string(p->Name())] = now + timeout;
      continue;
    }
    if (s.IsRejected()) return std::move(s).WithPlugin(p->Name());
    return Status::Error("running Permit plugin \"" + std::string(p->Name()) + "\": " + s.Message())
        .WithPlugin(p->Name());
  }
  if (deadlines.empty()) return Status();
  auto wp = std::make_shared<framework::WaitingPod>(pod, node, std::move(deadlines), now);
  {
    std::lock_guard lock(waiting_mu_);
    waiting_[pod->Uid()] = std::move(wp);
  }
  return Status(Code::kWait, "one or more plugins asked to wait and no plugin rejected pod \"" +
                                 pod->Name() + "\"");
}

// ---- binding cycle ----

Status Framework::WaitOnPermit(const framework::PodInfo& pod) {
  auto wp = WaitingPodFor(pod.Uid());
  if (!wp) return Status();
  Status s = wp->Wait();
  {
    std::lock_guard lock(waiting_mu_);
    auto it = waiting_.find(pod.Uid());
    if (it != waiting_.end() && it->second == wp) waiting_.erase(it);
  }
  return s;
}

std::shared_ptr<framework::WaitingPod> Framework::WaitingPodFor(const std::string& uid) {
  std::lock_guard lock(waiting_mu_);
  auto it = waiting_.find(uid);
  return it == waiting_.end() ? nullptr : it->second;
}

Status Framework::RunPreBindPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                    const std::string& node) const {
  for (const auto* p : pre_bind_) {
    Status s =
        Timed(state, p->Name(), metrics::kPreBind, [&] { return p->PreBind(state, pod, node); });
    if (!s.IsSuccess()) {
      if (s.IsRejected()) return std::move(s).WithPlugin(p->Name());
      return Status::Error("running PreBind plugin \"" + std::string(p->Name()) +
                           "\": " + s.Message())
          .WithPlugin(p->Name());
    }
  }
  return Status();
}

Status Framework::RunBindPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                 const std::string& node) const {
  for (const auto* p : bind_) {
    Status s = Timed(state, p->Name(), metrics::kBind, [&] { return p->Bind(state, pod, node); });
    if (s.IsSkip()) continue;
    if (!s.IsSuccess()) {
      if (s.IsRejected()) return std::move(s).WithPlugin(p->Name());
      return Status::Error("running Bind plugin \"" + std::string(p->Name()) + "\": " + s.Message())
          .WithPlugin(p->Name());
    }
    return s;
  }
  return Status(Code::kSkip, "all bind plugins skipped the pod");
}

void Framework::RunPostBindPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                   const std::string& node) const {
  for (const auto* p : post_bind_) p->PostBind(state, pod, node);
}

std::optional<framework::TimePoint> Framework::ExpireWaitingPods(framework::TimePoint now) {
  std::vector<std::shared_ptr<framework::WaitingPod>> pods;
  {
    std::lock_guard lock(waiting_mu_);
    for (const auto& [uid, wp] : waiting_) pods.push_back(wp);
  }
  std::optional<framework::TimePoint> next;
  for (const auto& wp : pods) {
    wp->ExpireIfDue(now);
    auto d = wp->NextDeadline();
    if (d && (!next || *d < *next)) next = d;
  }
  return next;
}

size_t Framework::NumWaitingPods() const {
  std::lock_guard lock(waiting_mu_);
  return waiting_.size();
}

void Framework::IterateOverWaitingPods(const std::function<void(framework::WaitingPod&)>& fn) {
  std::vector<std::shared_ptr<framework::WaitingPod>> pods;
  {
    std::lock_guard lock(waiting_mu_);
    for (const auto& [uid, wp] : waiting_) pods.push_back(wp);
  }
  for (const auto& wp : pods) fn(*wp);
}

std::shared_ptr<framework::WaitingPod> Framework::GetWaitingPod(const std::string& uid) {
  return WaitingPodFor(uid);
}

void Framework::RejectWaitingPod(const std::string& uid, const std::string& plugin,
                                 const std::string& msg) {
  if (auto wp = WaitingPodFor(uid)) wp->Reject(plugin, msg);
}

std::map<std::string, std::vector<std::string>> Framework::PluginNamesByPoint() const {
  std::map<std::string, std::vector<std::string>> out;
  auto add = [&](const char* point, const auto& v) {
    for (const auto* p : v) out[point].emplace_back(p->Name());
  };
  add("preEnqueue", pre_enqueue_);
  out["queueSort"].emplace_back(queue_sort_->Name());
  add("preFilter", pre_filter_);
  add("filter", filter_);
  add("postFilter", post_filter_);
  add("preScore", pre_score_);
  add("score", score_);
  add("reserve", reserve_);
  add("permit", permit_);
  add("preBind", pre_bind_);
  add("bind", bind_);
  add("postBind", post_bind_);
  return out;
}

int64_t Framework::ScoreWeight(const std::string& plugin) const {
  for (size_t i = 0; i < score_.size(); ++i) {
    if (score_[i]->Name() == plugin) return score_weights_[i];
  }
  return 0;
}

}  // namespace berth::runtime
